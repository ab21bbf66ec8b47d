"""Distributed tile IR -> LLVM IR text for sm_90a (Tawa §III-E and the thread-level
lowering), with inline PTX for mbarrier, TMA, wgmma, fences and setmaxnreg.

Input: a kernel after `ws-partition,ws-distribute` (one `warp_group.region` whose
partitions talk through `aref` rings). The lowering is driven by the ops and types
only; what it cannot lower is rejected with a located diagnostic (`error_at`).

How each level maps (see docs in README of wsdialects/lower):

* aref ring of depth D (payload = TMA-loaded tiles) -> D slots of 128B/64B/32B
  swizzled shared memory (1024-B aligned), a FULL and an EMPTY mbarrier per slot.
  FULL counts 1 arrival (the elected producer thread's `arrive.expect_tx` with the
  payload bytes; the TMA copies complete the transaction); EMPTY counts one arrival
  per consumer warp. Position k: slot k mod D, parity (k / D) & 1; put waits EMPTY
  with parity^1, get waits FULL with parity; consumed arrives on EMPTY after the
  wgmma reading the slot retired (`wgmma.wait_group 0` follows every dot).
* warp_group.partition -> a branch on the thread id; the warps of a partition are
  whole warp groups; `setmaxnreg.dec/inc` to the partition's register budget.
* 2-D tiles in a consumer -> the wgmma accumulator fragment (m64nN per warp group,
  row blocks of 64 split over the partition's warp groups); 1-D tiles are row or
  column slices evaluated per element where a 2-D use needs them; elementwise ops
  per register; pointer loads per element with masks (predicated PTX).
* tile.store through a pointer tile that is contiguous along a row (`_col_coef`) -> each
  warp stages its 16 fragment rows of a column chunk in padded shared memory
  (`bar.warp.sync`), reads them back row-wise and stores 16-byte vectors where the 8
  masks hold and the address is aligned, masked element stores otherwise; other pointer
  stores go element by element from the fragment (also with WSDIALECTS_SCALAR_STORES=1).
* nvgpu.wgmma ops (ws-lower-mma made them from tile.dot / mma.async_dot / mma.wait and
  checked what wgmma needs: A an MxK smem tile, B trans of an NxK smem tile, both
  K-contiguous) -> `wgmma.fence`, wgmma.mma_async m64nNk16 (f16/bf16) / k32 (fp8
  e4m3/e5m2) from shared-memory descriptors, `wgmma.commit_group`, `wgmma.wait_group N`.
* tile.desc_store -> the fragment written to shared memory, fence.proxy.async,
  a named barrier over the partition, one thread issues the TMA store.
* scf.if with results -> both branches, a phi per scalar / fragment register at the join.
* tiles in shared memory (shared_tiles.py): per-element reads at the swizzled address,
  nvgpu.smem.store (a computed aref payload), a register tile.desc_load (staged TMA load),
  warp_group.share (a shifted slot) and warp_group.gather (the cooperative groups stage
  their slices for group 0's TMA store and meet on a team barrier).
"""

# The emitter lives in wsdialects/lower/llvm/ (one module per concern); these names stay
# importable from here for the runtime, the tools and users' scripts.
from wsdialects.lower.llvm.kernel import Kernel, lower_module, lower_to_nvgpu
from wsdialects.lower.llvm.types import KernelInfo, Lowered, ParamInfo, Smem, nbytes

__all__ = ["Kernel", "KernelInfo", "Lowered", "ParamInfo", "Smem", "lower_module", "lower_to_nvgpu", "nbytes"]
