"""How far the solver's register model is from what the lowering needs: per kernel and
`ws-schedule` option set, the peak registers per thread of a compute warp in the joint
model's own liveness (the schedule it chose, counted the way its register constraint
counts), against ws-register-budget's estimate for the lowered kernel and what ptxas
(`-v`, sm_90a, where installed) uses and spills.

    python tools/probes/register_model_gap.py [KERNEL[@OPTIONS] ...]

KERNEL is a path or a name in examples/kernels/ or test/Inputs/kernels/; OPTIONS are
ws-schedule's (`partner-latency=true`). Default: the attention kernels with and without
partner latency. Prints a markdown table.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from wsdialects.context import make_context  # noqa: E402
from wsdialects.diagnostics import parse_text  # noqa: E402
from wsdialects.tools.pipeline_spec import parse_pipeline  # noqa: E402

DEFAULT = [f"{k}@{o}" for k in ("flash_attention_bf16", "flash_attention_causal", "flash_attention_d64",
                                "flash_attention_bf16_bn176") for o in ("", "partner-latency=true")]


def find(name: str) -> Path:
    for d in (Path("."), ROOT / "examples" / "kernels", ROOT / "test" / "Inputs" / "kernels"):
        for p in (d / name, d / f"{name}.mlir"):
            if p.is_file():
                return p
    raise SystemExit(f"no kernel '{name}'")


def main(argv: list[str]) -> int:
    from wsdialects.lower.ptxas import find_ptxas, parse_report, run_ptxas
    from wsdialects.schedule.carried import register_peak
    from wsdialects.transforms.partition import kernels, main_loop
    from wsdialects.transforms.schedule import SchedulePass

    ptxas = find_ptxas()
    rows = ["| kernel | options | II, L | model peak / limit | ws-register-budget | ptxas regs, spill bytes |",
            "|---|---|---|---|---|---|"]
    for item in argv or DEFAULT:
        name, _, opts = item.partition("@")
        path = find(name)
        text = path.read_text()
        spec = f"ws-schedule{{arch=h100 {opts}}}"
        (pass_,) = parse_pipeline(spec)
        module = parse_text(text, str(path))
        kernel = next(iter(kernels(module)))
        lg, graph, sched = pass_.choose(kernel, main_loop(kernel))
        peak = register_peak(graph, sched)
        limit = graph.warps.reg_limit if graph.warps else None
        pass_.apply(make_context(), module)
        for p in parse_pipeline("ws-hopper"):
            p.apply(make_context(), module)
        est = sorted({a.value.data for op in module.walk() if (a := op.attributes.get("ws.regs_per_thread"))})
        used = ""
        if ptxas:
            from wsdialects.lower.ptx import llvm_to_ptx
            from wsdialects.lower.to_llvm import lower_module

            rc, report = run_ptxas(llvm_to_ptx(lower_module(module).llvm_ir), ptxas)
            info = next(iter(parse_report(report).values()), None)
            used = f"{info.registers}, {info.spill_stores}" if rc == 0 and info else f"exit {rc}"
        rows.append(f"| {path.stem} | {opts or '(default)'} | {sched.ii}, {sched.length} | "
                    f"{peak} / {limit} | {', '.join(map(str, est))} | {used} |")
        print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv[1:] if not re.match(r"^-", a)]))
