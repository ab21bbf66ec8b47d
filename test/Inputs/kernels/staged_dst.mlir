// The dS case of attention's backward, reduced: one program per block of 128 keys, a loop
// over blocks of 128 queries j: S_j = Q_j K^T in registers ([queries, keys], the accumulator
// layout), converted to f16, then acc += trans(S_j) V_j, where trans(S_j) ([keys, queries])
// is the A operand of a dot: a register tile used transposed, which wgmma cannot read from
// registers (ws-stage-operands stages it through shared memory). Q, K, V are [L, 64] f16
// through TMA (zero past their ends); acc is written to out [Lk, 64] f32 (row stride 64)
// with rows >= Lk masked. Grid: ceil(Lk / 128).
builtin.module {
  func.func @staged_dst(%q_desc: !tile.desc<tensor<128x64xf16>>, %k_desc: !tile.desc<tensor<128x64xf16>>,
                        %v_desc: !tile.desc<tensor<128x64xf16>>, %out: !tile.ptr<f32>, %Lk: i32, %Lq: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %B = arith.constant 128 : i32
    %D = arith.constant 64 : i32
    %pid = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
    %k_row = arith.muli %pid, %B : i32
    %k = "tile.desc_load"(%k_desc, %k_row, %c0) : (!tile.desc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
    %kt = "tile.trans"(%k) <{order = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %n = arith.ceildivsi %Lq, %B : i32
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %acc0, %q_row = %c0) -> (tensor<128x64xf32>, i32) : i32 {
      %q = "tile.desc_load"(%q_desc, %q_row, %c0) : (!tile.desc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
      %s = "tile.dot"(%q, %kt, %zero) : (tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      %s16 = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xf16>
      %st = "tile.trans"(%s16) <{order = array<i32: 1, 0>}> : (tensor<128x128xf16>) -> tensor<128x128xf16>
      %v = "tile.desc_load"(%v_desc, %q_row, %c0) : (!tile.desc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
      %acc2 = "tile.dot"(%st, %v, %acc) : (tensor<128x128xf16>, tensor<128x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
      %q_next = arith.addi %q_row, %B : i32
      scf.yield %acc2, %q_next : tensor<128x64xf32>, i32
    }
    %rk = "tile.make_range"() <{start = 0 : i32, end = 128 : i32}> : () -> tensor<128xi32>
    %rd = "tile.make_range"() <{start = 0 : i32, end = 64 : i32}> : () -> tensor<64xi32>
    %k_row_v = "tile.splat"(%k_row) : (i32) -> tensor<128xi32>
    %rows = arith.addi %k_row_v, %rk : tensor<128xi32>
    %Dv = "tile.splat"(%D) : (i32) -> tensor<128xi32>
    %row_off = arith.muli %rows, %Dv : tensor<128xi32>
    %row2 = "tile.expand_dims"(%row_off) <{axis = 1 : i32}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %col2 = "tile.expand_dims"(%rd) <{axis = 0 : i32}> : (tensor<64xi32>) -> tensor<1x64xi32>
    %rowb = "tile.broadcast"(%row2) : (tensor<128x1xi32>) -> tensor<128x64xi32>
    %colb = "tile.broadcast"(%col2) : (tensor<1x64xi32>) -> tensor<128x64xi32>
    %off = arith.addi %rowb, %colb : tensor<128x64xi32>
    %base = "tile.splat"(%out) : (!tile.ptr<f32>) -> tensor<128x64x!tile.ptr<f32>>
    %ptrs = "tile.addptr"(%base, %off) : (tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>) -> tensor<128x64x!tile.ptr<f32>>
    %Lkv = "tile.splat"(%Lk) : (i32) -> tensor<128xi32>
    %mrow = "arith.cmpi"(%rows, %Lkv) <{predicate = 2 : i64}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %m2 = "tile.expand_dims"(%mrow) <{axis = 1 : i32}> : (tensor<128xi1>) -> tensor<128x1xi1>
    %mask = "tile.broadcast"(%m2) : (tensor<128x1xi1>) -> tensor<128x64xi1>
    "tile.store"(%ptrs, %r#0, %mask) : (tensor<128x64x!tile.ptr<f32>>, tensor<128x64xf32>, tensor<128x64xi1>) -> ()
    func.return
  }
}
