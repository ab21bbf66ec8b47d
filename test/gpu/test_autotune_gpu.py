"""wsdialects.autotune on the GPU (skips without torch or a Hopper GPU): the reference GEMM
tuned over three ws-hopper configs at ragged shapes, checked against torch; the second call
and a fresh tuner on the same cache directory do not time again. The tuner's logic is
tested without a GPU in test/python/test_autotune.py.

The configs' pipelines are the static strings in PIPELINES, each also compiled by a
`wsdialects.compile(GEMM, pipeline=...)` call below: tools/fill_ptx_cache.py reads those
calls, and the tuner's compiles find the same PTX in WSDIALECTS_PTX_CACHE (it is keyed by
the LLVM IR, which does not depend on how the pipeline was spelled)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hopper_env import cdiv, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402
from wsdialects import Config  # noqa: E402
from wsdialects.runtime.bench import cuda_timer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GEMM = ROOT / "examples" / "kernels" / "gemm.mlir"


def tiles(a):
    """The GEMM's tile grid (128x256 tiles), a function of the named arguments."""
    return (cdiv(a["M"], 128) * cdiv(a["N"], 256),)


# one output tile per program; min(programs, tiles) programs of the same tile grid (the
# launcher does that for a persistent kernel); a shallower ring (ws-hopper's default is 4)
PIPELINES = ["ws-hopper", "ws-hopper{persistent=true}", "ws-hopper{depth=3}"]
CONFIGS = [Config(p) for p in PIPELINES]


class Counting:
    """A timer that counts how often it is asked."""

    def __init__(self):
        self.inner, self.calls = cuda_timer(warmup=5, rep=20), 0

    def __call__(self, fn):
        self.calls += 1
        return self.inner(fn)


def operands(M, N, K):
    torch.manual_seed(M + 3 * N + 7 * K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    return a, b, c, (a.float() @ b.float().T)


def check(c, ref):
    torch.cuda.synchronize()
    assert not torch.isnan(c).any(), "NaN in the output (unwritten elements?)"
    assert ((c.double() - ref.double()).norm() / ref.double().norm()).item() < 2e-3


def test_autotuned_gemm(tmp_path, capsys):
    timer = Counting()
    k = wsdialects.autotune(GEMM, configs=CONFIGS, key=["M", "N", "K"], timer=timer, cache_dir=tmp_path,
                            restore_value=["c_ptr"], verbose=True)
    M, N, K = 1000, 777, 2056
    a, b, c, ref = operands(M, N, K)
    k[tiles](a, b, c, M, N, K, N)
    check(c, ref)
    assert timer.calls == 3
    times = k.timings[(M, N, K)]
    assert set(times) == {cfg.name for cfg in CONFIGS}
    assert all(math.isfinite(t) and t > 0 for t in times.values()), times
    best = k.best_config[(M, N, K)]
    assert times[best.name] == min(times.values())
    assert f"autotune: @matmul key ({M}, {N}, {K}): picked {best.name} (" in capsys.readouterr().err

    c.fill_(float("nan"))
    k[tiles](a, b, c, M, N, K, N)  # the same key: launched, not timed
    check(c, ref)
    assert timer.calls == 3

    M2, N2, K2 = 200, 300, 1000  # a new key is tuned on its own
    a2, b2, c2, ref2 = operands(M2, N2, K2)
    k[tiles](a2, b2, c2, M2, N2, K2, N2)
    check(c2, ref2)
    assert timer.calls == 6 and set(k.best_config) == {(M, N, K), (M2, N2, K2)}

    fresh_timer = Counting()  # as another process would: the choice comes from the disk
    fresh = wsdialects.autotune(GEMM, configs=CONFIGS, key=["M", "N", "K"], timer=fresh_timer, cache_dir=tmp_path)
    c.fill_(float("nan"))
    fresh[tiles](a, b, c, M, N, K, N)
    check(c, ref)
    assert fresh_timer.calls == 0 and fresh.best_config[(M, N, K)].name == best.name


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_every_candidate_computes_the_product(pipeline):
    # not only the winner: a config the tuner could pick on another GPU or shape is right too
    k = wsdialects.compile(GEMM, pipeline=pipeline)
    M, N, K = 1000, 777, 2056
    a, b, c, ref = operands(M, N, K)
    k[tiles({"M": M, "N": N})](a, b, c, M, N, K, N)
    check(c, ref)


def test_cuda_timer_orders_work_by_size():
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    y = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    timer = cuda_timer(warmup=5, rep=20)
    big, small = timer(lambda: x @ x), timer(lambda: y @ y)
    assert 0 < small < big, (small, big)
