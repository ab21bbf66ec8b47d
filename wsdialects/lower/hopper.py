"""`ws-hopper{depth=D mma-depth=P cooperative=G persistent=true|false programs=N}`:
the whole path to Hopper code.

OVERVIEW.md defines `ws-hopper` as `ws-specialize` plus the lowering. This pass runs
`ws-specialize` with the same options (partition, distribute{depth=D},
pipeline-mma{depth=P}, and cooperative / persistent when asked). The thread-level
lowering (aref -> mbarrier rings + TMA, warp groups -> dispatch with setmaxnreg,
tiles -> wgmma fragments, mma.async_dot / mma.wait -> wgmma + wait_group P) runs when
the module is emitted with `-t llvm` or `-t ptx` (`wsdialects/lower/to_llvm.py`,
`wsdialects/lower/ptx.py`), so the IR this pass leaves still prints, re-parses and
runs in the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass

from wsdialects.transforms.specialize import SpecializePass


@dataclass(frozen=True)
class HopperPass(SpecializePass):
    """ws-specialize under the name of the whole path (same options)."""

    name = "ws-hopper"
