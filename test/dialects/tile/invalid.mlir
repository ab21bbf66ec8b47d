// Invalid tile ops and types.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// trans: the order is written in brackets.
// RUN: not ws-opt %S/Inputs/trans-syntax.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRANS-SYNTAX
// TRANS-SYNTAX: {{.*}}Inputs/trans-syntax.mlir:3:22: error: '[' expected
// RUN: not ws-opt %S/Inputs/desc-reduce-kind.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REDUCE-KIND
// REDUCE-KIND: {{.*}}Inputs/desc-reduce-kind.mlir:3:19: error: expected a reduction kind (add, min, max) or an operand, got 'mul'


// !tile.ptr: i8 is not an element type.
// RUN: not ws-opt %S/Inputs/ptr-pointee.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PTR-POINTEE
// PTR-POINTEE: {{.*}}Inputs/ptr-pointee.mlir:2:18: error: !tile.ptr: unsupported pointee type i8

// load: reads through a pointer or a tile of pointers.
// RUN: not ws-opt %S/Inputs/load-not-ptr.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-NOT-PTR
// LOAD-NOT-PTR: {{.*}}Inputs/load-not-ptr.mlir:3:23: error: expected a pointer or a tile of pointers, got tensor<64xi32>

// load (custom form): the mask's type follows from the pointers'.
// RUN: not ws-opt %S/Inputs/load-mask-use.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-MASK-USE
// LOAD-MASK-USE: {{.*}}Inputs/load-mask-use.mlir:3:22: error: operand is used with type tensor<64xi1>, but has been previously used or defined with type tensor<32xi1>

// !tile.desc: the block is 2-D or 3-D.
// RUN: not ws-opt %S/Inputs/desc-rank.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-RANK
// DESC-RANK: {{.*}}Inputs/desc-rank.mlir:2:18: error: !tile.desc block must be 2-D or 3-D, got rank 1

// !tile.desc: no i1 blocks.
// RUN: not ws-opt %S/Inputs/desc-elem.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-ELEM
// DESC-ELEM: {{.*}}Inputs/desc-elem.mlir:2:18: error: !tile.desc: unsupported element type i1

// !tile.desc: the parameter is a tensor type.
// RUN: not ws-opt %S/Inputs/desc-not-tensor.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-NOT-TENSOR
// DESC-NOT-TENSOR: {{.*}}Inputs/desc-not-tensor.mlir:2:29: error: !tile.desc expects a tensor block type, got f16

// desc_load: the first operand is a descriptor.
// RUN: not ws-opt %S/Inputs/desc-load-not-desc.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-LOAD-NOT-DESC
// DESC-LOAD-NOT-DESC: {{.*}}Inputs/desc-load-not-desc.mlir:3:36: error: expected a !tile.desc type, got !tile.ptr<f16>

// dot (custom form): three operands.
// RUN: not ws-opt %S/Inputs/dot-operands.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-OPERANDS
// DOT-OPERANDS: {{.*}}Inputs/dot-operands.mlir:3:17: error: tile.dot takes three operands: a, b, acc, got 2 operands

// load / store: an operand count error is reported at the operands, not on the next line.
// RUN: not ws-opt %S/Inputs/load-operand-count.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-COUNT
// LOAD-COUNT: {{.*}}Inputs/load-operand-count.mlir:3:18: error: tile.load takes ptrs [, mask [, other]], got 4 operands
// RUN: not ws-opt %S/Inputs/store-operand-count.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,STORE-COUNT
// STORE-COUNT: {{.*}}Inputs/store-operand-count.mlir:3:14: error: tile.store takes ptrs, value [, mask], got 1 operands

// NOTB-NOT: {{Traceback|internal error}}

// -----

// program_id: the grid has 3 axes.
func.func @f() {
  // expected-error@+1 {{'tile.program_id' axis must be 0, 1 or 2, got 3}}
  %p = tile.program_id 3 : i32
  func.return
}

// -----

// num_programs gives an i32.
func.func @f() {
  // expected-error@+1 {{'tile.num_programs' Expected attribute i32 but got i64}}
  %n = tile.num_programs 0 : i64
  func.return
}

// -----

// make_range: end must be above start.
func.func @f() {
  // expected-error@+1 {{'tile.make_range' range [10, 5) must be non-empty with start >= 0}}
  %r = "tile.make_range"() <{start = 10 : i32, end = 5 : i32}> : () -> tensor<5xi32>
  func.return
}

// -----

// make_range: start must be >= 0.
func.func @f() {
  // expected-error@+1 {{'tile.make_range' range [-4, 4) must be non-empty with start >= 0}}
  %r = "tile.make_range"() <{start = -4 : i32, end = 4 : i32}> : () -> tensor<8xi32>
  func.return
}

// -----

// make_range: the result has end - start elements.
func.func @f() {
  // expected-error@+1 {{'tile.make_range' result must be tensor<64xi32> for range [0, 64), got tensor<32xi32>}}
  %r = tile.make_range 0 to 64 : tensor<32xi32>
  func.return
}

// -----

// make_range: the result holds i32.
func.func @f() {
  // expected-error@+1 {{'tile.make_range' result must be tensor<4xi32> for range [0, 4), got tensor<4xi64>}}
  %r = "tile.make_range"() <{start = 0 : i32, end = 4 : i32}> : () -> tensor<4xi64>
  func.return
}

// -----

// splat: the element type is the scalar's type.
func.func @f(%x: f32) {
  // expected-error@+1 {{'tile.splat' splat result element type i32 does not match operand type f32}}
  %t = tile.splat %x : f32 -> tensor<4xi32>
  func.return
}

// -----

// splat: the operand is a scalar.
func.func @f(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tile.splat' splat operand must be a scalar, got tensor<4xf32>}}
  %t = tile.splat %x : tensor<4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

// tiles hold f16, bf16, f32, fp8, i1, i32, i64 or pointers, not i8.
func.func @f(%x: i8) {
  // expected-error@+1 {{'tile.splat' splat result has unsupported element type i8}}
  %t = tile.splat %x : i8 -> tensor<4xi8>
  func.return
}

// -----

// broadcast keeps the rank.
func.func @f(%x: tensor<4x1xf32>) {
  // expected-error@+1 {{'tile.broadcast' broadcast keeps the rank: operand rank 2, result rank 3}}
  %b = tile.broadcast %x : tensor<4x1xf32> -> tensor<2x4x8xf32>
  func.return
}

// -----

// broadcast stretches only size-1 dims.
func.func @f(%x: tensor<4x2xf32>) {
  // expected-error@+1 {{'tile.broadcast' broadcast dim 1: operand size 2 cannot stretch to 8}}
  %b = tile.broadcast %x : tensor<4x2xf32> -> tensor<4x8xf32>
  func.return
}

// -----

// broadcast keeps the element type.
func.func @f(%x: tensor<4x1xf32>) {
  // expected-error@+1 {{'tile.broadcast' broadcast changes the element type (f32 -> f16)}}
  %b = tile.broadcast %x : tensor<4x1xf32> -> tensor<4x8xf16>
  func.return
}

// -----

// expand_dims: axis out of range for a rank-1 tile.
func.func @f(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tile.expand_dims' axis 2 out of range [0, 1]}}
  %e = tile.expand_dims %x, 2 : tensor<4xf32> -> tensor<4x1xf32>
  func.return
}

// -----

// expand_dims: the size-1 dim goes at `axis`.
func.func @f(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tile.expand_dims' expand_dims at axis 0 of tensor<4xf32> gives tensor<1x4xf32>, not tensor<4x1xf32>}}
  %e = tile.expand_dims %x, 0 : tensor<4xf32> -> tensor<4x1xf32>
  func.return
}

// -----

// trans: the order must be a permutation.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.trans' order [0, 0] is not a permutation of the 2 dims}}
  %t = tile.trans %x [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  func.return
}

// -----

// trans: the order has one entry per dim.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.trans' order [2, 0, 1] is not a permutation of the 2 dims}}
  %t = tile.trans %x [2, 0, 1] : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return
}

// -----

// trans: result dim i is operand dim order[i].
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.trans' trans by [1, 0] of tensor<4x8xf32> gives tensor<8x4xf32>, not tensor<4x8xf32>}}
  %t = tile.trans %x [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

// addptr: offsets are i32 or i64.
func.func @f(%p: !tile.ptr<f16>, %o: f32) {
  // expected-error@+1 {{'tile.addptr' addptr offset must be i32 or i64 (or a tile of them), got f32}}
  %q = tile.addptr %p, %o : !tile.ptr<f16>, f32
  func.return
}

// -----

// addptr: offset tile shaped like the pointer tile.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %o: tensor<32xi32>) {
  // expected-error@+1 {{'tile.addptr' addptr offset shape [32] does not match pointer shape [64]}}
  %q = tile.addptr %p, %o : tensor<64x!tile.ptr<f16>>, tensor<32xi32>
  func.return
}

// -----

// addptr: the base is a pointer.
func.func @f(%p: tensor<64xi32>, %o: tensor<64xi32>) {
  // expected-error@+1 {{'tile.addptr' addptr base must be a pointer or tile of pointers, got tensor<64xi32>}}
  %q = tile.addptr %p, %o : tensor<64xi32>, tensor<64xi32>
  func.return
}

// -----

// load: the mask is shaped like the pointers.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %m: tensor<32xi1>) {
  // expected-error@+1 {{'tile.load' mask must be tensor<64xi1> to match tensor<64x!tile.ptr<f16>>, got tensor<32xi1>}}
  %v = "tile.load"(%p, %m) : (tensor<64x!tile.ptr<f16>>, tensor<32xi1>) -> tensor<64xf16>
  func.return
}

// -----

// load: the result holds the pointee type.
func.func @f(%p: tensor<64x!tile.ptr<f16>>) {
  // expected-error@+1 {{'tile.load' load of tensor<64x!tile.ptr<f16>> gives tensor<64xf16>, not tensor<64xf32>}}
  %v = tile.load %p : tensor<64x!tile.ptr<f16>> -> tensor<64xf32>
  func.return
}

// -----

// load: `other` has the result type.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %m: tensor<64xi1>, %o: tensor<64xf32>) {
  // expected-error@+1 {{'tile.load' other must have the result type tensor<64xf16>, got tensor<64xf32>}}
  %v = "tile.load"(%p, %m, %o) : (tensor<64x!tile.ptr<f16>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf16>
  func.return
}

// -----

// store: the value holds the pointee type.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %v: tensor<64xf32>) {
  // expected-error@+1 {{'tile.store' stored value must be tensor<64xf16> to match tensor<64x!tile.ptr<f16>>, got tensor<64xf32>}}
  "tile.store"(%p, %v) : (tensor<64x!tile.ptr<f16>>, tensor<64xf32>) -> ()
  func.return
}

// -----

// store: the mask is shaped like the pointers.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %v: tensor<64xf16>, %m: tensor<64xi32>) {
  // expected-error@+1 {{'tile.store' mask must be tensor<64xi1> to match tensor<64x!tile.ptr<f16>>, got tensor<64xi32>}}
  "tile.store"(%p, %v, %m) : (tensor<64x!tile.ptr<f16>>, tensor<64xf16>, tensor<64xi32>) -> ()
  func.return
}

// -----

// desc_load: one index per block dim (a 2-D block of a 3-D tensor: one leading index more).
// desc_load: one index per block dim (a 2-D block: a leading index more at most).
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i32) {
  // expected-error@+1 {{'tile.desc_load' !tile.desc<tensor<128x64xf16>> takes 2 indices (or 3 for a 2-D block of a 3-D tensor: a leading index, then the block's), got 4}}
  %a = tile.desc_load %d[%i, %i, %i, %i] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
  func.return
}

// -----

// desc_load: indices are i32.
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i64) {
  // expected-error@+1 {{'tile.desc_load' Expected attribute i32 but got i64}}
  %a = "tile.desc_load"(%d, %i, %i) : (!tile.desc<tensor<128x64xf16>>, i64, i64) -> tensor<128x64xf16>
  func.return
}

// -----

// desc_load: the result is the descriptor's block.
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i32) {
  // expected-error@+1 {{'tile.desc_load' desc_load result must be the descriptor's block tensor<128x64xf16>, got tensor<64x64xf16>}}
  %a = tile.desc_load %d[%i, %i] : !tile.desc<tensor<128x64xf16>> -> tensor<64x64xf16>
  func.return
}

// -----

// desc_store: one index per block dim.
func.func @f(%d: !tile.desc<tensor<2x64x32xf16>>, %i: i32, %v: tensor<2x64x32xf16>) {
  // expected-error@+1 {{'tile.desc_store' !tile.desc<tensor<2x64x32xf16>> takes 3 indices, got 2}}
  tile.desc_store %d[%i, %i], %v : !tile.desc<tensor<2x64x32xf16>>
  func.return
}

// -----

// desc_store: the value is the descriptor's block.
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i32, %v: tensor<128x64xf32>) {
  // expected-error@+1 {{'tile.desc_store' desc_store value must be the descriptor's block tensor<128x64xf16>, got tensor<128x64xf32>}}
  "tile.desc_store"(%d, %i, %i, %v) : (!tile.desc<tensor<128x64xf16>>, i32, i32, tensor<128x64xf32>) -> ()
  func.return
}

// -----

// desc_store min / max: i32 blocks only.
func.func @f(%d: !tile.desc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.desc_store' desc_store min takes i32 blocks, got f32}}
  tile.desc_store min %d[%i, %i], %v : !tile.desc<tensor<64x64xf32>>
  func.return
}

// -----

// desc_store add: f32, f16, bf16 and i32 blocks (what TMA's reduce-add takes).
func.func @f(%d: !tile.desc<tensor<64x64xf8E4M3FN>>, %i: i32, %v: tensor<64x64xf8E4M3FN>) {
  // expected-error@+1 {{'tile.desc_store' desc_store add takes f32, f16, bf16, i32 blocks, got f8E4M3FN}}
  tile.desc_store add %d[%i, %i], %v : !tile.desc<tensor<64x64xf8E4M3FN>>
  func.return
}

// -----

// desc_store: a reduction kind the op does not have (generic form).
func.func @f(%d: !tile.desc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.desc_store' desc_store reduction must be one of add, min, max, got 'mul'}}
  "tile.desc_store"(%d, %i, %i, %v) <{reduce = "mul"}> : (!tile.desc<tensor<64x64xf32>>, i32, i32, tensor<64x64xf32>) -> ()
  func.return
}

// -----

// dot: a is MxK, b is KxN.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.dot' dot reduction dims differ: a is 64x32, b is 16x64}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  func.return
}

// -----

// dot: inputs are f16, bf16 or fp8 (tensor cores), not f32.
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.dot' dot operand a must be f16, bf16, f8E4M3FN or f8E5M2, got f32}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  func.return
}

// -----

// dot: a and b have one element type.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.dot' dot operands differ in element type: f16 vs bf16}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  func.return
}

// -----

// dot: the accumulator is MxN f32.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf16>) {
  // expected-error@+1 {{'tile.dot' dot accumulator and result must be tensor<64x64xf32>, got tensor<64x64xf16> and tensor<64x64xf16>}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
  func.return
}

// -----

// dot: the accumulator is MxN.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x32xf32>) {
  // expected-error@+1 {{'tile.dot' dot accumulator and result must be tensor<64x64xf32>, got tensor<64x32xf32> and tensor<64x32xf32>}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
  func.return
}

// -----

// dot: operands are 2-D.
func.func @f(%a: tensor<2x64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.dot' dot operand a must be 2-D, got tensor<2x64x32xf16>}}
  %d = tile.dot %a, %b, %c : tensor<2x64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  func.return
}

// -----

// reduce: kinds are sum, max and min.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error@+1 {{'tile.reduce' reduce kind must be one of sum, max, min, got 'prod'}}
  %r = tile.reduce prod %x, 1 : tensor<64x32xf32> -> tensor<64xf32>
  func.return
}

// -----

// reduce: the axis is a dim of the operand.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error@+1 {{'tile.reduce' axis 2 out of range for a rank-2 tile}}
  %r = tile.reduce sum %x, 2 : tensor<64x32xf32> -> tensor<64xf32>
  func.return
}

// -----

// reduce: the result drops the reduced axis.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error@+1 {{'tile.reduce' reduce along axis 0 of tensor<64x32xf32> gives tensor<32xf32>, not tensor<64xf32>}}
  %r = tile.reduce max %x, 0 : tensor<64x32xf32> -> tensor<64xf32>
  func.return
}

// -----

// reduce: no reductions of pointer tiles.
func.func @f(%x: tensor<64x!tile.ptr<f16>>) {
  // expected-error@+1 {{'tile.reduce' cannot reduce a tile of pointers}}
  %r = "tile.reduce"(%x) <{axis = 0 : i32, kind = "sum"}> : (tensor<64x!tile.ptr<f16>>) -> !tile.ptr<f16>
  func.return
}
