"""A small FP8 attention run for compute-sanitizer (racecheck / synccheck / memcheck): the
fp8 kernels (V transposed in the kernel by the producer into a ring of V^T, the default, or
through the consumers' staging buffer with v-transpose=consumer; causal; V^T given) under
ws-hopper, the ping-pong team and persistent; exit 1 on an error above the
tolerance of e4m3 P (against float32 SDPA of the dequantized inputs) or an unwritten element.

    compute-sanitizer --tool racecheck python test/gpu/small_attention_fp8.py [only=TEXT]"""
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

import wsdialects

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
PIPELINES = ["ws-hopper", "ws-hopper{cooperative=2 pingpong=true}",
             "ws-hopper{cooperative=2 pingpong=true persistent=true programs=2}",
             "ws-hopper{v-transpose=consumer}", "ws-hopper{cooperative=2 pingpong=true v-transpose=consumer}"]
only = next((a[len("only="):] for a in sys.argv[1:] if a.startswith("only=")), "")
B, H, L, d = 1, 2, 300, 128
torch.manual_seed(0)
q, k, v = (torch.randn(B * H, L, d, device="cuda").to(torch.float8_e4m3fn) for _ in range(3))
ones = torch.ones(B * H, device="cuda")
vt = torch.zeros((B * H, d, (L + 15) // 16 * 16), device="cuda", dtype=torch.float8_e4m3fn)
vt[:, :, :L] = v.transpose(1, 2)
worst = 0.0
for name, causal in (("flash_attention_fp8", False), ("flash_attention_fp8_causal", True),
                     ("flash_attention_fp8_vt", False)):
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    for pipe in PIPELINES:
        label = f"{name} {pipe}"
        if only not in label:
            continue
        kern = wsdialects.compile(KERNELS / f"{name}.mlir", pipeline=pipe)
        o = torch.full((B * H, L, d), float("nan"), device="cuda", dtype=torch.bfloat16)
        kern[(L + 127) // 128, B * H](q, k, vt if name.endswith("_vt") else v, o, ones, ones, ones, 1, L,
                                      1 / math.sqrt(d))
        torch.cuda.synchronize()
        err = ((o.float() - ref).norm() / ref.norm()).item()
        print(f"small fp8 attention L={L} {label}: rel err {err:.2e}")
        worst = max(worst, err) if err == err else float("inf")
sys.exit(0 if worst < 6e-2 else 1)
