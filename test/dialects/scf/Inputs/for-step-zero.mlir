// A K loop whose step is the constant 0: it never ends (MLIR's verifier rejects it).
func.func @gemm(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                %c_desc: !tile.desc<tensor<64x64xf32>>, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %step = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %kt step %step iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c32 : i32
    %a = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %b = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.desc_store %c_desc[%c0, %c0], %r : !tile.desc<tensor<64x64xf32>>
  func.return
}
