"""The GPU runtime's host path (wsdialects/runtime/launch.py) run on the test doubles of
launch_doubles.py (no GPU, torch or cuda-python): an imported Triton GEMM with host
descriptors launched through `wsdialects.compile(fn)` (the PTX is not made: the driver is a
double) passes the same kernel parameters at every launch as a launch given the torch views
themselves; a repeated launch makes no view, encodes no descriptor and switches no device; a
new tensor address is checked again; the stream and the device are the caller's."""

import ctypes
import importlib.util
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")
import launch_doubles  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

import wsdialects  # noqa: E402
import wsdialects.runtime.compiler as compiler  # noqa: E402
from wsdialects.runtime import launch  # noqa: E402
from wsdialects.triton.launch import expand  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
M, N, K = 512, 512, 256
KW = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8)


def _gemm_desc():
    spec = importlib.util.spec_from_file_location("launch_host_gemm_desc", REPO / "examples" / "triton" / "gemm_desc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.gemm_desc_kernel


@pytest.fixture
def gpu(monkeypatch):
    info = {}
    torch, drv, counts, launches = launch_doubles.install(monkeypatch, lambda: info["k"])
    monkeypatch.setattr(compiler, "_ptx_cached", lambda llvm_ir: "")
    k = wsdialects.compile(_gemm_desc())
    f16 = torch.float16
    x, y, z = torch.empty((M, K), f16), torch.empty((N, K), f16), torch.empty((M, N), f16)
    args = (TensorDescriptor.from_tensor(x, [128, 64]), TensorDescriptor.from_tensor(y, [256, 64]),
            TensorDescriptor.from_tensor(z, [128, 256]), M, N, K)
    bound, spec = k.specialize(args, KW)
    compiled = k.compiled_of(spec)
    info["k"] = compiled.kernels["gemm_desc_kernel"]
    return k, args, bound, spec, compiled.kernel("gemm_desc_kernel"), torch, counts, launches


def test_a_repeated_launch_passes_the_same_parameters_with_no_host_work(gpu):
    k, args, bound, spec, launcher, torch, counts, launches = gpu
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
    k[grid](*args, **KW)
    assert counts["cuTensorMapEncodeTiled"] == 3 and counts["as_strided"] == 3
    first = launches[-1]
    assert first.grid == (grid[0], 1, 1) and first.stream == 0x5000  # min(programs, tiles) when persistent
    p = first.params
    assert all(p[i] for i in (0, 5, 10))  # the three descriptors' device addresses
    assert p[1:5] == [M, K, K, 1] and p[6:10] == [N, K, K, 1] and p[11:15] == [M, N, N, 1] and p[15:18] == [M, N, K]
    # ws-hopper's default organisation may be persistent: then the user's grid follows, passed by the launcher
    persistent = launcher.info.persistent_programs > 0
    assert p[18:] == ([grid[0], 1, 1] if persistent else [])
    counts.clear()
    for _ in range(3):
        k[grid](*args, **KW)
    assert dict(counts) == {"cuLaunchKernel": 3}  # no view, no descriptor, no device switch
    assert all(x.params == p for x in launches[-3:])
    # the same launch given torch's views (as the autotuner and the interpreter pass them)
    launcher[grid](*expand(bound, spec[0]))
    assert launches[-1].params == p


def test_a_new_address_device_or_stream_is_the_callers(gpu):
    k, args, _bound, _spec, _launcher, torch, counts, launches = gpu
    k[(4,)](*args, **KW)
    p = launches[-1].params
    w = torch.empty((N, K), torch.float16)
    counts.clear()
    k[(4,)](args[0], TensorDescriptor.from_tensor(w, [256, 64]), args[2], M, N, K, **KW)
    assert counts["cuTensorMapEncodeTiled"] == 1  # only B's descriptor is new
    assert launches[-1].params[5] != p[5] and launches[-1].params[:5] == p[:5]
    k[(4,)](*args, stream=0x77, **KW)
    assert launches[-1].stream == 0x77 and launches[-1].params == p
    counts.clear()
    torch.current = 1  # another device is current: the launch switches to the tensors' for the call
    k[(4,)](*args, **KW)
    assert counts["device switch"] == 1 and torch.current == 1
    torch.current = 0
    k[(4,)](*args, **KW)
    assert counts["device switch"] == 1


def test_a_strided_view_is_checked_as_the_view_it_stands_for(gpu):
    _k, _args, _bound, _spec, launcher, torch, counts, launches = gpu
    x = torch.empty((64, 96), torch.float16)
    view = launch.StridedView(x, (64, 80), (96, 1))
    assert launch._identity(torch, (1, 1, 1), [view]) == launch._identity(torch, (1, 1, 1),
                                                                        [x.as_strided((64, 80), (96, 1))])
    with pytest.raises(launch.LaunchError, match="expected a torch CUDA tensor, got list"):
        y, z = torch.empty((N, K), torch.float16), torch.empty((M, N), torch.float16)
        launcher[(1,)](launch.StridedView([1], (2,), (1,)), M, K, K, 1, y, N, K, K, 1, z, M, N, N, 1, M, N, K)


def test_packed_kernel_parameters_hold_each_value_as_its_type():
    vals, types = (0x1234, -5, 1 << 40, 0.5, 2.25), (ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64,
                                                     ctypes.c_float, ctypes.c_double)
    address, keep = launch._params_block(vals, types)
    slots = (ctypes.c_void_p * 5).from_address(address)
    assert [t.from_address(s).value for t, s in zip(types, slots)] == list(vals)
    assert launch._params_block((), ()) == (None, None)


def test_a_wrong_argument_count_names_the_users_parameters(monkeypatch):
    """A persistent kernel whose store became a TMA store takes the user's 7 arguments; the
    descriptor, its flag and the grid the launch adds are not counted in what it asks for."""
    info = {}
    torch, _drv, _counts, _launches = launch_doubles.install(monkeypatch, lambda: info["k"])
    monkeypatch.setattr(compiler, "_ptx_cached", lambda llvm_ir: "")
    compiled = wsdialects.compile(REPO / "examples" / "kernels" / "gemm.mlir", "ws-hopper{persistent=true}")
    info["k"] = compiled.kernels["matmul"]
    assert info["k"].tma_stores and info["k"].persistent_programs
    a = torch.empty((128, 64), torch.float16)
    with pytest.raises(launch.LaunchError, match=r"matmul: expected 7 arguments \(a_desc, b_desc, c_ptr, M, N, K, "
                                                 r"stride_cm\), got 3"):
        compiled.kernel("matmul")[1](a, a, a)
