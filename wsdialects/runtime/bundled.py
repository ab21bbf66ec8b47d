"""The command line of the kernel generators (runtime/attention_bwd_kernels.py,
runtime/grouped_gemm_kernels.py): write the variants they keep in examples/kernels."""

from __future__ import annotations

import argparse
from pathlib import Path


def write_bundled(files: dict[str, str], what: str, argv=None) -> int:
    """Write `files` ({file name: text}) to --out (examples/kernels by default), printing each path."""
    ap = argparse.ArgumentParser(description=f"write the bundled {what} kernels")
    ap.add_argument("--out", default="examples/kernels", help="folder to write them to")
    args = ap.parse_args(argv)
    for name, text in files.items():
        (Path(args.out) / name).write_text(text)
        print(Path(args.out) / name)
    return 0
