"""Reducing TMA stores (`tile.desc_store add`): the op's syntax and verifier, its interpreter
semantics (programs reducing overlapping blocks accumulate; what lies outside the tensor is
dropped as a store's clipping drops it), and the split-K GEMM of
test/Inputs/kernels/splitk_reduce_gemm.mlir interpreted as written and after ws-specialize and
ws-hopper (one and two consumer groups, persistent): the same C bit for bit, and numpy's
C0 + A @ B^T. C starts non-zero and K has several slices, so a reduction that became a store
(or a slice added twice) shows."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import wsdialects
from kernel_cache import compile_kernel, compile_ptx, parse_kernel, run_ptxas

ROOT = Path(__file__).resolve().parents[2]
SPLITK = ROOT / "test" / "Inputs" / "kernels" / "splitk_reduce_gemm.mlir"


def cdiv(a, b):
    return -(-a // b)


def _module(body: str, elem: str = "f32", block: str = "4x8"):
    return wsdialects.parse(f"""
func.func @k(%d: !tile.desc<tensor<{block}x{elem}>>, %v: tensor<{block}x{elem}>, %i: i32, %j: i32) attributes {{tile.kernel}} {{
  {body}
  func.return
}}""")


def test_round_trip_and_generic_form():
    m = _module("tile.desc_store add %d[%i, %j], %v : !tile.desc<tensor<4x8xf32>>")
    text = str(m)
    assert "tile.desc_store add %d[%i, %j], %v : !tile.desc<tensor<4x8xf32>>" in text
    assert str(wsdialects.parse(text)) == text
    store = next(o for o in m.walk() if o.name == "tile.desc_store")
    assert store.reduce_kind == "add"
    plain = _module("tile.desc_store %d[%i, %j], %v : !tile.desc<tensor<4x8xf32>>")
    assert next(o for o in plain.walk() if o.name == "tile.desc_store").reduce_kind is None


@pytest.mark.parametrize("body,elem,message", [
    ("tile.desc_store min %d[%i, %j], %v : !tile.desc<tensor<4x8xf32>>", "f32", "desc_store min takes i32 blocks, got f32"),
    ("tile.desc_store add %d[%i, %j], %v : !tile.desc<tensor<4x8xf8E4M3FN>>", "f8E4M3FN",
     "desc_store add takes f32, f16, bf16, i32 blocks, got f8E4M3FN"),
])
def test_verifier(body, elem, message):
    with pytest.raises(Exception, match=message):
        _module(body, elem).verify()


def test_unknown_kind_is_a_parse_error():
    with pytest.raises(Exception, match="expected a reduction kind \\(add, min, max\\) or an operand, got 'mul'"):
        _module("tile.desc_store mul %d[%i, %j], %v : !tile.desc<tensor<4x8xf32>>")


def test_verifier_kind_property():
    m = _module("tile.desc_store add %d[%i, %j], %v : !tile.desc<tensor<4x8xf32>>")
    store = next(o for o in m.walk() if o.name == "tile.desc_store")
    from xdsl.dialects.builtin import StringAttr

    store.properties["reduce"] = StringAttr("mul")
    with pytest.raises(VerifyException, match="reduction must be one of add, min, max, got 'mul'"):
        store.verify()


def _blocks_kernel(kind: str, elem: str) -> str:
    """Program p reduces block p of `v` (programs x 4 x 8) into `d` at row 2p, column 3p + 1:
    neighbours overlap by two rows and five columns, and the last ones run past its end."""
    return f"""
func.func @k(%d: !tile.desc<tensor<4x8x{elem}>>, %v: !tile.desc<tensor<1x4x8x{elem}>>) attributes {{tile.kernel}} {{
  %p = tile.program_id 0 : i32
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %r = arith.muli %p, %c2 : i32
  %p3 = arith.muli %p, %c3 : i32
  %c1 = arith.constant 1 : i32
  %c = arith.addi %p3, %c1 : i32
  %x = tile.desc_load %v[%p, %c0, %c0] : !tile.desc<tensor<1x4x8x{elem}>> -> tensor<1x4x8x{elem}>
  %y = tile.reshape %x : tensor<1x4x8x{elem}> -> tensor<4x8x{elem}>
  tile.desc_store {kind} %d[%r, %c], %y : !tile.desc<tensor<4x8x{elem}>>
  func.return
}}"""


def _reference(kind, d0, v):
    out = d0.copy()
    op = {"add": np.add, "min": np.minimum, "max": np.maximum}[kind]
    for p in range(v.shape[0]):
        r, c = 2 * p, 3 * p + 1
        for i in range(4):
            for j in range(8):
                if 0 <= r + i < out.shape[0] and 0 <= c + j < out.shape[1]:
                    out[r + i, c + j] = op(out[r + i, c + j], v[p, i, j])
    return out


@pytest.mark.parametrize("kind,dtype", [("add", np.float32), ("add", np.float16), ("add", np.int32),
                                        ("min", np.int32), ("max", np.int32)])
def test_racing_programs_combine_and_clip(kind, dtype, rng):
    elem = {np.float32: "f32", np.float16: "f16", np.int32: "i32"}[dtype]
    programs = 5
    v = rng.integers(-8, 8, (programs, 4, 8)).astype(dtype)
    d0 = rng.integers(-8, 8, (9, 11)).astype(dtype)
    d = d0.copy()
    wsdialects.interpret(wsdialects.parse(_blocks_kernel(kind, elem)), "k", programs, [d, v])
    want = _reference(kind, d0, v)
    assert np.array_equal(d, want)
    assert not np.array_equal(d, _reference("add" if kind != "add" else "max", d0, v))  # the kind matters


@pytest.mark.parametrize("pipeline", ["", "ws-specialize", "ws-hopper", "ws-hopper{cooperative=2}",
                                      "ws-hopper{persistent=true programs=5}",
                                      "ws-hopper{cooperative=2 team-stores=split}",
                                      "ws-hopper{persistent=true programs=3 cooperative=2 pingpong=true}"])
def test_splitk_reduce_gemm(pipeline, rng):
    M, N, K, kt = 200, 136, 5 * 64 + 10, 2  # ragged M, N and K: 6 K tiles in 3 slices of 2
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (N, K)).astype(np.float16)
    c0 = rng.integers(-4, 5, (M, N)).astype(np.float32)
    grid = (cdiv(M, 128), cdiv(N, 128), cdiv(cdiv(K, 64), kt))

    def run(module):
        c = c0.copy()
        wsdialects.interpret(module, "splitk_reduce_gemm", grid, [a, b, c, kt], seed=5)
        return c

    module = compile_kernel(SPLITK, pipeline, shared=True)
    got = run(module)
    if pipeline:
        assert "tile.desc_store add" in str(module)
        assert np.array_equal(got, run(parse_kernel(SPLITK, shared=True)))
    # small integers: every product and partial sum is exact, whatever the order of the slices
    assert np.array_equal(got, c0 + a.astype(np.float32) @ b.astype(np.float32).T)


# --- imported from Triton (tt.descriptor_reduce) ---------------------------------------------

TRITON_INPUTS = ROOT / "test" / "triton" / "Inputs"
SPLITK_DESC = ROOT / "test" / "Inputs" / "triton"
class Desc:  # what a host TensorDescriptor carries (the launch reads base, shape and strides)
    def __init__(self, base):
        self.base, self.shape, self.strides = base, base.shape, tuple(s // base.itemsize for s in base.strides)


DESC_SIG = {"x_desc": "tensordesc<fp32[64,32]>", "y_desc": "tensordesc<fp32[64,32]>",
            "i_desc": "tensordesc<i32[64,32]>"}


def test_imported_kinds(rng):
    """desc_reduce (test/triton/Inputs/kernels.py): y += x and i = min(max(i, int(x)), int(x)) per
    64-row block; the 150 x 32 tensors cut the last block (its rows past 150 are dropped)."""
    from wsdialects.triton.launch import expand

    x = rng.integers(-20, 20, (150, 32)).astype(np.float32)
    y0 = rng.integers(-20, 20, (150, 32)).astype(np.float32)
    i0 = rng.integers(-20, 20, (150, 32)).astype(np.int32)
    y, i = y0.copy(), i0.copy()
    module = parse_kernel(TRITON_INPUTS / "desc_reduce_v3.9.ttir", shared=True)
    wsdialects.interpret(module, "desc_reduce", cdiv(150, 64), expand(dict(x_desc=Desc(x), y_desc=Desc(y), i_desc=Desc(i)), DESC_SIG))
    xi = x.astype(np.int32)
    assert np.array_equal(y, y0 + x)
    assert np.array_equal(i, np.minimum(np.maximum(i0, xi), xi))


@pytest.mark.parametrize("name,block,split", [("gemm_splitk_desc_f16_128x128x64_s4", (128, 128, 64), 4),
                                              ("gemm_splitk_desc_bf16_64x64x32_s3", (64, 64, 32), 3)])
@pytest.mark.parametrize("pipeline", ["", "ws-specialize", "ws-hopper", "ws-hopper{cooperative=2}"])
def test_imported_splitk(name, block, split, pipeline, rng):
    """examples/triton/gemm_splitk_desc.py as Triton prints it: the same C as imported and after
    the pipeline, and C0 + A @ B^T exactly (small integers); K's tiles do not divide into the
    slices evenly and M, N cut the last tiles."""
    from wsdialects.triton.launch import expand

    import ml_dtypes

    bm, bn, bk = block
    dt = np.float16 if "_f16_" in name else ml_dtypes.bfloat16
    tname = "fp16" if "_f16_" in name else "bf16"
    M, N, K = bm + 20, bn + 8, 7 * bk + 8  # 8 K tiles in slices of ceil(8 / split)
    a = rng.integers(-3, 4, (M, K)).astype(dt)
    b = rng.integers(-3, 4, (N, K)).astype(dt)
    c0 = rng.integers(-4, 5, (M, N)).astype(np.float32)
    sig = {"a_desc": f"tensordesc<{tname}[{bm},{bk}]>", "b_desc": f"tensordesc<{tname}[{bn},{bk}]>",
           "c_desc": f"tensordesc<fp32[{bm},{bn}]>", "M": "i32", "N": "i32", "K": "i32"}

    def run(module):
        c = c0.copy()
        args = expand(dict(a_desc=Desc(a), b_desc=Desc(b), c_desc=Desc(c), M=M, N=N, K=K), sig)
        wsdialects.interpret(module, "gemm_splitk_desc_kernel", (cdiv(M, bm), cdiv(N, bn), split), args, seed=3)
        return c

    path = SPLITK_DESC / f"{name}.ttir"
    got = run(compile_kernel(path, pipeline, shared=True))
    assert np.array_equal(got, c0 + a.astype(np.float32) @ b.astype(np.float32).T)
    if pipeline:
        assert np.array_equal(got, run(parse_kernel(path, shared=True)))


# --- tile.atomic_add's vector form (red.global.add.v2.f32) -----------------------------------

ATOMICS_VECTOR = ROOT / "test" / "transforms" / "Inputs" / "atomics-vector.mlir"
VECTOR_KERNELS = {"aligned": 16, "aligned_unmasked": 16, "unaligned_base": 4, "odd_stride": 4, "odd_column": 4}


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    """split(file, name): the part of `file` (split at `// -----`) that defines @name, written to
    a file of this module's folder: one path per kernel, so that the tests of a kernel share its
    parse and its ws-hopper compile (kernel_cache keys on the path and the bytes)."""
    folder = tmp_path_factory.mktemp("reduce_store")

    def write(file: Path, name: str) -> Path:
        path = folder / f"{name}.mlir"
        path.write_text(next(p for p in file.read_text().split("// -----") if f"@{name}(" in p))
        return path

    return write


@pytest.mark.parametrize("name,want", VECTOR_KERNELS.items())
def test_alignment_of_column_zero(name, want, split):
    """wsdialects/lower/alignment.py: what the IR proves about column 0 of the atomic's pointers
    (16 bytes with the base's and the stride's tt.divisibility; else f32's 4)."""
    from wsdialects.lower.alignment import divisor

    module = parse_kernel(split(ATOMICS_VECTOR, name))
    atomic = next(o for o in module.walk() if o.name == "tile.atomic_add")
    assert divisor(atomic.operands[0], 1) == want
    assert divisor(atomic.operands[0]) == 4  # every element: some columns are odd


@pytest.mark.parametrize("name", VECTOR_KERNELS)
def test_vector_atomics_interpreted(name, split, rng):
    """Each kernel, as written and after ws-hopper, adds A @ B^T into C at the program's column
    block (3 programs, 2 blocks overlapping): the same C, and the reference, exactly."""
    path = split(ATOMICS_VECTOR, name)
    K, M, N, programs = 96, 50, 150, 3
    stride = 208 if name != "odd_stride" else 207
    start = 1 if name == "odd_column" else 0
    a, b = (rng.integers(-3, 4, (64, K)).astype(np.float16) for _ in range(2))
    c0 = rng.integers(-4, 5, (64 * stride,)).astype(np.float32)

    def run(module):
        c = c0.copy()
        wsdialects.interpret(module, name, programs, [a, b, c, M, N, stride, K], seed=2)
        return c

    before = run(parse_kernel(path))
    assert np.array_equal(before, run(compile_kernel(path, "ws-hopper")))
    want = c0.reshape(64, stride).copy()
    acc = a.astype(np.float32) @ b.astype(np.float32).T
    masked = name != "aligned_unmasked"
    for p in range(programs):
        for j in range(64):
            col = 64 * p + start + j
            rows = slice(0, M) if masked else slice(0, 64)
            if masked and col >= N:
                continue
            want[rows, col] += acc[rows, j]
    assert np.array_equal(before, want.reshape(-1))


def _ptxas(path: Path) -> str:
    """The PTX of `path` after ws-hopper (what `ws-opt -p ws-hopper -t ptx` writes), assembled by
    ptxas -arch=sm_90a; the PTX."""
    ptx = compile_ptx(path, "ws-hopper")
    rc, report = run_ptxas(ptx, shutil.which("ptxas"))
    assert rc == 0, report
    return ptx


needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not installed")


@needs_ptxas
@pytest.mark.parametrize("name", VECTOR_KERNELS)
def test_vector_atomics_ptxas(name, split):
    ptx = _ptxas(split(ATOMICS_VECTOR, name))
    assert ("red.relaxed.gpu.global.add.v2.f32" in ptx) == (VECTOR_KERNELS[name] >= 8)


# --- overlapping, clipped reduce-adds (test/Inputs/kernels/overlap_reduce_gemm.mlir) ----------

OVERLAP = ROOT / "test" / "Inputs" / "kernels" / "overlap_reduce_gemm.mlir"
OVERLAP_P, OVERLAP_M, OVERLAP_N, OVERLAP_K, OVERLAP_A_ROWS = 5, 176, 216, 104, 180


def overlap_reference(a, b, c0, programs):
    """C0 plus, per program p, A[32p : 32p + 64] @ B^T (A zero past its rows) at row 32p,
    column 48p + 8, clipped to C (float64: exact for the tests' small integers)."""
    c = c0.astype(np.float64)
    a64 = np.zeros((32 * programs + 64, a.shape[1]))
    a64[: a.shape[0]] = a.astype(np.float64)
    for p in range(programs):
        t = a64[32 * p: 32 * p + 64] @ b.astype(np.float64).T
        r, col = 32 * p, 48 * p + 8
        rs, cs = slice(r, min(r + 64, c.shape[0])), slice(max(col, 0), min(col + 64, c.shape[1]))
        c[rs, cs] += t[: rs.stop - r, cs.start - col: cs.stop - col]
    return c


def overlap_inputs(rng, dtype):
    a = rng.integers(-1, 2, (OVERLAP_A_ROWS, OVERLAP_K)).astype(np.float16)
    b = rng.integers(-1, 2, (64, OVERLAP_K)).astype(np.float16)
    c0 = rng.integers(-8, 9, (OVERLAP_M, OVERLAP_N)).astype(dtype)
    return a, b, c0


@pytest.mark.parametrize("name", ["overlap_f32", "overlap_f16", "overlap_bf16"])
@pytest.mark.parametrize("pipeline", ["", "ws-hopper"])
def test_overlapping_clipped_reductions(name, pipeline, split, rng):
    import ml_dtypes

    dtype = {"overlap_f32": np.float32, "overlap_f16": np.float16, "overlap_bf16": ml_dtypes.bfloat16}[name]
    path = split(OVERLAP, name)
    a, b, c0 = overlap_inputs(rng, dtype)
    c = c0.copy()
    wsdialects.interpret(compile_kernel(path, pipeline), name, OVERLAP_P, [a, b, c, OVERLAP_K])
    want = overlap_reference(a, b, c0, OVERLAP_P)
    assert np.abs(want).max() <= 256  # integers bf16 holds exactly
    assert np.array_equal(c.astype(np.float64), want)


@needs_ptxas
@pytest.mark.parametrize("name", ["overlap_f32", "overlap_f16", "overlap_bf16"])
def test_overlap_ptxas(name, split):
    ptx = _ptxas(split(OVERLAP, name))
    assert ptx.count("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group") == \
        (2 if name == "overlap_f32" else 1)  # one per 128-byte column block of the staged rows


def test_nvgpu_tma_async_store_add(rng):
    """nvgpu.tma.async_store add: the slot's box combined with the tensor, clipped at its end."""
    module = wsdialects.parse("""
func.func @k(%d: !tile.desc<tensor<4x8xf32>>, %x: !tile.desc<tensor<4x8xf32>>, %m: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %v = tile.desc_load %x[%c0, %c0] : !tile.desc<tensor<4x8xf32>> -> tensor<4x8xf32>
  %buf = nvgpu.smem.alloc : memref<1x4x8xf32, 3>
  nvgpu.smem.store %v, %buf[%c0] : memref<1x4x8xf32, 3>
  nvgpu.fence.proxy_async
  nvgpu.tma.async_store add %buf[%c0] -> %d[%m, %m] : memref<1x4x8xf32, 3>, !tile.desc<tensor<4x8xf32>>
  nvgpu.tma.store_wait
  func.return
}""")
    v = rng.integers(-8, 8, (4, 8)).astype(np.float32)
    d0 = rng.integers(-8, 8, (6, 7)).astype(np.float32)
    d = d0.copy()
    wsdialects.interpret(module, "k", 3, [d, v, 3])
    want = d0.copy()
    want[3:6, 3:7] += 3 * v[:3, :4]
    assert np.array_equal(d, want)


@pytest.mark.parametrize("kind", ["", "add "])
def test_a_store_box_starting_before_the_tensor_is_an_error(kind):
    """A TMA store (plain or reduce) at a negative coordinate is reported, not clipped: the H200 stops
    the kernel there ('illegal instruction' for a reduce-add box at column -16)."""
    src = f"""func.func @k(%d: !tile.desc<tensor<8x16xf32>>, %j: i32) attributes {{tile.kernel, tile.num_warps = 4 : i32}} {{
  %c0 = arith.constant 0 : i32
  %v = arith.constant dense<1.0> : tensor<8x16xf32>
  tile.desc_store {kind}%d[%c0, %j], %v : !tile.desc<tensor<8x16xf32>>
  func.return
}}"""
    module = wsdialects.parse(src)
    c = np.zeros((8, 32), np.float32)
    wsdialects.interpret(module, "k", 1, [c, 16])
    assert c[:, 16:].sum() == 8 * 16
    with pytest.raises(Exception, match=r"the box starts at \[0, -4\]; a TMA store's coordinates must be >= 0"):
        wsdialects.interpret(module, "k", 1, [c, -4])
