"""The solver's schedule of the attention backward's main kernel (bf16, d 128, the default form),
kept as IR in test/Inputs/kernels/scheduled/flash_attention_bwd_bf16.mlir, compiled by ws-hopper
(issue 38, Twill on the backward): the lowered kernel, interpreted on random inputs with its
partitions interleaved by seeds, gives the same dQ^T accumulator, dK and dV as the scheduled kernel
as written, which matches a float64 numpy reference; the stored schedule is the solver's for the
kernel the generator writes (its ops, less the ws.* attributes). The lit test
test/transforms/ws-hopper-attention-bwd-scheduled.mlir checks the IR's shape."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, parse_kernel
from test_attention_bwd_kernels import reference
from wsdialects.runtime import attention_bwd_kernels as gen

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test" / "Inputs" / "kernels"
SOURCE = INPUTS / "flash_attention_bwd_bf16.mlir"
STORED = INPUTS / "scheduled" / "flash_attention_bwd_bf16.mlir"
NAME = "flash_attention_bwd_bf16"
D, BN = 128, 128


@pytest.fixture(scope="module")
def kernels():
    """(the stored schedule as written, compiled by ws-hopper), made once for the module."""
    return parse_kernel(STORED, shared=True), compile_kernel(STORED, "ws-hopper", shared=True)


def _without_schedule(path: Path) -> str:
    """The kernel's text, ws.* attributes dropped and comments left out (the printer's form)."""
    m = wsdialects.parse_file(path)
    for op in m.walk():
        for name in [a for a in op.attributes if a.startswith("ws.")]:
            del op.attributes[name]
    return str(m)


def test_input_is_the_generator_output():
    text = SOURCE.read_text()
    assert text.endswith(gen.kernel_text("backward", "bf16", D, False, **gen.form_options("backward", D)))


def test_stored_schedule_is_of_the_generated_kernel():
    assert _without_schedule(STORED) == _without_schedule(SOURCE)
    assert "ws.schedule = {II = " in STORED.read_text()


def _inputs(rng, L: int, BH: int = 1):
    """Random Q, K, V, dO (bf16) and the padded LSE (log2 units) and Delta rows of the float64
    forward, the buffers (dQ^T accumulator zeros, dK and dV NaN), and the reference gradients."""
    q, k, v, do = (rng.standard_normal((BH, L, D)).astype(ml_dtypes.bfloat16) for _ in range(4))
    scale = float(1 / np.sqrt(D))
    o, lse, dq, dk, dv = reference(q, k, v, do, False, scale)
    Lp = gen.padded_length(L)
    lsep, delta = np.zeros((BH, Lp), np.float32), np.zeros((BH, Lp), np.float32)
    lsep[:, :L] = lse * np.log2(np.e)
    delta[:, :L] = (do.astype(np.float64) * o).sum(-1)
    return [q, k, v, do, lsep, delta, scale], (dq, dk, dv)


def _run(module, args, L: int, seed=None) -> dict:
    q, k, v, do, lsep, delta, scale = args
    BH = q.shape[0]
    dk, dv = np.full(q.shape, np.nan, q.dtype), np.full(q.shape, np.nan, q.dtype)
    dq_acc = np.zeros((BH, D, lsep.shape[1]), np.float32)
    wsdialects.interpret(module, NAME, (-(-L // BN), BH), [q, k, v, do, dk, dv, lsep, delta, dq_acc, L, scale],
                         seed=seed)
    return {"dq_acc": dq_acc, "dk": dk, "dv": dv}


def _rel(got, want) -> float:
    got = got.astype(np.float64)
    assert not np.isnan(got).any(), "an element was not written"
    return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1.0))


@pytest.mark.parametrize("L", [1, 130])
def test_same_gradients_after_ws_hopper(kernels, L, rng):
    """L = 130: three query blocks (the last cut at 2 rows) and two key blocks (the last cut at 2);
    L = 1: one query, one key (dQ = dK = 0)."""
    before, after = kernels
    args, (dq, dk, dv) = _inputs(rng, L)
    want = _run(before, args, L)
    scale = args[-1]
    dq_got = scale * want["dq_acc"][:, :, :L].transpose(0, 2, 1)
    for name, got, ref in (("dQ", dq_got, dq), ("dK", want["dk"], dk), ("dV", want["dv"], dv)):
        assert _rel(got, ref) < 2e-2, name
    for seed in (None, 3):
        got = _run(after, args, L, seed)
        for key in want:
            assert np.array_equal(got[key], want[key], equal_nan=True), (key, seed)



def test_bench_variant_launches_the_stored_schedule():
    """bench/attention_bwd.py's "scheduled" variants launch this schedule as the main kernel
    (their dry run compiles it: `--variants --dry-run --variant-names scheduled`); causal: none."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("attention_bwd_bench", ROOT / "bench" / "attention_bwd.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert set(bench.SCHEDULED_MAIN) <= set(bench.VARIANTS)
    assert all(path == STORED for path in bench.SCHEDULED_MAIN.values())
    assert bench._main_kernel("tma", False) is None
    with pytest.raises(ValueError, match="no stored schedule of the causal kernel"):
        bench._main_kernel("scheduled", True)
