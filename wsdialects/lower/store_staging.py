"""Which TMA stores share a staging buffer in shared memory.

A `tile.desc_store` writes its tile into a shared-memory staging buffer, fences it for the
async proxy and lets one thread issue the TMA copy from there. Stores of one warp-group
branch (one partition) run one after another in program order, so they can take turns in
one buffer the size of the largest: before a store writes the buffer, the storing thread
waits until the TMA stores committed before it have read it (`cp.async.bulk.wait_group.read`,
which a store in a loop does anyway) and the branch meets it at its named barrier. The
attention backward's dQ reduce-add in the loop (its peeled copies) and the dK store after
it then take 32 KB between them, not 96.

    nvgpu.wg.branch warps 8 to 12 "consumer_w1" {        one pool: [%dq store, %dq store, %dk store],
      scf.for ... { tile.desc_store add %dq_desc ... }   max(32 KB, 32 KB, 32 KB) bytes
      tile.desc_store add %dq_desc ...                   (the second and third wait for the
      tile.desc_store %dk_desc ...                        reads of the store before them)
    }

Stores staged elsewhere keep a buffer of their own: in a released ring slot (ws-stage-in-slot's
`ws.store_staging`) or gathered by a cooperative team (`warp_group.gather`, whose groups write
the buffer before group 0 stores it), and stores outside any branch.
"""

from __future__ import annotations

from xdsl.ir import Operation

from wsdialects.nvgpu import STAGING_ATTR

BRANCHES = ("nvgpu.wg.branch", "warp_group.partition")


def _branch(op: Operation) -> Operation | None:
    cur = op.parent_op()
    while cur is not None and cur.name not in BRANCHES:
        cur = cur.parent_op()
    return cur


def pooled(store: Operation) -> bool:
    """Whether `store` stages its tile in its branch's shared buffer (see the module docstring)."""
    tile = store.operands[-1]
    return (store.name == "tile.desc_store" and STAGING_ATTR not in store.attributes
            and getattr(tile.owner, "name", None) != "warp_group.gather" and _branch(store) is not None)


def staging_pools(root: Operation) -> list[list[Operation]]:
    """The `tile.desc_store`s under `root` that need a staging buffer, grouped by the buffer they
    share, in program order: one group per branch for the pooled stores, one per other store."""
    pools: dict[object, list[Operation]] = {}
    for o in root.walk():
        if o.name != "tile.desc_store" or STAGING_ATTR in o.attributes:
            continue
        pools.setdefault(_branch(o) if pooled(o) else o, []).append(o)
    return list(pools.values())
