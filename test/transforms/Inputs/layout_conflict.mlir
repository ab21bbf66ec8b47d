// C + C^T of a 64x64 accumulator: the transposed tile would have to live in the
// accumulator layout and in its transposition at once (a layout conversion).
func.func @sym_gemm(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                    %c_desc: !tile.desc<tensor<64x64xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c32 : i32
    %x = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %x, %yt, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %t = tile.trans %acc [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %s = arith.addf %acc, %t : tensor<64x64xf32>
  tile.desc_store %c_desc[%c0, %c0], %s : !tile.desc<tensor<64x64xf32>>
  func.return
}
