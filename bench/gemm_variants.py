"""How bench/gemm.py (and bench/fill_ptx_cache.py) compile a GEMM variant: no torch needed."""

from __future__ import annotations

import os
from pathlib import Path

import wsdialects

ROOT = Path(__file__).resolve().parents[1]

SOLVER = "ws-schedule{arch=h100},"  # a variant starting so compiles test/Inputs/kernels/scheduled/gemm.mlir


def compile_variant(variant: str):
    """A variant is a ws-opt pipeline; a 'scalar-stores:' prefix compiles it with the pointer-tile
    epilogue storing element by element from the accumulator fragment (the lowering before the
    shared-memory-staged, 16-byte-vector epilogue), for comparison; a 'src=PATH:' prefix compiles
    another kernel of the same arguments and grid (e.g. bench/kernels/grouped/gemm.mlir)."""
    src = ROOT / "examples" / "kernels" / "gemm.mlir"
    if variant.startswith("src="):
        path, variant = variant[4:].split(":", 1)
        src = ROOT / path
    scalar = variant.startswith("scalar-stores:")
    pipe = variant.split(":", 1)[1] if scalar else variant
    if pipe.startswith(SOLVER):  # the solver's schedule, kept as IR (no OR-Tools needed)
        src, pipe = ROOT / "test" / "Inputs" / "kernels" / "scheduled" / "gemm.mlir", pipe[len(SOLVER):]
    old = os.environ.get("WSDIALECTS_SCALAR_STORES")
    os.environ["WSDIALECTS_SCALAR_STORES"] = "1" if scalar else "0"
    try:
        return wsdialects.compile(src, pipeline=pipe)
    finally:
        if old is None:
            del os.environ["WSDIALECTS_SCALAR_STORES"]
        else:
            os.environ["WSDIALECTS_SCALAR_STORES"] = old
