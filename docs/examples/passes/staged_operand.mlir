// The dS case of attention's backward on 64-row blocks: S_j = Q_j K^T in registers, then
// acc += trans(S_j) V_j, a register tile used transposed as A: the input of the
// ws-stage-operands example in docs/passes.md. Q, K, V are [L, 64] f16, O [L, 64] f32;
// grid: cdiv(L, 64).
// docs: ws-stage-operands after ws-partition,ws-distribute{depth=2},ws-lower-aref,ws-lower-warp-groups
func.func @staged(%q_desc: !tile.desc<tensor<64x64xf16>>, %k_desc: !tile.desc<tensor<64x64xf16>>,
                  %v_desc: !tile.desc<tensor<64x64xf16>>, %o_desc: !tile.desc<tensor<64x64xf32>>, %L: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0 : i32
  %k_row = arith.muli %pid, %c64 : i32
  %k = tile.desc_load %k_desc[%k_row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %kt = tile.trans %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %n = arith.ceildivsi %L, %c64 : i32
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %row = arith.muli %j, %c64 : i32
    %q = tile.desc_load %q_desc[%row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %s = tile.dot %q, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %s16 = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %st = tile.trans %s16 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %v = tile.desc_load %v_desc[%row, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %acc2 = tile.dot %st, %v, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %acc2 : tensor<64x64xf32>
  }
  tile.desc_store %o_desc[%k_row, %c0], %r : !tile.desc<tensor<64x64xf32>>
  func.return
}
