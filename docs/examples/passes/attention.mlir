// Attention forward on 64-row query blocks, head dimension 64 (softmax(Q K^T * scale) V,
// online softmax in base 2): the input of the ws-pipeline-coarse example in
// docs/passes.md (and of ws-stage-in-slot). Q, K, V, O are [B*H*L, 64] f16; grid: (cdiv(L, 64), B*H).
// docs: ws-pipeline-coarse after ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1}
// docs: ws-stage-in-slot after ws-specialize{depth=2 mma-depth=1}
func.func @attention(%q_desc: !tile.desc<tensor<64x64xf16>>, %k_desc: !tile.desc<tensor<64x64xf16>>,
                     %v_desc: !tile.desc<tensor<64x64xf16>>, %o_desc: !tile.desc<tensor<64x64xf16>>,
                     %L: i32, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %ph = tile.program_id 1 : i32
  %row0 = arith.muli %ph, %L : i32
  %qo = arith.muli %pm, %c64 : i32
  %qrow = arith.addi %row0, %qo : i32
  %q = tile.desc_load %q_desc[%qrow, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %scale_t = tile.splat %scale : f32 -> tensor<64x64xf32>
  %m0 = arith.constant dense<-1.0e+30> : tensor<64xf32>
  %l0 = arith.constant dense<0.0> : tensor<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %nt = arith.ceildivsi %L, %c64 : i32
  %r:4 = scf.for %j = %c0 to %nt step %c1 iter_args(%m_i = %m0, %l_i = %l0, %acc = %zero, %kv = %row0)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, i32) : i32 {
    %k = tile.desc_load %k_desc[%kv, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %kt = tile.trans %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %qk = tile.dot %q, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %s = arith.mulf %qk, %scale_t : tensor<64x64xf32>
    %rowmax = tile.reduce max %s, 1 : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<64xf32>
    %m_e = tile.expand_dims %m_new, 1 : tensor<64xf32> -> tensor<64x1xf32>
    %m_b = tile.broadcast %m_e : tensor<64x1xf32> -> tensor<64x64xf32>
    %sc = arith.subf %s, %m_b : tensor<64x64xf32>
    %p = math.exp2 %sc : tensor<64x64xf32>
    %l_ij = tile.reduce sum %p, 1 : tensor<64x64xf32> -> tensor<64xf32>
    %dm = arith.subf %m_i, %m_new : tensor<64xf32>
    %alpha = math.exp2 %dm : tensor<64xf32>
    %l_s = arith.mulf %l_i, %alpha : tensor<64xf32>
    %l_new = arith.addf %l_s, %l_ij : tensor<64xf32>
    %a_e = tile.expand_dims %alpha, 1 : tensor<64xf32> -> tensor<64x1xf32>
    %a_b = tile.broadcast %a_e : tensor<64x1xf32> -> tensor<64x64xf32>
    %acc_s = arith.mulf %acc, %a_b : tensor<64x64xf32>
    %v = tile.desc_load %v_desc[%kv, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %acc_new = tile.dot %p16, %v, %acc_s : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %kv2 = arith.addi %kv, %c64 : i32
    scf.yield %m_new, %l_new, %acc_new, %kv2 : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, i32
  }
  %l_e = tile.expand_dims %r#1, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %l_b = tile.broadcast %l_e : tensor<64x1xf32> -> tensor<64x64xf32>
  %o = arith.divf %r#2, %l_b : tensor<64x64xf32>
  %o16 = arith.truncf %o : tensor<64x64xf32> to tensor<64x64xf16>
  tile.desc_store %o_desc[%qrow, %c0], %o16 : !tile.desc<tensor<64x64xf16>>
  func.return
}
