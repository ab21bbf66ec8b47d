"""Measure on the GPU the per-SM rates the scheduler's machine model uses
(`wsdialects/schedule/machines/h100.json`) and write them into it, with the date.

Each rate comes from a compute-bound Triton micro-kernel that keeps its data in registers
(or shared memory) and repeats one kind of instruction: elements (or FLOP, or bytes) per
clock per SM = work / (median time x SM clock x SMs), the clock read with nvidia-smi
during the run (the card's clocks are left as they are). Measured:

- `tile.dot`: wgmma FLOP per clock (tl.dot of resident 128x128x64 f16 tiles, f32 accumulator);
- `math.exp2`: ex2.approx per clock (a dependent chain, 8 independent chains per thread);
- `arith.*`: f32 FMA per clock (same shape), the ALU rule;
- `arith.truncf`/`extf`: f32 -> f16 -> f32 round trips per clock, minus the multiply they wrap;
- `tile.dot` latency: the clocks a dependent dot adds over the tensor core's own time
  (a 64x128x128 dot whose result feeds the next one's A, one warp group per SM, minus
  the same dot accumulating and minus the convert): the issue, pipeline and wait
  latency after which the result can be used, the rule's `latency`;
- the softmax as executed (a composite): one warp group's step of attention's online softmax
  on a resident 64xN S tile (scale, row max, exp2, row sum, alpha, O's rescale, P's convert,
  then P·V), minus the same loop with P·V alone, alone on its SM and beside a second warp
  group; the machine model's `chain_latency` factors are the least-squares fit of the
  model's chain (`SOFTMAX_CHAIN`: the ops' unit occupancies) to those clocks;
- `tile.load` bytes per clock from L2 (pointer loads of an L2-resident matrix), and
  `tile.desc_load` (TMA, through device-side tensor descriptors, where this Triton has them).

    python tools/calibrate.py [--out DIR] [--write-machine wsdialects/schedule/machines/h100.json]
    python tools/machine_fit.py bench/results/DATE-calibrate.json --write-machine ...   # no GPU: an earlier run's

`--write-machine` sets each measured rule's `per_cycle` to the measured rate rounded to
the nearest value of the form 2^k or 1.5 x 2^k (so the §5.2 normalization keeps a coarse
scale: see the scheduler's README) and records the raw measurements under "measured".
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import subprocess
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from machine_fit import SOFTMAX_KEYS, write_machine  # noqa: E402


@triton.jit
def _exp2_kernel(x_ptr, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    for _ in range(ITERS):
        x = tl.math.exp2(x) * 0.25  # one ex2 + one multiply; stays in (0, 1)
    tl.store(x_ptr + offs, x)


@triton.jit
def _fma_kernel(x_ptr, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    for _ in range(ITERS):
        x = x * 0.999 + 0.001
    tl.store(x_ptr + offs, x)


@triton.jit
def _cvt_kernel(x_ptr, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    for _ in range(ITERS):
        x = x.to(tl.float16).to(tl.float32) * 0.999 + 0.001
    tl.store(x_ptr + offs, x)


@triton.jit
def _dot_kernel(a_ptr, b_ptr, c_ptr, ITERS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(ITERS):
        acc = tl.dot(a, b, acc)
    pid = tl.program_id(0)
    tl.store(c_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def _dot_chain_kernel(a_ptr, b_ptr, c_ptr, ITERS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                      MODE: tl.constexpr):
    """One warp group repeating a BMxBNxBN dot. MODE 0: accumulate (the tensor core's
    throughput), 1: the next dot's A is this dot's result (issue, tensor core, wait,
    convert: the latency), 2: the convert alone (what mode 1 adds besides the dot)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    a = tl.load(a_ptr + rm[:, None] * BN + rn[None, :])
    b = tl.load(b_ptr + rn[:, None] * BN + rn[None, :])
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(ITERS):
        if MODE == 0:
            acc = tl.dot(a, b, acc)
        elif MODE == 1:
            acc = tl.dot(a, b)
            a = (acc * 0.0078125).to(tl.float16)
        else:
            acc = a.to(tl.float32) * 0.0078125 + acc
            a = acc.to(tl.float16)
    pid = tl.program_id(0)
    tl.store(c_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def _softmax_step_kernel(q_ptr, k_ptr, v_ptr, o_ptr, ITERS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                         BD: tl.constexpr, MODE: tl.constexpr):
    """One warp group repeating attention's inner step on resident tiles: S (BMxBN, the wgmma
    accumulator layout) scaled, its row max, exp2, the row sum, alpha, O rescaled and P·V
    (MODE 0); MODE 1 repeats only O's rescale and P·V with a fixed P. The difference of the
    two is the softmax as it executes between attention's two dots."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, BD)
    q = tl.load(q_ptr + rm[:, None] * BD + rd[None, :])
    kt = tl.load(k_ptr + rd[:, None] * BN + rn[None, :])
    v = tl.load(v_ptr + rn[:, None] * BD + rd[None, :])
    s0 = tl.dot(q, kt)
    m = tl.full([BM], -float("inf"), tl.float32)
    l = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, BD], tl.float32)
    p_fixed = s0.to(tl.bfloat16)
    for i in range(ITERS):
        c = 1.0 + i.to(tl.float32) * 1.0e-7
        if MODE == 0:
            s = s0 * c
            m_new = tl.maximum(m, tl.max(s, 1))
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m - m_new)
            l = l * alpha + tl.sum(p, 1)
            acc = tl.dot(p.to(tl.bfloat16), v, acc * alpha[:, None])
            m = m_new
        else:
            acc = tl.dot(p_fixed, v, acc * (1.0 / c))
    pid = tl.program_id(0)
    tl.store(o_ptr + pid * BM * BD + rm[:, None] * BD + rd[None, :], acc / (l[:, None] + 1.0))


@triton.jit
def _load_kernel(x_ptr, out_ptr, ROWS, ITERS: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BK), tl.float32)
    for i in range(ITERS):
        row = ((pid * ITERS + i) * BM) % ROWS
        acc += tl.load(x_ptr + (row + rm)[:, None] * BK + rk[None, :]).to(tl.float32)
    tl.store(out_ptr + pid * BM * BK + rm[:, None] * BK + rk[None, :], acc)


@triton.jit
def _tma_kernel(x_ptr, out_ptr, ROWS, ITERS: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[ROWS, BK], strides=[BK, 1], block_shape=[BM, BK])
    pid = tl.program_id(0)
    acc = tl.zeros((BM, BK), tl.float32)
    for i in range(ITERS):
        row = ((pid * ITERS + i) * BM) % ROWS
        acc += desc.load([row, 0]).to(tl.float32)
    rm = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    tl.store(out_ptr + pid * BM * BK + rm[:, None] * BK + rk[None, :], acc)


def sm_clock_mhz() -> float:
    out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split()[0])


def rate(run, work: float, sms: int, clocks: list[float]) -> float:
    """Work per clock per SM of `run` (median of do_bench), the SM clock sampled after it."""
    ms = do_bench(run, warmup=25, rep=200, return_mode="median")
    clocks.append(sm_clock_mhz())
    return work / (ms * 1e-3 * clocks[-1] * 1e6 * sms)


def measure() -> dict:
    dev = torch.cuda.get_device_properties(0)
    sms = dev.multi_processor_count
    clocks: list[float] = []
    out: dict = {"device": torch.cuda.get_device_name(), "sms": sms}
    # Elementwise chains: 64 programs per SM of 1024 elements (8 warps, 4 elements each).
    block, iters = 1024, 512
    n = sms * 64 * block
    x = torch.rand(n, device="cuda")
    grid = (n // block,)
    out["math.exp2"] = rate(lambda: _exp2_kernel[grid](x, iters, block, num_warps=8), n * iters, sms, clocks)
    out["arith.fma"] = rate(lambda: _fma_kernel[grid](x, iters, block, num_warps=8), n * iters, sms, clocks)
    t_mul = 1 / out["arith.fma"]
    cvt = rate(lambda: _cvt_kernel[grid](x, iters, block, num_warps=8), n * iters, sms, clocks)
    out["arith.truncf+extf"] = 1 / max(1e-9, 1 / cvt - t_mul)  # round trips per clock, the FMA taken out
    # Tensor cores: 128x128x64 f16 tiles, 2 programs per SM, one warp group each and two.
    best = 0.0
    for warps in (4, 8):
        a = torch.randn(128, 64, device="cuda", dtype=torch.float16)
        b = torch.randn(64, 128, device="cuda", dtype=torch.float16)
        progs = sms * 2
        c = torch.empty(progs, 128, 128, device="cuda")
        its = 1024
        r = rate(lambda: _dot_kernel[(progs,)](a, b, c, its, 128, 128, 64, num_warps=warps),
                 2 * 128 * 128 * 64 * its * progs, sms, clocks)
        out[f"tile.dot (num_warps={warps})"] = r
        best = max(best, r)
    out["tile.dot"] = best
    # wgmma latency: one warp group per SM, a 64x128x128 dot whose result is the next
    # dot's A, against the same dot accumulating (throughput) and the convert alone.
    a = torch.randn(64, 128, device="cuda", dtype=torch.float16) * 0.1
    b = torch.randn(128, 128, device="cuda", dtype=torch.float16) * 0.1
    c = torch.empty(sms, 64, 128, device="cuda")
    its = 1024
    cyc = {}
    for mode in (0, 1, 2):
        per_prog = rate(lambda: _dot_chain_kernel[(sms,)](a, b, c, its, 64, 128, mode, num_warps=4), its, sms, clocks)
        cyc[mode] = 1 / per_prog / sms  # clocks per iteration of one program (one per SM)
    out["tile.dot 64x128x128 clocks (accumulate, chained, convert)"] = [round(cyc[m], 1) for m in (0, 1, 2)]
    out["tile.dot latency"] = cyc[1] - cyc[0] - cyc[2]
    # The softmax as executed between attention's two dots (a composite: the row max, exp2, the
    # row sum, the rescale and P's convert with their dependences and shuffles), per 64-row
    # warp group, alone on its SM and with a second warp group beside it (a ping-pong team's
    # partner): clocks per step with P·V minus the same loop with P·V alone.
    q = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16) * 0.1
    soft: dict[str, list[float]] = {}
    for per_sm in (1, 2):
        rows = []
        for bn in SOFTMAX_KEYS:
            kt = torch.randn(128, bn, device="cuda", dtype=torch.bfloat16) * 0.1
            v = torch.randn(bn, 128, device="cuda", dtype=torch.bfloat16) * 0.1
            progs = sms * per_sm
            o = torch.empty(progs, 64, 128, device="cuda")
            its = 512
            cyc = {}
            for mode in (0, 1):
                per_prog = rate(lambda: _softmax_step_kernel[(progs,)](q, kt, v, o, its, 64, bn, 128, mode, num_warps=4),
                                its, sms, clocks)
                cyc[mode] = 1 / per_prog / sms
            rows.append([bn, round(cyc[0], 1), round(cyc[1], 1), round(cyc[0] - cyc[1], 1)])
        soft[f"{per_sm} warp group(s) per SM"] = rows
    out["softmax 64xN clocks (N, step, P·V alone, softmax)"] = soft
    # Loads from L2: a 16 MiB f16 matrix (L2-resident on an H100's 50 MB), 128x64 tiles.
    rows = 128 * 1024
    src = torch.randn(rows, 64, device="cuda", dtype=torch.float16)
    progs, its = sms * 8, 64
    dst = torch.empty(progs, 128, 64, device="cuda")
    nbytes = progs * its * 128 * 64 * 2
    out["tile.load"] = rate(lambda: _load_kernel[(progs,)](src, dst, rows, its, 128, 64, num_warps=4),
                            nbytes, sms, clocks)
    try:
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
        out["tile.desc_load"] = rate(lambda: _tma_kernel[(progs,)](src, dst, rows, its, 128, 64, num_warps=4),
                                     nbytes, sms, clocks)
    except Exception as exc:  # noqa: BLE001 - a Triton without device-side descriptors
        out["tile.desc_load"] = None
        out["tile.desc_load error"] = f"{type(exc).__name__}: {exc}"[:300]
    out["sm_clock_mhz"] = {"min": min(clocks), "max": max(clocks)}
    out["sm_clock_max_mhz"] = float(subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
        capture_output=True, text=True, check=True).stdout.split()[0])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--write-machine", default=None)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    args = ap.parse_args()
    m = measure()
    print(json.dumps(m, indent=2))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / f"{args.date}-calibrate.json").write_text(json.dumps(m, indent=2) + "\n")
    if args.write_machine:
        write_machine(Path(args.write_machine), m, args.date, "python tools/calibrate.py --write-machine " + args.write_machine)
        print("wrote", args.write_machine, file=sys.stderr)


if __name__ == "__main__":
    main()
