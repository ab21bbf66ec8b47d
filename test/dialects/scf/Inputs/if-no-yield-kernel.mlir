// C = relu(A @ B^T) when %relu != 0, else A @ B^T, and both scaled by 2 where the
// flag is set: the epilogue chooses its tile with an scf.if that yields an
// accumulator tile and a scalar (lowered with phis). 64x64 tiles, f16 in, f32 out
// through a TMA store. Grid: (cdiv(M, 64), cdiv(N, 64)).
func.func @relu_gemm(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                     %c_desc: !tile.desc<tensor<64x64xf32>>, %K: i32, %relu: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c64 : i32
  %on = arith.muli %pn, %c64 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<64x64xf32>, i32
  }
  %on_flag = arith.cmpi ne, %relu, %c0 : i32
  %t, %s = scf.if %on_flag -> (tensor<64x64xf32>, f32) {
    %rl = arith.maximumf %r#0, %zero : tensor<64x64xf32>
  } else {
    scf.yield %r#0, %one : tensor<64x64xf32>, f32
  }
  %sv = tile.splat %s : f32 -> tensor<64x64xf32>
  %out = arith.mulf %t, %sv : tensor<64x64xf32>
  tile.desc_store %c_desc[%om, %on], %out : !tile.desc<tensor<64x64xf32>>
  func.return
}
