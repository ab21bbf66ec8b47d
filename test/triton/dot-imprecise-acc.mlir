// tt.dot's maxNumImpreciseAcc on fp8 operands: Triton's default (2^30) is what wgmma's fp8
// accumulation gives, and imports; a smaller value asks for extra f32 promotion that tile.dot does
// not do, so it is a located error rather than a silently less precise result.
// RUN: not ws-opt --split-input-file %s 2>&1 | filecheck %s

// (stderr and stdout interleave in either order: DAG)
// CHECK-DAG: kernel.py:9:11: error: tl.dot with max_num_imprecise_acc = 32 is not supported
// CHECK-DAG: tile.dot %a, %b, %c : tensor<64x64xf8E4M3FN>
module {
  tt.func public @fast(%a: tensor<64x64xf8E4M3FN> loc(#loc), %b: tensor<64x64xf8E4M3FN> loc(#loc), %c: tensor<64x64xf32> loc(#loc), %p: tensor<64x64x!tt.ptr<f32>> loc(#loc)) {
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 {maxNumImpreciseAcc = 1073741824 : i32} : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32> loc(#loc1)
    tt.store %p, %d : tensor<64x64x!tt.ptr<f32>> loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":4:9)

// -----

module {
  tt.func public @precise(%a: tensor<64x64xf8E4M3FN> loc(#loc), %b: tensor<64x64xf8E4M3FN> loc(#loc), %c: tensor<64x64xf32> loc(#loc), %p: tensor<64x64x!tt.ptr<f32>> loc(#loc)) {
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 {maxNumImpreciseAcc = 32 : i32} : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32> loc(#loc1)
    tt.store %p, %d : tensor<64x64x!tt.ptr<f32>> loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":9:11)
