"""Shared fixtures: paths to the reference kernels and small numpy references."""

import os
from pathlib import Path

import numpy as np
import pytest

import references

REPO = Path(__file__).resolve().parents[2]
KERNELS_HERE = Path(__file__).resolve().parent / "kernels"


def reference_shared_dir() -> Path | None:
    """The project's shared/ folder beside the checkout (CI has it), if present."""
    for cand in (REPO.parent / "shared", REPO / "shared"):
        if (cand / "kernels").is_dir():
            return cand
    return None


def shared_dir() -> Path:
    """Where the reference kernels are: shared/ if present, else the bundled copies."""
    return reference_shared_dir() or REPO / "examples"


@pytest.fixture
def shared():
    return shared_dir()


@pytest.fixture
def rng(request):
    # Fresh random inputs every run; the seed is printed on failure.
    seed = int.from_bytes(os.urandom(4), "little")
    request.node.user_properties.append(("seed", seed))
    print(f"random seed {seed}")
    return np.random.default_rng(seed)


def gemm_reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32).T


def attention_reference(q, k, v, heads, length, scale, causal=False):
    """references.attention_reference of [heads * length, d] tiles, per head."""
    d = q.shape[1]
    per_head = [x.reshape(heads, length, d) for x in (q, k, v)]
    return references.attention_reference(*per_head, scale, causal).reshape(heads * length, d)


def rel_err(got, ref):
    got = got.astype(np.float32)
    return float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-6))
