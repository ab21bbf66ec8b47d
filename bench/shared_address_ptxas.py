"""ptxas -v (on the CPU, no GPU run) of the kernels whose register pressure the shared-tile
addressing shapes: registers per thread and spill bytes per kernel function.

    python bench/shared_address_ptxas.py [--ll-dir DIR] [--need]

Kernels: the stored schedule of the attention backward (ws-hopper, as
test/python/test_attention_bwd_scheduled.py compiles it), the default backward main kernel
(attention_bwd.DEFAULT_FORM, bf16 d 128, causal and not), examples/kernels/flash_attention*.mlir
and gemm.mlir under ws-hopper. `--need`: also ptxas's need, the smallest uniform `.maxnreg` at which
it assembles the kernel without spills (setmaxnreg taken out: test/lower/test_register_budget.py's
measure; ">255": it spills even at 255)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "test"), str(ROOT / "test" / "lower")]

from wsdialects.lower.ptx import llvm_to_ptx  # noqa: E402
from wsdialects.lower.ptxas import find_ptxas, parse_report, run_ptxas  # noqa: E402
from wsdialects.lower.to_llvm import lower_module  # noqa: E402
from wsdialects.runtime.compiler import parse_source, source_text  # noqa: E402
from wsdialects.tools.pipeline_spec import build_pipeline  # noqa: E402


def _lowered(text: str, file: str, pipeline: str = "ws-hopper") -> str:
    module = parse_source(text, file)
    build_pipeline(pipeline, file).apply(None, module)
    return lower_module(module).llvm_ir


def kernels():
    from wsdialects.runtime import attention_bwd_kernels as gen
    from wsdialects.runtime.attention_bwd import DEFAULT_FORM, FORMS

    stored = ROOT / "test" / "Inputs" / "kernels" / "scheduled" / "flash_attention_bwd_bf16.mlir"
    yield "scheduled backward (bf16 d128)", stored.read_text(), str(stored)
    for causal in (False, True):
        opts = gen.form_options("backward", 128, **FORMS[DEFAULT_FORM])
        yield (f"default backward bf16 d128{' causal' if causal else ''}",
               gen.kernel_text("backward", "bf16", 128, causal, **opts), "<backward>")
    for name in ("flash_attention", "flash_attention_causal", "gemm"):
        path = ROOT / "examples" / "kernels" / f"{name}.mlir"
        yield name, path.read_text(), str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ll-dir", help="also write each kernel's LLVM IR and PTX here")
    ap.add_argument("--need", action="store_true", help="also the smallest uniform .maxnreg without spills")
    args = ap.parse_args()
    ptxas = find_ptxas()
    if ptxas is None:
        sys.exit("ptxas not found")
    if args.need:
        from test_register_budget import _need
    print("| kernel | function | registers | spill stores | spill loads | need |")
    print("|---|---|---|---|---|---|")
    for label, text, file in kernels():
        ll = _lowered(text, file)
        ptx = llvm_to_ptx(ll)
        if args.ll_dir:
            stem = Path(args.ll_dir) / label.replace(" ", "_").replace("(", "").replace(")", "")
            stem.with_suffix(".ll").write_text(ll)
            stem.with_suffix(".ptx").write_text(ptx)
        rc, report = run_ptxas(ptx, ptxas)
        if rc != 0:
            print(f"| {label} | ptxas failed: {report.strip().splitlines()[-1]} | | | |")
            continue
        need = (_need(ptx, ptxas) or ">255") if args.need else ""
        for fn, info in parse_report(report).items():
            print(f"| {label} | {fn} | {info.registers} | {info.spill_stores} | {info.spill_loads} | {need} |",
                  flush=True)


if __name__ == "__main__":
    main()
