"""bench/triton_frontend.py without a GPU: `--dry-run` lists the cases (GEMM per K and kernel,
attention per dtype, causal and L) with the hand-written kernel each is compared with;
`--only` / `--ks` / `--ls` / `--no-hand` shape the list, bad values are usage errors; and the
hand-written kernels the plan names take the arguments the plan launches them with (a
tensor where the kernel has a descriptor or pointer, an i32 or f32 scalar where it has one),
in the element type and tiles of the imported kernel they are compared with. Needs neither
torch nor triton."""

import importlib.util
import subprocess
import sys
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType

import wsdialects
from wsdialects.tile.types import DescType, PtrType

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "triton_frontend.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_triton_frontend", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


tf = _bench()


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_dry_run_lists_every_default_case_with_its_hand_written_kernel():
    r = _run("--dry-run")
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()[:-1]
    # 4 K x 3 GEMMs + 3 L x 2 dtypes x 2 causal (attention_desc) + 3 L x 2 dtypes (attention_block_ptr, not causal)
    assert r.stdout.splitlines()[-1] == "30 cases"
    assert len(rows) == 30 and all("hand-written examples/kernels/" in row for row in rows)
    assert sorted(row.split(":")[0] for row in rows if row.startswith("attention_block_ptr")) == [
        f"attention_block_ptr {d} full L={L}" for d in ("bf16", "fp16") for L in (1024, 16384, 4096)]
    for row in rows:
        family = row.split()[0]
        assert f"examples/triton/{family}.py:{family}_kernel" in row
        if family.startswith("gemm"):
            pipe = "[ws-hopper{persistent=true}]" if family == "gemm_persistent" else "[ws-hopper]"
            assert f"examples/kernels/gemm.mlir {pipe}" in row, row
        else:
            kernel = ("flash_attention_causal.mlir" + (" as bf16" if "bf16" in row else "") if "causal" in row
                      else "flash_attention_bf16.mlir" if "bf16" in row else "flash_attention.mlir")
            assert f"examples/kernels/{kernel} [ws-hopper]" in row, row
    assert sorted(row.split(":")[0] for row in rows if row.startswith("gemm_desc")) == [
        "gemm_desc K=1024", "gemm_desc K=16384", "gemm_desc K=256", "gemm_desc K=4096"]


def test_only_ks_ls_and_no_hand_shape_the_cases():
    r = _run("--dry-run", "--only", "gemm_pointer,attention_desc", "--ks", "512", "--ls", "2048",
             "--dtypes", "bf16", "--causal", "1", "--no-hand")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "gemm_pointer K=512: examples/triton/gemm_pointer.py:gemm_pointer_kernel by Triton and by us",
        "attention_desc bf16 causal L=2048: examples/triton/attention_desc.py:attention_desc_kernel by Triton and by us",
        "2 cases"]


def test_block_pointer_attention_is_not_causal():
    r = _run("--dry-run", "--only", "attention_block_ptr", "--ls", "2048", "--dtypes", "fp16", "--causal", "0,1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "attention_block_ptr fp16 full L=2048: examples/triton/attention_block_ptr.py:attention_block_ptr_kernel by "
        "Triton and by us; hand-written examples/kernels/flash_attention.mlir [ws-hopper] grid (16, 128) "
        f"(q3, k3, v3, o3, 2048, {128 ** -0.5})", "1 cases"]
    notes = tf.footnotes(tf.plan([], [2048], ["fp16"], [False], {"attention_block_ptr"}))
    assert len(notes) == 1 and notes[0].startswith("attention_block_ptr: block pointers over (B, H, L, d)")


def test_bad_options_are_usage_errors():
    for args, says in ((["--only", "gemm_desc,gemm_fp16"], "--only: unknown gemm_fp16 (known: gemm_desc,"),
                       (["--ks", "256,1k"], "argument --ks: expected a comma-separated list of int, got '256,1k'"),
                       (["--dtypes", "fp32"], "--dtypes: unknown fp32"), (["--causal", "2"], "--causal: unknown 2")):
        r = _run("--dry-run", *args)
        assert r.returncode == 2 and says in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr


def _kernel_args(hand):
    module = wsdialects.parse(hand.source(), str(hand.path))
    (fn,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return list(fn.function_type.inputs)


def test_hand_written_kernels_take_the_planned_arguments():
    cases = tf.plan([256, 16384], [1024], ["fp16", "bf16"], [False, True], set(tf.KNOWN))
    hands = {c.hand.key: (c, c.hand) for c in cases}
    assert len(hands) == 6  # gemm plain, gemm persistent, 4 attention kernels
    for case, hand in hands.values():
        types = _kernel_args(hand)
        assert len(types) == len(hand.args), (hand.path, types, hand.args)
        elem = BFloat16Type if hand.dtype == "bf16" else Float16Type
        for t, a in zip(types, hand.args):
            if isinstance(a, str):  # a tensor of the case
                assert isinstance(t, (DescType, PtrType)), (hand.path, a, t)
                el = t.block.element_type if isinstance(t, DescType) else t.pointee
                assert isinstance(el, elem), (hand.path, a, t)
            elif isinstance(a, float):
                assert isinstance(t, Float32Type), (hand.path, a, t)
            else:
                assert isinstance(t, IntegerType) and t.width.data == 32, (hand.path, a, t)
        blocks = [tuple(t.block.get_shape()) for t in types if isinstance(t, DescType)]
        if case.family.startswith("gemm"):  # the imported GEMMs' BLOCK_M x BLOCK_K and BLOCK_N x BLOCK_K
            assert blocks == [(tf.BM, tf.BK), (tf.BN, tf.BK)]
            assert hand.grid == (tf.cdiv(tf.MN, tf.BM) * tf.cdiv(tf.MN, tf.BN),)
        else:  # q, k, v, o: BLOCK x HEAD_DIM
            assert blocks == [(tf.BLOCK, tf.D)] * 4
            assert hand.grid == (tf.cdiv(case.params["L"], tf.BLOCK), tf.B * tf.H)


def test_footnotes_name_what_is_compared():
    notes = tf.footnotes(tf.plan([256], [], [], [], {"gemm_pointer", "gemm_persistent"}))
    assert len(notes) == 3
    assert any("gemm_pointer: not the same layout" in n for n in notes)
    assert any("`ws-hopper{persistent=true}`" in n for n in notes)
    assert tf.footnotes(tf.plan([256], [], [], [], {"gemm_pointer"}, hand=False)) == []


def test_hand_written_kernels_compile_as_the_bench_compiles_them():
    """The renamed bf16 causal kernel compiles in bf16; the persistent row's kernel is persistent; the
    others are ws-hopper's default, the organisation ws-choose-organisation decided (on the kernel)."""
    cases = tf.plan([256], [1024], ["bf16"], [True], {"gemm_desc", "gemm_persistent", "attention_desc"})
    got = {c.family: c.hand.compile() for c in cases}
    assert got["gemm_persistent"].kernel().info.persistent_programs > 0
    assert "ws.organisation" in got["gemm_desc"].ir
    assert "xbf16" in got["attention_desc"].ir and "xf16" not in got["attention_desc"].ir
