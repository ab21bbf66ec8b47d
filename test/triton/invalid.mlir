// Bad or unsupported TTIR is an error at the user's Python line and column (where Triton
// recorded one), naming the op; never a traceback.
// RUN: not ws-opt --split-input-file %s 2>&1 | filecheck %s

// A dot whose operands disagree fails the tile verifier, reported at kernel.py's tl.dot.
// CHECK: kernel.py:12:15: error: 'tile.dot' dot reduction dims differ: a is 64x32, b is 16x64
module {
  tt.func public @bad_dot(%a: tensor<64x32xf16> loc(#loc), %b: tensor<16x64xf16> loc(#loc)) {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32> loc(#loc1)
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf16> * tensor<16x64xf16> -> tensor<64x64xf32> loc(#loc2)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc(callsite("site-packages/triton/language/standard.py":155:12 at "kernel.py":10:11))
#loc2 = loc("acc"("kernel.py":12:15))

// -----

// An op the import has no counterpart for: an error naming it, at the op in the TTIR.
// CHECK: invalid.mlir:[[# @LINE + 3]]:5: error: 'tt.print' is not supported by the Triton import
module {
  tt.func public @printing(%x: i32 loc(#loc)) {
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : i32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":7:5)

// -----

// A reduce whose combiner is not max, min or sum; the location is the callsite in the user's file.
// CHECK: kernel.py:9:13: error: tt.reduce with a combiner of arith.mulf is not supported
module {
  tt.func public @prod(%x: tensor<64xf32> loc(#loc)) {
    %y = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32 loc(unknown), %b: f32 loc(unknown)):
      %m = arith.mulf %a, %b : f32 loc(#loc1)
      tt.reduce.return %m : f32 loc(#loc1)
    }) : (tensor<64xf32>) -> f32 loc(#loc2)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":20:12)
#loc2 = loc(callsite("site-packages/triton/language/standard.py":290:15 at "kernel.py":9:13))

// -----

// An atomic other than add.
// CHECK: kernel.py:5:9: error: tt.atomic_rmw max is not supported (only fadd and add)
module {
  tt.func public @amax(%p: !tt.ptr<i32> loc(#loc), %v: i32 loc(#loc)) {
    %true = arith.constant true loc(#loc1)
    %o = tt.atomic_rmw max, acq_rel, gpu, %p, %v, %true : (!tt.ptr<i32>, i32, i1) -> i32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":5:9)

// -----

// A location alias that is never defined: at its use in the TTIR.
// CHECK: invalid.mlir:[[# @LINE + 3]]:42: error: undefined location alias '#loc9'
module {
  tt.func public @f() {
    %pid = tt.get_program_id x : i32 loc(#loc9)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)

// -----

// An unknown loc falls back to the enclosing op's Python location (here the function's).
// CHECK: kernel.py:3:1: error: tt.fp_to_fp with rounding = rtz is not supported
module {
  tt.func public @g(%x: tensor<64xf32> loc(#loc)) {
    %y = tt.fp_to_fp %x, rounding = rtz : tensor<64xf32> -> tensor<64xf8E5M2> loc(unknown)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
