"""The LLVM emitter assembled from its parts (one class, one mixin per concern) and the
module entry points: `lower_to_nvgpu` runs the lowering passes a module still needs,
`lower_module` writes LLVM IR text for every `tile.kernel` function."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from wsdialects.diagnostics import error_at, location_of
from wsdialects.lower.llvm.control import ControlFlow
from wsdialects.lower.llvm.elementwise import Elementwise
from wsdialects.lower.llvm.frame import KernelFrame
from wsdialects.lower.llvm.memory import Memory
from wsdialects.lower.llvm.nvgpu_ops import NvgpuOps
from wsdialects.lower.llvm.shared_tiles import SharedTiles
from wsdialects.lower.llvm.transpose_copy import TransposeCopy
from wsdialects.lower.llvm.types import DATALAYOUT, TRIPLE, Lowered
from wsdialects.lower.llvm.wgmma import Wgmma


class Kernel(KernelFrame, Elementwise, Memory, SharedTiles, TransposeCopy, NvgpuOps, Wgmma, ControlFlow):
    """The thread-level emitter of one kernel (`Kernel(func).lower()`)."""


def lower_to_nvgpu(module: ModuleOp) -> ModuleOp:
    """`module` with aref rings, warp groups and the dots of warp-group branches lowered
    and every tile of a branch given its layout (ws-lower-aref, ws-lower-warp-groups,
    ws-stage-operands, ws-lower-mma, ws-lower-layouts: those the module still needs); a lowered copy if
    the module needed any, else the module itself."""
    from wsdialects.diagnostics import verify
    from wsdialects.lower.lower_aref import LowerArefPass
    from wsdialects.lower.lower_layouts import LowerLayoutsPass, needs_layouts
    from wsdialects.lower.lower_mma import LowerMmaPass, needs_lowering
    from wsdialects.lower.lower_warp_groups import LowerWarpGroupsPass
    from wsdialects.lower.stage_operands import StageOperandsPass

    if any(o.name.startswith(("aref.", "warp_group.region")) for o in module.walk()):
        passes = [LowerArefPass(), LowerWarpGroupsPass(), StageOperandsPass(), LowerMmaPass(), LowerLayoutsPass()]
    elif needs_lowering(module):
        passes = [StageOperandsPass(), LowerMmaPass(), LowerLayoutsPass()]
    elif needs_layouts(module):
        passes = [LowerLayoutsPass()]
    else:
        return module
    module = module.clone()
    for p in passes:
        p.apply(None, module)
        verify(module)
    return module


def _one_namespace(kernel, named: dict) -> None:
    """Kernels of nested modules may share a name in MLIR (one per symbol table), not in
    the one LLVM module they are lowered to: an error at the second (was invalid LLVM IR)."""
    name = kernel.sym_name.data
    if name in named:
        loc = location_of(named[name])
        where = f" at line {loc[1]}" if loc else ""
        raise error_at(kernel, f"@{name} is a second tile.kernel of that name (the first is{where}, in another "
                               "module): the kernels are lowered to one LLVM module, where each name is one "
                               "function; rename one")
    named[name] = kernel


def lower_module(module: ModuleOp) -> Lowered:
    """LLVM IR text of every `tile.kernel` function of a warp-specialized module (after
    ws-specialize, or after the lowering passes of ws-hopper)."""
    module = lower_to_nvgpu(module)
    bodies, infos, decls, attrs, named, types = [], [], set(), [], {}, {}
    for op in module.walk():
        if op.name == "func.func" and "tile.kernel" in op.attributes:
            _one_namespace(op, named)
            k = Kernel(op)
            text, info, attr = k.lower()
            i = len(attrs)
            bodies.append(text.replace("#{ATTR}", f"#{i}"))
            attrs.append(f"attributes #{i} = {{ {attr} }}")
            infos.append(info)
            decls |= k.decls
            types.update(k.types)
    if not bodies:
        funcs = [op for op in module.walk() if op.name == "func.func"]
        if funcs:  # at the function the user probably meant
            raise error_at(funcs[0], f"no tile.kernel function to lower: @{funcs[0].sym_name.data} has no "
                                     f"'tile.kernel' attribute")
        raise error_at(module, "no tile.kernel function to lower")
    head = [f'target datalayout = "{DATALAYOUT}"', f'target triple = "{TRIPLE}"', "",
            *[types[t] for t in sorted(types)], *([""] if types else []),
            "@__ws_smem = external addrspace(3) global [0 x i8], align 1024", ""]
    text = "\n".join(head + bodies + [""] + sorted(decls) + [""] + attrs) + "\n"
    return Lowered(text, infos)
