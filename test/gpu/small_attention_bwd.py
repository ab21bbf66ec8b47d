"""A small attention backward for compute-sanitizer (racecheck / synccheck / memcheck): the
three kernels of `attention_backward` (preprocess, main, dQ convert) in every form of
attention_bwd.FORMS, causal and not, at a length that leaves the last query and key blocks
masked; exit 1 where dQ, dK or dV is off float32 autograd by more than 1e-2 or unwritten.

    compute-sanitizer --tool racecheck python test/gpu/small_attention_bwd.py [only=TEXT]"""
import sys

import torch
import torch.nn.functional as F

from wsdialects.runtime import attention_backward, attention_forward
from wsdialects.runtime.attention_bwd import FORMS

only = next((a[len("only="):] for a in sys.argv[1:] if a.startswith("only=")), "")
B, H, L, d = 1, 2, 200, 128
torch.manual_seed(0)
q, k, v, do = (torch.randn(B, H, L, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
worst = 0.0
for causal in (False, True):
    # the reference on the CPU: under racecheck, torch's own GPU backward (its memory-efficient
    # kernel) reports hazards of its own that would hide ours
    qf, kf, vf = (t.float().cpu().requires_grad_() for t in (q, k, v))
    F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal).backward(do.float().cpu())
    o, lse = attention_forward(q, k, v, causal=causal)
    for form in sorted(FORMS):
        label = f"{form} causal={causal}"
        if only not in label:
            continue
        out = tuple(torch.full_like(q, float("nan")) for _ in range(3))
        grads = attention_backward(q, k, v, o, lse, do, causal=causal, form=form, out=out)
        torch.cuda.synchronize()
        errs = [((g.float().cpu() - r.grad).norm() / r.grad.norm()).item() for g, r in zip(grads, (qf, kf, vf))]
        print(f"small attention backward L={L} {label}: rel err dq {errs[0]:.2e} dk {errs[1]:.2e} dv {errs[2]:.2e}")
        worst = max([worst, *errs]) if all(e == e for e in errs) else float("inf")
sys.exit(0 if worst < 1e-2 else 1)
