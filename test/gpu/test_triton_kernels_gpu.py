"""The example Triton kernels (examples/triton/) on the GPU: each compiled by Triton itself
and by us (`wsdialects.compile(fn)`, imported TTIR through ws-hopper), launched by the same
helper the way a Triton user launches them, both checked against torch. A kernel that
ws-hopper does not take yet is skipped with its compile error (the report of what imports
but does not compile). Skips without a Hopper GPU, torch, cuda-python or triton."""

import importlib.util
from pathlib import Path

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()
triton = pytest.importorskip("triton")

import wsdialects  # noqa: E402
from wsdialects.diagnostics import WsError  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triton"


def _example(name):
    spec = importlib.util.spec_from_file_location(f"examples_triton_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def both(helper, fn, *args, **kwargs):
    """(Triton's result, ours) of `helper(*args, kernel=...)`; ours skipped where ws-hopper refuses."""
    theirs = helper(*args, kernel=fn, **kwargs)
    try:
        ours = helper(*args, kernel=wsdialects.compile(fn), **kwargs)
    except WsError as e:
        pytest.skip(f"ws-hopper does not compile {fn.__name__} yet: {str(e).splitlines()[0]}")
    torch.cuda.synchronize()
    return theirs, ours


def check(theirs, ours, ref, tol=1e-2):
    assert rel_err(theirs, ref) < tol, "Triton's own compile disagrees with torch: the test's reference is wrong"
    assert rel_err(ours, ref) < tol


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(512, 768, 256), (1000, 520, 200)])
def test_gemm_desc(dtype, shape):
    m = _example("gemm_desc")
    M, N, K = shape
    a, b = torch.randn(M, K, device="cuda", dtype=dtype), torch.randn(N, K, device="cuda", dtype=dtype)
    check(*both(m.gemm_desc, m.gemm_desc_kernel, a, b), a.float() @ b.float().T)


@pytest.mark.parametrize("shape", [(512, 512, 256), (1000, 520, 200)])
def test_gemm_pointer(shape):
    m = _example("gemm_pointer")
    M, N, K = shape
    a, b = torch.randn(M, K, device="cuda", dtype=torch.float16), torch.randn(K, N, device="cuda", dtype=torch.float16)
    check(*both(m.gemm_pointer, m.gemm_pointer_kernel, a, b), a.float() @ b.float())


@pytest.mark.parametrize("num_sms", [None, 7])
def test_gemm_persistent(num_sms):
    """40 tiles over every SM (a tile each), and over 7 programs (5 or 6 tiles each: the outer loop turns)."""
    m = _example("gemm_persistent")
    a, b = (torch.randn(s, device="cuda", dtype=torch.float16) for s in ((1024, 512), (1280, 512)))
    check(*both(m.gemm_persistent, m.gemm_persistent_kernel, a, b, num_sms=num_sms), a.float() @ b.float().T)


@pytest.mark.parametrize("activation", ["relu", "silu"])
def test_gemm_epilogue(activation):
    m = _example("gemm_epilogue")
    a, b = (torch.randn(s, device="cuda", dtype=torch.float16) for s in ((512, 256), (384, 256)))
    bias = torch.randn(384, device="cuda", dtype=torch.float16)
    x = a.float() @ b.float().T + bias.float()
    ref = torch.relu(x) if activation == "relu" else torch.nn.functional.silu(x)
    check(*both(m.gemm_epilogue, m.gemm_epilogue_kernel, a, b, bias, activation), ref)


def test_gemm_fp8():
    m = _example("gemm_fp8")
    a, b = (torch.randn(s, device="cuda").to(torch.float8_e4m3fn) for s in ((512, 512), (512, 512)))
    check(*both(m.gemm_fp8, m.gemm_fp8_kernel, a, b, 0.5), 0.5 * (a.float() @ b.float().T), tol=2e-2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_desc(dtype, causal):
    m = _example("attention_desc")
    q, k, v = (torch.randn(2, 4, 1024, 128, device="cuda", dtype=dtype) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                           scale=0.1)
    check(*both(m.attention_desc, m.attention_desc_kernel, q, k, v, causal, 0.1), ref)


def test_attention_block_ptr():
    m = _example("attention_block_ptr")
    if not m.__dict__.get("TTIR_TRITON") or tuple(int(x) for x in triton.__version__.split(".")[:2]) >= (3, 9):
        pytest.skip(f"block pointers are gone from triton {triton.__version__}")
    q, k, v = (torch.randn(2, 4, 512, 128, device="cuda", dtype=torch.float16) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=0.1)
    check(*both(m.attention_block_ptr, m.attention_block_ptr_kernel, q, k, v, 0.1), ref)


def test_autotune_gemm_desc_over_triton_configs():
    m = _example("gemm_desc")
    M, N, K = 1024, 1024, 512
    a, b = (torch.randn(s, device="cuda", dtype=torch.float16) for s in ((M, K), (N, K)))
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)

    def fit(nargs):
        nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
        nargs["b_desc"].block_shape = [nargs["BLOCK_N"], nargs["BLOCK_K"]]
        nargs["c_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]

    configs = [triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, pre_hook=fit),
               triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, pre_hook=fit)]
    t = wsdialects.autotune(m.gemm_desc_kernel, configs=configs, key=["M", "N", "K"], cache_dir=False)
    from triton.tools.tensor_descriptor import TensorDescriptor

    descs = [TensorDescriptor.from_tensor(x, [64, 64]) for x in (a, b, c)]
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    t[grid](*descs, M, N, K)
    torch.cuda.synchronize()
    assert rel_err(c, a.float() @ b.float().T) < 1e-2
    assert len(t.best_config) == 1
