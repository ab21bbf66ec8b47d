"""Kernels with several tile loops (test/Inputs/kernels/loops/): causal attention in two K/V
loops, a two-pass row softmax and a user-written persistent GEMM (its K loop nested in a loop
over tiles) are warp-specialized as a whole -- every loop that loads tiles -- and the kernel
interpreted before and after ws-specialize on random inputs gives the same result, at several
interleavings of the partitions and options."""

import numpy as np
import pytest

from cases import INPUTS, Case, _f16, assert_same, attention_args, cdiv, run
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.aref import GetOp, PutOp
from wsdialects.warp_group import PartitionOp

LOOPS = INPUTS / "loops"


def softmax_args(rng, M=100, N=300):
    return (cdiv(M, 64),), [_f16(rng, M, N), np.zeros((M, N), np.float16), N]


def persistent_gemm_args(rng, M=150, N=130, K=100, programs=4):
    return (programs,), [_f16(rng, M, K), _f16(rng, N, K), np.zeros((M, N), np.float16), M, N, K]


CASES = [
    Case("softmax_two_pass", lambda: LOOPS / "softmax_two_pass.mlir", "softmax_two_pass", softmax_args, (1,)),
    Case("causal_two_loops", lambda: LOOPS / "causal_attention_two_loops.mlir", "causal_attention_two_loops",
         attention_args, (3,)),
    Case("persistent_gemm", lambda: LOOPS / "persistent_gemm.mlir", "persistent_gemm", persistent_gemm_args, (2,)),
    # more programs than tiles: some programs' tile loop runs no iteration
    Case("persistent_gemm_idle", lambda: LOOPS / "persistent_gemm.mlir", "persistent_gemm",
         lambda rng: persistent_gemm_args(rng, M=64, N=100, K=40, programs=5), (2,)),
]
OPTIONS = ["depth=2 mma-depth=1", "depth=3 mma-depth=2", "depth=4 mma-depth=0", "depth=3 cooperative=2",
           "depth=2 mma-depth=1 persistent=true programs=2"]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_specialize_preserves_semantics(case, options, rng, capsys):
    before = parse_kernel(case.path(), shared=True)
    after = compile_kernel(case.path(), f"ws-specialize{{{options}}}", shared=True)
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    assert any(np.any(w != 0) for w in want)
    for seed in (None, 1, 2):
        assert_same(want, run(after, case, grid, args, seed=seed))


def _loops_with(part, kind):
    from xdsl.dialects import scf

    return [o for o in part.walk() if isinstance(o, scf.ForOp) and any(isinstance(i, kind) for i in o.body.block.ops)]


@pytest.mark.parametrize("name,kernel", [("softmax_two_pass", "softmax_two_pass"),
                                         ("causal_attention_two_loops", "causal_attention_two_loops")])
def test_every_loop_is_specialized_and_rings_continue(name, kernel):
    module = compile_kernel(LOOPS / f"{name}.mlir", "ws-partition,ws-distribute{depth=2}", shared=True)
    producer, consumer = [p for p in module.walk() if isinstance(p, PartitionOp)]
    assert len(_loops_with(producer, PutOp)) == 2 and len(_loops_with(consumer, GetOp)) == 2
    assert not [o for o in consumer.walk() if o.name == "tile.desc_load"]
    # the second loop's positions follow the first's: base + k
    second = _loops_with(consumer, GetOp)[1]
    get = next(o for o in second.body.block.ops if isinstance(o, GetOp))
    assert get.position.owner.name == "arith.addi"


def test_loop_under_if_is_left_to_the_consumer_with_a_remark(tmp_path, capsys):
    text = (LOOPS / "softmax_two_pass.mlir").read_text()
    cond = "    %big = arith.cmpi sgt, %N, %c0 : i32\n    scf.if %big {\n"
    start = text.index("    %s = scf.for")
    end = text.index("    func.return")
    body = text[start:end].replace("%s = scf.for", "%s2 = scf.for")
    path = tmp_path / "under_if.mlir"
    path.write_text(text[:start] + cond + body + "    }\n" + text[end:])
    module = compile_kernel(path, "ws-partition,ws-distribute")
    err = capsys.readouterr().err
    line = 1 + path.read_text()[:path.read_text().index("%s2 = scf.for")].count("\n")
    assert f"under_if.mlir:{line}:5: remark: ws-partition: this loop's TMA loads are not warp-specialized" in err
    case = Case("u", lambda: path, "softmax_two_pass", softmax_args, (1,))
    grid, args = softmax_args(rng=np.random.default_rng(3))
    assert_same(run(parse_kernel(path), case, grid, args), run(module, case, grid, args, seed=4))
