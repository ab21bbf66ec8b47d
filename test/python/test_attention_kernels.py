"""The attention kernels of examples/kernels (any sequence length: 3-D TMA descriptors,
keys past L masked, the last query tile clipped) against a float64 softmax(QK^T/sqrt(d))V,
through the interpreter: as written, and after ws-hopper (plain and cooperative), on
fresh random inputs, with outputs poisoned with NaN (an unwritten element fails)."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, parse_kernel

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
VARIANTS = [  # (kernel, head dim, dtype, causal)
    ("flash_attention", 128, np.float16, False),
    ("flash_attention_causal", 128, np.float16, True),
    ("flash_attention_bf16", 128, ml_dtypes.bfloat16, False),
    ("flash_attention_d64", 64, np.float16, False),
    ("flash_attention_causal_d64", 64, np.float16, True),
    ("flash_attention_d256", 256, np.float16, False),  # 64-row tiles
]


def reference(q, k, v, causal):
    d = q.shape[-1]
    s = np.einsum("bld,bmd->blm", q.astype(np.float64), k.astype(np.float64)) / np.sqrt(d)
    if causal:
        n = s.shape[1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)


def run(module, name, D, dt, causal, L, BH, rng, seed=None):
    q, k, v = (rng.standard_normal((BH, L, D)).astype(dt) for _ in range(3))
    o = np.full((BH, L, D), np.nan, dt)
    bm = 64 if D == 256 else 128
    wsdialects.interpret(module, name, grid=(-(-L // bm), BH), args=[q, k, v, o, L, float(1 / np.sqrt(D))],
                         seed=seed)
    assert not np.isnan(o.astype(np.float32)).any(), "an output element was not written"
    r = reference(q, k, v, causal)
    return np.linalg.norm(o.astype(np.float64) - r) / np.linalg.norm(r)


@pytest.mark.parametrize("name,D,dt,causal", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("L", [1, 100, 257])
def test_kernel_as_written(name, D, dt, causal, L, rng):
    m = wsdialects.parse_file(KERNELS / f"{name}.mlir")
    tol = 1e-2 if dt is ml_dtypes.bfloat16 else 2e-3
    assert run(m, name, D, dt, causal, L, 2, rng) < tol


@pytest.mark.parametrize("name,D,dt,causal", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("pipeline", ["ws-hopper", "ws-hopper{cooperative=2 depth=2}",
                                      # each group stores its 64 rows of the 3-D array's slice itself
                                      "ws-hopper{cooperative=2 pingpong=true team-stores=split depth=2}"])
def test_kernel_after_ws_hopper(name, D, dt, causal, pipeline, rng):
    m = compile_kernel(KERNELS / f"{name}.mlir", pipeline, file=name, shared=True)
    assert any(o.name == "nvgpu.wgmma.mma_async" for o in m.walk())
    tol = 1e-2 if dt is ml_dtypes.bfloat16 else 2e-3
    assert run(m, name, D, dt, causal, 200, 2, rng, seed=7) < tol


SCHEDULED = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "scheduled"


@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal"])
@pytest.mark.parametrize("schedule", ["", "scheduled"])
def test_persistent_pingpong_attention(name, schedule, rng):
    """Persistent attention (one program per SM looping over (query block, head) tiles) with
    the ping-pong team, the heuristic pipeline's and the solver's: 3 programs take 6 tiles of
    ragged L, so programs run several tiles and the ring positions and turns carry across them."""
    src = (SCHEDULED / f"{name}.mlir") if schedule else (KERNELS / f"{name}.mlir")
    opts = "programs=3" if schedule else "cooperative=2 pingpong=true programs=3"
    m = compile_kernel(src, f"ws-hopper{{persistent=true {opts}}}", file=name, shared=True)
    assert any("ws.persistent" in o.attributes for o in m.walk())
    D, dt, causal = {v[0]: v[1:] for v in VARIANTS}[name]
    assert run(m, name, D, dt, causal, 300, 2, rng, seed=3) < 2e-3




@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal", "flash_attention_bf16"])
@pytest.mark.parametrize("organisation", ["", "_split"], ids=["pingpong", "split"])
def test_scheduled_kernel_after_ws_hopper(name, organisation, rng):
    """ws-schedule's output (kept as IR). The solver's choice: the two compute groups as a
    ping-pong team (64 rows each, taking turns at the tensor cores through named barriers).
    The split organisation (`pingpong=false`): softmax and P.V on two warp groups, P and the
    row rescale (a 1-D f32 tile: a plain shared-memory array) through aref slots."""
    assert any("ws.warp" in o.attributes for o in parse_kernel(SCHEDULED / f"{name}{organisation}.mlir").walk())
    m = compile_kernel(SCHEDULED / f"{name}{organisation}.mlir", "ws-hopper", file=name, shared=True)
    if organisation:
        one_d = [o for o in m.walk() if o.name == "nvgpu.smem.alloc" and len(o.results[0].type.get_shape()) == 2]
        assert one_d, "the row rescale goes through a 1-D slot"
    else:
        assert [o for o in m.walk() if o.name == "nvvm.barrier_arrive"], "the team takes turns"
        assert all(o.results[0].type.get_shape()[0] == 64 for o in m.walk() if o.name == "nvgpu.wgmma.mma_async")
    D, dt, causal = {v[0]: v[1:] for v in VARIANTS}[name]
    tol = 1e-2 if dt is ml_dtypes.bfloat16 else 2e-3
    assert run(m, name, D, dt, causal, 200, 2, rng, seed=5) < tol


OTHER_HEAD_DIMS = ["flash_attention_d64", "flash_attention_causal_d64", "flash_attention_d256"]


@pytest.mark.parametrize("name", OTHER_HEAD_DIMS)
def test_scheduled_other_head_dims_after_ws_hopper(name, rng):
    """ws-schedule's output for head dims 64 (a ping-pong team, ops in two stages) and 256 (one
    compute group), kept as IR, through ws-hopper: the same result as the kernel as written on
    the same fresh random inputs (and both near the float64 reference)."""
    stored = parse_kernel(SCHEDULED / f"{name}.mlir")
    loop_attrs = [o.attributes["ws.schedule"] for o in stored.walk() if "ws.schedule" in o.attributes]
    assert loop_attrs and any("ws.warp" in o.attributes for o in stored.walk())
    after = compile_kernel(SCHEDULED / f"{name}.mlir", "ws-hopper", file=name, shared=True)
    assert any(o.name == "nvgpu.wgmma.mma_async" for o in after.walk())
    if "pingpong" in loop_attrs[0].data:
        assert [o for o in after.walk() if o.name == "nvvm.barrier_arrive"], "the team takes turns"
    D, dt, causal = {v[0]: v[1:] for v in VARIANTS}[name]
    L, BH = 300, 1  # three key blocks of 128 (five of 64 for d256), the last ragged; one head
    bm = 64 if D == 256 else 128
    q, k, v = (rng.standard_normal((BH, L, D)).astype(dt) for _ in range(3))
    outs = []
    for module in (parse_kernel(KERNELS / f"{name}.mlir"), after):
        o = np.full((BH, L, D), np.nan, dt)
        wsdialects.interpret(module, name, grid=(-(-L // bm), BH), args=[q, k, v, o, L, float(1 / np.sqrt(D))],
                             seed=5)
        assert not np.isnan(o.astype(np.float32)).any(), "an output element was not written"
        outs.append(o.astype(np.float64))
    r = reference(q, k, v, causal)
    assert np.linalg.norm(outs[1] - outs[0]) / np.linalg.norm(r) < 2e-3
    assert np.linalg.norm(outs[1] - r) / np.linalg.norm(r) < 2e-3


@pytest.mark.parametrize("name,organisation,options", [
    *((n, org, opt) for n in ["flash_attention", "flash_attention_causal", "flash_attention_bf16"]
      for org, opt in [("", ""), ("_split", " pingpong=false")]),
    *((n, "", "") for n in OTHER_HEAD_DIMS),
    ("gemm", "", "")])
def test_stored_schedules_are_the_solver_output(name, organisation, options):
    """The IR kept in Inputs/kernels/scheduled is what ws-schedule writes today (re-solved
    where OR-Tools is installed), so the GPU tests compile the current solver's choice."""
    pytest.importorskip("ortools")
    stored = (SCHEDULED / f"{name}{organisation}.mlir").read_text()
    fresh = compile_kernel(KERNELS / f"{name}.mlir", f"ws-schedule{{arch=h100 time-limit=120{options}}}", file=name,
                           shared=True)
    body = "\n".join(line for line in stored.splitlines() if not line.startswith("//"))
    assert str(fresh).strip() == body.strip()


def test_three_d_descriptor_needs_a_three_d_array(rng):
    m = wsdialects.parse_file(KERNELS / "flash_attention.mlir")
    q = rng.standard_normal((256, 128)).astype(np.float16)
    with pytest.raises(TypeError, match="a 2-D array is accessed through a 128x128 block with 3 indices"):
        wsdialects.interpret(m, "flash_attention", grid=(1, 1), args=[q, q, q, q.copy(), 128, 0.1])
