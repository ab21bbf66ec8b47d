"""Attention backward, batch 4, 32 heads, head dim 128 (and 64), L = 1024..16384, causal and
not, fp16 and bf16: wsdialects (`attention_backward`: the preprocess, main and dQ kernels of
wsdialects/runtime/attention_bwd_kernels.py, the main one through --pipeline) against the
backward of SDPA with the cuDNN backend and with the flash backend (FlashAttention-2) and a
Triton backward of the fused-attention tutorial's algorithm (bench/triton_attention_bwd.py: the
best of its CONFIGS, the LSE from its own Triton forward, not timed), in one run,
`triton.testing.do_bench` medians. Backward FLOPs = 2.5x the forward's (4·B·H·L²·d, halved
when causal): TFLOP/s = 10·B·H·L²·d / t (/ 2 causal).

    python bench/attention_bwd.py [--out DIR] [--ls 1024,4096] [--dims 128,64] [--dtypes fp16,bf16]
                                  [--causal 0,1] [--pipeline PIPE] [--date D] [--name SUFFIX]
    python bench/attention_bwd.py --dry-run    # no GPU: imports, compiles our kernels to PTX, says
                                               # what it would time (writes nothing unless --out)
                                  [--triton-compile]  # and compiles the Triton peer's kernels for
                                                      # sm_90a, every config (needs triton only)
    python bench/attention_bwd.py --variants [--dry-run] [--out DIR]
                                  # our backward's forms and organisations (VARIANTS) against each
                                  # other and cuDNN: correctness vs torch on small shapes, then
                                  # bf16 d 128, L 4k and 16k, causal and not, with the Triton
                                  # peer's best config as a column; DIR/variants.md
                                  # (--variant-configs fp16:128,bf16:64: other dtypes and head
                                  # dims; --table NAME: another file name under DIR)
    python bench/attention_bwd.py --profile-one VARIANT   # one backward (B 4, H 32, L 4k, d 128,
                                  # bf16), for ncu (bench/attention_bwd_variants.sh)
    python bench/attention_bwd.py --check-one VARIANT     # its correctness alone (exit 1: wrong)

Variant "scheduled" (SCHEDULED_MAIN) launches, as the main kernel, ws-schedule{arch=h100}'s schedule
of the bf16 d 128 non-causal kernel kept as IR (test/Inputs/kernels/scheduled/; no OR-Tools needed)
compiled with its pipeline; its causal rows are n/a. Against the default and cuDNN:

    python bench/attention_bwd.py --variants --variant-names tma,scheduled --ls 4096,16384

Correctness first: ours and the Triton peer's (outputs poisoned with NaN before the run) and each
SDPA peer's dQ, dK, dV are compared with torch autograd of float32 SDPA on the first heads of
batch 0 of the same random inputs; an error above 1e-2 is printed as WRONG (a Triton config that
is wrong is not timed). Prints a table and writes
DIR/<date>-attention-bwd-<device><name>.md (default bench/results).
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from wsdialects.runtime import attention_bwd  # noqa: E402
from wsdialects.runtime.attention_bwd_kernels import KINDS, kernel_name  # noqa: E402

CHECK_HEADS = 4
DTYPES = {"fp16": "f16", "bf16": "bf16"}
TOL = 1e-2  # the largest rel. error of dQ, dK, dV a backward may have against float32 autograd


def _bench_module(name: str):
    """bench/<name>.py as a module (kept in sys.modules under its name: loaded once)."""
    import importlib.util

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


def triton_peer():
    """(bench/triton_attention_bwd.py, None), or (None, why) where it does not import (no triton)."""
    try:
        return _bench_module("triton_attention_bwd"), None
    except Exception as e:  # noqa: BLE001 - the peer is optional: its column reads n/a
        return None, f"bench/triton_attention_bwd.py does not import: {type(e).__name__}: {e}"


def triton_best(tab, q, k, v, do, causal: bool, err, bench):
    """The Triton peer's backward on q, k, v, do: (ms, cfg, rel. error) of its fastest config
    whose error `err(grads)` is below TOL (outputs poisoned with NaN before each check), or None;
    o and LSE from its own forward (not timed). Configs that fail are printed."""
    import torch

    peers = _bench_module("triton_peers")
    o, lse = tab.attention_forward(q, k, v, causal)
    grads = tuple(torch.empty_like(q) for _ in range(3))

    def launch(cfg):
        tab.attention_backward(q, k, v, o, lse, do, causal, cfg=cfg, out=grads)

    def check(cfg):
        for g in grads:
            g.fill_(float("nan"))
        launch(cfg)
        torch.cuda.synchronize()
        return err(grads)

    best, _ = peers.best_config(tab.CONFIGS, launch, check=check, bench=bench, label="Triton bwd",
                                ok=lambda e: e < TOL)
    return best


def flops(B: int, H: int, L: int, d: int, causal: bool) -> float:
    """The backward's FLOPs: 2.5x the forward's 4·B·H·L²·d (halved when causal)."""
    return 2.5 * 4.0 * B * H * L * L * d / (2 if causal else 1)


def compile_all(dims, dtypes, causals, pipeline: str) -> dict:
    """{(dtype, d, causal): None, or why one of our kernels does not compile}."""
    out = {}
    for dname in dtypes:
        for d in dims:
            for causal in causals:
                why = None
                for kind in KINDS:
                    pipe = pipeline if kind == "backward" else "ws-hopper"
                    try:
                        attention_bwd.compiled_kernel(kind, DTYPES[dname], d, causal, pipe)
                    except Exception as e:  # noqa: BLE001 - report and go on
                        why = f"{kernel_name(kind, DTYPES[dname], d, causal)} ({pipe}) does not compile: {e}"
                        print(why, file=sys.stderr)
                        break
                out[(dname, d, causal)] = why
    return out


# Our backward's variants: (form of attention_bwd.FORMS, main kernel's pipeline). "atomic" is
# the first GPU run's (dQ by red.global.add, LSE / Delta by pointer loads); "tma-dq-first-exp2"
# computes a quarter of P's exponentials by polynomial on the FMA pipe (ws-exp2-split);
# "tma-dq-first-lpt-240" gives the consumers 240 registers (ws-producer-registers).
_ORG = "ws-hopper{{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent={p} ctas-per-sm=1}}"
# BACKWARD_PIPELINE's organisation spelled as its passes, with ws-producer-registers between them and
# the lowering (-t ptx runs ws-hopper's lowering half on it): the TMA-only producer at 32 registers,
# the consumers at 240 instead of 40 / 232 (the same PTX otherwise)
_SPECIALIZE = ("ws-host-descriptors,ws-tma-load,"
               "ws-specialize{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}")
VARIANTS = {"atomic": ("atomic", _ORG.format(p="false")), "tma": ("tma", _ORG.format(p="false")),
            "tma-overlap": ("tma-overlap", _ORG.format(p="false")), "tma-pairs": ("tma-pairs", _ORG.format(p="false")),
            "tma-dq": ("tma-dq", _ORG.format(p="false")), "tma-dq-first": ("tma-dq-first", _ORG.format(p="false")),
            "tma-dq-first-exp2": ("tma-dq-first", _ORG.format(p="false") + ",ws-exp2-split{fma-fraction=0.25 degree=3}"),
            "tma-dq-first-lpt": ("tma-dq-first-lpt", _ORG.format(p="false")),
            "tma-dq-first-lpt-240": ("tma-dq-first-lpt", _SPECIALIZE + ",ws-producer-registers"),
            "tma-persistent": ("tma", _ORG.format(p="true")),
            "tma-overlap-persistent": ("tma-overlap", _ORG.format(p="true")),
            "scheduled": ("tma", "ws-hopper"), "scheduled-one-tile-per-cta": ("tma", "ws-hopper{persistent=false}")}
# Variants whose main kernel is not the generator's but the solver's schedule kept as IR
# (`ws-opt KERNEL -p 'ws-schedule{arch=h100 time-limit=120}'` of the bf16 d 128 non-causal kernel),
# compiled with the variant's pipeline; the preprocess and dQ kernels are the form's.
SCHEDULED_MAIN = {n: ROOT / "test" / "Inputs" / "kernels" / "scheduled" / "flash_attention_bwd_bf16.mlir"
                  for n in ("scheduled", "scheduled-one-tile-per-cta")}
_mains: dict = {}


def _main_kernel(name: str, causal: bool):
    """The main kernel variant `name` launches instead of the generator's (`attention_backward`'s
    main=): None, or its stored schedule compiled (once); ValueError where it has none."""
    if name not in SCHEDULED_MAIN:
        return None
    if causal:
        raise ValueError(f"variant {name}: no stored schedule of the causal kernel")
    if name not in _mains:
        import wsdialects

        _mains[name] = wsdialects.compile(SCHEDULED_MAIN[name], pipeline=VARIANTS[name][1])
    return _mains[name]
VARIANT_CHECKS = [(1, 2, 1), (1, 2, 100), (2, 2, 1000), (1, 2, 4096)]  # (B, H, L) checked against torch
# (dtype, d, (B, H, L)) also checked: the other dtype and head dim at one ragged length
VARIANT_CHECKS_OTHER = [("fp16", 128, (2, 2, 1000)), ("bf16", 64, (2, 2, 1000))]


def _configs(text: str) -> list[tuple[str, int]]:
    """--variant-configs "bf16:128,fp16:128": [(dtype name, head dim)]."""
    out = []
    for item in text.split(","):
        dname, d = item.split(":")
        if dname not in DTYPES:
            raise SystemExit(f"--variant-configs: dtype must be one of {sorted(DTYPES)}, got {dname!r}")
        out.append((dname, int(d)))
    return out


def grad_error(q, k, v, do, causal: bool):
    """err(grads): the largest relative error of dQ, dK, dV (each [B, H, L, d]) on the first
    CHECK_HEADS heads of batch 0 against torch autograd of float32 SDPA of the same inputs (a
    reference gradient that is exactly zero counts as no error)."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    hs = slice(0, min(q.shape[1], CHECK_HEADS))
    qf, kf, vf = (x[:1, hs].float().requires_grad_(True) for x in (q, k, v))
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        ref = torch.autograd.grad(F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal), (qf, kf, vf),
                                  do[:1, hs].float())
    return lambda grads: max(((g[:1, hs].float() - r).norm() / r.norm()).item() if r.norm() > 0 else 0.0
                             for g, r in zip(grads, ref))


def _triton_dry_run(args, configs) -> None:
    """Say what the Triton peer would run; with --triton-compile compile its kernels for sm_90a
    ((dtype, d, causal) of `configs`, every config, L not a block multiple: the masked form)."""
    tab, why = triton_peer()
    if tab is None:
        print(f"Triton peer: n/a ({why})")
        return
    print(f"Triton peer: bench/triton_attention_bwd.py, best of configs (BM1, BN1, BM2, BN2, warps, stages) "
          f"{tab.CONFIGS}")
    if not args.triton_compile:
        return
    for dname, d, causal in configs:
        for kernel in ("forward", "preprocess"):
            try:
                tab.compile_for_hopper(kernel, dname, d, causal)
                print(f"Triton {kernel} {dname} d{d} {'causal' if causal else 'full'}: compiled for sm_90a")
            except Exception as e:  # noqa: BLE001 - reported, the dry run goes on
                print(f"Triton {kernel} {dname} d{d} causal={causal}: does not compile: {type(e).__name__}: "
                      f"{' '.join(str(e).split())[:300]}")
        for cfg in tab.CONFIGS:
            try:
                k = tab.compile_for_hopper("backward", dname, d, causal, cfg)
                print(f"Triton {dname} d{d} {'causal' if causal else 'full'} {cfg}: compiled for sm_90a, "
                      f"{k.metadata.shared} bytes of shared memory, {k.asm['ptx'].count('wgmma.mma_async')} wgmma")
            except Exception as e:  # noqa: BLE001 - reported, the dry run goes on
                print(f"Triton {dname} d{d} causal={causal} {cfg}: does not compile: {type(e).__name__}: "
                      f"{' '.join(str(e).split())[:300]}")


def _variant_rows(args) -> int:
    """--variants: correctness of each variant against torch autograd of float32 SDPA, then
    TFLOP/s of each, of cuDNN and of the Triton peer (its best correct config; --no-triton: not)
    (each (dtype, d) of --variant-configs, default bf16 d 128; B x H, L from --ls, causal and
    not); a table in DIR/variants.md (--table). With --dry-run: compile every variant (no GPU)."""
    names = args.variant_names.split(",")
    configs = _configs(args.variant_configs)
    for n in names:
        form, pipe = VARIANTS[n]
        for causal in (False, True):
            if n in SCHEDULED_MAIN and causal:
                continue
            for kind in KINDS:
                if kind == "backward" and n in SCHEDULED_MAIN:
                    _main_kernel(n, causal)
                    continue
                for dname, d in configs:
                    attention_bwd.compiled_kernel(kind, DTYPES[dname], d, causal,
                                                  pipe if kind == "backward" else "ws-hopper", form)
        print(f"variant {n}: compiled ({form}, {pipe})", flush=True)
    tab = None if args.no_triton else triton_peer()[0]
    if args.dry_run:
        if not args.no_triton:
            _triton_dry_run(args, [(dname, d, causal) for dname, d in configs for causal in (False, True)])
        return 0
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    lines = [f"# Attention backward variants ({torch.cuda.get_device_name()}, {args.date})", "",
             f"Command: `python bench/attention_bwd.py {' '.join(sys.argv[1:])}`; do_bench medians; "
             "rel. error = largest of dQ, dK, dV against torch autograd of float32 SDPA (poisoned outputs).", "",
             "| variant | form | pipeline |", "|---|---|---|"]
    lines += [f"| {n} | {VARIANTS[n][0]} | `{VARIANTS[n][1]}`{' (the stored schedule)' if n in SCHEDULED_MAIN else ''} |"
              for n in names]
    lines += ["", "## Correctness", "", "| variant | causal | [dtype, d,] B, H, L | max rel. err |", "|---|---|---|---|"]
    for n in names if not args.no_checks else ():
        for causal, shape, e in _check_variant(n):
            lines.append(f"| {n} | {causal} | {', '.join(map(str, shape))} | {e:.1e}{'' if e < 1e-2 else ' WRONG'} |")
            print(lines[-1], flush=True)
    B, H = args.batch, args.heads
    lines += ["", "## TFLOP/s", "", "Triton: bench/triton_attention_bwd.py, its fastest config whose rel. error is "
              f"below {TOL} (config, error at the end of the row)." if tab is not None else "Triton: not run.", "",
              "| dtype | d | causal | L | cuDNN | Triton | " + " | ".join(names) + " | best / cuDNN | best / Triton | "
              "Triton config (err) |", "|---|---|---|---|---|---|" + "---|" * len(names) + "---|---|---|"]
    bench = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")  # noqa: E731
    for (dname, d), causal, L in ((c, causal, int(x)) for c in configs for causal in (False, True)
                                  for x in args.ls.split(",")):
        torch.manual_seed(L)
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dname]
        q, k, v, do = (torch.randn(B, H, L, d, device="cuda", dtype=dtype) for _ in range(4))
        tf = lambda t: flops(B, H, L, d, causal) / t / 1e9  # noqa: E731
        cudnn = float("nan")
        try:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                qg, kg, vg = (x.detach().requires_grad_(True) for x in (q, k, v))
                oc = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
                cudnn = tf(bench(lambda: torch.autograd.grad(oc, (qg, kg, vg), do, retain_graph=True)))
                del qg, kg, vg, oc
        except Exception as e:  # noqa: BLE001
            print(f"cuDNN {dname} d{d} causal={causal} L={L}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        tri, tri_cfg = float("nan"), "n/a"
        if tab is not None:
            try:
                tb = triton_best(tab, q, k, v, do, causal, grad_error(q, k, v, do, causal), bench)
                if tb is not None:
                    tri, tri_cfg = tf(tb[0]), f"{tb[1]} ({tb[2]:.1e})"
            except Exception as e:  # noqa: BLE001 - the peer's failure is a row entry
                print(f"Triton {dname} d{d} causal={causal} L={L}: {type(e).__name__}: {e}", file=sys.stderr,
                      flush=True)
            torch.cuda.empty_cache()
        o, lse = attention_bwd.attention_forward(q, k, v, causal=causal)
        outs = tuple(torch.empty_like(q) for _ in range(3))
        ours = []
        for n in names:
            form, pipe = VARIANTS[n]
            try:
                if n in SCHEDULED_MAIN and (dname, d) != ("bf16", 128):
                    raise ValueError(f"variant {n}: a stored schedule of the bf16 d 128 kernel only")
                main = _main_kernel(n, causal)
                ours.append(tf(bench(lambda: attention_bwd.attention_backward(
                    q, k, v, o, lse, do, causal=causal, pipeline=pipe, out=outs, form=form, main=main))))
            except Exception as e:  # noqa: BLE001 - one variant's failure is a row entry, not the end
                print(f"{n} {dname} d{d} causal={causal} L={L}: {type(e).__name__}: {e}", file=sys.stderr,
                      flush=True)
                ours.append(float("nan"))
        best = max((x for x in ours if x == x), default=float("nan"))
        lines.append(f"| {dname} | {d} | {causal} | {L} | {cudnn:.1f} | {tri:.1f} | " +
                     " | ".join(f"{x:.1f}" for x in ours) + f" | {best / cudnn:.2f} | {best / tri:.2f} | {tri_cfg} |")
        print(lines[-1], flush=True)
        del q, k, v, do, o, lse, outs
        torch.cuda.empty_cache()
    out = Path(args.out or ROOT / "bench" / "results")
    out.mkdir(parents=True, exist_ok=True)
    (out / args.table).write_text("\n".join(lines) + "\n")
    print(f"wrote {out / args.table}")
    return 0


def _check_variant(name: str) -> list[tuple[bool, tuple, float]]:
    """[(causal, (B, H, L), error)] of variant `name` on VARIANT_CHECKS (bf16, d 128) and, as
    (causal, (dtype, d, B, H, L), error), VARIANT_CHECKS_OTHER: the largest relative error of
    dQ, dK, dV against torch autograd of float32 SDPA, outputs poisoned with NaN first; at L = 1
    (one key: dQ = dK = 0 exactly) dQ's and dK's largest magnitude instead of the reference's
    rounding noise. A stored schedule: bf16 d 128 not causal only."""
    import torch
    import torch.nn.functional as F

    form, pipe = VARIANTS[name]
    out = []
    cases = [("bf16", 128, shape) for shape in VARIANT_CHECKS]
    cases += VARIANT_CHECKS_OTHER if name not in SCHEDULED_MAIN else []
    for causal in (False, True) if name not in SCHEDULED_MAIN else (False,):
        main = _main_kernel(name, causal)
        for dname, d, (B, H, L) in cases:
            torch.manual_seed(L)
            dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dname]
            q, k, v, do = (torch.randn(B, H, L, d, device="cuda", dtype=dtype) for _ in range(4))
            qf, kf, vf = (x.float().requires_grad_(True) for x in (q, k, v))
            ref = torch.autograd.grad(F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal), (qf, kf, vf),
                                      do.float())
            o, lse = attention_bwd.attention_forward(q, k, v, causal=causal)
            grads = tuple(torch.full_like(q, float("nan")) for _ in range(3))
            attention_bwd.attention_backward(q, k, v, o, lse, do, causal=causal, pipeline=pipe, out=grads, form=form,
                                             main=main)
            torch.cuda.synchronize()
            errs = [g.float().abs().max().item() if L == 1 and i < 2 else ((g.float() - r).norm() / r.norm()).item()
                    for i, (g, r) in enumerate(zip(grads, ref))]
            shape = (B, H, L) if (dname, d) == ("bf16", 128) else (dname, d, B, H, L)
            out.append((causal, shape, max(errs) if all(e == e for e in errs) else float("nan")))
    return out


def _check_one(name: str) -> int:
    """--check-one: compile and check variant `name` alone (a process of its own: a kernel that
    faults cannot take the others down); exit status 1 where an error is not below 1e-2."""
    rows = _check_variant(name)
    for causal, shape, e in rows:
        print(f"{name} causal={causal} {shape}: {e:.1e}{'' if e < 1e-2 else ' WRONG'}", flush=True)
    return 0 if all(e < 1e-2 for _, _, e in rows) else 1


def _profile_one(name: str, causal: bool = False) -> int:
    """One backward of variant `name` (B 4, H 32, L 4096, d 128, bf16), after a warm-up call
    (compiles and caches descriptors), for a profiler to catch its main kernel."""
    import torch

    form, pipe = VARIANTS[name]
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    o, lse = attention_bwd.attention_forward(q, k, v, causal=causal)
    main = _main_kernel(name, causal)
    for _ in range(2):
        attention_bwd.attention_backward(q, k, v, o, lse, do, causal=causal, pipeline=pipe, form=form, main=main)
    torch.cuda.synchronize()
    return 0


def table(rows, args, dev: str, versions: str) -> list[str]:
    lines = [f"# Attention backward, batch {args.batch}, {args.heads} heads: wsdialects vs SDPA backward (cuDNN, "
             f"flash) and Triton ({dev}, {args.date})", "",
             f"Command: `python bench/attention_bwd.py {' '.join(sys.argv[1:])}` (one run; `triton.testing.do_bench` "
             "median, 25 ms warm-up, 200 ms repeats; random inputs; TFLOP/s = 2.5 x the forward's 4·B·H·L²·d / t, "
             "halved when causal; rel. error of dQ, dK, dV (the largest) against torch autograd of float32 SDPA on "
             "the first heads of batch 0, ours and Triton's poisoned with NaN before the run).", "",
             f"wsdialects: `attention_backward` (flash_attention_bwd_preprocess, flash_attention_bwd through "
             f"`{args.pipeline}`, flash_attention_bwd_dq; 128 keys x 64 queries), dQ accumulated in f32 by TMA reduce-adds. "
             "cuDNN / FA2: `torch.autograd.grad` of `scaled_dot_product_attention` under "
             "`sdpa_kernel(CUDNN_ATTENTION)` / `(FLASH_ATTENTION)`. Triton: bench/triton_attention_bwd.py (the "
             "fused-attention tutorial's algorithm: preprocess, then per key block dK, dV over the query blocks and "
             "per query block dQ over the key blocks), its fastest config (BM1, BN1, BM2, BN2, warps, stages) whose "
             f"rel. error is below {TOL}; o and LSE from its own Triton forward (not timed).", "", versions, "",
             "| dtype | d | causal | L | cuDNN | FA2 | Triton | ws | ws / cuDNN | ws / FA2 | ws / Triton | "
             "max rel. err ws | Triton config (err) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for dname, d, causal, L, res in rows:
        g = lambda k: res[k][0] if k in res else float("nan")  # noqa: E731
        ws = g("ws")
        err = res["ws"][1] if "ws" in res else float("nan")
        tri = f"{res['triton'][2]} ({res['triton'][1]:.1e})" if "triton" in res else "n/a"
        lines.append(f"| {dname} | {d} | {'yes' if causal else 'no'} | {L} | {g('cudnn'):.1f} | {g('fa2'):.1f} | "
                     f"{g('triton'):.1f} | {ws:.1f} | {ws / g('cudnn'):.2f} | {ws / g('fa2'):.2f} | "
                     f"{ws / g('triton'):.2f} | {err:.1e} | {tri} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None, help="folder for the results table (default bench/results; "
                                                "with --dry-run nothing is written unless given)")
    ap.add_argument("--ls", default="1024,2048,4096,8192,16384")
    ap.add_argument("--dims", default="128,64")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--pipeline", default=attention_bwd.BACKWARD_PIPELINE, help="the main backward kernel's pipeline")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--name", default="")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: compile our kernels and say what would run")
    ap.add_argument("--variants", action="store_true", help="compare our backward's variants (VARIANTS) and cuDNN")
    ap.add_argument("--variant-names", default=",".join(VARIANTS), help="the variants --variants runs")
    ap.add_argument("--variant-configs", default="bf16:128", help="--variants: the (dtype:head dim)s timed")
    ap.add_argument("--table", default="variants.md", help="--variants: the table's file name under --out")
    ap.add_argument("--profile-one", default=None, help="run one backward of this variant (for ncu) and exit")
    ap.add_argument("--check-one", default=None, help="check this variant's correctness alone; exit 1 if wrong")
    ap.add_argument("--no-checks", action="store_true", help="--variants: time only (checked by --check-one)")
    ap.add_argument("--profile-causal", action="store_true", help="--profile-one: the causal kernel")
    ap.add_argument("--no-triton", action="store_true", help="leave the Triton peer out (its column reads n/a)")
    ap.add_argument("--triton-compile", action="store_true",
                    help="--dry-run: also compile the Triton peer's kernels for sm_90a (every config; no GPU)")
    args = ap.parse_args(argv)
    if args.profile_one:
        return _profile_one(args.profile_one, args.profile_causal)
    if args.check_one:
        return _check_one(args.check_one)
    if args.variants:
        if args.ls == ap.get_default("ls"):
            args.ls = "4096,16384"
        return _variant_rows(args)
    dims = [int(x) for x in args.dims.split(",")]
    dtypes = args.dtypes.split(",")
    causals = [bool(int(c)) for c in args.causal.split(",")]
    ls = [int(x) for x in args.ls.split(",")]
    B, H = args.batch, args.heads
    compiled = compile_all(dims, dtypes, causals, args.pipeline)

    if args.dry_run:
        if not args.no_triton:
            _triton_dry_run(args, list(compiled))
        rows = []
        for (dname, d, causal), why in compiled.items():
            for L in ls:
                print(f"would time {dname} d{d} {'causal' if causal else 'full'} L={L}: "
                      f"{flops(B, H, L, d, causal) / 1e12:.2f} TFLOP; ours "
                      f"{'compiled' if why is None else 'n/a (' + why.splitlines()[0] + ')'}")
                rows.append((dname, d, causal, L, {}))
        if args.out:
            write(table(rows, args, "dry run, no GPU", "no GPU: nothing timed"), args, "dry-run")
        return 0

    import torch
    import torch.nn.functional as F
    import triton
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    tab, why = (None, "--no-triton") if args.no_triton else triton_peer()
    if tab is None:
        print(f"Triton peer: n/a ({why})", file=sys.stderr)
    dev = torch.cuda.get_device_name()
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    bench = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")  # noqa: E731
    rows = []
    for dname in dtypes:
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dname]
        for d in dims:
            for causal in causals:
                for L in ls:
                    torch.manual_seed(L + d)
                    q, k, v, do = (torch.randn(B, H, L, d, device="cuda", dtype=dtype) for _ in range(4))
                    tf = lambda t, L=L, d=d, causal=causal: flops(B, H, L, d, causal) / t / 1e9  # noqa: E731
                    hs = slice(0, min(H, CHECK_HEADS))
                    qf, kf, vf = (x[:1, hs].float().requires_grad_(True) for x in (q, k, v))
                    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                        ref = torch.autograd.grad(F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal),
                                                  (qf, kf, vf), do[:1, hs].float())

                    def err(grads, label):
                        e = max(((g[:1, hs].float() - r).norm() / r.norm()).item() if r.norm() > 0 else 0.0
                                for g, r in zip(grads, ref))
                        if not e < 1e-2:
                            print(f"{label} {dname} d{d} L={L}: rel. error {e:.2e}: WRONG", file=sys.stderr)
                        return e

                    res = {}
                    for backend, label in ((SDPBackend.CUDNN_ATTENTION, "cudnn"), (SDPBackend.FLASH_ATTENTION, "fa2")):
                        try:
                            with sdpa_kernel(backend):
                                qg, kg, vg = (x.detach().requires_grad_(True) for x in (q, k, v))
                                o = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
                                f = lambda o=o, qg=qg, kg=kg, vg=vg: torch.autograd.grad(  # noqa: E731
                                    o, (qg, kg, vg), do, retain_graph=True)
                                res[label] = (tf(bench(f)), err(f(), label))
                        except Exception as e:  # noqa: BLE001
                            print(f"SDPA {label}: {type(e).__name__}: {e}", file=sys.stderr)
                    if tab is not None:
                        try:
                            tb = triton_best(tab, q, k, v, do, causal, lambda gs: err(gs, "Triton"), bench)
                            if tb is not None:
                                res["triton"] = (tf(tb[0]), tb[2], tb[1])
                        except Exception as e:  # noqa: BLE001 - the peer's failure is a row entry
                            print(f"Triton: {type(e).__name__}: {e}", file=sys.stderr)
                    if compiled[(dname, d, causal)] is None:
                        o, lse = attention_bwd.attention_forward(q, k, v, causal=causal)
                        grads = tuple(torch.full_like(q, float("nan")) for _ in range(3))  # poisoned
                        run = lambda o=o, lse=lse: attention_bwd.attention_backward(  # noqa: E731
                            q, k, v, o, lse, do, causal=causal, pipeline=args.pipeline, out=grads)
                        run()
                        torch.cuda.synchronize()
                        res["ws"] = (tf(bench(run)), err(grads, "ws"))
                    rows.append((dname, d, causal, L, res))
                    print(f"{dname} d{d} {'causal' if causal else 'full  '} L={L:6d}  " +
                          "  ".join(f"{k_} {v_[0]:6.1f} (err {v_[1]:.1e})" for k_, v_ in res.items()) +
                          (f"  Triton config {res['triton'][2]}" if "triton" in res else ""), flush=True)
    versions = f"torch {torch.__version__}, triton {triton.__version__}."
    write(table(rows, args, dev, versions), args, slug)
    return 0


def write(lines: list[str], args, slug: str) -> None:
    out = Path(args.out or ROOT / "bench" / "results")
    out.mkdir(parents=True, exist_ok=True)
    f = out / f"{args.date}-attention-bwd-{slug}{args.name}.md"
    f.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {f}")


if __name__ == "__main__":
    raise SystemExit(main())
