"""wsdialects as an xDSL plugin: the `xdsl.universe` entry point (pyproject.toml) that the stock
`xdsl-opt` discovers, so that after `pip install` of wsdialects

    xdsl-opt -p ws-specialize examples/kernels/attention.mlir

parses the tile kernel and runs our passes (docs/embedding.md). It adds the dialects xDSL
does not have (tile, aref, warp_group, mma, nvgpu, nvvm, layout) and every pass of
`wsdialects.passes.PIPELINE`. Not our `arith`: xDSL's multiverse refuses a second dialect of
a name it has, so `xdsl-opt` reads `arith` with xDSL's own, which rejects comparisons,
selects and casts on tensors (a kernel with masks, e.g. examples/kernels/gemm.mlir, needs
`ws-opt` or a host context made with `wsdialects.register_dialects`). Loading the plugin
changes nothing in xDSL (no `wsdialects.irfast.install()`), and nothing here is imported by
`import wsdialects`.
"""

from __future__ import annotations

from xdsl.universe import Universe

from wsdialects.context import XDSL_DIALECTS, dialects
from wsdialects.passes import available_passes

WSDIALECTS_UNIVERSE = Universe(
    all_dialects={name: factory for name, factory in dialects().items() if name not in (*XDSL_DIALECTS, "arith")},
    all_passes=available_passes(),
)
