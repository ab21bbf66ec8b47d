// Attention backward, last step: dQ = sm_scale * dQacc^T converted to f16. dQacc^T is the f32
// [B*H, 128, Lp] buffer flash_attention_bwd reduce-added dQ^T into, dQ a [B*H, L, 128] f16 tensor (64
// columns at a time, stored below L). One program per (query block of 128, batch*head); grid
// (cdiv(L, 128), B*H).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @flash_attention_bwd_dq(%acc_desc: !tile.desc<tensor<64x128xf32>>, %dq_desc: !tile.desc<tensor<128x64xf16>>,
                   %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Dc = arith.constant 64 : i32
    %chunks = arith.constant 2 : i32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %scale = tile.splat %sm_scale : f32 -> tensor<128x64xf32>
    scf.for %c = %c0 to %chunks step %c1 : i32 {
      %col = arith.muli %c, %Dc : i32
      %acct = tile.desc_load %acc_desc[%bh, %col, %q_off] : !tile.desc<tensor<64x128xf32>> -> tensor<64x128xf32>
      %acc = tile.trans %acct [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
      %dq = arith.mulf %acc, %scale : tensor<128x64xf32>
      %dq16 = arith.truncf %dq : tensor<128x64xf32> to tensor<128x64xf16>
      tile.desc_store %dq_desc[%bh, %q_off, %col], %dq16 : !tile.desc<tensor<128x64xf16>>
    }
    func.return
  }
}
