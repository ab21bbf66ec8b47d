// ws-host-descriptors on hand-written kernels; ws-host-descriptors.mlir checks the output.

// A 3-D tensor (B*H, L, 64) read in 2-D boxes (two identical descriptors: one argument), sizes and
// strides from i32 arguments (the i64 strides through arith.extsi); O is stored through.
func.func @three_d(%q: !tile.ptr<f16>, %o: !tile.ptr<f16>, %BH: i32, %L: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c1_64 = arith.constant 1 : i64
  %row = arith.muli %L, %c64 : i32
  %row64 = arith.extsi %row : i32 to i64
  %c64_64 = arith.extsi %c64 : i32 to i64
  %bh = tile.program_id 1 : i32
  %d1 = tile.make_desc %q, [%BH, %L, %c64], [%row64, %c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %d2 = tile.make_desc %q, [%BH, %L, %c64], [%row64, %c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %od = tile.make_desc %o, [%BH, %L, %c64], [%row64, %c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %a = tile.desc_load %d1[%bh, %c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %b = tile.desc_load %d2[%bh, %c64, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %s = arith.addf %a, %b : tensor<64x64xf16>
  tile.desc_store %od[%bh, %c0, %c0], %s : !tile.desc<tensor<64x64xf16>>
  func.return
}
