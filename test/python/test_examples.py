"""The bundled examples are the reference kernels, unchanged."""

from conftest import REPO, shared_dir


def test_examples_match_the_reference_kernels():
    for name in ("gemm.mlir", "attention.mlir"):
        assert (REPO / "examples" / name).read_text() == (shared_dir() / "kernels" / name).read_text()
