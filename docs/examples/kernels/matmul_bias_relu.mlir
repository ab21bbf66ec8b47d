// C = relu(A @ B^T + bias) (f16 in, f32 accumulation, f16 out): the kernel of
// docs/writing-a-kernel.md. A is [M, K], B is [N, K] (the weight layout), bias is [N]
// (f32), C is [M, N]; 128x128 tiles, 64-wide K steps. Grid: (cdiv(M, 128), cdiv(N, 128)).
// RUN: ws-opt %s
// RUN: ws-opt %s -p ws-hopper -t ptx
func.func @matmul_bias_relu(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                            %bias: !tile.ptr<f32>, %c_desc: !tile.desc<tensor<128x128xf16>>,
                            %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %off_m = tile.program_id 0 : i32
  %off_n = tile.program_id 1 : i32
  %om = arith.muli %off_m, %c128 : i32
  %on = arith.muli %off_n, %c128 : i32
  %k_tiles = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc_k : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %on_v = tile.splat %on : i32 -> tensor<128xi32>
  %cols = arith.addi %on_v, %r : tensor<128xi32>
  %N_v = tile.splat %N : i32 -> tensor<128xi32>
  %in_n = arith.cmpi slt, %cols, %N_v : tensor<128xi32>
  %bias_p = tile.splat %bias : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %bias_ptrs = tile.addptr %bias_p, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %bias_v = tile.load %bias_ptrs, %in_n : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %bias_row = tile.expand_dims %bias_v, 0 : tensor<128xf32> -> tensor<1x128xf32>
  %bias_t = tile.broadcast %bias_row : tensor<1x128xf32> -> tensor<128x128xf32>
  %s = arith.addf %acc, %bias_t : tensor<128x128xf32>
  %relu = arith.maximumf %s, %zero : tensor<128x128xf32>
  %c = arith.truncf %relu : tensor<128x128xf32> to tensor<128x128xf16>
  tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<128x128xf16>>
  func.return
}
