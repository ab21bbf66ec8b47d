"""wsdialects: automatic warp specialization for Hopper GPUs, on xDSL.

    import wsdialects
    module = wsdialects.parse_file("gemm.mlir")
    wsdialects.interpret(module, "matmul", grid, args)
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from wsdialects.diagnostics import WsError, parse_text
from wsdialects.interpreter import Deadlock, InterpretError, interpret

__all__ = ["Deadlock", "InterpretError", "WsError", "interpret", "parse", "parse_file"]


def parse(text: str, filename: str = "<string>") -> ModuleOp:
    """Parse and verify MLIR text; raises WsError (file:line:col) on bad input."""
    return parse_text(text, filename)


def parse_file(path: str) -> ModuleOp:
    """Parse and verify an .mlir file; raises WsError on bad input."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise WsError(f"cannot read input: {e.strerror}", str(path)) from None
    return parse_text(text, str(path))
