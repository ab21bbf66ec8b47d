// An untyped constant (`arith.constant 1`) is i64 (`0.5`: f64) in xDSL, and its first use at
// another type fails in the parser; the error is at that use, names the constant and the type
// to write. A typed constant used at the wrong type keeps the parser's own message.
//
// NOTB-NOT: {{Traceback|internal error}}

// RUN: not ws-opt %S/Inputs/untyped-constant.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,INT
// INT: {{.*}}Inputs/untyped-constant.mlir:3:23: error: %c1 is i64 but used as i32: `arith.constant 1` has no type, and an untyped constant is i64; write `arith.constant 1 : i32` to use it as i32
// INT-EMPTY:

// RUN: not ws-opt %S/Inputs/untyped-float-constant.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,FLOAT
// FLOAT: {{.*}}Inputs/untyped-float-constant.mlir:3:23: error: %half is f64 but used as f32: `arith.constant 0.5` has no type, and an untyped constant is f64; write `arith.constant 0.5 : f32` to use it as f32

// RUN: not ws-opt %S/../arith/Inputs/addi-use-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TYPED
// TYPED: error: operand is used with type tensor<4xi32>, but has been previously used or defined with type tensor<4xi64>
