"""ws-producer-transpose (an fp8 V transposed by the producer into a ring of its own) through the
interpreter: the bundled fp8 attention kernels after ws-specialize and ws-hopper with
v-transpose=producer give, on the same random inputs (ragged L, NaN-poisoned O), exactly what
they give with v-transpose=consumer (ws-stage-operands' staging in the consumers) and what the
kernel as written gives; without the producer's transpose the result is wrong (the test can
fail); and the pass's choice: the producer by default where its registers allow it."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.transforms.producer_transpose import candidates, producer_regs_available, producer_regs_needed

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
E4M3 = ml_dtypes.float8_e4m3fn
D = 128


def run(module, name, L, seed, BH=2):
    rng = np.random.default_rng(seed)
    q, k, v = ((rng.standard_normal((BH, L, D)) * s).astype(E4M3) for s in (1.0, 1.0, 2.0))
    qd, kd, vd = (rng.uniform(0.2, 2.0, BH).astype(np.float32) for _ in range(3))
    o = np.full((BH, L, D), np.nan, ml_dtypes.bfloat16)
    args = [q, k, v, o, qd, kd, vd, 1, L, float(1 / np.sqrt(D))]
    wsdialects.interpret(module, name, grid=(-(-L // 128), BH), args=args, seed=seed)
    assert not np.isnan(o.astype(np.float32)).any(), "an output element was not written"
    return o.astype(np.float32)


NAMES = ["flash_attention_fp8", "flash_attention_fp8_causal"]
PIPES = ["ws-hopper{%s}", "ws-hopper{persistent=true programs=3 %s}", "ws-hopper{cooperative=2 pingpong=true depth=2 %s}",
         "ws-hopper{depth=1 mma-depth=0 %s}"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("pipe", PIPES, ids=["default", "persistent", "pingpong", "depth1"])
@pytest.mark.parametrize("L", [1, 130, 300])
def test_producer_equals_consumer_and_written(name, pipe, L):
    prod = compile_kernel(KERNELS / f"{name}.mlir", pipe % "v-transpose=producer", file=name, shared=True)
    cons = compile_kernel(KERNELS / f"{name}.mlir", pipe % "v-transpose=consumer", file=name, shared=True)
    written = parse_kernel(KERNELS / f"{name}.mlir", shared=True)
    # the placement is what was asked: V^T's ring in the producer, or the consumers' staging buffer
    allocs = lambda m: [o.results[0].name_hint for o in m.walk() if o.name == "nvgpu.smem.alloc"]  # noqa: E731
    assert "aref_vt_buf0" in allocs(prod) and "v_stage" not in allocs(prod)
    assert "v_stage" in allocs(cons) and "aref_vt_buf0" not in allocs(cons)
    seed = 7 + L
    a, b, c = run(prod, name, L, seed), run(cons, name, L, seed), run(written, name, L, seed)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("name", NAMES + ["flash_attention_fp8_gqa", "flash_attention_fp8_window"])
def test_aref_level_equals_written(name):
    """After ws-specialize (aref IR, the producer's get / trans / put visible) as written."""
    m = compile_kernel(KERNELS / f"{name}.mlir", "ws-specialize{depth=3}", file=name, shared=True)
    rings = {o.results[0].name_hint for o in m.walk() if o.name == "aref.create"}
    assert {"aref_v", "aref_vt"} <= rings
    if name.endswith(("_gqa", "_window")):
        return  # their arguments differ; compiled and checked for the new ring only
    written = parse_kernel(KERNELS / f"{name}.mlir", shared=True)
    np.testing.assert_array_equal(run(m, name, 300, 3), run(written, name, 300, 3))


def test_without_the_producers_transpose_the_result_is_wrong():
    """The producer's tile.trans matters: dropping it (V stored as loaded into V^T's ring; a
    square tile, so the IR still verifies) changes the output."""
    name = "flash_attention_fp8"
    m = compile_kernel(KERNELS / f"{name}.mlir", "ws-specialize{depth=3}", file=name)
    trans = [o for o in m.walk() if o.name == "tile.trans" and o.results[0].name_hint
             and o.results[0].name_hint.startswith("v_in_t")]
    assert len(trans) == 2  # in the loop (the previous tile) and after it (the last)
    for t in trans:
        t.results[0].replace_all_uses_with(t.operands[0])
    written = parse_kernel(KERNELS / f"{name}.mlir", shared=True)
    assert not np.array_equal(run(m, name, 300, 3), run(written, name, 300, 3))


def test_auto_chooses_the_producer_where_registers_allow():
    name = "flash_attention_fp8"
    m = compile_kernel(KERNELS / f"{name}.mlir", "ws-specialize{depth=3 v-transpose=consumer}", file=name)
    (c,) = candidates(m)
    t = c.create.ring.type.types[0]
    assert producer_regs_needed(t, c.producer) == 48  # 128 x 128 bytes over 128 threads, plus 16
    assert producer_regs_available(c.producer, give=0) == 40  # (64512 the CTA holds - 256 x 232) over 128
    assert producer_regs_available(c.producer) == 56  # consumers at 224: 64, at most FA3's 56
    auto = compile_kernel(KERNELS / f"{name}.mlir", "ws-specialize{depth=3}", file=name, shared=True)
    parts = {o.role.data: o.regs.value.data for o in auto.walk() if o.name == "warp_group.partition"}
    assert parts == {"producer": 56, "consumer": 224}
    # V^T given (flash_attention_fp8_vt): nothing to transpose
    vt = compile_kernel(KERNELS / "flash_attention_fp8_vt.mlir", "ws-specialize{depth=3}", file="vt", shared=True)
    assert not any(o.name == "aref.create" and o.results[0].type.depth.data == 2 for o in vt.walk())
    assert {o.role.data: o.regs.value.data for o in vt.walk() if o.name == "warp_group.partition"}["producer"] == 40


def test_ptxas_producer_transpose_no_spills():
    """The producer-side transpose assembles at the producer's 56 registers without spills;
    at 40 (the producer's usual budget) ptxas would spill, which is why the pass raises it."""
    import shutil

    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    from kernel_cache import compile_ptx, run_ptxas
    from wsdialects.lower.ptxas import parse_report

    for name in NAMES:
        ptx = compile_ptx(str(KERNELS / f"{name}.mlir"), "ws-hopper{v-transpose=producer}")
        assert "setmaxnreg.dec.sync.aligned.u32 56;" in ptx and "setmaxnreg.inc.sync.aligned.u32 224;" in ptx
        for regs, spills in ((56, False), (40, True)):
            # ptxas -arch=sm_90a -v, once per PTX text in the test run (the 56-register text is
            # test_transpose_copy's and lit's ws-producer-transpose.mlir's too)
            rc, report = run_ptxas(ptx.replace("setmaxnreg.dec.sync.aligned.u32 56;",
                                               f"setmaxnreg.dec.sync.aligned.u32 {regs};"), ptxas)
            assert rc == 0, report
            assert "C7508" not in report, report  # setmaxnreg honoured
            assert any(i.spills for i in parse_report(report).values()) == spills, report


def test_verify_sync_a_partition_may_read_its_own_ring_alone():
    """ws-verify-sync's ring rule: the producer may get from a ring it puts into (its own TMA
    copies, which it transposes) when no other partition gets from it; a ring that another
    partition also reads is still a violation at the producer's get."""
    from wsdialects.diagnostics import parse_text
    from wsdialects.transforms.verify_sync import verify_sync

    name = "flash_attention_fp8"
    m = compile_kernel(KERNELS / f"{name}.mlir", "ws-specialize{depth=3}", file=name)
    verify_sync(m, internal=False)  # as built: the producer alone reads aref_v
    text = str(m)
    # the consumers read aref_v too (the ring the producer reads its copies from)
    bad = text.replace("%vt = aref.get %aref_vt[", "%vt = aref.get %aref_v[", 1)
    bad = bad.replace("!aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>\n            %v_1 = tile.trans %vt",
                      "!aref.ring<tensor<128x128xf8E4M3FN>, depth = 2>\n            %v_1 = tile.trans %vt", 1)
    assert bad != text
    with pytest.raises(wsdialects.diagnostics.WsError, match="both puts into and gets from ring %aref_v, which other "
                                                             "partitions also get from"):
        verify_sync(parse_text(bad), internal=False)
