"""Triton kernels in: TTIR (as Triton 3.4-3.9 print it) imported into the `tile` dialect.

    from wsdialects.triton import import_ttir
    module = import_ttir(k.asm["ttir"], "kernel.ttir")   # a verified tile-dialect module

`ws-opt kernel.ttir` (or an .mlir file holding TTIR) and `wsdialects.parse_file` import at
read time, so every pass and pipeline takes TTIR unchanged; there is no import pass.
Diagnostics on an imported kernel, from the import, the verifier or any later pass, point
at the user's Python source (`kernel.py:12:15: error: ...`): every op carries its Triton
location's frame in the user's file.

The package: `types.py` and `dialect.py` read the `tt` types and ops, `locations.py` turns
Triton's `loc(...)` into the user's frames, `parser.py` reads the text, `convert.py` turns
`tt` into `tile`.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError

from wsdialects.diagnostics import WsError

__all__ = ["import_ttir", "is_ttir", "parse_source"]

_TT_OP = re.compile(r"^[ \t]*(?:%[^=\n]*=[ \t]*)?\"?tt\.\w", re.M)


def is_ttir(text: str) -> bool:
    """Whether `text` holds TTIR: a `tt.func` or another `tt.` op at the start of a line."""
    return _TT_OP.search(text) is not None


def import_ttir(text: str, filename: str = "<ttir>", num_warps: int = 4) -> ModuleOp:
    """The verified `tile`-dialect module of TTIR text: each `tt.func` becomes a `func.func`
    with `tile.kernel` and `tile.num_warps` (the module's `"ttg.num-warps"` if it has one, else
    `num_warps`). Raises WsError at file:line:col (the user's Python source where Triton
    recorded it, else the TTIR text) on anything it cannot read or express."""
    from wsdialects.diagnostics import _span_line_col, verify
    from wsdialects.triton.convert import convert
    from wsdialects.triton.parser import parse_ttir

    try:
        tt_module, python_locs = parse_ttir(text, filename)
    except ParseError as e:
        line, col = _span_line_col(e.span)
        msg = e.msg
        m = re.match(r"Operation ([\w.]+) is not registered", msg)
        if m:
            from wsdialects.triton.dialect import unsupported_message

            msg = unsupported_message(m.group(1))
        raise WsError(msg, filename, line, col) from None
    module = convert(tt_module, filename, python_locs, num_warps)
    verify(module, filename)
    return module


def parse_source(text: str, filename: str = "<input>") -> ModuleOp:
    """What every reader of kernel files calls (`ws-opt`, `wsdialects.parse_file`): TTIR text
    (`is_ttir`) imported with `import_ttir`, anything else parsed and verified as MLIR."""
    if is_ttir(text):
        return import_ttir(text, filename)
    from wsdialects.diagnostics import parse_text

    return parse_text(text, filename)
