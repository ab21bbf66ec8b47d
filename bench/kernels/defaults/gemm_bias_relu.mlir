// C = relu(A @ B^T + bias) (f16): 128x128x64 tiles, two consumer warp groups, 2-D grid
// (x: row block, y: column block), bias added per column, C through a TMA store.
// Arguments: a (M x K), b (N x K), bias (N, f16; N a multiple of 128: its load is unmasked), c (M x N), K.
func.func @gemm_bias_relu(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                          %bias: !tile.ptr<f16>, %c_desc: !tile.desc<tensor<128x128xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c128 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x128xf32>, i32
  }
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %onv = tile.splat %on : i32 -> tensor<128xi32>
  %offs = arith.addi %onv, %cols : tensor<128xi32>
  %bbase = tile.splat %bias : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %bptr = tile.addptr %bbase, %offs : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  %bv = tile.load %bptr : tensor<128x!tile.ptr<f16>> -> tensor<128xf16>
  %bf = arith.extf %bv : tensor<128xf16> to tensor<128xf32>
  %b2 = tile.expand_dims %bf, 0 : tensor<128xf32> -> tensor<1x128xf32>
  %bb = tile.broadcast %b2 : tensor<1x128xf32> -> tensor<128x128xf32>
  %y = arith.addf %r#0, %bb : tensor<128x128xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %relu = arith.maximumf %y, %z : tensor<128x128xf32>
  %out = arith.truncf %relu : tensor<128x128xf32> to tensor<128x128xf16>
  tile.desc_store %c_desc[%om, %on], %out : !tile.desc<tensor<128x128xf16>>
  func.return
}
