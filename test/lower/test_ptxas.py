"""Every kernel the Hopper lowering accepts assembles with `ptxas -arch=sm_90a`
(CI: skipped, visibly, where ptxas is not installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernel_cache import compile_ptx, run_ptxas
from wsdialects.lower.ptxas import parse_report

ROOT = Path(__file__).resolve().parents[2]
KERNELS = {
    "gemm": ROOT / "examples" / "kernels" / "gemm.mlir",
    "bias_gemm": ROOT / "test" / "Inputs" / "kernels" / "bias_gemm.mlir",
    "batched_gemm": ROOT / "test" / "Inputs" / "kernels" / "batched_gemm.mlir",
    "fp8_gemm": ROOT / "test" / "Inputs" / "kernels" / "fp8_gemm.mlir",
    "dual_dot": ROOT / "test" / "Inputs" / "kernels" / "dual_dot.mlir",
    "tma_store_gemm": ROOT / "test" / "Inputs" / "kernels" / "tma_store_gemm.mlir",
    # a TMA reduce-add epilogue (cp.reduce.async.bulk.tensor): split-K into an f32 C
    "splitk_reduce_gemm": ROOT / "test" / "Inputs" / "kernels" / "splitk_reduce_gemm.mlir",
    # pointer loads in Triton's classic form, TMA loads after ws-tma-load
    "pointer_gemm": ROOT / "test" / "Inputs" / "kernels" / "pointer_gemm.mlir",
    # Triton's tutorial matmul as Triton prints it (wrapped rows and columns, stride arguments)
    **{f"triton/{k}": ROOT / "test" / "Inputs" / "triton" / f"{k}.ttir"
       for k in ("gemm_pointer_f16_64x64x32_g2", "gemm_pointer_f16_128x256x64_g8")},
    "relu_gemm": ROOT / "test" / "Inputs" / "kernels" / "relu_gemm.mlir",
    # tile.atomic_add (red / atom between fences): Triton's split-K GEMM
    **{f"triton/{k}": ROOT / "test" / "Inputs" / "triton" / f"{k}.ttir"
       for k in ("gemm_splitk_f16_64x64x32_s3", "gemm_splitk_f16_128x128x64_s4")},
    # attention: register-A wgmma, N-major V, column-block slots (head dim 128 / 256), 3-D TMA boxes
    **{k: ROOT / "examples" / "kernels" / f"{k}.mlir"
       for k in ("attention", "flash_attention", "flash_attention_causal", "flash_attention_bf16",
                 "flash_attention_d64", "flash_attention_causal_d64", "flash_attention_d256")},
    "causal_attention": ROOT / "test" / "Inputs" / "kernels" / "causal_attention.mlir",
    # Triton's attention tutorial as Triton prints it: device-side descriptors (ws-host-descriptors)
    **{f"triton/{k}": ROOT / "test" / "Inputs" / "triton" / f"{k}.ttir"
       for k in ("attention_desc_f16_d128_n1024", "attention_desc_bf16_d128_n1024", "attention_desc_f16_d32_n128",
                 "attention_desc_causal_f16_d128_n1024")},
}
GPU_KERNELS = ROOT / "test" / "gpu" / "kernels"


def _all_kernels():
    out = dict(KERNELS)
    if GPU_KERNELS.is_dir():
        for p in sorted(GPU_KERNELS.glob("*.mlir")):
            out[f"gpu/{p.stem}"] = p
    return out


def _ptx(path: Path, spec: str = "ws-hopper") -> str:
    return compile_ptx(str(path), spec)


def _assemble(ptx: str, tmp_path: Path, name: str, spills: bool = False) -> str:
    """ptxas -arch=sm_90a accepts `ptx` with no register spills (unless `spills`) and no
    ignored setmaxnreg (the test skips, visibly, where ptxas is not installed); returns
    ptxas's report."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    rc, report = run_ptxas(ptx, ptxas)  # ptxas -arch=sm_90a -v, once per PTX text
    assert rc == 0, report
    assert spills or "spill" not in report or "0 bytes spill stores" in report, report
    assert "C7508" not in report, report  # setmaxnreg ignored
    serial = parse_report(report)
    assert spills or not any(i.serialized for i in serial.values()), report  # no injected warpgroup.arrive / wait
    return report


@pytest.mark.parametrize("name,path", sorted(_all_kernels().items()))
def test_ptxas_accepts(name, path, tmp_path):
    ptx = _ptx(path)
    assert ".target sm_90a" in ptx
    assert "wgmma.mma_async" in ptx and "setmaxnreg" in ptx and "mbarrier.try_wait.parity" in ptx
    _assemble(ptx, tmp_path, name)


@pytest.mark.parametrize("spec", ["ws-hopper{depth=1 mma-depth=0}", "ws-hopper{depth=2 mma-depth=1}",
                                  "ws-hopper{depth=4 mma-depth=2}", "ws-hopper{persistent=true}",
                                  "ws-partition,ws-distribute{depth=3}"])
def test_ptxas_pipelines(spec, tmp_path):
    _assemble(_ptx(KERNELS["gemm"], spec), tmp_path, "gemm")


# Kernels through other pipelines: cooperative consumer groups (warp_group.share of the A
# slot; warp_group.gather before a TMA store), the scheduled gemm (ws-schedule plans a
# cooperative team of 2), computed aref payloads (nvgpu.smem.store; already
# warp-specialized inputs, so only the lowering passes run).
INPUTS = ROOT / "test" / "Inputs" / "kernels"
MORE = [
    ("gemm", KERNELS["gemm"], "ws-hopper{cooperative=2}"),
    ("gemm", KERNELS["gemm"], "ws-schedule{arch=h100},ws-hopper"),
    ("tma_store_gemm", INPUTS / "tma_store_gemm.mlir", "ws-hopper{cooperative=2}"),
    ("computed_put", INPUTS / "computed_put.mlir", "ws-lower-aref,ws-lower-warp-groups"),
    ("computed_dot", INPUTS / "computed_dot.mlir", "ws-lower-aref,ws-lower-warp-groups"),
    ("flash_attention", KERNELS["flash_attention"], "ws-hopper{cooperative=2}"),
    ("flash_attention_causal", KERNELS["flash_attention_causal"], "ws-hopper{cooperative=2}"),
    ("flash_attention", KERNELS["flash_attention"], "ws-hopper{cooperative=2 pingpong=true}"),
    ("flash_attention_d64", KERNELS["flash_attention_d64"], "ws-hopper{cooperative=2 pingpong=true}"),
    ("gemm", KERNELS["gemm"], "ws-hopper{cooperative=2 pingpong=true}"),
    ("flash_attention_causal", KERNELS["flash_attention_causal"],
     "ws-hopper{cooperative=2 pingpong=true persistent=true}"),
    ("dual_dot", INPUTS / "dual_dot.mlir", "ws-hopper{persistent=true}"),
    ("bias_gemm", INPUTS / "bias_gemm.mlir", "ws-hopper{persistent=true}"),
    ("gemm_splitk", ROOT / "test" / "Inputs" / "triton" / "gemm_splitk_f16_128x128x64_s4.ttir",
     "ws-hopper{cooperative=2}"),
    ("row_sum_splitn", ROOT / "test" / "Inputs" / "triton" / "row_sum_splitn_f16_128x64_s4.ttir", "ws-hopper"),
]


@pytest.mark.parametrize("name,path,spec", MORE, ids=[f"{n}-{s}" for n, _, s in MORE])
def test_ptxas_more_pipelines(name, path, spec, tmp_path):
    ptx = _ptx(path, spec)
    assert ".target sm_90a" in ptx and "setmaxnreg" in ptx and "mbarrier.try_wait.parity" in ptx
    _assemble(ptx, tmp_path, name)


ATOMICS = ROOT / "test" / "transforms" / "Inputs" / "atomics.mlir"


@pytest.mark.parametrize("part", range(4))
def test_ptxas_atomic_forms(part, tmp_path):
    """The hand-written tile.atomic_add forms (atom with its old value read, red of i32 and f16,
    a row slice's atom and shuffle, a scalar red) assemble."""
    path = tmp_path / "atomics.mlir"
    path.write_text(ATOMICS.read_text().split("// -----")[part])
    ptx = _ptx(path)
    assert "fence.acq_rel.gpu" in ptx and ".global.add." in ptx
    _assemble(ptx, tmp_path, f"atomics{part}")


@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal"])
def test_ptxas_scheduled_attention(name, tmp_path):
    """ws-schedule's choice for attention (kept as IR in Inputs/kernels/scheduled): the two
    compute groups as a ping-pong team; assembles without spills."""
    ptx = _ptx(INPUTS / "scheduled" / f"{name}.mlir", "ws-hopper")
    assert "bar.arrive" in ptx
    _assemble(ptx, tmp_path, name)


@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal"])
def test_ptxas_scheduled_attention_split(name, tmp_path):
    """ws-schedule{pingpong=false}'s attention (P and the 1-D row rescale through aref
    slots) assembles. Known cost of that schedule on Hopper: one warp group holds the whole
    128x128 f32 score tile for its softmax, so at the 168 registers of a 384-thread launch
    ptxas spills a little and serializes wgmma (C7520)."""
    ptx = _ptx(INPUTS / "scheduled" / f"{name}_split.mlir", "ws-hopper")
    assert ".shared .align" in ptx or "ld.shared.b32" in ptx
    _assemble(ptx, tmp_path, name, spills=True)


def test_parse_report_serialization_notes():
    """The wgmma-serialization notes are found by what they say, not from a list of codes: a
    C75xx note that speaks of wgmma / warpgroup is one, C7508 (setmaxnreg) and others are not."""
    report = "\n".join([
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'",
        "ptxas info    : (C7519) warpgroup.arrive is injected in around line 12 by compiler to allow use of registers in GMMA in function 'k'",
        "ptxas info    : (C7599) Potential Performance Loss: wgmma.mma_async instructions are serialized due to a future reason in the function 'k'",
        "ptxas info    : (C7508) Potential Performance Loss: setmaxnreg ignored; unable to determine register count at entry",
        "ptxas info    : (C7598) something unrelated to the tensor cores in function 'k'",
        "ptxas info    : Used 90 registers",
    ])
    info = parse_report(report)["k"]
    assert [s[:7] for s in info.serialized] == ["(C7519)", "(C7599)"], info.serialized
    assert info.registers == 90
