// Invalid aref rings and ops.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// !aref.ring: a ring has at least one slot.
// RUN: not ws-opt %S/Inputs/ring-depth-zero.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,RING-DEPTH-ZERO
// RING-DEPTH-ZERO: {{.*}}Inputs/ring-depth-zero.mlir:3:22: error: aref ring depth must be >= 1, got 0

// !aref.ring: the depth is a non-negative integer literal.
// RUN: not ws-opt %S/Inputs/ring-depth-negative.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,RING-DEPTH-NEGATIVE
// RING-DEPTH-NEGATIVE: {{.*}}Inputs/ring-depth-negative.mlir:3:57: error: Expected integer literal

// !aref.ring: the payload holds at least one type.
// RUN: not ws-opt %S/Inputs/ring-empty-payload.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,RING-EMPTY-PAYLOAD
// RING-EMPTY-PAYLOAD: {{.*}}Inputs/ring-empty-payload.mlir:3:22: error: aref ring payload must hold at least one type

// !aref.ring: payloads are tiles.
// RUN: not ws-opt %S/Inputs/ring-scalar-payload.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,RING-SCALAR-PAYLOAD
// RING-SCALAR-PAYLOAD: {{.*}}Inputs/ring-scalar-payload.mlir:3:22: error: aref payload types must be tiles (tensors), got f32

// !aref.ring: `depth = D` closes the parameter list.
// RUN: not ws-opt %S/Inputs/ring-syntax.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,RING-SYNTAX
// RING-SYNTAX: {{.*}}Inputs/ring-syntax.mlir:3:47: error: Expected ','

// put (custom form): a value of the wrong type.
// RUN: not ws-opt %S/Inputs/put-payload-use.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PUT-PAYLOAD-USE
// PUT-PAYLOAD-USE: {{.*}}Inputs/put-payload-use.mlir:4:20: error: operand is used with type tensor<64xf32>, but has been previously used or defined with type tensor<64xf16>

// put: one value per payload type.
// RUN: not ws-opt %S/Inputs/put-payload-count.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PUT-PAYLOAD-COUNT
// PUT-PAYLOAD-COUNT: {{.*}}Inputs/put-payload-count.mlir:4:25: error: aref.put: 1 values for a ring of 2 payload types

// put: the first operand is a ring.
// RUN: not ws-opt %S/Inputs/put-not-ring.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PUT-NOT-RING
// PUT-NOT-RING: {{.*}}Inputs/put-not-ring.mlir:3:25: error: expected an !aref.ring type, got tensor<64xf32>

// get: the first operand is a ring.
// RUN: not ws-opt %S/Inputs/get-not-ring.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,GET-NOT-RING
// GET-NOT-RING: {{.*}}Inputs/get-not-ring.mlir:3:26: error: expected an !aref.ring type, got tensor<64xf32>

// get, consumed, put: one per position of a ring in a block (the same SSA
// position twice deadlocks or releases twice; ws-pipeline-mma failed on it).
// RUN: not ws-opt %S/Inputs/get-twice.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,GET-TWICE
// GET-TWICE: {{.*}}Inputs/get-twice.mlir:6:3: error: 'aref.get' an earlier aref.get in this block accesses the same position of the same ring: a get borrows the slot until it is released, so the second get waits forever
// RUN: not ws-opt %S/Inputs/consumed-twice.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CONSUMED-TWICE
// CONSUMED-TWICE: {{.*}}Inputs/consumed-twice.mlir:7:3: error: 'aref.consumed' an earlier aref.consumed in this block accesses the same position of the same ring: the slot is released twice
// RUN: not ws-opt %S/Inputs/put-twice.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PUT-TWICE
// PUT-TWICE: {{.*}}Inputs/put-twice.mlir:5:3: error: 'aref.put' an earlier aref.put in this block accesses the same position of the same ring: the second put waits for the slot to be empty, which needs this position's get and release

// NOTB-NOT: {{Traceback|internal error}}

// -----

// create: at least one consumer.
func.func @f() {
  // expected-error@+1 {{'aref.create' consumers must be >= 1, got 0}}
  %r = aref.create consumers = 0 : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}

// -----

// create gives a ring.
func.func @f() {
  // expected-error@+1 {{'aref.create' tensor<64xf32> should be of base attribute aref.ring}}
  %r = "aref.create"() : () -> tensor<64xf32>
  func.return
}

// -----

// put: the values match the payload types (generic form).
func.func @f(%k: i32, %v: tensor<64xf16>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  // expected-error@+1 {{'aref.put' put values (tensor<64xf16>) do not match the ring payload (tensor<64xf32>)}}
  "aref.put"(%r, %k, %v) : (!aref.ring<tensor<64xf32>, depth = 2>, i32, tensor<64xf16>) -> ()
  func.return
}

// -----

// put (generic form): one value per payload type.
func.func @f(%k: i32, %v: tensor<64xf32>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, tensor<64xi32>, depth = 2>
  // expected-error@+1 {{'aref.put' put values (tensor<64xf32>) do not match the ring payload (tensor<64xf32>, tensor<64xi32>)}}
  "aref.put"(%r, %k, %v) : (!aref.ring<tensor<64xf32>, tensor<64xi32>, depth = 2>, i32, tensor<64xf32>) -> ()
  func.return
}

// -----

// get: one result per payload type, of that type.
func.func @f(%k: i32) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  // expected-error@+1 {{'aref.get' get results (tensor<64xf16>) do not match the ring payload (tensor<64xf32>)}}
  %v = "aref.get"(%r, %k) : (!aref.ring<tensor<64xf32>, depth = 2>, i32) -> tensor<64xf16>
  func.return
}

// -----

// get: the ring position is i32, i64 or index.
func.func @f(%k: f32) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  // expected-error@+1 {{'aref.get' ring position must be i32, i64 or index, got f32}}
  %v = aref.get %r[%k : f32] : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}

// -----

// consumed: the first operand is a ring.
func.func @f(%k: i32, %v: tensor<64xf32>) {
  // expected-error@+1 {{'aref.consumed' tensor<64xf32> should be of base attribute aref.ring}}
  "aref.consumed"(%v, %k) : (tensor<64xf32>, i32) -> ()
  func.return
}

// -----

// consumed: the ring position is an integer.
func.func @f(%k: tensor<4xi32>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  // expected-error@+1 {{'aref.consumed' ring position must be i32, i64 or index, got tensor<4xi32>}}
  "aref.consumed"(%r, %k) : (!aref.ring<tensor<64xf32>, depth = 2>, tensor<4xi32>) -> ()
  func.return
}
