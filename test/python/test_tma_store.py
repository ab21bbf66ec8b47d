"""ws-tma-store: the GEMM interpreted before and after the pass (and after ws-hopper, which runs it
on persistent kernels) on fresh random inputs gives the same C, on both sides of the launch's flag:
a row stride TMA can take (the TMA store) and one it cannot (the pointer store); the columns past N
of a wider C are never written."""

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from conftest import gemm_reference, rel_err
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.interpreter.values import tma_store_arguments
from wsdialects.transforms.partition import kernels


def _gemm(shared):
    return shared / "kernels" / "gemm.mlir"


def _inputs(rng, M, N, K):
    return rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((N, K)).astype(np.float16)


def _run(module, a, b, ld):
    (M, K), N = a.shape, b.shape[0]
    c = np.full((M, ld), np.nan, np.float16)
    grid = -(-M // 128) * -(-N // 256)
    wsdialects.interpret(module, "matmul", grid, [a, b, c, M, N, K, ld], seed=5)
    assert np.isnan(c[:, N:]).all(), "a column past N was written"
    return c[:, :N]


@pytest.mark.parametrize("pipeline", ["ws-tma-store", "ws-hopper{persistent=true programs=2}",
                                      "ws-hopper{tma-store=true}"])
# a TMA view (rows of 592 bytes, stride 608), a stride TMA cannot take (602 bytes), and rows that do not
# end on 16 bytes (600: a TMA store would write past N up to the next 16-byte boundary)
@pytest.mark.parametrize("N,ld,tma", [(296, 304, True), (296, 301, False), (300, 304, False)])
def test_tma_store_preserves_semantics(shared, pipeline, N, ld, tma, rng):
    module = compile_kernel(_gemm(shared), pipeline, shared=True)
    (kernel,) = kernels(module)
    (entry,) = kernel.attributes["ws.tma_stores"].data
    params = kernel.body.block.args
    hidden = 2 + (3 if "ws.persistent" in kernel.attributes else 0)
    assert entry.data["desc"].value.data == len(params) - hidden
    M, K = 200, 72
    probe = [None, None, np.zeros((M, ld), np.float16), M, N, K, ld]
    assert tma_store_arguments(kernel.attributes["ws.tma_stores"], probe, params)[1] == int(tma)
    a, b = _inputs(rng, M, N, K)
    before = _run(parse_kernel(_gemm(shared), shared=True), a, b, ld)
    after = _run(module, a, b, ld)
    assert np.array_equal(before, after)
    assert rel_err(after, gemm_reference(a, b)) < 1e-2


def test_the_view_is_the_pointer_argument():
    """The descriptor the interpreter builds is the M x N view of the pointer's array with row stride S:
    a store through it lands in the array; a view past the array, a stride below N, a row stride or a
    row extent that is not a multiple of 16 bytes gets the flag 0 and a placeholder."""
    module = wsdialects.parse((__import__("pathlib").Path(__file__).parents[2] / "examples" / "kernels" /
                               "gemm.mlir").read_text())
    from wsdialects.transforms.tma_store import TmaStorePass

    TmaStorePass().apply(None, module)
    (kernel,) = kernels(module)
    contract, params = kernel.attributes["ws.tma_stores"], kernel.body.block.args
    c = np.zeros((4, 24), np.float16)
    args = [None, None, c, 4, 16, 64, 24]
    view, ok = tma_store_arguments(contract, args, params)
    assert ok == 1 and view.shape == (4, 16) and np.shares_memory(view, c)
    view[3, 15] = 7
    assert c[3, 15] == 7
    # past the array, n > s, a 40-byte stride, no rows, rows of 40 bytes (TMA would store 48)
    for m, n, s in [(5, 16, 24), (4, 30, 24), (4, 16, 20), (0, 16, 24), (4, 20, 24)]:
        args = [None, None, c, m, n, 64, s]
        assert tma_store_arguments(contract, args, params)[1] == 0, (m, n, s)


def test_a_masked_store_of_another_shape_stays(shared):
    """A kernel without a pointer-tile store (TMA-stored attention) is left as it is, with a remark."""
    from wsdialects.diagnostics import collect_notes
    from wsdialects.transforms.tma_store import TmaStorePass

    module = parse_kernel(shared / "kernels" / "attention.mlir")
    with collect_notes() as notes:
        TmaStorePass().apply(None, module)
    assert "ws.tma_stores" not in kernels(module)[0].attributes
    assert any("no pointer-tile store" in n[2] for n in notes)


def test_the_launch_contract_reaches_the_runtime(shared):
    """The lowered kernel tells the runtime where each converted store's pointer, M, N and S are, and
    which descriptors it stores through (the runtime then refuses a view whose rows do not end on 16
    bytes: a TMA store writes whole 16-byte chunks)."""
    from wsdialects.lower.to_llvm import lower_module

    module = compile_kernel(_gemm(shared), "ws-hopper{persistent=true}")
    (info,) = lower_module(module).kernels
    assert info.tma_stores == [{"ptr": 2, "rows": 3, "cols": 4, "stride": 6, "desc": 7}]
    names = [p.name for p in info.params]
    assert names[7:9] == ["c_ptr_tma", "c_ptr_tma_ok"] and names[9:] == ["ws_grid_x", "ws_grid_y", "ws_grid_z"]
    assert [p.name for p in info.params if p.kind == "desc" and p.stored] == ["c_ptr_tma"]
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in lower_module(module).llvm_ir


@pytest.mark.parametrize("view,why", [
    ((4, 16, 24, 2, 0, 96), None),
    ((4, 16, 24, 2, 0, 87), "ends past the 87 elements"),
    ((4, 30, 24, 2, 0, 96), "a 4 x 30 view with a row stride of 24"),
    ((0, 16, 24, 2, 0, 96), "a 0 x 16 view"),
    ((4, 16, 20, 2, 0, 96), "a row stride of 40 bytes is not a multiple of 16"),
    ((4, 20, 24, 2, 0, 96), "a row of 40 bytes is not a multiple of 16"),  # TMA would write 8 bytes past it
    ((4, 16, 24, 2, 8, 96), "a base address of 8 bytes is not a multiple of 16")])
def test_view_problem_is_the_launch_flag(view, why):
    """The one rule the GPU runtime and the interpreter both apply before setting the flag."""
    from wsdialects.transforms.tma_common import view_problem

    got = view_problem(*view)
    assert (got is None) if why is None else (why in got), got


_TUTORIAL = Path(__file__).parents[1] / "Inputs" / "triton" / "gemm_pointer_f16_64x64x32_g2_unit.ttir"


@pytest.mark.parametrize("pipeline", ["ws-tma-store", "ws-hopper{persistent=true programs=3}"])
@pytest.mark.parametrize("M,N,K,ldc", [(100, 72, 40, 72), (64, 130, 96, 136), (70, 50, 33, 50)])
def test_the_tutorial_store_form(pipeline, M, N, K, ldc, rng):
    """Triton's tutorial matmul stores through `c + stride_cm * offs_cm[:, None] + offs_cn[None, :]`
    (a pointer tile of one column broadcast, then the columns added): a TMA store where the launch
    allows it (ldc 72, 136), the pointer store where it does not (N = 50: rows of 100 bytes), the
    same C either way; nothing past N written."""
    module = compile_kernel(_TUTORIAL, pipeline, shared=True)
    (kernel,) = kernels(module)
    (entry,) = kernel.attributes["ws.tma_stores"].data
    assert {k: entry.data[k].value.data for k in ("ptr", "rows", "cols", "stride")} == \
        {"ptr": 2, "rows": 3, "cols": 4, "stride": 8}
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    grid = -(-M // 64) * -(-N // 64)
    outs = []
    for m in (parse_kernel(_TUTORIAL, shared=True), module):
        c = np.full((M, ldc), np.nan, np.float16)
        wsdialects.interpret(m, "gemm_pointer_kernel", grid, [a, b, c, M, N, K, K, N, ldc], seed=3)
        assert np.isnan(c[:, N:]).all(), "a column past N was written"
        outs.append(c[:, :N])
    assert np.array_equal(outs[0], outs[1])
    assert rel_err(outs[1], a.astype(np.float32) @ b.astype(np.float32)) < 1e-2


def test_a_column_stride_that_is_not_one_stays():
    """The same store with the column stride an argument (not known to be 1) is not a row-major box: the
    pointer store stays, with the remark."""
    from wsdialects.diagnostics import collect_notes
    from wsdialects.transforms.tma_store import TmaStorePass

    module = wsdialects.parse_file(_TUTORIAL.with_name("gemm_pointer_f16_64x64x32_g2.ttir"))
    with collect_notes() as notes:
        TmaStorePass().apply(None, module)
    assert "ws.tma_stores" not in kernels(module)[0].attributes
    assert any("not a TMA store" in n[2] for n in notes)
