// Invalid tile ops and types.
// Each case is one file in Inputs/: ws-opt exits non-zero and prints one
// located diagnostic (file:line:col: error: message), never a traceback.
//
// NOTB-NOT: {{Traceback|internal error}}

// program_id: the grid has 3 axes.
// RUN: not ws-opt %S/Inputs/program-id-axis.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PROGRAM-ID-AXIS
// PROGRAM-ID-AXIS: {{.*}}Inputs/program-id-axis.mlir:3:3: error: 'tile.program_id' axis must be 0, 1 or 2, got 3

// num_programs gives an i32.
// RUN: not ws-opt %S/Inputs/num-programs-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,NUM-PROGRAMS-TYPE
// NUM-PROGRAMS-TYPE: {{.*}}Inputs/num-programs-type.mlir:3:3: error: 'tile.num_programs' Expected attribute i32 but got i64

// make_range: end must be above start.
// RUN: not ws-opt %S/Inputs/make-range-empty.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MAKE-RANGE-EMPTY
// MAKE-RANGE-EMPTY: {{.*}}Inputs/make-range-empty.mlir:3:3: error: 'tile.make_range' range [10, 5) must be non-empty with start >= 0

// make_range: start must be >= 0.
// RUN: not ws-opt %S/Inputs/make-range-negative.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MAKE-RANGE-NEGATIVE
// MAKE-RANGE-NEGATIVE: {{.*}}Inputs/make-range-negative.mlir:3:3: error: 'tile.make_range' range [-4, 4) must be non-empty with start >= 0

// make_range: the result has end - start elements.
// RUN: not ws-opt %S/Inputs/make-range-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MAKE-RANGE-TYPE
// MAKE-RANGE-TYPE: {{.*}}Inputs/make-range-type.mlir:3:3: error: 'tile.make_range' result must be tensor<64xi32> for range [0, 64), got tensor<32xi32>

// make_range: the result holds i32.
// RUN: not ws-opt %S/Inputs/make-range-elem.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MAKE-RANGE-ELEM
// MAKE-RANGE-ELEM: {{.*}}Inputs/make-range-elem.mlir:3:3: error: 'tile.make_range' result must be tensor<4xi32> for range [0, 4), got tensor<4xi64>

// splat: the element type is the scalar's type.
// RUN: not ws-opt %S/Inputs/splat-elem.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SPLAT-ELEM
// SPLAT-ELEM: {{.*}}Inputs/splat-elem.mlir:3:3: error: 'tile.splat' splat result element type i32 does not match operand type f32

// splat: the operand is a scalar.
// RUN: not ws-opt %S/Inputs/splat-tensor.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SPLAT-TENSOR
// SPLAT-TENSOR: {{.*}}Inputs/splat-tensor.mlir:3:3: error: 'tile.splat' splat operand must be a scalar, got tensor<4xf32>

// tiles hold f16, bf16, f32, fp8, i1, i32, i64 or pointers, not i8.
// RUN: not ws-opt %S/Inputs/tile-elem-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TILE-ELEM-TYPE
// TILE-ELEM-TYPE: {{.*}}Inputs/tile-elem-type.mlir:3:3: error: 'tile.splat' splat result has unsupported element type i8

// broadcast keeps the rank.
// RUN: not ws-opt %S/Inputs/broadcast-rank.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BROADCAST-RANK
// BROADCAST-RANK: {{.*}}Inputs/broadcast-rank.mlir:3:3: error: 'tile.broadcast' broadcast keeps the rank: operand rank 2, result rank 3

// broadcast stretches only size-1 dims.
// RUN: not ws-opt %S/Inputs/broadcast-dim.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BROADCAST-DIM
// BROADCAST-DIM: {{.*}}Inputs/broadcast-dim.mlir:3:3: error: 'tile.broadcast' broadcast dim 1: operand size 2 cannot stretch to 8

// broadcast keeps the element type.
// RUN: not ws-opt %S/Inputs/broadcast-elem.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BROADCAST-ELEM
// BROADCAST-ELEM: {{.*}}Inputs/broadcast-elem.mlir:3:3: error: 'tile.broadcast' broadcast changes the element type (f32 -> f16)

// expand_dims: axis out of range for a rank-1 tile.
// RUN: not ws-opt %S/Inputs/expand-dims-axis.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,EXPAND-DIMS-AXIS
// EXPAND-DIMS-AXIS: {{.*}}Inputs/expand-dims-axis.mlir:3:3: error: 'tile.expand_dims' axis 2 out of range [0, 1]

// expand_dims: the size-1 dim goes at `axis`.
// RUN: not ws-opt %S/Inputs/expand-dims-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,EXPAND-DIMS-SHAPE
// EXPAND-DIMS-SHAPE: {{.*}}Inputs/expand-dims-shape.mlir:3:3: error: 'tile.expand_dims' expand_dims at axis 0 of tensor<4xf32> gives tensor<1x4xf32>, not tensor<4x1xf32>

// trans: the order must be a permutation.
// RUN: not ws-opt %S/Inputs/trans-order.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRANS-ORDER
// TRANS-ORDER: {{.*}}Inputs/trans-order.mlir:3:3: error: 'tile.trans' order [0, 0] is not a permutation of the 2 dims

// trans: the order has one entry per dim.
// RUN: not ws-opt %S/Inputs/trans-rank.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRANS-RANK
// TRANS-RANK: {{.*}}Inputs/trans-rank.mlir:3:3: error: 'tile.trans' order [2, 0, 1] is not a permutation of the 2 dims

// trans: result dim i is operand dim order[i].
// RUN: not ws-opt %S/Inputs/trans-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRANS-SHAPE
// TRANS-SHAPE: {{.*}}Inputs/trans-shape.mlir:3:3: error: 'tile.trans' trans by [1, 0] of tensor<4x8xf32> gives tensor<8x4xf32>, not tensor<4x8xf32>

// trans: the order is written in brackets.
// RUN: not ws-opt %S/Inputs/trans-syntax.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRANS-SYNTAX
// TRANS-SYNTAX: {{.*}}Inputs/trans-syntax.mlir:3:22: error: '[' expected

// addptr: offsets are i32 or i64.
// RUN: not ws-opt %S/Inputs/addptr-offset-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ADDPTR-OFFSET-TYPE
// ADDPTR-OFFSET-TYPE: {{.*}}Inputs/addptr-offset-type.mlir:3:3: error: 'tile.addptr' addptr offset must be i32 or i64 (or a tile of them), got f32

// addptr: offset tile shaped like the pointer tile.
// RUN: not ws-opt %S/Inputs/addptr-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ADDPTR-SHAPE
// ADDPTR-SHAPE: {{.*}}Inputs/addptr-shape.mlir:3:3: error: 'tile.addptr' addptr offset shape [32] does not match pointer shape [64]

// addptr: the base is a pointer.
// RUN: not ws-opt %S/Inputs/addptr-base.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ADDPTR-BASE
// ADDPTR-BASE: {{.*}}Inputs/addptr-base.mlir:3:3: error: 'tile.addptr' addptr base must be a pointer or tile of pointers, got tensor<64xi32>

// !tile.ptr: i8 is not an element type.
// RUN: not ws-opt %S/Inputs/ptr-pointee.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PTR-POINTEE
// PTR-POINTEE: {{.*}}Inputs/ptr-pointee.mlir:2:18: error: !tile.ptr: unsupported pointee type i8

// load: reads through a pointer or a tile of pointers.
// RUN: not ws-opt %S/Inputs/load-not-ptr.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-NOT-PTR
// LOAD-NOT-PTR: {{.*}}Inputs/load-not-ptr.mlir:3:23: error: expected a pointer or a tile of pointers, got tensor<64xi32>

// load: the mask is shaped like the pointers.
// RUN: not ws-opt %S/Inputs/load-mask-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-MASK-SHAPE
// LOAD-MASK-SHAPE: {{.*}}Inputs/load-mask-shape.mlir:3:3: error: 'tile.load' mask must be tensor<64xi1> to match tensor<64x!tile.ptr<f16>>, got tensor<32xi1>

// load (custom form): the mask's type follows from the pointers'.
// RUN: not ws-opt %S/Inputs/load-mask-use.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-MASK-USE
// LOAD-MASK-USE: {{.*}}Inputs/load-mask-use.mlir:3:22: error: operand is used with type tensor<64xi1>, but has been previously used or defined with type tensor<32xi1>

// load: the result holds the pointee type.
// RUN: not ws-opt %S/Inputs/load-result.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-RESULT
// LOAD-RESULT: {{.*}}Inputs/load-result.mlir:3:3: error: 'tile.load' load of tensor<64x!tile.ptr<f16>> gives tensor<64xf16>, not tensor<64xf32>

// load: `other` has the result type.
// RUN: not ws-opt %S/Inputs/load-other.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-OTHER
// LOAD-OTHER: {{.*}}Inputs/load-other.mlir:3:3: error: 'tile.load' other must have the result type tensor<64xf16>, got tensor<64xf32>

// store: the value holds the pointee type.
// RUN: not ws-opt %S/Inputs/store-value.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,STORE-VALUE
// STORE-VALUE: {{.*}}Inputs/store-value.mlir:3:3: error: 'tile.store' stored value must be tensor<64xf16> to match tensor<64x!tile.ptr<f16>>, got tensor<64xf32>

// store: the mask is shaped like the pointers.
// RUN: not ws-opt %S/Inputs/store-mask.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,STORE-MASK
// STORE-MASK: {{.*}}Inputs/store-mask.mlir:3:3: error: 'tile.store' mask must be tensor<64xi1> to match tensor<64x!tile.ptr<f16>>, got tensor<64xi32>

// !tile.desc: the block is 2-D or 3-D.
// RUN: not ws-opt %S/Inputs/desc-rank.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-RANK
// DESC-RANK: {{.*}}Inputs/desc-rank.mlir:2:18: error: !tile.desc block must be 2-D or 3-D, got rank 1

// !tile.desc: no i1 blocks.
// RUN: not ws-opt %S/Inputs/desc-elem.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-ELEM
// DESC-ELEM: {{.*}}Inputs/desc-elem.mlir:2:18: error: !tile.desc: unsupported element type i1

// !tile.desc: the parameter is a tensor type.
// RUN: not ws-opt %S/Inputs/desc-not-tensor.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-NOT-TENSOR
// DESC-NOT-TENSOR: {{.*}}Inputs/desc-not-tensor.mlir:2:29: error: !tile.desc expects a tensor block type, got f16

// desc_load: one index per block dim (a 2-D block of a 3-D tensor: one leading index more).
// RUN: not ws-opt %S/Inputs/desc-load-indices.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-LOAD-INDICES
// DESC-LOAD-INDICES: {{.*}}Inputs/desc-load-indices.mlir:3:3: error: 'tile.desc_load' !tile.desc<tensor<128x64xf16>> takes 2 indices (or 3 for a 2-D block of a 3-D tensor: a leading index, then the block's), got 4

// desc_load: indices are i32.
// RUN: not ws-opt %S/Inputs/desc-load-index-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-LOAD-INDEX-TYPE
// DESC-LOAD-INDEX-TYPE: {{.*}}Inputs/desc-load-index-type.mlir:3:3: error: 'tile.desc_load' Expected attribute i32 but got i64

// desc_load: the result is the descriptor's block.
// RUN: not ws-opt %S/Inputs/desc-load-result.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-LOAD-RESULT
// DESC-LOAD-RESULT: {{.*}}Inputs/desc-load-result.mlir:3:3: error: 'tile.desc_load' desc_load result must be the descriptor's block tensor<128x64xf16>, got tensor<64x64xf16>

// desc_load: the first operand is a descriptor.
// RUN: not ws-opt %S/Inputs/desc-load-not-desc.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-LOAD-NOT-DESC
// DESC-LOAD-NOT-DESC: {{.*}}Inputs/desc-load-not-desc.mlir:3:36: error: expected a !tile.desc type, got !tile.ptr<f16>

// desc_store: one index per block dim.
// RUN: not ws-opt %S/Inputs/desc-store-indices.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-STORE-INDICES
// DESC-STORE-INDICES: {{.*}}Inputs/desc-store-indices.mlir:3:3: error: 'tile.desc_store' !tile.desc<tensor<2x64x32xf16>> takes 3 indices, got 2

// desc_store: the value is the descriptor's block.
// RUN: not ws-opt %S/Inputs/desc-store-value.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DESC-STORE-VALUE
// DESC-STORE-VALUE: {{.*}}Inputs/desc-store-value.mlir:3:3: error: 'tile.desc_store' desc_store value must be the descriptor's block tensor<128x64xf16>, got tensor<128x64xf32>

// dot: a is MxK, b is KxN.
// RUN: not ws-opt %S/Inputs/dot-k.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-K
// DOT-K: {{.*}}Inputs/dot-k.mlir:3:3: error: 'tile.dot' dot reduction dims differ: a is 64x32, b is 16x64

// dot: inputs are f16, bf16 or fp8 (tensor cores), not f32.
// RUN: not ws-opt %S/Inputs/dot-f32-inputs.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-F32-INPUTS
// DOT-F32-INPUTS: {{.*}}Inputs/dot-f32-inputs.mlir:3:3: error: 'tile.dot' dot operand a must be f16, bf16, f8E4M3FN or f8E5M2, got f32

// dot: a and b have one element type.
// RUN: not ws-opt %S/Inputs/dot-mixed.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-MIXED
// DOT-MIXED: {{.*}}Inputs/dot-mixed.mlir:3:3: error: 'tile.dot' dot operands differ in element type: f16 vs bf16

// dot: the accumulator is MxN f32.
// RUN: not ws-opt %S/Inputs/dot-acc.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-ACC
// DOT-ACC: {{.*}}Inputs/dot-acc.mlir:3:3: error: 'tile.dot' dot accumulator and result must be tensor<64x64xf32>, got tensor<64x64xf16> and tensor<64x64xf16>

// dot: the accumulator is MxN.
// RUN: not ws-opt %S/Inputs/dot-acc-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-ACC-SHAPE
// DOT-ACC-SHAPE: {{.*}}Inputs/dot-acc-shape.mlir:3:3: error: 'tile.dot' dot accumulator and result must be tensor<64x64xf32>, got tensor<64x32xf32> and tensor<64x32xf32>

// dot: operands are 2-D.
// RUN: not ws-opt %S/Inputs/dot-rank.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-RANK
// DOT-RANK: {{.*}}Inputs/dot-rank.mlir:3:3: error: 'tile.dot' dot operand a must be 2-D, got tensor<2x64x32xf16>

// dot (custom form): three operands.
// RUN: not ws-opt %S/Inputs/dot-operands.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOT-OPERANDS
// DOT-OPERANDS: {{.*}}Inputs/dot-operands.mlir:3:17: error: tile.dot takes three operands: a, b, acc, got 2 operands

// reduce: kinds are sum, max and min.
// RUN: not ws-opt %S/Inputs/reduce-kind.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REDUCE-KIND
// REDUCE-KIND: {{.*}}Inputs/reduce-kind.mlir:3:3: error: 'tile.reduce' reduce kind must be one of sum, max, min, got 'prod'

// reduce: the axis is a dim of the operand.
// RUN: not ws-opt %S/Inputs/reduce-axis.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REDUCE-AXIS
// REDUCE-AXIS: {{.*}}Inputs/reduce-axis.mlir:3:3: error: 'tile.reduce' axis 2 out of range for a rank-2 tile

// reduce: the result drops the reduced axis.
// RUN: not ws-opt %S/Inputs/reduce-result.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REDUCE-RESULT
// REDUCE-RESULT: {{.*}}Inputs/reduce-result.mlir:3:3: error: 'tile.reduce' reduce along axis 0 of tensor<64x32xf32> gives tensor<32xf32>, not tensor<64xf32>

// reduce: no reductions of pointer tiles.
// RUN: not ws-opt %S/Inputs/reduce-ptr.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REDUCE-PTR
// REDUCE-PTR: {{.*}}Inputs/reduce-ptr.mlir:3:3: error: 'tile.reduce' cannot reduce a tile of pointers

// load / store: an operand count error is reported at the operands, not on the next line.
// RUN: not ws-opt %S/Inputs/load-operand-count.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,LOAD-COUNT
// LOAD-COUNT: {{.*}}Inputs/load-operand-count.mlir:3:18: error: tile.load takes ptrs [, mask [, other]], got 4 operands
// RUN: not ws-opt %S/Inputs/store-operand-count.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,STORE-COUNT
// STORE-COUNT: {{.*}}Inputs/store-operand-count.mlir:3:14: error: tile.store takes ptrs, value [, mask], got 1 operands

// NOTB-NOT: {{Traceback|internal error}}
