"""The cases of test_triton_attention_bwd.py, run by Triton's interpreter on CPU tensors in a
process of their own: TRITON_INTERPRET=1 must be set before triton is imported (triton.language's
own @jit helpers, tl.zeros say, are made interpreted or compiled when triton is imported), and
the test process has imported triton for other tests. Prints one JSON object:

    {"skip": why}                                 torch, triton or the interpreter missing, or
    {"cases": {name: {...}}, "bf16": why or None}  bf16 left out (why) or run (None)

Each case holds the forward's O rel. error and LSE abs. error and, per config of CONFIGS, the
largest rel. error of dQ, dK, dV against torch autograd of float32 SDPA (outputs poisoned with
NaN first; at L = 1 dQ's and dK's largest magnitude: the reference's are exactly 0).

    TRITON_INTERPRET=1 python test/python/triton_attention_bwd_interp.py
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "triton_attention_bwd.py"
SHAPES = [(1, 2, 1), (1, 2, 64), (1, 2, 200), (2, 1, 130)]  # (B, H, L), d 64


def _reference(torch, F, q, k, v, do, causal):
    """(o, lse in log2 units, (dq, dk, dv)) of float32 attention."""
    qf, kf, vf = (x.float().requires_grad_(True) for x in (q, k, v))
    o = F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal)
    grads = torch.autograd.grad(o, (qf, kf, vf), do.float())
    L, d = q.shape[-2:]
    s = qf.detach() @ kf.detach().transpose(-1, -2) / math.sqrt(d)
    if causal:
        s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    return o.detach(), torch.logsumexp(s, -1) / math.log(2), grads


def _rel(x, ref) -> float:
    return ((x.float() - ref).norm() / ref.norm()).item()


def _bf16_dot_works(torch, triton, tl) -> str | None:
    """None where the interpreter's tl.dot of bf16 operands computes their values, else why not
    (Triton 3.9's multiplies the uint16 bit patterns: triton-lang/triton#11584)."""

    @triton.jit
    def dot(X, Z):
        r = tl.arange(0, 16)
        x = tl.load(X + r[:, None] * 16 + r[None, :])
        tl.store(Z + r[:, None] * 16 + r[None, :], tl.dot(x, x))

    z = torch.empty(16, 16)
    dot[(1,)](torch.eye(16, dtype=torch.bfloat16) * 2, z)
    if torch.equal(z, torch.eye(16) * 4):
        return None
    return "the Triton interpreter's tl.dot multiplies bf16 bit patterns (triton-lang/triton#11584)"


def run() -> dict:
    if os.environ.get("TRITON_INTERPRET") != "1":
        return {"skip": "TRITON_INTERPRET=1 is not set"}
    try:
        import torch
        import torch.nn.functional as F
        import triton
        import triton.language as tl
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError as e:
        return {"skip": f"{type(e).__name__}: {e}"}
    spec = importlib.util.spec_from_file_location("triton_attention_bwd", SCRIPT)
    tab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tab)
    if not isinstance(tab._attn_bwd, InterpretedFunction):
        return {"skip": "TRITON_INTERPRET=1 does not make interpreted kernels with this Triton"}
    bf16 = _bf16_dot_works(torch, triton, tl)
    cases = {}
    for dname in ("fp16", "bf16") if bf16 is None else ("fp16",):
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dname]
        for causal in (False, True):
            for B, H, L in SHAPES:
                torch.manual_seed(L + 7 * causal)
                q, k, v, do = (torch.randn(B, H, L, 64, dtype=dtype) for _ in range(4))
                o_ref, lse_ref, grads_ref = _reference(torch, F, q, k, v, do, causal)
                o, lse = tab.attention_forward(q, k, v, causal)
                case = {"o": _rel(o, o_ref), "lse": (lse - lse_ref).abs().max().item(),
                        "lse_shape": list(lse.shape), "lse_dtype": str(lse.dtype)}
                for cfg in tab.CONFIGS:
                    grads = tuple(torch.full_like(q, float("nan")) for _ in range(3))
                    same = tab.attention_backward(q, k, v, o, lse, do, causal, cfg=cfg, out=grads) is grads
                    errs = [g.float().abs().max().item() if L == 1 and i < 2 else _rel(g, r)
                            for i, (g, r) in enumerate(zip(grads, grads_ref))]
                    case[str(cfg)] = {"errors": [e if e == e else "nan" for e in errs], "out": same}
                cases[f"{dname} {'causal' if causal else 'full'} {B}x{H}x{L}"] = case
    # the LSE of another forward (torch's, log2 units), [BH, L, d] inputs; off by one: wrong
    torch.manual_seed(3)
    q, k, v, do = (torch.randn(3, 130, 64, dtype=torch.float16) for _ in range(4))
    o_ref, lse_ref, grads_ref = _reference(torch, F, q, k, v, do, True)
    right = tab.attention_backward(q, k, v, o_ref.half(), lse_ref, do, True, cfg=tab.CONFIGS[1])
    wrong = tab.attention_backward(q, k, v, o_ref.half(), lse_ref + 1, do, True, cfg=tab.CONFIGS[1])
    cases["torch lse"] = {"right": max(_rel(g, r) for g, r in zip(right, grads_ref)),
                          "off by one": _rel(wrong[2], grads_ref[2])}
    errors = {}
    z = torch.zeros(1, 1, 16, 64, dtype=torch.float16)
    for name, call in (("config", lambda: tab.attention_backward(z, z, z, z, torch.zeros(1, 1, 16), z, False,
                                                                 cfg=(32, 128, 64, 32, 4, 3))),
                       ("head dim", lambda: tab.attention_forward(z[..., :32], z[..., :32], z[..., :32], False)),
                       ("dtype", lambda: tab.attention_forward(z.float(), z.float(), z.float(), False))):
        try:
            call()
            errors[name] = None
        except ValueError as e:
            errors[name] = str(e)
    cases["errors"] = errors
    return {"cases": cases, "bf16": bf16, "configs": [str(c) for c in tab.CONFIGS]}


if __name__ == "__main__":
    json.dump(run(), sys.stdout)
    sys.exit(0)
