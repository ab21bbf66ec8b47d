"""Where an element of a tile in swizzled shared memory lives: the byte offsets TMA writes and
wgmma reads (CUTLASS's Swizzle<log2(R/16), 4, 3> over rows of R = 32, 64 or 128 bytes), which
the LLVM emitter writes as i32 arithmetic operation for operation and the tests model.
`wsdialects.layout` re-exports these names."""

from __future__ import annotations

# ---- facts the lowering uses: where an element of a shared-memory tile lives
#
# A tile in shared memory is stored as TMA writes it and wgmma reads it: rows of R = 32,
# 64 or 128 bytes XOR-swizzled in 16-byte chunks (CUTLASS's Swizzle<log2(R/16), 4, 3>);
# rows wider than the swizzle are column blocks (`column_blocks`). The emitter writes
# `smem_offset` as i32 arithmetic (`SharedTiles.smem_elem_addr`), operation for operation.

SWIZZLE_LINE_SHIFT = 7  # offset >> 7: the 128-byte line of a byte offset picks the XOR pattern
SWIZZLE_CHUNK_SHIFT = 4  # the pattern XORs 16-byte chunk indices


def swizzle_bytes(row_bytes: int) -> int | None:
    """The swizzle of a tile that is a single TMA box (a staging buffer of a register
    `tile.desc_load`): rows of 32, 64 or 128 bytes are swizzled by their own width, other
    rows are not swizzled (None). Slot tiles use `slot_swizzle`, which also splits rows of
    a multiple of 128 bytes into column blocks."""
    return row_bytes if row_bytes in (32, 64, 128) else None


def swizzle_mask(swizzle: int) -> int:
    """The bits of the 128-byte line index that are XORed into the chunk index: R/16 - 1
    (7, 3, 1 for 128-, 64-, 32-byte swizzles); the pattern repeats every 8 rows."""
    return swizzle // 16 - 1


def swizzled(offset: int, swizzle: int) -> int:
    """Where byte `offset` of an unswizzled row-major tile with rows of `swizzle` bytes is
    stored: 16-byte chunk c of its row moves to chunk c ^ ((offset >> 7) & (R/16 - 1)),
    the byte inside the chunk stays. 0: not swizzled, the offset itself."""
    if not swizzle:
        return offset
    m = (offset >> SWIZZLE_LINE_SHIFT) & swizzle_mask(swizzle)
    return offset ^ (m << SWIZZLE_CHUNK_SHIFT)


def smem_offset(row: int, col: int, elem_bytes: int, row_stride: int, swizzle: int,
                block_bytes: int = 0) -> int:
    """Byte offset of element (row, col) of a stored (not transposed) shared-memory tile:
    rows `row_stride` bytes apart (the swizzle, inside a column block), column byte
    col * elem_bytes split into column block col_bytes / swizzle (blocks `block_bytes`
    apart; 0: one block) and the byte inside it; the whole offset `swizzled`, as the
    hardware swizzles by shared-memory address (the tile base is a multiple of the 8-line
    pattern). Where `block_bytes` is a multiple of the pattern (8 rows or more) that is
    the in-block offset swizzled plus the block's; a block of fewer rows (a 1 x 64 f32 row
    in two 128-byte blocks) starts inside the pattern, and its lines take their place in it."""
    c = col * elem_bytes
    blk = 0
    if block_bytes:
        blk, c = divmod(c, swizzle)
    return swizzled(blk * block_bytes + row * row_stride + c, swizzle)
