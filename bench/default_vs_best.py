"""Default versus best (issue 40): for every kernel, `ws-hopper` with no options (the organisation
ws-choose-organisation's model picks) against the variants `wsdialects.autotune` is given here
(`CONFIGS`: the fixed organisation, persistent, the ping-pong team, two CTAs per SM, ...), and the
torch op a user would call instead, at 8192-class shapes.

    python bench/default_vs_best.py [--only NAME,...] [--ks 256,1024,4096,16384] [--ls 4096,16384]
                                    [--out DIR] [--name SUFFIX] [--date D] [--rep MS]
    python bench/default_vs_best.py --dry-run     # no GPU: compiles every kernel x config, prints the plan

Kernels: the bundled GEMMs (examples/kernels/gemm*.mlir) and attention forward kernels
(examples/kernels/flash_attention*.mlir, d 128 / 64, causal or not), the GEMM kinds
(test/Inputs/kernels/gemm_kinds/, bench/gemm_kinds_specs.py) and kernels of our own the tests do not
special-case (bench/kernels/defaults/). Per row: each config's time (`bench.cuda_timer`, CUDA events,
median), default / best (1.00 when the default is the best; the target is >= 0.97), the best config,
and default / torch and best / torch. Outputs are checked against the torch op first (rel. error
above 1e-2 is reported as WRONG). Writes DIR/<date>-default-vs-best-<device><name>.md (default
bench/results) after every kernel.
"""

from __future__ import annotations

import argparse
import datetime
import math
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import wsdialects  # noqa: E402
from wsdialects import Config  # noqa: E402

EX = ROOT / "examples" / "kernels"
OWN = ROOT / "bench" / "kernels" / "defaults"
KINDS_DIR = ROOT / "test" / "Inputs" / "kernels" / "gemm_kinds"

# What the autotuner is given: the fixed organisation and the variants measured in bench/results.
CONFIGS = [
    Config("ws-hopper", auto=False),
    Config("ws-hopper", auto=False, persistent=True),
    Config("ws-hopper", auto=False, persistent=True, cooperative=2, pingpong=True),
    Config("ws-hopper", auto=False, cooperative=2, pingpong=True),
    Config("ws-hopper", auto=False, persistent=True, ctas_per_sm=2),
    Config("ws-hopper", auto=False, ctas_per_sm=2),
]
DEFAULT = Config("ws-hopper")


def short(cfg: Config) -> str:
    """A config's column name in the table of every config's time."""
    o = cfg.options
    words = (["persistent"] if o.get("persistent") else []) + (["team"] if o.get("cooperative", 1) > 1 else []) \
        + ([f"{o['ctas_per_sm']} CTAs/SM"] if o.get("ctas_per_sm", 1) > 1 else [])
    return " + ".join(words) or ("fixed" if o.get("auto") is False else "default")


def organisation(k) -> str:
    """What ws-hopper built, from the kernel's `ws.organisation` (the model's choice for the default)."""
    m = re.search(r"ws\.organisation = \{([^}]*)\}", k.ir)
    if not m:
        return "-"
    o = dict(re.findall(r'"?([\w-]+)"? = (\w+)', m.group(1)))
    words = ["persistent" if o.get("persistent") == "true" else "one tile per CTA"]
    if int(o.get("cooperative", "1")) > 1:
        words.append("team" if o.get("pingpong") == "true" else "lockstep team")
    if int(o.get("ctas-per-sm", "1")) > 1:
        words.append(f"{o['ctas-per-sm']} CTAs/SM")
    return " + ".join(words) + f", depth {o.get('depth', '?')}"


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass
class Bench:
    name: str
    path: Path
    shape: str  # the problem, as printed
    setup: Callable  # torch -> {"launch": compiled -> fn, "torch": fn, "out": tensor, "ref": fn -> tensor, "flops"}


def _gemm_plain(path: Path, K: int) -> Bench:
    def setup(torch):
        from gemm_variants import problem

        p = problem(torch, K)
        return {"launch": p["launch"], "torch": p["cublas"], "out": p["c"], "ref": lambda: p["ref"], "flops": p["flops"]}
    return Bench(path.stem, path, f"M = N = 8192, K = {K}", setup)


def _attention(path: Path, L: int, d: int, causal: bool, dtype: str) -> Bench:
    def setup(torch):
        F = torch.nn.functional
        B, H = 4, 32
        dt = getattr(torch, {"fp16": "float16", "bf16": "bfloat16"}[dtype])
        q, k, v = (torch.randn(B * H, L, d, device="cuda", dtype=dt) for _ in range(3))
        o = torch.empty_like(q)
        # torch sees (B, H, L, d): a 3-d (B*H, L, d) call falls back to SDPA's math backend (L x L scores)
        q4, k4, v4 = (t.view(B, H, L, d) for t in (q, k, v))
        scale = 1 / math.sqrt(d)
        grid = (cdiv(L, 128), B * H)
        flops = 4.0 * B * H * L * L * d / (2 if causal else 1)
        sdpa = lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal)  # noqa: E731
        return {"launch": lambda kern: (lambda: kern[grid](q, k, v, o, L, scale)), "torch": sdpa, "out": o,
                "ref": lambda: sdpa().view(B * H, L, d), "flops": flops}
    return Bench(path.stem, path, f"B 4, H 32, L {L}, d {d}{', causal' if causal else ''}, {dtype}", setup)


def _kind(key: str, K: int) -> Bench:
    from gemm_kinds_specs import KINDS

    kind = KINDS[key]

    def setup(torch):
        s = kind.setup(torch, K)
        peer = s["peers"][0][1]
        return {"launch": s["launcher"], "torch": peer, "out": s["out"], "ref": lambda: s["ref"],
                "flops": kind.flops(K)}
    return Bench(f"kind {key}: {Path(kind.file).stem}", KINDS_DIR / kind.file, f"{kind.problem}, K = {K}", setup)


def _own_bias_relu(K: int) -> Bench:
    def setup(torch):
        M = N = 8192
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        w = (torch.randn(N, K, device="cuda") * K ** -0.5).half()
        bias = torch.randn(N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        grid = (cdiv(M, 128), cdiv(N, 128))
        F = torch.nn.functional
        return {"launch": lambda k: (lambda: k[grid](a, w, bias, c, K)), "out": c,
                "torch": lambda: F.relu(F.linear(a, w, bias)), "ref": lambda: F.relu(F.linear(a, w, bias)),
                "flops": 2.0 * M * N * K}
    return Bench("own gemm_bias_relu", OWN / "gemm_bias_relu.mlir", f"M = N = 8192, K = {K}", setup)


def _own_small_k() -> Bench:
    def setup(torch):
        M = N = 8192
        a = torch.randn(M, 128, device="cuda", dtype=torch.float16)
        b = torch.randn(N, 128, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        grid = (cdiv(M, 128) * cdiv(N, 128),)
        return {"launch": lambda k: (lambda: k[grid](a, b, c, M)), "out": c, "torch": lambda: a @ b.T,
                "ref": lambda: a @ b.T, "flops": 2.0 * M * N * 128}
    return Bench("own small_k_gemm", OWN / "small_k_gemm.mlir", "M = N = 8192, K = 128", setup)


def plan(ks: list[int], ls: list[int]) -> list[Bench]:
    out = [_gemm_plain(EX / "gemm.mlir", K) for K in ks]
    for L in ls:
        for name, d, causal, dt in [("flash_attention", 128, False, "fp16"), ("flash_attention_bf16", 128, False, "bf16"),
                                    ("flash_attention_causal", 128, True, "fp16"), ("flash_attention_d64", 64, False, "fp16"),
                                    ("flash_attention_causal_d64", 64, True, "fp16")]:
            out.append(_attention(EX / f"{name}.mlir", L, d, causal, dt))
    for key in "abcdef":
        out += [_kind(key, K) for K in ks if K >= 1024]
    out += [_own_bias_relu(K) for K in ks] + [_own_small_k()]
    return out


def _fmt(x: float) -> str:
    return f"{x:.2f}" if x == x else "-"


_COMPILED: dict = {}  # (kernel file, pipeline) -> compiled kernel, or the exception it raised


def _compiled(path: Path, spec: str):
    """One compile per kernel and config (benches of the same kernel at other K or L share it)."""
    key = (path, spec)
    if key not in _COMPILED:
        try:
            _COMPILED[key] = wsdialects.compile(path, pipeline=spec)
        except Exception as e:  # noqa: BLE001  (kept, raised again for every bench of the kernel)
            _COMPILED[key] = e
    if isinstance(_COMPILED[key], Exception):
        raise _COMPILED[key]
    return _COMPILED[key]


def measure(b: Bench, torch, rep: float) -> dict:
    from wsdialects.reporting import WsError
    from wsdialects.runtime.bench import cuda_timer

    s = b.setup(torch)
    timer = cuda_timer(rep=rep)
    row = {"times": {}, "errors": {}, "organisation": "-"}
    for cfg in [DEFAULT, *CONFIGS]:
        try:
            k = _compiled(b.path, cfg.spec)
            if cfg is DEFAULT:
                row["organisation"] = organisation(k)
            fn = s["launch"](k)
            s["out"].fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
            ref = s["ref"]().double()
            err = ((s["out"].double() - ref).norm() / ref.norm()).item()
            row["errors"][cfg.name] = err
            if not err < 1e-2:
                print(f"WRONG RESULT: {b.name} {cfg.name}: rel. error {err:.1e}", file=sys.stderr)
            row["times"][cfg.name] = timer(fn)
        except WsError as e:  # a config that does not compile: its diagnostic, and skipped
            print(f"{b.name} {cfg.name}: does not compile: {str(e).splitlines()[0]}", file=sys.stderr)
        except Exception:  # a config that fails otherwise is reported in full and skipped
            traceback.print_exc()
    row["torch"] = timer(s["torch"])
    return row


def table_line(b: Bench, row: dict) -> str:
    t = row["times"]
    default = t.get(DEFAULT.name, float("nan"))
    tried = {c.name: t[c.name] for c in CONFIGS if c.name in t}
    best_name = min(tried, key=tried.get) if tried else "-"
    best = min(default, min(tried.values(), default=float("nan")))
    return (f"| {b.name} | {b.shape} | {default * 1e3:.1f} | {best * 1e3:.1f} | {_fmt(best / default)} | `{best_name}` | "
            f"{_fmt(row['torch'] / default)} | {_fmt(row['torch'] / best)} |")


def times_line(b: Bench, row: dict) -> str:
    """Every config's time on one bench (µs; '-' where it did not compile or run)."""
    t = row["times"]
    cells = [f"{t[c.name] * 1e3:.1f}" if c.name in t else "-" for c in [DEFAULT, *CONFIGS]]
    return f"| {b.name} | {b.shape} | {row['organisation']} | " + " | ".join(cells) + " |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated substrings of kernel names")
    ap.add_argument("--ks", default="256,1024,4096,16384")
    ap.add_argument("--ls", default="4096,16384")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--name", default="")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--rep", type=float, default=150.0, help="timing repetition, ms")
    ap.add_argument("--dry-run", action="store_true", help="compile every kernel x config on the CPU, print the plan")
    a = ap.parse_args()
    benches = plan([int(x) for x in a.ks.split(",") if x], [int(x) for x in a.ls.split(",") if x])
    if a.only:
        benches = [b for b in benches if any(w in b.name for w in a.only.split(","))]
    if a.dry_run:
        seen = set()
        for b in benches:
            print(f"{b.name}: {b.shape}")
            if b.path in seen:
                continue
            seen.add(b.path)
            for cfg in [DEFAULT, *CONFIGS]:
                try:
                    k = wsdialects.compile(b.path, pipeline=cfg.spec)
                    org = f" (the model's organisation: {organisation(k)})" if cfg is DEFAULT else ""
                    print(f"    {cfg.name}: {len(k.ptx)} bytes of PTX{org}")
                except Exception as e:  # noqa: BLE001  (the plan says which config does not build)
                    print(f"    {cfg.name}: does not compile: {str(e).splitlines()[0]}")
        return 0
    import torch

    device = torch.cuda.get_device_name()
    out = Path(a.out) / f"{a.date}-default-vs-best-{device.split()[-1].lower()}{a.name}.md"
    head = [f"# Default versus best: `ws-hopper` with no options against the variants autotune is given "
            f"({device}, {a.date})", "",
            f"Command: `python bench/default_vs_best.py {' '.join(sys.argv[1:])}` (one run; CUDA-event medians, "
            f"{a.rep:.0f} ms repeats). Configs: " + "; ".join(f"`{c.name}`" for c in CONFIGS) + ".", "",
            "| kernel | problem | default µs | best µs | default / best | best config | default x torch | best x torch |",
            "|---|---|---|---|---|---|---|---|"]
    lines = list(head)
    every = ["", "Every config's time (µs; the default's organisation as ws-hopper built it):", "",
             "| kernel | problem | default's organisation | default | " + " | ".join(short(c) for c in CONFIGS) + " |",
             "|---|---|---|---|" + "---|" * len(CONFIGS)]
    for b in benches:
        try:
            row = measure(b, torch, a.rep)
        except Exception:
            traceback.print_exc()
            continue
        lines.append(table_line(b, row))
        every.append(times_line(b, row))
        print(lines[-1], flush=True)
        print(every[-1], flush=True)
        out.write_text("\n".join(lines + every) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
