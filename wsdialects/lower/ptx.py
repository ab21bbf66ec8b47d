"""LLVM IR text -> PTX for sm_90a through llvmlite's NVPTX back end."""

from __future__ import annotations

from wsdialects.diagnostics import WsError

CPU = "sm_90a"
FEATURES = "+ptx81"

_initialized = False


def _init():
    global _initialized
    import llvmlite.binding as llvm

    if not _initialized:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        _initialized = True
    return llvm


def llvm_to_ptx(text: str, opt: int = 3, module=None) -> str:
    """Assemble LLVM IR text into PTX (`.version 8.1 .target sm_90a`; 8.1 for the vector
    `red.global.add.v2.f32` of tile.atomic_add). Given the `module` the text was lowered
    from, also run ptxas where it is installed and warn, at the kernel function, where it
    spills registers (wsdialects/lower/ptxas.py)."""
    llvm = _init()
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as e:  # our own LLVM IR is malformed: an internal error
        raise RuntimeError(f"generated LLVM IR does not parse: {e}") from None
    tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu=CPU, features=FEATURES, opt=opt)
    if opt:
        try:
            pto = llvm.create_pipeline_tuning_options(speed_level=min(opt, 3))
            pb = llvm.create_pass_builder(tm, pto)
            pm = pb.getModulePassManager()
            pm.run(mod, pb)
        except AttributeError:  # older llvmlite: no new pass manager
            pass
    ptx = tm.emit_assembly(mod)
    if ".target sm_90a" not in ptx:
        raise WsError("llvmlite's NVPTX back end did not produce sm_90a PTX", "ws-opt")
    if module is not None:
        from wsdialects.lower.ptxas import check_ptx

        check_ptx(ptx, module)
    return ptx
