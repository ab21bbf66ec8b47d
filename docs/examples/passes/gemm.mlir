// C = A @ B^T on 64x64 tiles (f16 in, f32 accumulation, f32 out through a TMA store):
// the small kernel docs/passes.md runs most passes on. Grid: (cdiv(M, 64), cdiv(N, 64)).
// Each `docs:` line is one example: the pipeline shown, after the passes that prepare
// its input (`python -m wsdialects.docgen` runs them).
// docs: ws-choose-organisation
// docs: ws-partition
// docs: ws-distribute{depth=2} after ws-partition
// docs: ws-pipeline-mma{depth=1} after ws-partition,ws-distribute{depth=2}
// docs: ws-persistent{programs=132} after ws-partition,ws-distribute{depth=2}
// docs: ws-specialize{depth=2 mma-depth=1} as ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1}
// docs: ws-schedule
// docs: ws-hopper{auto=false depth=2} as ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups,ws-lead-warp,ws-lower-mma,ws-lower-layouts,ws-version-masks,ws-register-budget
// docs: ws-lower-aref after ws-partition,ws-distribute{depth=2}
// docs: ws-verify-sync after ws-specialize{depth=2 mma-depth=1}
// docs: ws-lower-warp-groups after ws-specialize{depth=2 mma-depth=1},ws-lower-aref
// docs: ws-lead-warp after ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups
// docs: ws-lower-mma after ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups
// docs: ws-lower-layouts after ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups,ws-lower-mma
// docs: ws-register-budget after ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups,ws-lower-mma,ws-lower-layouts
func.func @gemm(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                %c_desc: !tile.desc<tensor<64x64xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c64 : i32
  %on = arith.muli %pn, %c64 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<64x64xf32>, i32
  }
  tile.desc_store %c_desc[%om, %on], %r#0 : !tile.desc<tensor<64x64xf32>>
  func.return
}
