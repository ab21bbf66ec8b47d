"""The bundled examples are the reference kernels, unchanged."""

import pytest

from conftest import REPO, reference_shared_dir


def test_examples_match_the_reference_kernels():
    shared = reference_shared_dir()
    if shared is None:
        pytest.skip("shared/ is not beside the checkout")
    for name in ("gemm.mlir", "attention.mlir"):
        assert (REPO / "examples" / "kernels" / name).read_text() == (shared / "kernels" / name).read_text()
