"""The same @triton.jit source compiled by Triton and by us (`wsdialects.compile(fn)`: Triton's
TTIR imported, ws-hopper), one GPU run: the example kernels of examples/triton/.

- GEMM (gemm_desc, host descriptors; also the pointer GEMM with GROUP_M and the persistent
  GEMM): M = N = 8192, K = 256 .. 16384, fp16, 128 x 256 x 64 tiles, 8 warps.
- Attention forward (attention_desc, device-side descriptors, the tutorial's algorithm):
  B 4, H 32, d 128, L = 1k .. 16k, causal and not, fp16 and bf16, 128 x 128 tiles, 8 warps.

Correctness first: both results are compared with torch (float32) on the same inputs; a
relative error above 1e-2 prints WRONG and the row is not timed. A kernel that we cannot
compile yet is skipped with a line saying why (the compile error), never a crash. Timing is
wsdialects.runtime.bench.cuda_timer (CUDA events, L2 flushed, median), the same for both;
only the launch is timed (arguments built once). Prints a table of TFLOP/s and ours / Triton.

    python bench/triton_frontend.py [--ks 256,1024] [--ls 1024,4096] [--dtypes fp16,bf16] [--causal 0,1]
                                    [--only gemm_desc,attention_desc] [--out FILE.md]

Needs a Hopper GPU, torch, cuda-python and triton: pip install -e '.[gpu,triton]'.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402
from wsdialects.diagnostics import WsError  # noqa: E402

EXAMPLES = ROOT / "examples" / "triton"


def example(name):
    spec = importlib.util.spec_from_file_location(f"examples_triton_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rel_err(out, ref) -> float:
    out, ref = out.double(), ref.double()
    if out.isnan().any():
        return float("inf")
    return ((out - ref).norm() / ref.norm()).item()


class Case:
    """One row: a launch for a kernel object (Triton's function or ours), its output, a
    torch reference, its FLOPs."""

    def __init__(self, family, label, flops, launch, output, reference):
        self.family, self.label, self.flops = family, label, flops
        self.launch, self.output, self.reference = launch, output, reference


def gemm_cases(torch, triton, ks, only):
    from triton.tools.tensor_descriptor import TensorDescriptor

    M = N = 8192
    BM, BN, BK = 128, 256, 64
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for K in ks:
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        bt = torch.randn(N, K, device="cuda", dtype=torch.float16)
        ref = lambda a=a, bt=bt: a.float() @ bt.float().T  # noqa: E731
        flops = 2 * M * N * K
        if "gemm_desc" in only:
            m = example("gemm_desc")
            c = torch.empty(M, N, device="cuda", dtype=torch.float16)
            d = [TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(bt, [BN, BK]),
                 TensorDescriptor.from_tensor(c, [BM, BN])]
            yield m.gemm_desc_kernel, Case("gemm_desc", f"K={K}", flops, lambda k, d=d, K=K: k[grid](
                *d, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=8), c, ref)
        if "gemm_pointer" in only:
            m = example("gemm_pointer")
            b = bt.T.contiguous()
            c = torch.empty(M, N, device="cuda", dtype=torch.float16)
            yield m.gemm_pointer_kernel, Case("gemm_pointer", f"K={K}", flops, lambda k, a=a, b=b, c=c, K=K: k[grid](
                a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, num_warps=8),
                c, ref)
        if "gemm_persistent" in only:
            m = example("gemm_persistent")
            c = torch.empty(M, N, device="cuda", dtype=torch.float16)
            d = [TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(bt, [BN, BK]),
                 TensorDescriptor.from_tensor(c, [BM, BN])]
            tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
            yield m.gemm_persistent_kernel, Case("gemm_persistent", f"K={K}", flops, lambda k, d=d, K=K: k[(
                min(sms, tiles),)](*d, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, NUM_SMS=sms, num_warps=8), c, ref)


def attention_cases(torch, triton, ls, dtypes, causals, only):
    if "attention_desc" not in only:
        return
    m = example("attention_desc")
    B, H, D = 4, 32, 128
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    for dtype in dtypes:
        for causal in causals:
            for L in ls:
                q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=dtype) for _ in range(3))
                o = torch.empty_like(q)
                scale = D ** -0.5

                def ref(q=q, k=k, v=v, causal=causal):  # the first two heads of batch 0, in float32
                    return torch.nn.functional.scaled_dot_product_attention(
                        q[:1, :2].float(), k[:1, :2].float(), v[:1, :2].float(), is_causal=causal, scale=scale)

                flops = 4 * B * H * L * L * D // (2 if causal else 1)
                grid = (triton.cdiv(L, 128), B * H)
                label = f"{'bf16' if dtype == torch.bfloat16 else 'fp16'} {'causal' if causal else 'full'} L={L}"
                yield m.attention_desc_kernel, Case(
                    "attention_desc", label, flops,
                    lambda kern, q=q, k=k, v=v, o=o, L=L, causal=causal, grid=grid: kern[grid](
                        q, k, v, o, scale, B, H, N_CTX=L, HEAD_DIM=D, BLOCK_M=128, BLOCK_N=128, CAUSAL=causal,
                        num_warps=8),
                    o, ref)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", default="256,512,1024,2048,4096,8192,16384")
    ap.add_argument("--ls", default="1024,2048,4096,8192,16384")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--only", default="gemm_desc,gemm_pointer,gemm_persistent,attention_desc")
    ap.add_argument("--out", help="also write the table to this markdown file")
    args = ap.parse_args(argv)
    try:
        import torch
        import triton
    except ImportError as e:
        print(f"triton_frontend: needs torch and triton ({e}): pip install -e '.[gpu,triton]'", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("triton_frontend: no CUDA GPU here", file=sys.stderr)
        return 2
    from wsdialects.runtime.bench import cuda_timer

    timer = cuda_timer(warmup=25, rep=100)
    only = set(args.only.split(","))
    dtypes = [{"fp16": torch.float16, "bf16": torch.bfloat16}[d] for d in args.dtypes.split(",")]
    cases = [*gemm_cases(torch, triton, [int(k) for k in args.ks.split(",")], only),
             *attention_cases(torch, triton, [int(x) for x in args.ls.split(",")], dtypes,
                              [bool(int(c)) for c in args.causal.split(",")], only)]
    ours_of: dict = {}
    refused: dict = {}
    lines = [f"# The same @triton.jit source: Triton {triton.__version__} vs wsdialects (ws-hopper), "
             f"{torch.cuda.get_device_name(0)}", "",
             "| kernel | case | Triton TFLOP/s | ours TFLOP/s | ours / Triton |", "|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for fn, case in cases:
        name = fn.__name__
        if name not in ours_of:
            ours_of[name] = wsdialects.compile(fn)
        row = f"| {case.family} | {case.label} |"
        if name in refused:
            lines.append(f"{row} - | skipped | ws-hopper does not compile it yet: {refused[name]} |")
            print(lines[-1], flush=True)
            continue
        ref = case.reference()
        results = {}
        for who, kern in (("triton", fn), ("ours", ours_of[name])):
            case.output.fill_(float("nan"))
            try:
                case.launch(kern)
                torch.cuda.synchronize()
            except WsError as e:
                refused[name] = str(e).splitlines()[0]
                break
            except Exception as e:  # noqa: BLE001 - one kernel's failure is a row, not the end of the run
                results[who] = f"FAILED ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
                traceback.print_exc(file=sys.stderr)
                continue
            out = case.output[:1, :2] if case.family.startswith("attention") else case.output
            err = rel_err(out, ref)
            results[who] = err if err < 1e-2 else f"WRONG (rel. error {err:.2e})"
        if name in refused:
            print(f"{row} - | skipped | ws-hopper does not compile it yet: {refused[name]} |", flush=True)
            lines.append(f"{row} - | skipped | ws-hopper does not compile it yet: {refused[name]} |")
            continue
        tflops = {}
        for who, kern in (("triton", fn), ("ours", ours_of[name])):
            if isinstance(results.get(who), float):
                ms = timer(lambda kern=kern: case.launch(kern))
                tflops[who] = case.flops / ms / 1e9
        cell = lambda who: f"{tflops[who]:.0f}" if who in tflops else str(results.get(who))  # noqa: E731
        ratio = f"{tflops['ours'] / tflops['triton']:.3f}" if len(tflops) == 2 else "-"
        line = f"{row} {cell('triton')} | {cell('ours')} | {ratio} |"
        lines.append(line)
        print(line, flush=True)
        del ref
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
