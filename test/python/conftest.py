"""Shared fixtures: paths to the reference kernels and small numpy references."""

import os
from pathlib import Path

import numpy as np
import pytest

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
    d = q.shape[1]
    q = q.reshape(heads, length, d).astype(np.float32)
    k = k.reshape(heads, length, d).astype(np.float32)
    v = v.reshape(heads, length, d).astype(np.float32)
    s = q @ k.transpose(0, 2, 1) * scale
    if causal:
        s = np.where(np.tril(np.ones((length, length), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ v).reshape(heads * length, d)


def rel_err(got, ref):
    got = got.astype(np.float32)
    return float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-6))
