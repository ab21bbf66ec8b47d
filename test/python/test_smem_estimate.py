"""ws-hopper picks the deepest rings that fit from `ring_smem_bytes` (its estimate on the
aref IR); the LLVM emitter then allocates the shared memory. The estimate must be what the
emitter allocates (without the optional per-warp store staging), or ws-hopper picks a depth
the emitter rejects: a tile that a partition loads into registers (its own staging buffer and
mbarrier) used to be left out (a gated MLP on the solver's split schedule: 230544 bytes
estimated, 246936 needed, "use a smaller ring depth" at -t ptx).
"""

from pathlib import Path

import pytest

from kernel_cache import compile_kernel, parse_kernel
from wsdialects.diagnostics import WsError
from wsdialects.lower.hopper import ring_smem_bytes
from wsdialects.lower.lower_aref import loads_into_registers
from wsdialects.lower.to_llvm import lower_module

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test" / "Inputs" / "kernels"

CASES = [(INPUTS / "computed_put.mlir", ""),  # already specialized: a load into registers in the producer
         (ROOT / "examples" / "kernels" / "gemm.mlir", "ws-specialize{depth=2 mma-depth=1}"),
         (ROOT / "examples" / "kernels" / "flash_attention.mlir", "ws-specialize{depth=2 mma-depth=1}"),
         (INPUTS / "mean_gemm.mlir", "ws-specialize{depth=1 mma-depth=0}"),
         (INPUTS / "scheduled" / "two_dots_shared_load.mlir", "ws-specialize{depth=1 mma-depth=0}"),
         (INPUTS / "scheduled" / "flash_attention_split.mlir", "ws-specialize{depth=2 mma-depth=1}"),  # too big
         (INPUTS / "gemm_kinds" / "gated_mlp.mlir", "ws-specialize{depth=2 mma-depth=1}"),
         # three TMA stores of one partition in one staging buffer (lower/store_staging.py)
         (INPUTS / "scheduled" / "flash_attention_bwd_bf16.mlir", "ws-specialize{depth=1 mma-depth=0}")]


@pytest.mark.parametrize("path,pipeline", CASES, ids=[f"{p.parent.name}/{p.stem}" for p, _ in CASES])
def test_estimate_is_what_the_emitter_allocates(path, pipeline, monkeypatch):
    monkeypatch.setenv("WSDIALECTS_SCALAR_STORES", "1")  # no optional store staging
    m = compile_kernel(path, pipeline) if pipeline else parse_kernel(path)
    want = ring_smem_bytes(m)
    try:
        got = max(k.smem_bytes for k in lower_module(m).kernels)
    except WsError as e:  # too big: the emitter names the bytes it needed
        assert f"needs {want} bytes of shared memory" in str(e)
        return
    assert got == want


def test_a_load_into_registers_counts_its_staging():
    m = parse_kernel(INPUTS / "computed_put.mlir")
    (load,) = loads_into_registers(m)
    assert load.result.name_hint == "x"  # 2 * x is put: x itself is no slot's TMA copy
    assert ring_smem_bytes(m) == 1024 + 2 * (8192 + 16) + 8192 + (8192 + 8)  # ring, store staging, load staging


def test_a_tile_two_partitions_use_is_one_tma_copy_into_one_ring():
    """ws-distribute on the solver's split schedule: %x feeds dots on two warp groups, so it
    travels through one ring that both get and release; the producer loads it once (a TMA copy
    into the slot), not once into registers stored into two rings (which spilled the
    40-register producer), nor once per ring (twice the bytes and the slots)."""
    m = compile_kernel(INPUTS / "scheduled" / "two_dots_shared_load.mlir", "ws-specialize{depth=1 mma-depth=0}")
    producer = next(o for o in m.walk() if o.name == "warp_group.partition" and o.role.data == "producer")
    x_loads = [o for o in producer.walk() if o.name == "tile.desc_load" and "x_desc" in str(o.operands[0].name_hint)]
    assert len(x_loads) == 1 and len(list(x_loads[0].result.uses)) == 1
    (put,) = [u.operation for u in x_loads[0].result.uses]
    ring = put.operands[0].owner
    assert ring.num_consumers == 2
    readers = {o.parent_op() for o in m.walk() if o.name == "aref.get" and o.operands[0] is ring.ring}
    assert len(readers) == 2
    assert not loads_into_registers(m)
