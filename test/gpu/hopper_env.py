"""What every GPU test module needs first: torch, a Hopper GPU and cuda-python, or a clean
skip of the whole module (CI has no GPU)."""

import pytest


def torch_on_hopper():
    """torch, once a CUDA device of compute capability 9.x and cuda.bindings are there;
    otherwise the calling test module is skipped."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU", allow_module_level=True)
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs a Hopper GPU (sm_90a)", allow_module_level=True)
    pytest.importorskip("cuda.bindings")
    return torch


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def rel_err(out, ref) -> float:
    """||out - ref|| / ||ref|| in float64; a NaN left in `out` (an element never written) fails."""
    import torch

    out, ref = out.double(), ref.double()
    assert not torch.isnan(out).any(), "NaN in the output (unwritten elements?)"
    return ((out - ref).norm() / ref.norm()).item()
