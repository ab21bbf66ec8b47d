// C = A @ B^T on 128x64 tiles with two consumer warp groups (tile.num_warps = 8):
// the input of the ws-cooperative and ws-pingpong examples in docs/passes.md.
// Grid: (cdiv(M, 128), cdiv(N, 64)).
// docs: ws-cooperative{groups=2} after ws-partition,ws-distribute{depth=2}
// docs: ws-pingpong after ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},ws-cooperative{groups=2}
// docs: ws-producer-registers after ws-partition,ws-distribute{depth=2},ws-cooperative{groups=2}
func.func @gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                %c_desc: !tile.desc<tensor<128x64xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c64 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x64xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x64xf32>, i32
  }
  tile.desc_store %c_desc[%om, %on], %r#0 : !tile.desc<tensor<128x64xf32>>
  func.return
}
