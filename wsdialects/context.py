"""The dialects wsdialects reads and writes, and the xDSL `Context` that holds them.

Our tools parse into `make_context()`: builtin, func, scf, math, our tensor-aware arith
(wsdialects/arith.py) and the project's dialects. A host compiler built on xDSL loads the
same dialects into its own context instead (docs/embedding.md):

    from xdsl.context import Context
    import wsdialects

    ctx = Context()
    wsdialects.register_dialects(ctx)     # registered, each loaded on first use
    # or: {**xdsl.dialects.get_all_dialects(), **wsdialects.dialects()}, as the host likes

`arith` is the one name we share with xDSL: ours is xDSL's arith with `cmpi`, `cmpf`,
`select` and the int/float casts elementwise on tensors (as in MLIR), which tile kernels use
for masks. `register_dialects` registers it only where the context has no `arith` yet; a
context that already holds xDSL's keeps it, and a kernel that compares or selects on tensors
then fails xDSL's verifier in it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect

# (dialect name, module, attribute): every dialect wsdialects reads or writes, imported on first use
DIALECT_TABLE: tuple[tuple[str, str, str], ...] = (
    ("builtin", "xdsl.dialects.builtin", "Builtin"),
    ("func", "xdsl.dialects.func", "Func"),
    ("scf", "xdsl.dialects.scf", "Scf"),
    ("math", "xdsl.dialects.math", "Math"),
    ("arith", "wsdialects.arith", "Arith"),
    ("tile", "wsdialects.tile", "Tile"),
    ("aref", "wsdialects.aref", "Aref"),
    ("warp_group", "wsdialects.warp_group", "WarpGroup"),
    ("mma", "wsdialects.mma", "Mma"),
    ("nvgpu", "wsdialects.nvgpu", "Nvgpu"),
    ("nvvm", "wsdialects.nvvm", "Nvvm"),
    ("layout", "wsdialects.layout", "LayoutDialect"),
)
XDSL_DIALECTS = ("builtin", "func", "scf", "math")  # xDSL's own, as xDSL ships them


def _loader(module: str, attr: str) -> Callable[[], Dialect]:
    return lambda: getattr(importlib.import_module(module), attr)


def dialects() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> factory of the Dialect, for every dialect wsdialects reads or writes (the
    shape of xDSL's `get_all_dialects()`; each imported when its factory is called)."""
    return {name: _loader(module, attr) for name, module, attr in DIALECT_TABLE}


def register_dialects(ctx: Context) -> list[str]:
    """Register in `ctx` (without loading them) the dialects wsdialects reads or writes that
    `ctx` does not know yet; the names registered. A name the context already has (registered
    or loaded) keeps the context's dialect: see the module docstring about `arith`."""
    known = set(ctx.registered_dialect_names) | {d.name for d in ctx.loaded_dialects}
    added = []
    for name, factory in dialects().items():
        if name not in known:
            ctx.register_dialect(name, factory)
            added.append(name)
    return added


_loaded: list[Dialect] = []


def make_context() -> Context:
    """A fresh context with every dialect wsdialects reads or writes, loaded."""
    if not _loaded:
        _loaded.extend(factory() for factory in dialects().values())
    ctx = Context()
    for d in _loaded:
        ctx.load_dialect(d)
    return ctx
