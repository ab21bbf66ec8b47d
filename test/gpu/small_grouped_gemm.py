"""A small grouped GEMM for compute-sanitizer (racecheck / synccheck / memcheck): torch._grouped_mm's
form (empty groups, groups smaller than a tile, a group's end cutting a tile) in every kernel form of
grouped_gemm_kernels.FORMS, and the list form (a descriptor per group); exit 1 where a group's rows
are off float32 matmuls by more than 1e-2 or a row past the last group was written.

    compute-sanitizer --tool racecheck python test/gpu/small_grouped_gemm.py [only=TEXT]"""
import sys

import torch

from wsdialects.runtime import grouped_gemm
from wsdialects.runtime import grouped_gemm_kernels as kernels

only = next((a[len("only="):] for a in sys.argv[1:] if a.startswith("only=")), "")
sizes, N, K = [0, 70, 129, 0, 200], 256, 192
torch.manual_seed(0)
S = sum(sizes)
a = torch.randn(S, K, device="cuda", dtype=torch.bfloat16)
b = (torch.randn(len(sizes), N, K, device="cuda") * K ** -0.5).to(torch.bfloat16)
offs = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
starts = [sum(sizes[:g]) for g in range(len(sizes))]
ref = torch.cat([a[s:s + m].float() @ b[g].float().T for g, (s, m) in enumerate(zip(starts, sizes))])
worst = 0.0
for form in sorted(kernels.FORMS):
    if only not in form:
        continue
    out = torch.full((S + 3, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    c = grouped_gemm(a, b, offs, out=out[:S], form=form, num_programs=4)
    torch.cuda.synchronize()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    untouched = bool(torch.isnan(out[S:]).all())
    print(f"small grouped GEMM {form}: rel err {err:.2e}, rows past the groups untouched: {untouched}")
    worst = max(worst, err) if err == err and untouched else float("inf")
if "list" in only or not only:
    a_l = [a[s:s + m] for s, m in zip(starts, sizes)]
    c_l = grouped_gemm(a_l, list(b))
    torch.cuda.synchronize()
    errs = [((c.float() - r.float()).norm() / max(r.float().norm(), 1e-30)).item() for c, r in
            zip(c_l, (x.float() @ y.float().T for x, y in zip(a_l, b))) if c.numel()]
    print(f"small grouped GEMM list form: worst rel err {max(errs):.2e}")
    worst = max([worst, *errs])
sys.exit(0 if worst < 1e-2 else 1)
