// Y = 2 X for X, Y of (B * L) x 64 f16, 64-row tiles, with descriptors made in the kernel the way
// Triton's tl.make_tensor_descriptor makes them (sizes from the arguments B and L). Grid: B * L / 64.
// docs: ws-host-descriptors
func.func @scale(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %B: i32, %L: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c1_i64 = arith.constant 1 : i64
  %c64_i64 = arith.constant 64 : i64
  %rows = arith.muli %B, %L : i32
  %x_desc = tile.make_desc %x, [%rows, %c64], [%c64_i64, %c1_i64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %y_desc = tile.make_desc %y, [%rows, %c64], [%c64_i64, %c1_i64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %pid = tile.program_id 0 : i32
  %row = arith.muli %pid, %c64 : i32
  %t = tile.desc_load %x_desc[%row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %t2 = arith.addf %t, %t : tensor<64x64xf16>
  tile.desc_store %y_desc[%row, %c0], %t2 : !tile.desc<tensor<64x64xf16>>
  func.return
}
