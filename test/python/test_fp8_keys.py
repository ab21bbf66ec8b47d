"""ws-lower-layouts{fp8-keys=interleaved} (ws-hopper's option fp8-keys; wsdialects/lower/key_order.py):
FlashAttention-3's key order in an fp8 V^T and P's A fragment. A model of the emitter's P
conversion (no shuffles: words u_0 | u_1 << 16 and u_2 | u_3 << 16 of the thread's own
accumulator bytes) puts at k position p the column `interleaved`(p) that the transposing copy
stores V^T's key at, so the product is P·V; the interpreter gives the kernel's result as written;
the PTX has no shfl.sync.idx and ptxas no spills; the default is unchanged; bad options and
mismatched layouts are located errors."""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kernel_cache import compile_kernel, compile_ptx, parse_kernel, run_ptxas
from test_diagnostics import ws_opt_here
from test_producer_transpose import run
from test_transpose_copy import copy_model
from wsdialects.layout import acc_fragment_base, acc_fragment_offsets, interleaved, operand_a8_offsets

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
IL = "ws-hopper{v-transpose=%s fp8-keys=interleaved}"


def a_fragment_interleaved(p8: np.ndarray) -> dict[int, list[int]]:
    """The emitter's conversion (wgmma.py, ev_convert_layout, interleaved) for one warp group's
    64 x K bytes: per k-block and row half h, u_j = the thread's accumulator bytes of columns
    8j + 2q, + 1; A registers (h, 0) = u_0 | u_1 << 16, (h, 1) = u_2 | u_3 << 16, in the order
    (h0, a0), (h1, a0), (h0, a1), (h1, a1)."""
    rows, cols = p8.shape
    offs = acc_fragment_offsets(rows, cols, 1)
    out = {}
    for tid in range(128):
        r0, c0 = acc_fragment_base(tid)
        regs = [int(p8[r0 + dr, c0 + dc]) for dr, dc in offs]
        words = []
        for kb in range(cols // 32):
            got = {}
            for h in range(2):
                u = [regs[4 * (4 * kb + j) + 2 * h] | regs[4 * (4 * kb + j) + 2 * h + 1] << 8 for j in range(4)]
                got[h] = [u[0] | u[1] << 16, u[2] | u[3] << 16]
            words += [got[0][0], got[1][0], got[0][1], got[1][1]]
        out[tid] = words
    return out


def test_conversion_puts_the_interleaved_column_at_each_k_position():
    rng = np.random.default_rng(0)
    p8 = rng.integers(0, 256, (64, 128))
    A = a_fragment_interleaved(p8)
    offs = operand_a8_offsets(64, 128, 1, interleave=8)
    for tid, words in A.items():
        lane = tid % 32
        g, q = 16 * (tid // 32) + lane // 4, lane % 4
        for kb in range(4):
            for j in range(4):  # PTX ISA m64nNk32 8-bit A: row g + 8 (j % 2), k 4q + 16 (j / 2) + byte
                w = words[4 * kb + j]
                for byte in range(4):
                    k = 32 * kb + 16 * (j >> 1) + 4 * q + byte
                    assert (w >> (8 * byte)) & 0xFF == p8[g + 8 * (j & 1), interleaved(k)]
                    # the layout says the same (#layout.operand_a<..., interleave = 8>: from column 2q)
                    s = 4 * (4 * kb + j) + byte
                    dr, dc = offs[s]
                    assert (g + dr, 2 * q + dc) == (g + 8 * (j & 1), interleaved(k))


def test_product_with_the_interleaved_copy_is_p_times_v():
    """The k positions of A and of the V^T the copy stored hold the same key: sum over stored
    positions of A[m, p] * VT_stored[n, p] = (P V)[m, n] (small integers, exact)."""
    rng = np.random.default_rng(1)
    p8 = rng.integers(0, 16, (64, 128))
    v = rng.integers(0, 16, (128, 128)).astype(np.uint8)  # keys x d
    dst, _ = copy_model(v, 4, interleave=8)
    from wsdialects.layout import smem_offset

    vt_stored = np.array([[dst[smem_offset(d, p, 1, 128, 128)] for p in range(128)] for d in range(128)], np.int64)
    A = np.zeros((64, 128), np.int64)
    for tid, words in a_fragment_interleaved(p8).items():
        lane = tid % 32
        g, q = 16 * (tid // 32) + lane // 4, lane % 4
        for i, w in enumerate(words):
            kb, j = divmod(i, 4)
            for byte in range(4):
                A[g + 8 * (j & 1), 32 * kb + 16 * (j >> 1) + 4 * q + byte] = (w >> (8 * byte)) & 0xFF
    assert (A @ vt_stored.T == p8 @ v.astype(np.int64)).all()
    natural, _ = copy_model(v, 4)  # the default copy's V^T with this A: wrong (the test can fail)
    nat = np.array([[natural[smem_offset(d, p, 1, 128, 128)] for p in range(128)] for d in range(128)], np.int64)
    assert not (A @ nat.T == p8 @ v.astype(np.int64)).all()


@pytest.mark.parametrize("placement", ["producer", "consumer"])
def test_layouts_and_interpreter(placement):
    """The V^T buffer, the copy and P's A fragment carry interleave = 8 (one decision, both sides);
    the interpreter gives what the kernel as written gives (layouts change no value)."""
    name = "flash_attention_fp8"
    m = compile_kernel(KERNELS / f"{name}.mlir", IL % placement, file=name, shared=True)
    text = str(m)
    warps = {"producer": "[1, 4]", "consumer": "[1, 8]"}[placement]
    assert f"#layout.transpose_copy<warps = {warps}, interleave = 8>" in text
    assert "#layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>" in text
    assert "#layout.shared<swizzle = 128, order = [0, 1], interleave = 8>" in text
    written = parse_kernel(KERNELS / f"{name}.mlir", shared=True)
    np.testing.assert_array_equal(run(m, name, 130, 5), run(written, name, 130, 5))


def test_v_transposed_by_tma_keeps_the_natural_order():
    """flash_attention_fp8_vt (V^T loaded by TMA, which writes keys in order): nothing interleaved."""
    ptx = compile_ptx(str(KERNELS / "flash_attention_fp8_vt.mlir"), "ws-hopper{fp8-keys=interleaved}")
    assert ptx == compile_ptx(str(KERNELS / "flash_attention_fp8_vt.mlir"), "ws-hopper")


@pytest.mark.parametrize("name", ["flash_attention_fp8", "flash_attention_fp8_causal"])
@pytest.mark.parametrize("placement", ["producer", "consumer"])
def test_ptx_has_no_quad_shuffles_and_ptxas_no_spills(name, placement):
    ptx = compile_ptx(str(KERNELS / f"{name}.mlir"), IL % placement)
    natural = compile_ptx(str(KERNELS / f"{name}.mlir"), "ws-hopper{v-transpose=%s fp8-keys=natural}" % placement)
    assert "shfl.sync.idx" not in ptx and "shfl.sync.idx" in natural
    assert ptx.count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == natural.count("ldmatrix.sync.aligned")
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    rc, report = run_ptxas(ptx, ptxas)  # ptxas -arch=sm_90a -v, once per PTX text in the test run
    assert rc == 0 and "C7508" not in report, report
    assert "0 bytes spill stores" in report and "bytes spill stores" in report, report
    assert report.count("bytes spill stores") == report.count("0 bytes spill stores"), report


def test_bad_option_is_an_error(capsys, monkeypatch):
    # ws-opt's entry point in this process (test_diagnostics runs the console script itself)
    r = ws_opt_here(capsys, monkeypatch, str(KERNELS / "flash_attention_fp8.mlir"), "-p", "ws-hopper{fp8-keys=fa3}")
    assert r.returncode == 1 and "fp8-keys must be natural or interleaved, got 'fa3'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_one_sided_interleave_is_a_located_error(tmp_path):
    """Hand-edited IR whose P fragment lost its interleave while V^T kept it: the emitter
    refuses the wgmma at its location (the product would be wrong), exit 1."""
    lowered = str(compile_kernel(KERNELS / "flash_attention_fp8.mlir", IL % "producer", shared=True)) + "\n"  # ws-opt -p's
    bad = lowered.replace("#layout.wgmma<warp_groups = 2>, interleave = 8>", "#layout.wgmma<warp_groups = 2>>")
    assert bad != lowered
    f = tmp_path / "bad.mlir"
    f.write_text(bad)
    r = subprocess.run(["ws-opt", str(f), "-t", "llvm"], capture_output=True, text=True)
    assert r.returncode == 1 and not r.stdout, r.stderr
    assert f"{f}:" in r.stderr and "must be the same on both" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_e4m3_values_unchanged_by_the_option():
    """The e4m3 path end to end on a ragged L through the interpreter, causal kernel, consumer
    placement with the option: equal to the natural order's result, bit for bit."""
    name = "flash_attention_fp8_causal"
    a = compile_kernel(KERNELS / f"{name}.mlir", IL % "consumer", file=name, shared=True)
    b = compile_kernel(KERNELS / f"{name}.mlir", "ws-hopper{v-transpose=consumer}", file=name, shared=True)
    np.testing.assert_array_equal(run(a, name, 300, 9), run(b, name, 300, 9))


def test_interleave_prints_parses_and_verifies():
    import wsdialects
    from wsdialects.layout import OperandALayout, SharedLayout, TransposeCopyLayout, WgmmaLayout

    text = ("func.func @f(%a: tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [1, 0], interleave = 8>>, "
            "%b: tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>>, "
            "%c: tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4], interleave = 8>>, "
            "%d: tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [1, 0]>>) {\n  func.return\n}\n")
    out = str(wsdialects.parse(text))
    for s in ("order = [1, 0], interleave = 8>", "warp_groups = 2>, interleave = 8>", "warps = [1, 4], interleave = 8>",
              "#layout.shared<swizzle = 128, order = [1, 0]>>"):
        assert s in out
    for make, what in ((lambda: SharedLayout(128, (1, 0), 4), "#layout.shared"),
                       (lambda: OperandALayout(WgmmaLayout(2), 16), "#layout.operand_a"),
                       (lambda: TransposeCopyLayout((1, 4), 2), "#layout.transpose_copy")):
        with pytest.raises(Exception, match=f"{what}: interleave must be 0 or 8"):
            make().verify()
