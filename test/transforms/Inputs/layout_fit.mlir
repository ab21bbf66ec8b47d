// Besides the 64x64 GEMM tile, a 64x4 tile of ones is stored: 4 columns do not fill
// the 8-column groups of the wgmma accumulator fragment.
func.func @ones_gemm(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                     %c_desc: !tile.desc<tensor<64x64xf32>>, %o_ptr: !tile.ptr<f32>, %K: i32)
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
  tile.desc_store %c_desc[%c0, %c0], %acc : !tile.desc<tensor<64x64xf32>>
  %ones = arith.constant dense<1.0> : tensor<64x4xf32>
  %p0 = tile.splat %o_ptr : !tile.ptr<f32> -> tensor<64x4x!tile.ptr<f32>>
  tile.store %p0, %ones : tensor<64x4x!tile.ptr<f32>>
  func.return
}
