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

// An op the import has no counterpart for (its syntax unknown too): an error naming it and
// the Triton call that makes it, at the user's line that its trailing location names.
// CHECK: kernel.py:7:5: error: 'tt.print' (tl.device_print) is not supported by the Triton import
module {
  tt.func public @printing(%x: i32 loc(#loc)) {
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : i32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":7:5)

// -----

// Inside a loop, with results, the location an alias of a callsite through Triton's library.
// CHECK: kernel.py:9:13: error: 'tt.histogram' (tl.histogram) is not supported by the Triton import
module {
  tt.func public @hist(%x: tensor<64xi32> loc(#loc), %n: i32 loc(#loc)) {
    %c0 = arith.constant 0 : i32 loc(#loc)
    %c1 = arith.constant 1 : i32 loc(#loc)
    scf.for %i = %c0 to %n step %c1  : i32 {
      %h = tt.histogram %x : tensor<64xi32> -> tensor<16xi32> loc(#loc2)
      scf.yield loc(#loc)
    } loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("triton/language/standard.py":301:11)
#loc2 = loc(callsite(#loc1 at "kernel.py":9:13))

// -----

// A region op in generic form: its location follows the region's closing brace.
// CHECK: kernel.py:5:20: error: 'tt.scan' (tl.cumsum / tl.cumprod / tl.associative_scan) is not supported by the Triton import
module {
  tt.func public @scan(%x: tensor<64xf32> loc(#loc)) {
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32 loc(#loc), %b: f32 loc(#loc)):
      %t = arith.addf %a, %b : f32 loc(#loc)
      tt.scan.return %t : f32 loc(#loc)
    }) : (tensor<64xf32>) -> tensor<64xf32> loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":5:20)

// -----

// Without a location of its own (or with an unknown one), the error is at the op in the TTIR.
// CHECK: invalid.mlir:[[# @LINE + 3]]:10: error: 'tt.elementwise_inline_asm' (tl.inline_asm_elementwise) is not supported by the Triton import
module {
  tt.func public @asm(%x: tensor<64xi32> loc(#loc)) {
    %y = tt.elementwise_inline_asm "shl.b32 $0, $1, 3;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<64xi32> -> tensor<64xi32>
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)

// -----

// CHECK: invalid.mlir:[[# @LINE + 3]]:10: error: 'tt.mulhiui' (tl.umulhi) is not supported by the Triton import
module {
  tt.func public @mulhi(%x: tensor<64xi32> loc(#loc)) {
    %y = tt.mulhiui %x, %x : tensor<64xi32> loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc(unknown)

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
