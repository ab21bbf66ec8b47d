// A second dot whose A operand is the transposed, converted result of the first
// (S^T V per K tile): the register A would be the transposition of the accumulator
// fragment, and wgmma reads register A only in the fragment itself (ws-stage-operands stages it).
func.func @st_v(%x_desc: !tile.desc<tensor<64x64xf16>>, %y_desc: !tile.desc<tensor<64x64xf16>>,
                %v_desc: !tile.desc<tensor<64x64xf16>>, %o_desc: !tile.desc<tensor<64x64xf32>>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %row = arith.muli %i, %c64 : i32
    %x = tile.desc_load %x_desc[%row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %y = tile.desc_load %y_desc[%row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %x, %yt, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %s16 = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %st = tile.trans %s16 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %v = tile.desc_load %v_desc[%row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %o = tile.dot %st, %v, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %o : tensor<64x64xf32>
  }
  tile.desc_store %o_desc[%c0, %c0], %r : !tile.desc<tensor<64x64xf32>>
  func.return
}
