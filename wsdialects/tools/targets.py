"""`ws-opt -t mlir|llvm|ptx`: the text of a module for each target.

`-t llvm` and `-t ptx` write LLVM IR / PTX for the H100 from the output of `ws-hopper`.
Given less, they say what they do instead of lowering quietly:

- a kernel that is not warp-specialized (no `warp_group.region`, e.g. `-t ptx` with no
  pass) is refused, at the kernel, with the command to run:
  `k.mlir:4:3: error: -t ptx: @matmul is not warp-specialized yet; run the Hopper
  pipeline first: ws-opt k.mlir -p ws-hopper -t ptx` (when ws-hopper or ws-specialize ran
  and left the kernel alone, e.g. one with no loop of TMA loads, the error says that
  instead, next to the pass's remark);
- IR that is warp-specialized but not lowered (after `-p ws-specialize`) gets the
  lowering half of ws-hopper (ws-lower-aref, ws-lower-warp-groups, ws-lead-warp, ws-stage-operands, ws-lower-mma,
  ws-lower-layouts, ws-version-masks, ws-register-budget, and ws-verify-sync), with a remark that says so
  and what differs from `-p ws-hopper`: the organisation and ring depths stay as ws-specialize
  made them (ws-hopper chooses them per kernel, ws-choose-organisation, and shrinks the rings to fit
  shared memory). `-p 'ws-specialize{depth=4 mma-depth=1}' -t ptx` on a kernel whose rings fit is
  therefore the same PTX as `-p 'ws-hopper{auto=false}' -t ptx`.
"""

from __future__ import annotations

from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from wsdialects.diagnostics import WsError, error_at, remark, verify

TARGETS = ("mlir", "llvm", "ptx")


def print_mlir(module: ModuleOp, generic: bool = False, debuginfo: bool = False) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    out.write("\n")
    return out.getvalue()


def _missing_lowering(module: ModuleOp) -> list:
    """The lowering passes `module` still needs: the lowering half of ws-hopper
    (`lowering_passes`), from the first stage the IR has not been through."""
    from wsdialects.lower.hopper import lowering_passes
    from wsdialects.lower.lower_layouts import needs_layouts
    from wsdialects.lower.lower_mma import needs_lowering

    passes = lowering_passes()
    names = [p.name for p in passes]
    if any(o.name.startswith(("aref.", "warp_group.region")) for o in module.walk()):
        return passes
    if needs_lowering(module):  # dots in branches: staged operands first (ws-stage-operands)
        return passes[names.index("ws-stage-operands"):]
    if needs_layouts(module):
        return passes[names.index("ws-lower-layouts"):]
    return []


_SPECIALIZING = ("ws-hopper", "ws-specialize", "ws-distribute", "ws-partition")


def complete_lowering(module: ModuleOp, target: str, file: str, ran: tuple[str, ...] = ()) -> None:
    """Refuse a kernel that is not warp-specialized; run the lowering `module` still
    needs, in place, with a remark (see the module docstring). `ran`: the names of the
    passes that ran before (a kernel they left alone is not sent back to them)."""
    from wsdialects.tile import KERNEL_ATTR
    from wsdialects.transforms.verify_sync import verify_sync

    kernels = [o for o in module.walk() if o.name == "func.func" and KERNEL_ATTR in o.attributes]
    for k in kernels:
        if not any(o.name in ("warp_group.region", "nvgpu.wg.dispatch") for o in k.walk()):
            name = k.sym_name.data
            done = next((p for p in _SPECIALIZING if p in ran), None)
            if done:  # the pass had its say in a remark (no loop with a TMA load, ...)
                raise error_at(k, f"-t {target}: @{name} is not warp-specialized ({done} left it as it is, see "
                                  "its remark); the Hopper lowering needs a kernel whose main loop loads tiles "
                                  "with tile.desc_load", file)
            shown = file if file not in ("<stdin>", "<input>") else "FILE"
            raise error_at(k, f"-t {target}: @{name} is not warp-specialized yet; run the Hopper "
                              f"pipeline first: ws-opt {shown} -p ws-hopper -t {target}", file)
    passes = _missing_lowering(module)
    if not kernels or not passes:
        return  # nothing to lower (lower_module reports a module without a kernel)
    remark(kernels[0], f"-t {target}: the IR is not lowered yet; running "
                       f"{','.join(p.name for p in passes)} (the lowering half of ws-hopper); the rings keep "
                       "the depths they have (-p ws-hopper would choose the organisation and depths per kernel, "
                       "less depth where shared memory is short)")
    verify_sync(module, internal=False)
    for p in passes:
        p.apply(None, module)
        verify(module, file)
    verify_sync(module, internal=False)


def check_target(target: str) -> None:
    if target not in TARGETS:
        from wsdialects.tools.driver_common import did_you_mean

        raise WsError(f"unknown target '{target}'{did_you_mean(target, TARGETS)}; targets: {', '.join(TARGETS)}",
                      "ws-opt")


def emit(module: ModuleOp, target: str, generic: bool = False, debuginfo: bool = False,
         file: str = "<input>", ran: tuple[str, ...] = ()) -> str:
    """The text of `module` for `target` (llvm / ptx may lower `module` in place first;
    `ran`: the passes that ran on it, for the diagnostics)."""
    check_target(target)
    if target == "mlir":
        return print_mlir(module, generic, debuginfo)
    from wsdialects.lower.to_llvm import lower_module  # stages 9-11: LLVM IR text, PTX

    complete_lowering(module, target, file, ran)
    try:
        text = lower_module(module).llvm_ir
    except WsError as e:
        if e.file == "<input>" and not e.line:  # about the whole module: the start of the file
            e.file, e.line, e.col = file, 1, 1
        raise
    if target == "ptx":
        from wsdialects.lower.ptx import llvm_to_ptx

        text = llvm_to_ptx(text, module=module)  # ptxas's spill report, where installed
    return text
