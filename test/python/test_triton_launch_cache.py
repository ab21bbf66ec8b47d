"""The launch cache of an imported @triton.jit kernel (wsdialects/triton/launch.py,
TritonKernel.fast_key / run): the key taken straight from a call's arguments is equal for two
calls exactly when the full specialization (bind, infer_signature, num_warps) is, over many
argument combinations; a repeated launch does no specialization work and launches the kernel
the slow path picks; a different alignment or an int becoming 1 picks another one. Needs
triton; no GPU (the kernels' launches are recorded, not run)."""

import ml_dtypes
import numpy as np
import pytest

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402
from test_triton_frontend import array  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from wsdialects.triton import frontend as fe  # noqa: E402
from wsdialects.triton.launch import TritonKernel, expand  # noqa: E402


def _mixed(x_ptr, d, n, s, f, flag, opt, keep, BLOCK: tl.constexpr, MODE: tl.constexpr = 2):
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)) * n)


mixed = triton.jit(_mixed, do_not_specialize=["keep"], do_not_specialize_on_alignment=["keep"])


@triton.jit
def add_one(x_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs * stride, tl.load(x_ptr + offs * stride, mask=offs < n) + 1, mask=offs < n)


def _pointers(rng):
    a16, a32 = array(rng, (64, 32), np.float16), array(rng, (64, 32), np.float32)
    abf = array(rng, (64, 32), ml_dtypes.bfloat16)
    # a16[0, 1:] starts 2 bytes in, a32[0, 1:] 4 bytes in: not 16-byte aligned
    return [a16, a16[0, 1:], a16[:, 8:], a32, a32[0, 1:], abf, None]


def _descriptors(rng):
    a16, b16 = array(rng, (64, 32), np.float16), array(rng, (128, 64), np.float16)
    abf = array(rng, (64, 32), ml_dtypes.bfloat16)
    return [TensorDescriptor.from_tensor(a16, [16, 32]), TensorDescriptor.from_tensor(b16, [16, 32]),
            TensorDescriptor.from_tensor(a16, [32, 32]), TensorDescriptor.from_tensor(abf, [16, 32]),
            TensorDescriptor(b16, [64, 32], [64, 1], [16, 32])]


INTS = [1, 16, 32, 48, 7, 0, -16, -1, (1 << 31) - 1, 1 << 31, (1 << 31) + 16, 1 << 63, True, False, 1.0, None]


def test_fast_key_is_equal_exactly_when_the_full_spec_is():
    rng = np.random.default_rng(0)
    k = TritonKernel(mixed)
    pick = np.random.default_rng(1)
    choices = dict(x_ptr=_pointers(rng), d=_descriptors(rng), n=INTS, s=[1, 16, 5, 2.5, None], f=[0.5, 1.0, 2.0],
                   flag=[True, False, 3], opt=[None, 3, 16], keep=[1, 16, 7, 2 ** 40],
                   BLOCK=[64, 64.0, 128, True, 1], MODE=["default", 2, 3, 2.0])
    names = list(choices)
    fast_to_full, full_to_fast = {}, {}
    for _ in range(600):
        values = {n: choices[n][pick.integers(len(choices[n]))] for n in names}
        warps = [None, 4, 8, 8.0][pick.integers(4)]
        npos = int(pick.integers(0, 10))  # the first npos by position, the rest by keyword (any order)
        args = tuple(values[n] for n in names[:npos])
        rest = [n for n in names[npos:] if not (n == "MODE" and values[n] == "default")]
        kwargs = {str(n): values[n] for n in pick.permutation(rest)}
        if warps is not None:
            kwargs["num_warps"] = warps
        _, fast = k.fast_key(args, kwargs)
        assert fast is not None
        full = TritonKernel._key(k.specialize(args, kwargs)[1])
        assert fast_to_full.setdefault(fast, full) == full, (values, warps)
        assert full_to_fast.setdefault(full, fast) == fast, (values, warps)
    assert len(fast_to_full) > 300  # the combinations are different specializations, not one


def test_every_rule_of_the_spec_shows_in_the_key():
    """Each thing the spec depends on, changed alone, changes both the spec and the fast key;
    what it does not depend on (an int's value beyond 1 / 16 / width, a float's value) changes neither."""
    rng = np.random.default_rng(2)
    k = TritonKernel(mixed)
    ptrs, descs = _pointers(rng), _descriptors(rng)
    base = dict(x_ptr=ptrs[0], d=descs[0], n=32, s=5, f=0.5, flag=True, opt=3, keep=7, BLOCK=64)

    def both(**change):
        kw = {**base, **change}
        return k.fast_key((), kw)[1], TritonKernel._key(k.specialize((), kw)[1])

    fast0, full0 = both()
    for change in [dict(x_ptr=ptrs[1]), dict(x_ptr=ptrs[3]), dict(d=descs[2]), dict(d=descs[3]), dict(n=1),
                   dict(n=7), dict(n=1 << 31), dict(n=True), dict(s=None), dict(BLOCK=128), dict(BLOCK=64.0),
                   dict(MODE=3), dict(num_warps=8), dict(opt=16), dict(f=1)]:
        fast, full = both(**change)
        assert fast != fast0 and full != full0, change
    for same in [dict(n=48), dict(n=-16), dict(f=2.0), dict(keep=1), dict(keep=16), dict(d=descs[1]),
                 dict(x_ptr=ptrs[2]), dict(MODE=2), dict(num_warps=4), dict(num_stages=3)]:
        assert both(**same) == (fast0, full0), same


def test_arg_spec_is_what_infer_signature_uses():
    rng = np.random.default_rng(3)
    x = array(rng, (64,), np.float16)
    assert fe.arg_spec(x) == ("*fp16", 16) and fe.arg_spec(x[1:]) == ("*fp16", None)
    assert fe.arg_spec(x, align=False) == ("*fp16", None)
    assert [fe.arg_spec(v) for v in (1, 48, 7, 1 << 31, True, 0.5)] == [
        ("i32", 1), ("i32", 16), ("i32", None), ("i64", 16), ("i1", None), ("fp32", None)]
    assert fe.arg_spec(1, specialize=False) == ("i32", None) and fe.arg_spec(32, align=False) == ("i32", None)
    d = TensorDescriptor.from_tensor(array(rng, (64, 32), np.float16), [16, 32])
    assert fe.arg_spec(d) == ("tensordesc<fp16[16,32]>", None)
    with pytest.raises(TypeError, match="cannot pass a list"):
        fe.arg_spec([1])
    d.padding = "nan"
    with pytest.raises(TypeError, match="padding='nan'"):
        fe.arg_spec(d)


class _Recorded:
    """A stand-in for wsdialects.Compiled that records its launches."""

    def __init__(self, module, log):
        self.module, self.log = module, log

    def kernel(self, name):
        return self

    def __getitem__(self, grid):
        return lambda *args, stream=None: self.log.append((self, grid, args))


def test_a_repeated_launch_skips_specialization_and_launches_what_the_slow_path_picks():
    rng = np.random.default_rng(4)
    log, compiled = [], []

    def compiler(module, pipeline):
        compiled.append(_Recorded(module, log))
        return compiled[-1]

    k = TritonKernel(add_one, compiler=compiler)
    calls = []
    slow = k.specialize
    k.specialize = lambda args, kwargs: (calls.append(1), slow(args, kwargs))[1]
    x = array(rng, (256,), np.float32)
    grid = lambda META: (triton.cdiv(META["n"], META["BLOCK"]),)  # noqa: E731
    cases = [((x, 32, 2), "aligned, n multiple of 16"), ((x, 32, 2), "again"), ((x[1:], 32, 2), "misaligned"),
             ((x, 32, 1), "a unit stride"), ((x, 33, 2), "n not a multiple of 16"), ((x, 64, 2), "n another 16k"),
             ((x[4:], 32, 2), "16 bytes in: aligned")]
    for args, what in cases:
        before = len(calls)
        k[grid](*args, BLOCK=64)
        chosen, used_grid, launch_args = log[-1]
        bound, spec = slow(args, {"BLOCK": 64})
        assert chosen is k.compiled_of(spec), what  # the kernel the slow path picks
        assert used_grid == (triton.cdiv(args[1], 64),)
        want = expand(bound, spec[0])
        assert len(launch_args) == len(want) and all(
            (a.ctypes.data, a.shape, a.strides) == (b.ctypes.data, b.shape, b.strides) if hasattr(a, "ctypes")
            else a == b for a, b in zip(launch_args, want)), what
        assert len(calls) - before == (0 if what in ("again", "n another 16k", "16 bytes in: aligned") else 1), what
    assert len(compiled) == 4  # aligned/16, misaligned, stride 1 compiled in, n without divisibility
    texts = [str(c.module) for c in compiled]
    assert "tt.divisibility" in texts[0] and texts[1].count("tt.divisibility") < texts[0].count("tt.divisibility")
    assert len(log[3][2]) == 2  # the unit stride is compiled in and dropped from the launch


def test_calls_the_cache_leaves_to_the_slow_path_still_fail_as_before():
    k = TritonKernel(add_one)
    x = array(np.random.default_rng(5), (64,), np.float32)
    assert k.fast_key((x, 3, 2), {"BLOCK": 64, "num_ctas": 2}) == (None, None)
    with pytest.raises(TypeError, match="num_ctas"):
        k[(1,)](x, 3, 2, BLOCK=64, num_ctas=2)
    with pytest.raises(TypeError, match="missing argument BLOCK"):
        k[(1,)](x, 3, 2)
    with pytest.raises(TypeError, match="argument 'n': cannot pass a list"):
        k[(1,)](x, [3], 2, BLOCK=64)
    with pytest.raises(TypeError, match="'n' given twice"):
        k[(1,)](x, 3, 2, n=4, BLOCK=64)
    assert k.fast_key((x, 3, 2), {"BLOCK": 64})[1] is not None
