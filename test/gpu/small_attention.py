"""A small attention run for compute-sanitizer (racecheck / synccheck / memcheck):
    compute-sanitizer --tool racecheck python test/gpu/small_attention.py [lead-warp=false] [only=TEXT]"""
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

import wsdialects

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "examples" / "kernels" / "flash_attention.mlir"
SCHEDULED = ROOT / "test" / "Inputs" / "kernels" / "scheduled"
BN176 = ROOT / "test" / "Inputs" / "kernels" / "flash_attention_bf16_bn176.mlir"
KERNELS = {  # label -> compile (lazily: only the set asked for is compiled)
    "ws-hopper": lambda: wsdialects.compile(KERNEL, pipeline="ws-hopper"),
    # two cooperative groups taking turns through named barriers (ws-pingpong)
    "ws-hopper{cooperative=2 pingpong=true}": lambda: wsdialects.compile(
        KERNEL, pipeline="ws-hopper{cooperative=2 pingpong=true}"),
    # persistent: 2 programs loop over the 6 (query block, head) tiles
    "ws-hopper{cooperative=2 pingpong=true persistent=true programs=2}": lambda: wsdialects.compile(
        KERNEL, pipeline="ws-hopper{cooperative=2 pingpong=true persistent=true programs=2}"),
    # ws-schedule's choice (kept as IR): the two groups as a ping-pong team
    "ws-schedule{arch=h100},ws-hopper": lambda: wsdialects.compile(
        SCHEDULED / "flash_attention.mlir", pipeline="ws-hopper"),
    # its split organisation: P and the 1-D row rescale through aref slots
    "ws-schedule{arch=h100 pingpong=false},ws-hopper": lambda: wsdialects.compile(
        SCHEDULED / "flash_attention_split.mlir", pipeline="ws-hopper"),
    # 176-key bf16 tiles: O's TMA store staged in Q's slot (ws-stage-in-slot), one tile per
    # program and persistent (Q reloaded into the slot O just left)
    "bn176 ws-hopper{cooperative=2 pingpong=true}": lambda: wsdialects.compile(
        BN176, pipeline="ws-hopper{cooperative=2 pingpong=true}"),
    "bn176 ws-hopper{cooperative=2 pingpong=true persistent=true programs=2}": lambda: wsdialects.compile(
        BN176, pipeline="ws-hopper{cooperative=2 pingpong=true persistent=true programs=2}"),
}
# `small_attention.py lead-warp=false`: the same kernels with every producer warp running the loop
NO_LEAD_WARP = {
    "ws-hopper{lead-warp=false}": lambda: wsdialects.compile(KERNEL, pipeline="ws-hopper{lead-warp=false}"),
    "ws-hopper{cooperative=2 pingpong=true persistent=true programs=2 lead-warp=false}": lambda: wsdialects.compile(
        KERNEL, pipeline="ws-hopper{cooperative=2 pingpong=true persistent=true programs=2 lead-warp=false}"),
    "ws-schedule{arch=h100 pingpong=false},ws-hopper{lead-warp=false}": lambda: wsdialects.compile(
        SCHEDULED / "flash_attention_split.mlir", pipeline="ws-hopper{lead-warp=false}"),
}
# `only=TEXT`: just the kernels whose label contains TEXT
only = next((a[len("only="):] for a in sys.argv[1:] if a.startswith("only=")), "")
kernels = {label: make() for label, make in (NO_LEAD_WARP if "lead-warp=false" in sys.argv else KERNELS).items()
           if only in label}
B, H, L, d = 1, 2, 300, 128
inputs = {dt: tuple(torch.randn(B * H, L, d, device="cuda", dtype=dt) for _ in range(3))
          for dt in (torch.float16, torch.bfloat16)}
worst = 0.0
for pipe, k in kernels.items():
    dt = torch.bfloat16 if pipe.startswith("bn176") else torch.float16
    q, kk, v = inputs[dt]
    ref = F.scaled_dot_product_attention(q.float(), kk.float(), v.float())
    o = torch.full((B * H, L, d), float("nan"), device="cuda", dtype=dt)
    k[(L + 127) // 128, B * H](q, kk, v, o, L, 1 / math.sqrt(d))
    torch.cuda.synchronize()
    err = ((o.float() - ref).norm() / ref.norm()).item()
    print(f"small attention L={L} {pipe}: rel err {err:.2e}")
    worst = max(worst, err) if err == err else float("inf")
sys.exit(0 if worst < 1e-2 else 1)
