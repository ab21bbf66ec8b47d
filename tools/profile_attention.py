"""One launch of an attention kernel of examples/kernels, for ncu / SASS inspection:

    ncu --kernel-name regex:flash --launch-skip 1 --launch-count 1 --section SpeedOfLight \\
        python tools/profile_attention.py [--kernel flash_attention] [--pipeline ws-hopper] [--L 4096] [--sass DIR]
        python tools/profile_attention.py --source test/Inputs/kernels/scheduled/flash_attention_bf16.mlir
        python tools/profile_attention.py --fa3 [--causal]  # FlashAttention-3 (fa3-fwd, bf16) on the same shape
        python tools/profile_attention.py --kernel flash_attention_causal --bf16   # ours, causal bf16
        python tools/profile_attention.py --kernel flash_attention_fp8 --pipeline 'ws-hopper{v-transpose=consumer}'
        python tools/profile_attention.py --fa3 --fp8   # FlashAttention-3's fp8 forward (e4m3 Q, K, V)

With --sass DIR the kernel's PTX is written to DIR (assemble it with `ptxas -arch=sm_90a` and
read it with `cuobjdump --dump-sass`). Launches twice (a warm-up, then the profiled one)."""

import argparse
import math
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--kernel", default="flash_attention")
ap.add_argument("--pipeline", default="ws-hopper")
ap.add_argument("--L", type=int, default=4096)
ap.add_argument("--d", type=int, default=128)
ap.add_argument("--bh", type=int, default=128)
ap.add_argument("--sass", default="")
ap.add_argument("--source", default="", help="the kernel's file (default examples/kernels/KERNEL.mlir)")
ap.add_argument("--fa3", action="store_true", help="profile FlashAttention-3 (bf16) instead")
ap.add_argument("--causal", action="store_true", help="FlashAttention-3: causal (ours: pick a causal --kernel)")
ap.add_argument("--bf16", action="store_true", help="ours: the f16 kernel with bf16 elements")
ap.add_argument("--fp8", action="store_true", help="FlashAttention-3: e4m3 inputs (ours: a *fp8* --kernel is e4m3 anyway)")
ap.add_argument("--patch", default="", help="ours: the PTX patched as tools/probes/ptx_patch_ab.py does (membar, nanosleep)")
args = ap.parse_args()
if args.fa3:
    from fa3_fwd_interface import flash_attn_func

    q, kk, v = (torch.randn(1, args.L, args.bh, args.d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    if args.fp8:
        q, kk, v = (x.to(torch.float8_e4m3fn) for x in (q, kk, v))
    for _ in range(2):
        o = flash_attn_func(q, kk, v, causal=args.causal)
    o = o[0] if isinstance(o, tuple) else o
    torch.cuda.synchronize()
    print("done", o.float().abs().mean().item())
    sys.exit(0)
source = Path(args.source) if args.source else ROOT / "examples" / "kernels" / f"{args.kernel}.mlir"
text = source.read_text()
k = wsdialects.compile(text.replace("xf16", "xbf16") if args.bf16 else text, pipeline=args.pipeline)
if args.patch:
    sys.path.insert(0, str(ROOT / "tools" / "probes"))
    from ptx_patch_ab import FENCES, patch  # noqa: E402

    from wsdialects.runtime.launch import Launcher  # noqa: E402

    info = next(iter(k.kernels.values()))
    k = Launcher(patch(k.ptx, FENCES[args.patch])[0], info)
if args.sass:
    Path(args.sass).mkdir(parents=True, exist_ok=True)
    (Path(args.sass) / f"{args.kernel}.ptx").write_text(k.ptx)
fp8 = "fp8" in source.name  # e4m3 Q, K, V (V^T for *_vt), unit descales, O bf16
dt = torch.bfloat16 if "bf16" in source.name or args.bf16 or fp8 else torch.float16
q, kk, v = (torch.randn(args.bh, args.L, args.d, device="cuda", dtype=dt) for _ in range(3))
o = torch.empty_like(q)
if fp8:
    q, kk, v = (x.to(torch.float8_e4m3fn) for x in (q, kk, v))
    if source.stem.endswith("_vt"):
        v = v.transpose(1, 2).contiguous()  # V^T [bh, d, L] (L a multiple of 16)
    ones = torch.ones(args.bh, device="cuda")
for _ in range(2):
    if fp8:
        k[(args.L + 127) // 128, args.bh](q, kk, v, o, ones, ones, ones, 1, args.L, 1 / math.sqrt(args.d))
    else:
        k[(args.L + 127) // 128, args.bh](q, kk, v, o, args.L, 1 / math.sqrt(args.d))
torch.cuda.synchronize()
print("done", o.float().abs().mean().item())
