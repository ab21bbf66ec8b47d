"""The xDSL context every wsdialects tool parses into: builtin, func, scf, math,
our tensor-aware arith, and the project's dialects."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf

from wsdialects.arith import Arith
from wsdialects.aref import Aref
from wsdialects.layout import LayoutDialect
from wsdialects.mma import Mma
from wsdialects.nvgpu import Nvgpu
from wsdialects.nvvm import Nvvm
from wsdialects.tile import Tile
from wsdialects.warp_group import WarpGroup

DIALECTS = (Builtin, Func, Scf, Math, Arith, Tile, Aref, WarpGroup, Mma, Nvgpu, Nvvm, LayoutDialect)


def make_context() -> Context:
    """A fresh context with every dialect wsdialects reads or writes."""
    ctx = Context()
    for d in DIALECTS:
        ctx.load_dialect(d)
    return ctx
