"""The thread-level LLVM emitter (stages 9-11 of the pipeline): laid-out nvgpu / nvvm / tile
IR -> LLVM IR text for sm_90a, with inline PTX for mbarriers, TMA, wgmma, fences and
setmaxnreg. Split by concern, the way Triton splits its LLVM lowering by op family:

    types.py         LLVM types, sizes, constants, value and kernel records (imports nothing above)
    frame.py         kernel frame: parameters, shared-memory plan, warp-group dispatch, the op walk
    elementwise.py   per-register arith / math, fragments and slices, paired conversions, reductions
    memory.py        pointer loads and stores, staged row stores, TMA-store epilogues
    shared_tiles.py  tiles in shared memory: swizzled element access, computed payloads, share / gather
    nvgpu_ops.py     mbarriers, fences, named barriers, setmaxnreg, TMA loads per column block
    wgmma.py         descriptors, register A, wgmma issue and waits
    control.py       scf.for / scf.if
    kernel.py        the emitter class (one mixin per module above) and `lower_module`

The emitter writes what the IR says: the passes before it (ws-lower-aref, -warp-groups,
-mma, -layouts) decided slots, barriers, instructions and every tile's layout; what it
cannot write is a located error. The layout facts it follows (fragment coordinates,
swizzle, column blocks) are in `wsdialects/layout.py`.
"""

# No imports here: wsdialects.lower.lower_layouts imports llvm.types, and the emitter
# imports lower_layouts; importing the emitter from this package would close that loop.
