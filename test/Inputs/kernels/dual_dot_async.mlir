// dual_dot.mlir with the kernel's own asynchronous dots: both issued, then one wait retires
// them; the slot of A, Wg and Wu is read until that wait (ws-distribute releases it after).
func.func @dual_dot_async(%a_desc: !tile.desc<tensor<64x32xf16>>, %g_desc: !tile.desc<tensor<64x32xf16>>,
                    %u_desc: !tile.desc<tensor<64x32xf16>>, %o_desc: !tile.desc<tensor<64x64xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c64 : i32
  %on = arith.muli %pn, %c64 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%g = %zero, %u = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c32 : i32
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %wg = tile.desc_load %g_desc[%on, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %wu = tile.desc_load %u_desc[%on, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %wgt = tile.trans %wg [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %wut = tile.trans %wu [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %g_f = mma.async_dot %a, %wgt, %g : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %u_f = mma.async_dot %a, %wut, %u : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %g2, %u2 = mma.wait %g_f, %u_f {pending = 0} : tensor<64x64xf32>, tensor<64x64xf32>
    scf.yield %g2, %u2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  %o = arith.mulf %r#0, %r#1 : tensor<64x64xf32>
  tile.desc_store %o_desc[%om, %on], %o : !tile.desc<tensor<64x64xf32>>
  func.return
}
