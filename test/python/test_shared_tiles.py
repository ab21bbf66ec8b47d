"""The kernels that the shared-tile lowering (wsdialects/lower/llvm/shared_tiles.py) made
lowerable, checked where CI can check them: their IR after the lowering passes still
computes the right thing in the interpreter (fresh random inputs, shapes not multiples of
the tiles), the emitted LLVM has the structure the lowering promises, and the
swizzled element addresses are the TMA / wgmma layout. PTX is assembled by
test/lower/test_ptxas.py; the GPU runs them in test/gpu/test_hopper_gpu.py."""

import re

import numpy as np
import pytest
from xdsl.dialects.builtin import Float16Type, Float32Type

import wsdialects
from cases import INPUTS, cdiv
from wsdialects.layout import smem_offset
from wsdialects.lower.llvm.shared_tiles import SharedTiles
from wsdialects.lower.to_llvm import Smem, lower_module
from kernel_cache import compile_kernel


def lowered(path, spec):
    return compile_kernel(path, spec)


def _f16(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


@pytest.mark.parametrize("spec", ["ws-hopper{auto=false cooperative=2}", "ws-hopper{auto=false cooperative=2 persistent=true programs=3}"])
def test_tma_store_gemm_cooperative_interpreted(spec, rng):
    M, N, K = 200, 136, 200
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    c = np.full((M, N), np.nan, np.float16)
    m = lowered(INPUTS / "tma_store_gemm.mlir", spec)
    text = str(m)
    assert "warp_group.gather" in text and "warp_group.share" in text
    wsdialects.interpret(m, "tma_store_gemm", (cdiv(M, 128), cdiv(N, 128)), [a, b, c, K])
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-3, atol=2e-2)


def test_computed_dot_interpreted(rng):
    M, N, K = 50, 40, 200
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    c = np.full((M, N), np.nan, np.float32)
    m = lowered(INPUTS / "computed_dot.mlir", "ws-lower-aref,ws-lower-warp-groups")
    assert "nvgpu.smem.store" in str(m)
    wsdialects.interpret(m, "computed_dot", 1, [a, b, c, cdiv(K, 64)])
    np.testing.assert_allclose(c, 2 * a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("relu", [0, 1])
def test_relu_gemm_interpreted(relu, rng):
    M, N, K = 100, 70, 130
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    c = np.full((M, N), np.nan, np.float32)
    m = lowered(INPUTS / "relu_gemm.mlir", "ws-hopper{auto=false}")
    wsdialects.interpret(m, "relu_gemm", (cdiv(M, 64), cdiv(N, 64)), [a, b, c, K, relu])
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    if relu:
        ref = 2 * np.maximum(ref, 0)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3)


def test_gather_llvm_structure():
    """One team barrier id past the branches' (3 branches: ids 1-3 -> 4), 256 threads,
    waited on by group 0 and arrived at by group 1; the TMA store in group 0 only: one box per 128-B column block of the
    staged 256-byte f32 rows, one commit."""
    ll = lower_module(lowered(INPUTS / "tma_store_gemm.mlir", "ws-hopper{auto=false cooperative=2}")).llvm_ir
    # group 0 waits for the slices, group 1 only arrives (the gather is not in a loop)
    assert ll.count("bar.sync 4, 256;") == 1 and ll.count("bar.arrive 4, 256;") == 1
    assert ll.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 2
    assert ll.count("cp.async.bulk.commit_group") == 1
    assert ll.index("bar.sync 4, 256;") < ll.index("cp.async.bulk.tensor.2d.global")  # group 0 waits, then stores
    assert ll.index("cp.async.bulk.tensor.2d.global") < ll.rindex("bar.arrive 4, 256;")  # group 1's branch after
    # the persistent kernel's gather is in the tile loop: a second barrier (5) says the buffer
    # is free again; every barrier is a handshake, one group waits and the other arrives
    # (synccheck reports two groups' bar.sync on one barrier from different code)
    ll = lower_module(lowered(INPUTS / "tma_store_gemm.mlir",
                              "ws-hopper{auto=false cooperative=2 persistent=true}")).llvm_ir
    assert ll.count("bar.sync 4, 256;") == 1 and ll.count("bar.arrive 4, 256;") == 1
    assert ll.count("bar.arrive 5, 256;") == 1 and ll.count("bar.sync 5, 256;") == 1
    # the store does not wait for its reads: the storing thread waits before the next tile
    # writes the staging buffer again (and where its branch ends); group 1's branch follows
    assert "cp.async.bulk.wait_group 0;" not in ll
    g1_start = ll.index("bar.sync 5, 256;")
    waits = [m.start() for m in re.finditer(r"cp\.async\.bulk\.wait_group\.read 0;", ll)]
    w0 = [w for w in waits if w < g1_start]
    assert len(w0) == 2 and len(waits) == 2  # group 0: before the gather, at its branch's end
    g0, g1 = ll[:w0[1]], ll[w0[1]:]
    # group 0 (branch 2, barrier 2): the last store's reads waited for, its own barrier (all its
    # threads past that wait), then `free`, then its slice; it waits for the others' slices and stores
    free0 = g0.index("bar.arrive 5, 256;")
    assert w0[0] < g0.rindex("bar.sync 2, 128;", 0, free0) < free0 < g0.index("bar.sync 4, 256;") \
        < g0.index("cp.async.bulk.tensor.2d.global") < g0.index("cp.async.bulk.commit_group")
    assert "wait_group" not in g0[g0.index("cp.async.bulk.commit_group"):]  # no wait in the tile loop after the store
    # group 1 waits for `free`, writes its slice and arrives
    assert g1.index("bar.sync 5, 256;") < g1.index("st.shared") < g1.index("bar.arrive 4, 256;")


def test_share_is_a_shifted_slot():
    ll = lower_module(lowered(INPUTS / "tma_store_gemm.mlir", "ws-hopper{auto=false cooperative=2}")).llvm_ir
    shifts = re.findall(r"%share\d+ = add i32 %slot\d+, (\d+)", ll)
    assert shifts == ["8192"]  # group 1 only: 64 rows of 128 bytes


class _Eval(SharedTiles):
    """Evaluates the address arithmetic the emitter writes, on constants."""

    def op(self, rhs, hint="v"):
        name, a, b = re.fullmatch(r"(\w+) i32 (-?\d+), (-?\d+)", rhs).groups()
        a, b = int(a), int(b)
        ops = {"mul": int.__mul__, "add": int.__add__, "lshr": int.__rshift__, "and": int.__and__,
               "xor": int.__xor__, "shl": int.__lshift__, "udiv": int.__floordiv__, "urem": int.__mod__}
        return str(ops[name](a, b))


@pytest.mark.parametrize("swizzle,cols,et,eb", [(128, 64, Float16Type(), 2), (64, 32, Float16Type(), 2),
                                                (32, 16, Float16Type(), 2), (128, 32, Float32Type(), 4)])
def test_swizzled_element_addresses(swizzle, cols, et, eb):
    """TMA's SWIZZLE_<R>B with R-byte rows: 16-byte chunk c of row r sits at chunk
    c ^ ((r * R / 128) mod (R / 16)); the pattern is a permutation within every 8 rows."""
    k = _Eval()
    rows = 16
    S = Smem("0", (rows, cols), et, swizzle)
    seen = set()
    for r in range(rows):
        for c in range(cols):
            byte = c * eb
            chunk = (byte // 16) ^ ((r * swizzle // 128) % (swizzle // 16))
            want = r * swizzle + chunk * 16 + byte % 16
            got = int(k.smem_elem_addr(S, str(r), str(c)))
            assert got == want, (r, c)
            seen.add(got)
    assert len(seen) == rows * cols
    # the transposed view reads the same bytes
    St = Smem("0", (cols, rows), et, swizzle, trans=True)
    assert all(k.smem_elem_addr(St, str(c), str(r)) == k.smem_elem_addr(S, str(r), str(c))
               for r in range(rows) for c in range(cols))


@pytest.mark.parametrize("swizzle,shape,et,eb,blocks", [
    (128, (16, 64), Float16Type(), 2, 1), (64, (16, 32), Float16Type(), 2, 1), (32, (8, 16), Float16Type(), 2, 1),
    (128, (16, 128), Float16Type(), 2, 2), (128, (8, 64), Float32Type(), 4, 2), (0, (4, 24), Float16Type(), 2, 1)])
def test_emitter_addresses_are_the_layout_rule(swizzle, shape, et, eb, blocks):
    """The emitter's address arithmetic is wsdialects.layout.smem_offset, column blocks and
    unswizzled tiles included."""
    k = _Eval()
    rows, cols = shape
    block_bytes = rows * swizzle if blocks > 1 else 0
    S = Smem("0", shape, et, swizzle, block_bytes=block_bytes)
    for r in range(rows):
        for c in range(cols):
            want = smem_offset(r, c, eb, S.row_stride, swizzle, block_bytes)
            assert int(k.smem_elem_addr(S, str(r), str(c))) == want, (r, c)

