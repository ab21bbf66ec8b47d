// Register tiles as wgmma's B operand (ws-stage-operands): per block j of the reduction,
// S_j = Y_j W^T is computed in registers and converted to f16, then
// acc += X_j S_j (B in registers: staged N-contiguous) and acc += X_j S_j^T (B = trans of a
// register tile: staged as computed, read K-major), both from one staging buffer.
// X is [M, n*64], Y [n*64, 64], W [64, 64] f16 through TMA (zero past their ends); O is
// [M, 64] f32 through TMA. Grid: ceil(M / 64).
func.func @staged_b(%x_desc: !tile.desc<tensor<64x64xf16>>, %y_desc: !tile.desc<tensor<64x64xf16>>,
                    %w_desc: !tile.desc<tensor<64x64xf16>>, %o_desc: !tile.desc<tensor<64x64xf32>>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0 : i32
  %m_row = arith.muli %pid, %c64 : i32
  %w = tile.desc_load %w_desc[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %wt = tile.trans %w [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %k0 = arith.muli %j, %c64 : i32
    %y = tile.desc_load %y_desc[%k0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %s = tile.dot %y, %wt, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %s16 = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %x = tile.desc_load %x_desc[%m_row, %k0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %acc1 = tile.dot %x, %s16, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %st = tile.trans %s16 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %acc2 = tile.dot %x, %st, %acc1 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %acc2 : tensor<64x64xf32>
  }
  tile.desc_store %o_desc[%m_row, %c0], %r : !tile.desc<tensor<64x64xf32>>
  func.return
}
