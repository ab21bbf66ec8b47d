// C = A @ B^T (f16) with a K of 128 fixed in the kernel (two 64-wide steps): 128x128 tiles, two
// consumer warp groups, 1-D grid decoded as pid % cdiv(M, 128), pid / cdiv(M, 128); C by TMA store.
// Arguments: a (M x 128), b (N x 128), c (M x N), M.
func.func @small_k_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                        %c_desc: !tile.desc<tensor<128x128xf16>>, %M: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0 : i32
  %npm = arith.ceildivsi %M, %c128 : i32
  %pm = arith.remsi %pid, %npm : i32
  %pn = arith.divsi %pid, %npm : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x128xf32>, i32
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32> to tensor<128x128xf16>
  tile.desc_store %c_desc[%om, %on], %out : !tile.desc<tensor<128x128xf16>>
  func.return
}
