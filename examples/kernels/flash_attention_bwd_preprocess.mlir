// Attention backward, preprocess: Delta = rowsum(dO * O) in f32, and LSE copied, into rows padded
// to Lp (L rounded up to 4: 16-byte TMA strides) that flash_attention_bwd reads as [1, BM] boxes. O
// and dO are [B*H, L, 128] f16 tensors (read 64 columns at a time, zeros past L), LSE the forward's
// [B*H, L] f32; LSEp and Delta are [B*H, Lp] f32, written below Lp (0 from L on). One program per
// (query block of 128, batch*head); grid (cdiv(L, 128), B*H).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @flash_attention_bwd_preprocess(%o_desc: !tile.desc<tensor<128x64xf16>>, %do_desc: !tile.desc<tensor<128x64xf16>>,
                   %lse_ptr: !tile.ptr<f32>, %lsep_ptr: !tile.ptr<f32>, %delta_ptr: !tile.ptr<f32>, %L: i32, %Lp: i32)
      attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Dc = arith.constant 64 : i32
    %chunks = arith.constant 2 : i32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %delta = scf.for %c = %c0 to %chunks step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) : i32 {
      %col = arith.muli %c, %Dc : i32
      %o = tile.desc_load %o_desc[%bh, %q_off, %col] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %do = tile.desc_load %do_desc[%bh, %q_off, %col] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %o32 = arith.extf %o : tensor<128x64xf16> to tensor<128x64xf32>
      %do32 = arith.extf %do : tensor<128x64xf16> to tensor<128x64xf32>
      %prod = arith.mulf %o32, %do32 : tensor<128x64xf32>
      %part = tile.reduce sum %prod, 1 : tensor<128x64xf32> -> tensor<128xf32>
      %acc_new = arith.addf %acc, %part : tensor<128xf32>
      scf.yield %acc_new : tensor<128xf32>
    }
    %rows = tile.make_range 0 to 128 : tensor<128xi32>
    %q_off_v = tile.splat %q_off : i32 -> tensor<128xi32>
    %offs_m = arith.addi %q_off_v, %rows : tensor<128xi32>
    %L_m = tile.splat %L : i32 -> tensor<128xi32>
    %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<128xi32>
    %Lp_m = tile.splat %Lp : i32 -> tensor<128xi32>
    %in_p = arith.cmpi slt, %offs_m, %Lp_m : tensor<128xi32>
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %lse = tile.load %lse_ptrs, %in_m : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
    %rowp = arith.muli %bh, %Lp : i32
    %lsep_row = tile.addptr %lsep_ptr, %rowp : !tile.ptr<f32>, i32
    %lsep_base = tile.splat %lsep_row : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %lsep_ptrs = tile.addptr %lsep_base, %offs_m : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    tile.store %lsep_ptrs, %lse, %in_p : tensor<128x!tile.ptr<f32>>
    %delta_row = tile.addptr %delta_ptr, %rowp : !tile.ptr<f32>, i32
    %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    tile.store %delta_ptrs, %delta, %in_p : tensor<128x!tile.ptr<f32>>
    func.return
  }
}
