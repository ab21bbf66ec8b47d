"""ws-tma-load: the pointer GEMM (Triton's classic form) interpreted before and after the pass, and
after ws-specialize (which runs it first), on random inputs with ragged shapes gives the same C, on
both sides of the launch's choice: row strides TMA can take (the descriptor covers the pointer
argument itself) and ones it cannot (it covers an aligned copy). The contract's views, a view past
the array, and the loads the pass must leave are checked too."""

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from conftest import rel_err
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.interpreter.tma_loads import tma_load_arguments
from wsdialects.transforms.partition import kernels

KERNEL = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "pointer_gemm.mlir"


def _run(module, a, b):
    (M, K), N = a.shape, b.shape[1]
    c = np.full((M, N), np.nan, np.float16)
    grid = -(-M // 128) * -(-N // 128)
    wsdialects.interpret(module, "pointer_gemm", grid, [a, b, c, M, N, K, K, N, N], seed=3)
    return c


def _inputs(rng, M, N, K):
    return rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)


# K = 72 and N = 136: rows of 144 and 272 bytes, TMA takes both arrays; K = 70 and N = 140: rows of
# 140 and 280 bytes, both descriptors cover aligned copies. M, N and K cut the last tiles.
@pytest.mark.parametrize("pipeline", ["ws-tma-load", "ws-specialize"])
@pytest.mark.parametrize("M,N,K,direct", [(150, 136, 72, True), (150, 140, 70, False)])
def test_tma_load_preserves_semantics(pipeline, M, N, K, direct, rng):
    module = compile_kernel(KERNEL, pipeline, shared=True)
    (kernel,) = kernels(module)
    assert not [o for o in kernel.body.walk() if o.name == "tile.load"], "a pointer load is left"
    a, b = _inputs(rng, M, N, K)
    params = kernel.body.block.args
    views = tma_load_arguments(kernel.attributes["ws.tma_loads"], [a, b, None, M, N, K, K, N, N], params)
    assert [v.shape for v in views.values()] == [(M, K), (K, N)]
    assert all(np.shares_memory(v, x) == direct for v, x in zip(views.values(), (a, b)))
    before = _run(parse_kernel(KERNEL, shared=True), a, b)
    after = _run(module, a, b)
    assert np.array_equal(before, after)
    assert rel_err(after, a.astype(np.float32) @ b.astype(np.float32)) < 1e-2


def test_the_view_is_the_argument_or_a_copy():
    """The descriptor covers the rows x cols view of the pointer's array with the row stride the
    contract computes (here from an unmasked row axis: as many rows as the array holds); a
    misaligned base gets an aligned copy of the same values; a view past the array is an error."""
    module = compile_kernel(KERNEL, "ws-tma-load")
    (kernel,) = kernels(module)
    attr, params = kernel.attributes["ws.tma_loads"], kernel.body.block.args
    big = np.arange(2 * 200 * 72, dtype=np.float16).reshape(-1)
    a = big[1:1 + 150 * 72].reshape(150, 72)  # 2-byte offset: not 16-byte aligned
    assert a.ctypes.data % 16
    b = np.zeros((72, 136), np.float16)
    views = tma_load_arguments(attr, [a, b, None, 150, 136, 72, 72, 136, 136], params)
    va = views[params[-2].index]
    assert not np.shares_memory(va, a) and np.array_equal(va, a) and va.ctypes.data % 16 == 0
    with pytest.raises(TypeError, match="does not hold"):
        tma_load_arguments(attr, [a, b, None, 151, 136, 72, 72, 136, 136], params)


# Triton's tutorial matmul as Triton 3.9 prints it (examples/triton/gemm_pointer.py): rows wrapped
# `% M` and columns `% N` instead of masked, inner strides stride_ak / stride_bn kernel arguments.
TTIR = Path(__file__).resolve().parents[1] / "Inputs" / "triton" / "gemm_pointer_f16_64x64x32_g2.ttir"


def _run_ttir(module, a_arg, b, strides, M, K, c_rows=None):
    N = b.shape[1]
    c = np.full((c_rows or M, N), np.nan, np.float16)
    grid = -(-M // 64) * -(-N // 64)
    wsdialects.interpret(module, "gemm_pointer_kernel", grid, [a_arg, b, c, M, N, K, *strides, N, 1], seed=5)
    return c


# A given row-major (stride_ak = 1: TMA reads it, or its aligned copy where K = 70 makes rows of 140
# bytes) or as the transpose of a K x M array (stride_am = 1, stride_ak = M: the unit-stride contract
# fails at launch and the descriptor covers a contiguous copy). M, N and K cut the last tiles, so the
# wrapped rows and columns are loaded (and stored nowhere).
@pytest.mark.parametrize("pipeline", ["ws-tma-load", "ws-specialize"])
@pytest.mark.parametrize("M,N,K,a_layout", [(150, 136, 72, "rows"), (150, 136, 70, "rows"),
                                            (130, 72, 72, "cols")])
def test_triton_tutorial_gemm_wraps_and_unit_strides(pipeline, M, N, K, a_layout, rng):
    module = compile_kernel(TTIR, pipeline, shared=True)
    (kernel,) = kernels(module)
    assert not [o for o in kernel.body.walk() if o.name == "tile.load"], "a pointer load is left"
    if pipeline == "ws-specialize":
        assert [o for o in kernel.body.walk() if o.name == "aref.create"], "not warp-specialized"
    a, b = _inputs(rng, M, N, K)
    if a_layout == "rows":
        a_arg, strides = a, [K, 1]
    else:
        a_arg, strides = np.ascontiguousarray(a.T), [1, M]
    strides += [N, 1]
    params = kernel.body.block.args
    views = tma_load_arguments(kernel.attributes["ws.tma_loads"], [a_arg, b, None, M, N, K, *strides, N, 1],
                               params)
    va, vb = views.values()
    assert va.shape == (M, K) and vb.shape == (K, N) and np.array_equal(va, a) and np.array_equal(vb, b)
    assert np.shares_memory(va, a_arg) == (a_layout == "rows" and K % 8 == 0)
    before = _run_ttir(parse_kernel(TTIR, shared=True), a_arg, b, strides, M, K)
    after = _run_ttir(module, a_arg, b, strides, M, K)
    assert not np.isnan(after).any()
    assert np.array_equal(before, after)
    assert rel_err(after, a.astype(np.float32) @ b.astype(np.float32)) < 1e-2


def test_a_wrap_seen_unmasked_is_left(tmp_path, rng):
    """The same kernel storing C with its column mask alone: the wrapped rows of A reach stored
    lanes (C has room for whole tiles), so A stays a pointer load while B, whose wrapped columns
    are still masked off, becomes a TMA load; the kernel computes what it did, wrapped rows too."""
    text = TTIR.read_text()
    masked = "tt.store %c_ptrs_45, %c, %8 :"
    assert masked in text
    path = tmp_path / "gemm_pointer_column_mask.ttir"
    path.write_text(text.replace(masked, "tt.store %c_ptrs_45, %c, %7 :"))
    module = compile_kernel(path, "ws-tma-load")
    (kernel,) = kernels(module)
    loads = [o for o in kernel.body.walk() if o.name == "tile.load"]
    assert [o.result.type.get_shape() for o in loads] == [(64, 32)]
    assert len(kernel.attributes["ws.tma_loads"].data) == 1
    M, N, K = 100, 72, 40  # the second row of tiles stores rows 100..127: A's rows 0..27 again
    a, b = _inputs(rng, M, N, K)
    before = _run_ttir(parse_kernel(path), a, b, [K, 1, N, 1], M, K, c_rows=128)
    after = _run_ttir(module, a, b, [K, 1, N, 1], M, K, c_rows=128)
    assert np.array_equal(before, after)
    want = a.astype(np.float32)[np.arange(128) % M] @ b.astype(np.float32)
    assert rel_err(after, want) < 1e-2


WRAP = Path(__file__).resolve().parents[1] / "transforms" / "Inputs" / "tma-load-wrap.mlir"


@pytest.mark.parametrize("transposed", [False, True])
def test_wrapped_rows_in_i64_offsets(transposed, rng):
    """@proven of tma-load-wrap.mlir: rows wrapped `% M` and offsets in i64 (extsi), the column
    stride the argument %U; y = 2 x through the TMA load on rows M = 100 (the second tile's rows
    100..127 wrap, and are masked off at the store), x given row-major (U = 1) or as the transpose
    of a 64 x M array (S = 1, U = M: the launch reads a contiguous copy)."""
    M = 100
    x = rng.standard_normal((M, 64)).astype(np.float16)
    x_arg, S, U = (np.ascontiguousarray(x.T), 1, M) if transposed else (x, 64, 1)
    module = compile_kernel(WRAP, "ws-tma-load", shared=True)
    proven = [k for k in kernels(module) if k.sym_name.data == "proven"][0]
    assert not [o for o in proven.body.walk() if o.name == "tile.load"]
    outs = []
    for m in (parse_kernel(WRAP, shared=True), module):
        y = np.full((M, 64), np.nan, np.float16)
        wsdialects.interpret(m, "proven", 2, [x_arg, y, M, 0, S, U])
        outs.append(y)
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[1], x + x)


I64 = Path(__file__).resolve().parents[1] / "transforms" / "Inputs" / "tma-load-i64.mlir"


@pytest.mark.parametrize("pipeline", ["ws-tma-load", "ws-specialize"])
def test_i64_block_pointer_rows(pipeline, rng):
    """tma-load-i64.mlir (Triton 3.6's block-pointer form): y = the sum of x's 32-row blocks from
    row `first` on, before and after the pass."""
    x = rng.standard_normal((200, 72)).astype(np.float16)  # row stride 72: 144 bytes, TMA takes it
    module = compile_kernel(I64, pipeline, shared=True)
    assert not [o for o in module.walk() if o.name == "tile.load"]
    outs = []
    for m in (parse_kernel(I64, shared=True), module):
        y = np.full((32, 64), np.nan, np.float32)
        wsdialects.interpret(m, "row_blocks", 1, [x, y, 96, 72, 40])
        outs.append(y)
    want = x[40:136, :64].astype(np.float32).reshape(3, 32, 64).sum(0)
    assert np.array_equal(outs[0], outs[1]) and np.allclose(outs[1], want, atol=1e-3)


@pytest.mark.parametrize("pipeline", ["ws-tma-load", "ws-specialize"])
@pytest.mark.parametrize("M,K", [(0, 72), (150, 0)])
def test_empty_views_read_nothing(pipeline, M, K, rng):
    """M = 0 or K = 0: the kernel reads nothing through that view, a legal launch; the launch gives
    the descriptor an empty array (boxes read through it are zeros, as TMA's out-of-bounds fill
    and the masked pointer loads give). With K = 0 the kernel interpreted before and after the
    pass computes the same C, zeros (with M = 0 this kernel runs no program: its grid is empty)."""
    module = compile_kernel(KERNEL, pipeline, shared=True)
    (kernel,) = kernels(module)
    N = 136
    a, b = _inputs(rng, M, N, K)
    views = tma_load_arguments(kernel.attributes["ws.tma_loads"], [a, b, None, M, N, K, K, N, N],
                               kernel.body.block.args)
    assert [v.shape for v in views.values()] == [(M, K), (K, N)]
    if M == 0:
        return
    before, after = _run(parse_kernel(KERNEL, shared=True), a, b), _run(module, a, b)
    assert np.array_equal(before, after) and not np.isnan(after).any()
    assert np.array_equal(after, np.zeros((M, N), np.float16))


def test_launch_view_of_a_load_contract():
    """The one check both launchers make (`tma_common.launch_view`) on a ws-tma-load entry: a view
    TMA takes as it is, one it takes through a copy (rows of 140 bytes), empty views (M = 0, K = 0,
    a negative bound: the kernel's masks leave nothing) and a view past the array, a problem."""
    from wsdialects.transforms.tma_common import launch_view, load_contract

    (kernel,) = kernels(compile_kernel(KERNEL, "ws-tma-load"))
    ea = load_contract(kernel.attributes["ws.tma_loads"])[0]  # A: M x K, row stride K

    def view(M, K, elements, base=0):
        return launch_view(ea, [None, None, None, M, 136, K, K, 136, 136], elements, 2, base, str)

    assert view(150, 72, 150 * 72) == (([150, 72], [72, 1], False, False, None))
    assert view(150, 70, 150 * 70).copy and view(150, 72, 150 * 72, base=2).copy
    for M, K in ((0, 72), (150, 0), (-3, 72)):
        v = view(M, K, 150 * 72)
        assert v.empty and v.problem is None and 0 in v.shape and min(v.shape) == 0
    v = view(151, 72, 150 * 72)
    assert not v.empty and "a 151 x 72 view with a row stride of 72 elements" in v.problem
    assert "does not hold" in v.problem
