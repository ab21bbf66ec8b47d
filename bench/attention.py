"""Attention forward, batch 4, 32 heads, head dim 128 (and 64), L = 1024..16384, causal and
not, fp16 and bf16: wsdialects (ws-hopper pipelines of examples/kernels/flash_attention*.mlir)
against SDPA with the cuDNN backend, SDPA with the flash backend (FlashAttention-2), a Triton
kernel of the tutorial's algorithm (best of a few configs) and, for bf16, FlashAttention-3
(the PyPI package fa3-fwd, if importable), all in one run, `triton.testing.do_bench` medians.
`--dtypes fp8` adds FP8 rows (d 128; e4m3 Q, K, V, unit per-head descales, O bf16):
examples/kernels/flash_attention_fp8*.mlir against FA3's fp8 forward (the same
`flash_attn_func` on e4m3 tensors), against our bf16 kernel on the same values (the first
variant) and, non-causal, beside our kernel that takes V^T (flash_attention_fp8_vt); errors
against float32 SDPA of the dequantized inputs (WRONG above 6e-2: P is e4m3).
`--dry-run` compiles our kernels (to PTX) and exits, without a GPU.

    python bench/attention.py [--out DIR] [--variants 'PIPE;PIPE'] [--ls 1024,4096] [--dims 128,64]
    (a variant 'ws-schedule{arch=h100},PIPE' compiles the solver's schedule: the one kept in
    test/Inputs/kernels/scheduled/ where there is one, else solved on this machine)
                              [--dtypes fp16,bf16] [--causal 0,1] [--date D] [--name SUFFIX]
                              [--kernel-dir DIR] [--dry-run]
    (a variant 'TAG:PIPE' times the kernel <name>_TAG.mlir, from the kernel folder or
    test/Inputs/kernels, under PIPE: 'bn176:ws-hopper' is the 176-key bf16 d128 kernel,
    n/a in rows without such a kernel; 'PIPE,ws-exp2-split{fma-fraction=F degree=D}' computes
    a share F of the softmax's exponentials by polynomial on the FMA pipe, fma-fraction left
    out: the machine model's share; 'ws-hopper{... softmax-overlap=qk}' issues the next key
    tile's QK^T before this tile's softmax and waits for P·V in the next iteration
    (ws-pipeline-coarse; at d 128 ptxas serializes it for want of registers with 128-key
    tiles, not with the bn96 / bn112 kernels of test/Inputs/kernels, nor at d 64))
    (--kernel-dir times a folder of kernel variants under the bundled names instead, e.g.
    bench/kernels/bn160; the variant `as-is` lowers a file's IR as it stands: warp-specialized
    IR edited by a script such as bench/kernels/make_ring_depth_variants.sh)

Correctness first: every kernel's output (ours poisoned with NaN before the run) is compared
with float32 SDPA (first heads of batch 0) on the same random inputs; an error above 1e-2 is printed as
WRONG. Prints a table and writes DIR/<date>-attention-<device><name>.md (default bench/results).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402

KERNELS = ROOT / "examples" / "kernels"


def kernel_file(d: int, bf16: bool, causal: bool, kdir: Path = KERNELS, fp8: bool = False) -> tuple[Path, str]:
    """The kernel of examples/kernels (or of `kdir`, a folder of variants under the same names)
    for (head dim, causal); bf16 has a kernel of its own for d = 128 non-causal, the other bf16
    runs rename the f16 kernel's element type; fp8: flash_attention_fp8[_causal] (d 128)."""
    if fp8:
        name = "flash_attention_fp8" + ("_causal" if causal else "") + (f"_d{d}" if d != 128 else "")
        return kdir / f"{name}.mlir", name
    name = "flash_attention" + ("_causal" if causal else "") + (f"_d{d}" if d != 128 else "")
    if bf16 and name == "flash_attention":
        name = "flash_attention_bf16"
    return kdir / f"{name}.mlir", name


def source_for(d: int, bf16: bool, causal: bool, kdir: Path = KERNELS, fp8: bool = False) -> str:
    path, _ = kernel_file(d, bf16, causal, kdir, fp8)
    text = path.read_text()
    return text.replace("xf16", "xbf16") if bf16 and not fp8 else text


SCHEDULED = ROOT / "test" / "Inputs" / "kernels" / "scheduled"
# A variant starting with one of these is the solver's schedule (kept as IR in SCHEDULED under
# the kernel's name + suffix), then the rest of the pipeline.
SOLVER = {"ws-schedule{arch=h100},": "", "ws-schedule{arch=h100 pingpong=false},": "_split"}


INPUT_KERNELS = ROOT / "test" / "Inputs" / "kernels"


def tagged(v: str, path: Path) -> tuple[Path, str]:
    """A variant `TAG:PIPE` (e.g. `bn176:ws-hopper`) times the kernel `<name>_TAG.mlir` of the
    kernel folder, else of test/Inputs/kernels (flash_attention_bf16_bn176.mlir: 176-key tiles,
    FA3's for non-causal d 128), under PIPE; other variants time `path` under themselves.
    Rows without such a kernel are n/a."""
    tag, sep, pipe = v.partition(":")
    if not sep:
        return path, v
    name = f"{path.stem}_{tag}.mlir"
    here = path.parent / name
    return (here if here.exists() else INPUT_KERNELS / name), pipe


def compile_all(variants, dims, dtypes, causals, kdir: Path = KERNELS):
    """{(dtype name, d, causal): [(variant, Compiled or None)]}; also what fill_ptx_cache.py
    compiles on a machine with the sm_90a back end."""
    out = {}
    for dname in dtypes:
        for d in dims:
            for causal in causals:
                fp8 = dname == "fp8"
                path, kname = kernel_file(d, dname == "bf16", causal, kdir, fp8)
                if not path.exists() and not any(tagged(v, path)[0].exists() for v in variants):
                    print(f"no kernel {path.name} for {dname} d{d}{' causal' if causal else ''}", file=sys.stderr)
                    out[(dname, d, causal)] = [(v, None) for v in variants]
                    continue
                row = []
                for v in variants:
                    vpath, pv = tagged(v, path)
                    if not vpath.exists():
                        print(f"{v}: no kernel {vpath.name} for {dname} d{d}{' causal' if causal else ''}", file=sys.stderr)
                        row.append((v, None))
                        continue
                    text = vpath.read_text()
                    text = text.replace("xf16", "xbf16") if dname == "bf16" and not fp8 else text
                    try:
                        src, pipe = text, ("" if pv == "as-is" else pv)  # as-is: the file's IR, lowered
                        prefix = next((p for p in SOLVER if pv.startswith(p)), None)
                        stored = SCHEDULED / f"{vpath.stem}{SOLVER.get(prefix, '')}.mlir"
                        if prefix and stored.exists() and vpath.parent in (KERNELS, INPUT_KERNELS) and not fp8:
                            # the solver's schedule kept as IR (same on every machine, no OR-Tools needed)
                            src, pipe = stored.read_text(), pv[len(prefix):]
                            src = src.replace("xf16", "xbf16") if dname == "bf16" else src
                        row.append((v, wsdialects.compile(src, pipeline=pipe)))
                    except Exception as e:  # noqa: BLE001 - report and go on
                        print(f"{kname} {dname} d{d}: {v} does not compile: {e}", file=sys.stderr)
                        row.append((v, None))
                out[(dname, d, causal)] = row
    return out


CHECK_HEADS = 4
TRITON_CONFIGS = [(128, 64, 3, 8), (128, 128, 2, 8), (128, 64, 4, 4), (128, 128, 3, 8)]


# ----------------------------------------------------------------------------- Triton peer
try:  # torch and triton live on the GPU machine; fill_ptx_cache.py imports this file without them
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover
    triton = None

if triton is not None:

    @triton.jit
    def _tl_attn(Q, K, V, O, sm_scale, L, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr):
        """The Triton tutorial's algorithm (online softmax in exp2; causal: off-diagonal blocks
        unmasked, then the diagonal block masked). Q, K, V, O: [B*H, L, D]; L % BM == L % BN == 0."""
        start_m = tl.program_id(0)
        bh = tl.program_id(1).to(tl.int64)
        base = bh * L * D
        offs_m = start_m * BM + tl.arange(0, BM)
        offs_n = tl.arange(0, BN)
        offs_d = tl.arange(0, D)
        q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
        m_i = tl.full([BM], float("-inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        qk_scale = sm_scale * 1.44269504
        hi = (start_m * BM) if CAUSAL else L
        kp = K + base + offs_n[None, :] * D + offs_d[:, None]
        vp = V + base + offs_n[:, None] * D + offs_d[None, :]
        for start_n in tl.range(0, hi, BN):
            k = tl.load(kp + start_n * D)
            qk = tl.dot(q, k)
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            v = tl.load(vp + start_n * D)
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_ij
        if CAUSAL:
            for start_n in tl.range(start_m * BM, (start_m + 1) * BM, BN):
                k = tl.load(kp + start_n * D)
                qk = tl.dot(q, k)
                qk = tl.where(offs_m[:, None] >= (start_n + offs_n[None, :]), qk * qk_scale, float("-inf"))
                m_ij = tl.maximum(m_i, tl.max(qk, 1))
                p = tl.math.exp2(qk - m_ij[:, None])
                alpha = tl.math.exp2(m_i - m_ij)
                l_i = l_i * alpha + tl.sum(p, 1)
                acc = acc * alpha[:, None]
                v = tl.load(vp + start_n * D)
                acc = tl.dot(p.to(v.dtype), v, acc)
                m_i = m_ij
        acc = acc / l_i[:, None]
        tl.store(O + base + offs_m[:, None] * D + offs_d[None, :], acc.to(O.dtype.element_ty))


def triton_attn(q, k, v, o, causal, cfg):
    BH, L, D = q.shape
    BM, BN, st, w = cfg
    _tl_attn[(L // BM, BH)](q, k, v, o, 1 / math.sqrt(D), L, D=D, BM=BM, BN=BN, CAUSAL=causal,
                            num_stages=st, num_warps=w)


def fa3():
    try:
        from fa3_fwd_interface import flash_attn_func
    except Exception as e:  # noqa: BLE001 - not installed on this machine
        print(f"FlashAttention-3 (fa3-fwd) not available: {type(e).__name__}: {e}", file=sys.stderr)
        return None
    return flash_attn_func


FP8_TOL = 6e-2  # rel. error of e4m3 P against float32 attention of the dequantized inputs


def fp8_row(B, H, D, causal, L, compiled, ws_bf16, flash3, bench, ws_vt=None):
    """One fp8 row: (peers {label: (TFLOP/s, err)}, ours [(TFLOP/s, err) or None]). Inputs are
    bf16 random values rounded to e4m3, unit per-head descales; the reference is float32 SDPA
    of the e4m3 values on the first heads of batch 0; ours is poisoned with NaN first."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch.manual_seed(L + D)
    q, k, v_ = (torch.randn(B, H, L, D, device="cuda", dtype=torch.bfloat16).to(torch.float8_e4m3fn) for _ in range(3))
    flops = 4.0 * B * H * L * L * D / (2 if causal else 1)
    tf = lambda t: flops / t / 1e9  # noqa: E731
    hs = slice(0, min(H, CHECK_HEADS))
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        ref = F.scaled_dot_product_attention(q[:1, hs].float(), k[:1, hs].float(), v_[:1, hs].float(),
                                             is_causal=causal)
    rn = ref.norm()

    def err(out, who):
        e = ((out[:1, hs].float() - ref).norm() / rn).item()
        if not e < FP8_TOL:
            print(f"fp8 d{D} L={L} {who}: rel. error {e:.2e}: WRONG", file=sys.stderr)
        return e

    res = {}
    if flash3 is not None:
        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v_))
        ones = torch.ones(B, H, device="cuda", dtype=torch.float32)
        try:
            f = lambda: flash3(qt, kt, vt, causal=causal, q_descale=ones, k_descale=ones, v_descale=ones)  # noqa: E731
            out = f()
            out = out[0] if isinstance(out, tuple) else out
            res["fa3 fp8"] = (tf(bench(f)), err(out.transpose(1, 2), "fa3"))
        except Exception as e:  # noqa: BLE001 - a build without fp8
            print(f"FA3 fp8: {type(e).__name__}: {e}", file=sys.stderr)
    q3, k3, v3 = (x.reshape(B * H, L, D) for x in (q, k, v_))
    o3 = torch.empty((B * H, L, D), device="cuda", dtype=torch.bfloat16)
    grid = ((L + 127) // 128, B * H)
    if ws_bf16 is not None:  # our bf16 kernel on the same values
        qb, kb, vb = (x.to(torch.bfloat16) for x in (q3, k3, v3))
        run = lambda: ws_bf16[grid](qb, kb, vb, o3, L, 1 / math.sqrt(D))  # noqa: E731
        run()
        torch.cuda.synchronize()
        res["ws bf16"] = (tf(bench(run)), err(o3.view(B, H, L, D), "ws bf16"))
    ones = torch.ones(B * H, device="cuda", dtype=torch.float32)
    if ws_vt is not None:  # flash_attention_fp8_vt: V given transposed (rows padded to 16 bytes), no copy
        Lp = (L + 15) // 16 * 16
        vt3 = torch.zeros((B * H, D, Lp), device="cuda", dtype=torch.float8_e4m3fn)
        vt3[:, :, :L] = v3.transpose(1, 2)
        o3.fill_(float("nan"))
        run = lambda: ws_vt[grid](q3, k3, vt3, o3, ones, ones, ones, 1, L, 1 / math.sqrt(D))  # noqa: E731
        run()
        torch.cuda.synchronize()
        res["ws fp8 V^T"] = (tf(bench(run)), err(o3.view(B, H, L, D), "ws fp8 V^T"))
    ours = []
    for vname, ws in compiled:
        if ws is None:
            ours.append(None)
            continue
        o3.fill_(float("nan"))
        run = lambda ws=ws: ws[grid](q3, k3, v3, o3, ones, ones, ones, 1, L, 1 / math.sqrt(D))  # noqa: E731
        run()
        torch.cuda.synchronize()
        ours.append((tf(bench(run)), err(o3.view(B, H, L, D), vname)))
    return res, ours


def _worst(errs: list[float]) -> float:
    """The largest error, NaN if any is NaN (an unwritten element; Python's max would skip it)."""
    return float("nan") if not errs or any(e != e for e in errs) else max(errs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--variants", default="ws-hopper;ws-hopper{cooperative=2 pingpong=true}",
                    help="';'-separated pipelines; `as-is` lowers a --kernel-dir file's IR as it stands "
                         "(warp-specialized IR edited by hand: bench/kernels/make_ring_depth_variants.sh)")
    ap.add_argument("--ls", default="1024,2048,4096,8192,16384")
    ap.add_argument("--dims", default="128,64")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--bundled", action="store_true",
                    help="also time examples/kernels/attention.mlir (2-D descriptors, no key mask: L %% 128 == 0) "
                         "for fp16 d128 non-causal, as ws[bundled]")
    ap.add_argument("--kernel-dir", type=Path, default=KERNELS,
                    help="time the kernels of this folder (variants named as in examples/kernels, e.g. "
                         "bench/kernels/bn160) instead of the bundled ones; the solver's stored schedules "
                         "are only used for the bundled kernels")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--name", default="")
    ap.add_argument("--dry-run", action="store_true", help="compile our kernels (to PTX) and exit; no GPU needed")
    ap.add_argument("--peers", default="cudnn,fa2,triton,fa3",
                    help="the peers to time (a subset of cudnn,fa2,triton,fa3; cuDNN is the ratios' base, "
                         "Triton's four-config search is the slow one)")
    args = ap.parse_args()
    peers = set(args.peers.split(","))
    if not peers <= {"cudnn", "fa2", "triton", "fa3"} or "cudnn" not in peers:
        ap.error(f"--peers: a subset of cudnn,fa2,triton,fa3 that has cudnn (the ratios' base), got '{args.peers}'")
    if args.dry_run:
        variants = [v.strip() for v in args.variants.split(";") if v.strip()]
        dtypes = args.dtypes.split(",")
        done = compile_all(variants, [int(x) for x in args.dims.split(",")], dtypes,
                           [bool(int(c)) for c in args.causal.split(",")], args.kernel_dir.resolve())
        if "fp8" in dtypes:  # the bf16 kernels the fp8 rows are compared with
            done.update({("bf16 for fp8",) + k[1:]: v for k, v in
                         compile_all(variants[:1], [128], ["bf16"], [bool(int(c)) for c in args.causal.split(",")],
                                     KERNELS).items()})
            try:
                vt = wsdialects.compile(KERNELS / "flash_attention_fp8_vt.mlir", pipeline=variants[0])
            except Exception as e:  # noqa: BLE001 - reported as FAILED
                print(f"flash_attention_fp8_vt: {e}", file=sys.stderr)
                vt = None
            done[("fp8 V^T", 128, False)] = [(variants[0], vt)]
        def absent(key, v) -> bool:  # a tagged variant's kernel that this row has not (n/a, not a failure)
            if ":" not in v or len(key) != 3 or not isinstance(key[0], str) or key[0] not in ("fp16", "bf16", "fp8"):
                return False
            path = kernel_file(key[1], key[0] == "bf16", key[2], args.kernel_dir.resolve(), key[0] == "fp8")[0]
            return not tagged(v, path)[0].exists()

        bad = [(k, v) for k, row in done.items() for v, c in row if c is None and not absent(k, v)]
        for key, row in done.items():
            print(key, ", ".join(f"{v}: {'ok' if c is not None else 'n/a' if absent(key, v) else 'FAILED'}"
                                 for v, c in row))
        sys.exit(1 if bad else 0)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    dev = torch.cuda.get_device_name()
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    variants = [v.strip() for v in args.variants.split(";") if v.strip()]
    flash3 = fa3()
    B, H = args.batch, args.heads
    dims = [int(x) for x in args.dims.split(",")]
    causals = [bool(int(c)) for c in args.causal.split(",")]
    kdir = args.kernel_dir.resolve()
    all_compiled = compile_all(variants, dims, args.dtypes.split(","), causals, kdir)
    bundled = wsdialects.compile(KERNELS / "attention.mlir", pipeline="ws-hopper") if args.bundled else None
    rows = []
    bench = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")  # noqa: E731
    bf16_for_fp8, vt_for_fp8 = {}, None
    if "fp8" in args.dtypes.split(","):  # our bf16 kernel (the first variant), timed beside the fp8 rows
        bf16_for_fp8 = {c: row[0][1] for (_, _, c), row in compile_all(variants[:1], [128], ["bf16"], causals).items()}
        try:  # and the fp8 kernel that takes V^T (non-causal)
            vt_for_fp8 = wsdialects.compile(KERNELS / "flash_attention_fp8_vt.mlir", pipeline=variants[0])
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"flash_attention_fp8_vt: {variants[0]} does not compile: {e}", file=sys.stderr)
    fp8_rows = []
    for dname in args.dtypes.split(","):
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp8": None}[dname]
        for D in dims:
            for causal in causals:
                _, kname = kernel_file(D, dname == "bf16", causal, kdir, dname == "fp8")
                compiled = all_compiled[(dname, D, causal)]
                if dname == "fp8":
                    for L in [int(x) for x in args.ls.split(",")]:
                        res, ours = fp8_row(B, H, D, causal, L, list(zip(variants, [c for _, c in compiled])),
                                            bf16_for_fp8.get(causal) if D == 128 else None, flash3, bench,
                                            vt_for_fp8 if D == 128 and not causal else None)
                        fp8_rows.append((D, causal, L, res, ours))
                        peers = "  ".join(f"{k_} {v[0]:6.1f}" for k_, v in res.items())
                        mine = "  ".join(f"ws[{i}] " + ("n/a" if o is None else f"{o[0]:6.1f} (err {o[1]:.1e})")
                                         for i, o in enumerate(ours))
                        print(f"fp8 d{D} {'causal' if causal else 'full  '} L={L:6d}  {peers}  {mine}", flush=True)
                    continue
                for L in [int(x) for x in args.ls.split(",")]:
                    torch.manual_seed(L + D)
                    q, k, v_ = (torch.randn(B, H, L, D, device="cuda", dtype=dtype) for _ in range(3))
                    flops = 4.0 * B * H * L * L * D / (2 if causal else 1)
                    tf = lambda t: flops / t / 1e9  # noqa: E731 (ms -> TFLOP/s)
                    # the reference: float32 SDPA (memory-efficient backend: no L x L matrix) on the
                    # first CHECK_HEADS heads of batch 0, every output compared there
                    hs = slice(0, min(H, CHECK_HEADS))
                    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                        ref = F.scaled_dot_product_attention(q[:1, hs].float(), k[:1, hs].float(), v_[:1, hs].float(),
                                                             is_causal=causal)
                    rn = ref.norm()

                    def err(out):
                        e = ((out[:1, hs].float() - ref).norm() / rn).item()
                        if not e < 1e-2:
                            print(f"{kname} {dname} d{D} L={L}: rel. error {e:.2e}: WRONG", file=sys.stderr)
                        return e

                    res = {}
                    for backend, label in ((SDPBackend.CUDNN_ATTENTION, "cudnn"), (SDPBackend.FLASH_ATTENTION, "fa2")):
                        if label not in peers:
                            continue
                        try:
                            with sdpa_kernel(backend):
                                f = lambda: F.scaled_dot_product_attention(q, k, v_, is_causal=causal)  # noqa: E731
                                res[label] = (tf(bench(f)), err(f()))
                        except Exception as e:  # noqa: BLE001
                            print(f"SDPA {label}: {type(e).__name__}: {e}", file=sys.stderr)
                    q3, k3, v3 = (x.reshape(B * H, L, D) for x in (q, k, v_))
                    o3 = torch.empty_like(q3)
                    best = None
                    for cfg in TRITON_CONFIGS if "triton" in peers else []:
                        try:
                            t = bench(lambda cfg=cfg: triton_attn(q3, k3, v3, o3, causal, cfg))
                        except Exception as e:  # noqa: BLE001 - a config that does not fit
                            print(f"triton {cfg}: {type(e).__name__}", file=sys.stderr)
                            continue
                        if best is None or t < best[0]:
                            best = (t, cfg)
                    if best is not None:
                        triton_attn(q3, k3, v3, o3, causal, best[1])
                        res["triton"] = (tf(best[0]), err(o3.view(B, H, L, D)), best[1])
                    if flash3 is not None and dtype == torch.bfloat16 and "fa3" in peers:
                        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v_))
                        f = lambda: flash3(qt, kt, vt, causal=causal)  # noqa: E731
                        out = f()
                        out = out[0] if isinstance(out, tuple) else out
                        res["fa3"] = (tf(bench(f)), err(out.transpose(1, 2)))
                    ours = []
                    for vname, ws in compiled:
                        if ws is None:
                            ours.append(None)
                            continue
                        o3.fill_(float("nan"))
                        bm = 64 if D == 256 else 128  # the d256 kernel's query tile
                        run = lambda ws=ws, bm=bm: ws[(triton.cdiv(L, bm), B * H)](q3, k3, v3, o3, L, 1 / math.sqrt(D))  # noqa: E731
                        run()
                        torch.cuda.synchronize()
                        e = err(o3.view(B, H, L, D))
                        ours.append((tf(bench(run)), e))
                    if bundled is not None and dname == "fp16" and D == 128 and not causal and L % 128 == 0:
                        o2 = o3.view(B * H * L, D)
                        o2.fill_(float("nan"))
                        run = lambda: bundled[L // 128, B * H](q3.view(-1, D), k3.view(-1, D), v3.view(-1, D), o2, L,  # noqa: E731
                                                               1 / math.sqrt(D))
                        run()
                        torch.cuda.synchronize()
                        res["bundled"] = (tf(bench(run)), err(o3.view(B, H, L, D)))
                    rows.append((dname, D, causal, L, res, ours))
                    peers = "  ".join(f"{k_} {v[0]:6.1f}" for k_, v in res.items())
                    mine = "  ".join(f"ws[{i}] " + ("n/a" if o is None else f"{o[0]:6.1f} (err {o[1]:.1e})")
                                     for i, o in enumerate(ours))
                    print(f"{dname} d{D} {'causal' if causal else 'full  '} L={L:6d}  {peers}  {mine}", flush=True)
    var_txt = "; ".join(f"ws[{i}] = `{v}`" for i, v in enumerate(variants))
    lines = [f"# Attention forward, batch {B}, {H} heads: wsdialects vs SDPA (cuDNN, flash) vs Triton vs FA3 "
             f"({dev}, {args.date})", "",
             f"Command: `python bench/attention.py {' '.join(sys.argv[1:])}` (one run; `triton.testing.do_bench` "
             "median, 25 ms warm-up, 200 ms repeats; random inputs; TFLOP/s = 4·B·H·L²·d / t, halved when causal; "
             "rel. error against float32 SDPA (memory-efficient backend) on the first heads of batch 0, ours poisoned with NaN before the run).", "",
             f"wsdialects: {os.path.relpath(kdir, ROOT)}/flash_attention*.mlir "
             f"({'128x128 tiles, ' if kdir == KERNELS else ''}3-D TMA descriptors), pipelines "
             f"{var_txt}. cuDNN / FA2: `scaled_dot_product_attention` under `sdpa_kernel(CUDNN_ATTENTION)` / "
             f"`(FLASH_ATTENTION)`. Triton: the tutorial's algorithm, best of (BM, BN, stages, warps) "
             f"{TRITON_CONFIGS}. FA3: fa3-fwd's `flash_attn_func` (bf16 only).", "",
             f"torch {torch.__version__}, triton {triton.__version__}.", "",
             "| dtype | d | causal | L | cuDNN | FA2 | Triton | FA3 | " +
             " | ".join(f"ws[{i}] (x cuDNN, x Triton, x FA3)" for i in range(len(variants))) + " | max rel. err ws |",
             "|---|---|---|---|---|---|---|---|" + "---|" * len(variants) + "---|"]
    if args.bundled:
        lines[-2] = lines[-2].replace(" | max rel. err ws |", " | max rel. err ws | ws[bundled] (no key mask) |")
        lines[-1] += "---|"
    for dname, D, causal, L, res, ours in rows:
        g = lambda k_: res[k_][0] if k_ in res else float("nan")  # noqa: E731
        cells = []
        for o in ours:
            if o is None:
                cells.append("n/a")
                continue
            fa = f", {o[0] / g('fa3'):.2f}" if "fa3" in res else ""
            tr = f"{o[0] / g('triton'):.2f}" if "triton" in res else "-"
            cells.append(f"{o[0]:.1f} ({o[0] / g('cudnn'):.2f}, {tr}{fa})")
        errs = [o[1] for o in ours if o is not None]
        extra = (f" {g('bundled'):.1f} ({g('bundled') / g('cudnn'):.2f}, {g('bundled') / g('triton'):.2f}) |"
                 if args.bundled else "")
        peer = lambda k_: f"{g(k_):.1f}" if k_ in res else "-"  # noqa: E731 (a peer not timed: --peers)
        lines.append(f"| {dname} | {D} | {'yes' if causal else 'no'} | {L} | {peer('cudnn')} | {peer('fa2')} | "
                     f"{peer('triton')} | {peer('fa3')} | " + " | ".join(cells) +
                     f" | {_worst(errs):.1e} |" + extra)
    if not rows:  # fp8 only
        lines = lines[:-2]
    if fp8_rows:
        lines += ["", "FP8 (e4m3 Q, K, V; unit per-head descales; O bf16; d 128): ours "
                  "examples/kernels/flash_attention_fp8[_causal].mlir; FA3 fp8: fa3-fwd's `flash_attn_func` on "
                  f"the e4m3 tensors; ws bf16: our bf16 kernel (`{variants[0]}`) on the same values; ws fp8 V^T: "
                  "flash_attention_fp8_vt.mlir (V given as V^T, no in-kernel transpose; non-causal). Errors "
                  "against float32 SDPA of the e4m3 values.", "",
                  "| d | causal | L | FA3 fp8 | ws bf16 | ws fp8 V^T | " +
                  " | ".join(f"ws[{i}] fp8 (x FA3 fp8, x ws bf16)" for i in range(len(variants))) +
                  " | max rel. err ws fp8 |",
                  "|---|---|---|---|---|---|" + "---|" * len(variants) + "---|"]
        for D, causal, L, res, ours in fp8_rows:
            g = lambda k_: res[k_][0] if k_ in res else float("nan")  # noqa: E731
            cells = ["n/a" if o is None else f"{o[0]:.1f} ({o[0] / g('fa3 fp8'):.2f}, {o[0] / g('ws bf16'):.2f})"
                     for o in ours]
            errs = [o[1] for o in ours if o is not None]
            lines.append(f"| {D} | {'yes' if causal else 'no'} | {L} | {g('fa3 fp8'):.1f} | {g('ws bf16'):.1f} | "
                         f"{g('ws fp8 V^T'):.1f} | "
                         + " | ".join(cells) + f" | {_worst(errs):.1e} |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    f = out / f"{args.date}-attention-{slug}{args.name}.md"
    f.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {f}")


if __name__ == "__main__":
    main()
