"""wsdialects: automatic warp specialization for Hopper GPUs, on xDSL.

    import wsdialects
    module = wsdialects.parse_file("gemm.mlir")
    wsdialects.interpret(module, "matmul", grid, args)
    k = wsdialects.compile("gemm.mlir", pipeline="ws-hopper", depth=3)   # .ptx, k[grid](*tensors)
    k = wsdialects.autotune("gemm.mlir", configs=[wsdialects.Config(depth=3), ...], key=["M", "N", "K"])
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from wsdialects.diagnostics import WsError, parse_text

__all__ = ["Config", "Deadlock", "InterpretError", "WsError", "autotune", "compile", "interpret", "parse",
           "parse_file"]


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


def __getattr__(name: str):
    # Imported on first use: `import wsdialects` (and so `ws-opt`) needs neither numpy
    # (the interpreter) nor llvmlite or CUDA (`compile`).
    if name in ("Deadlock", "InterpretError", "interpret"):
        import wsdialects.interpreter as _interpreter

        return getattr(_interpreter, name)
    if name == "compile":
        from wsdialects.runtime import compile as _compile

        return _compile
    if name in ("autotune", "Config"):
        import wsdialects.runtime.tuner as _tuner

        return getattr(_tuner, name)
    raise AttributeError(f"module 'wsdialects' has no attribute '{name}'")
