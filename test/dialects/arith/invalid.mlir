// Invalid arith on tiles.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// cmpi: an unknown predicate name.
// RUN: not ws-opt %S/Inputs/cmpi-predicate-name.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPI-PREDICATE-NAME
// CMPI-PREDICATE-NAME: {{.*}}Inputs/cmpi-predicate-name.mlir:3:19: error: unknown predicate 'foo' (expected one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)

// addi (custom form): an operand used at a type other than its own.
// RUN: not ws-opt %S/Inputs/addi-use-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ADDI-USE-TYPE
// ADDI-USE-TYPE: {{.*}}Inputs/addi-use-type.mlir:3:23: error: operand is used with type tensor<4xi32>, but has been previously used or defined with type tensor<4xi64>

// dense: the literal has the tensor's shape.
// RUN: not ws-opt %S/Inputs/dense-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DENSE-SHAPE
// DENSE-SHAPE: {{.*}}Inputs/dense-shape.mlir:3:23: error: Shape mismatch in dense literal. Expected [4] shape from the type, but got [3] shape.

// dense: a hexadecimal f16 element has 16 bits.
// RUN: not ws-opt %S/Inputs/dense-hex-width.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DENSE-HEX-WIDTH
// DENSE-HEX-WIDTH: {{.*}}Inputs/dense-hex-width.mlir:3:29: error: hexadecimal literal too wide for f16

// NOTB-NOT: {{Traceback|internal error}}

// -----

// cmpi: the result is i1 shaped like the operands.
func.func @f(%a: tensor<4xi32>) {
  // expected-error@+1 {{'arith.cmpi' result must be tensor<4xi1> for operands of type tensor<4xi32>, got tensor<8xi1>}}
  %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi1>
  func.return
}

// -----

// cmpi: tensor operands give a tensor of i1, not one i1.
func.func @f(%a: tensor<4xi32>) {
  // expected-error@+1 {{'arith.cmpi' result must be tensor<4xi1> for operands of type tensor<4xi32>, got i1}}
  %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> i1
  func.return
}

// -----

// cmpi: predicates are 0..9.
func.func @f(%a: tensor<4xi32>) {
  // expected-error@+1 {{'arith.cmpi' predicate 12 out of range}}
  %m = "arith.cmpi"(%a, %a) <{predicate = 12 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  func.return
}

// -----

// cmpi compares integers.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'arith.cmpi' Unexpected attribute f32}}
  %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return
}

// -----

// cmpf: both operands have one type.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{'arith.cmpf' operands differ in type: tensor<4xf32> vs tensor<4xf16>}}
  %m = "arith.cmpf"(%a, %b) <{predicate = 4 : i64}> : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  func.return
}

// -----

// select: the condition is i1 or shaped like the values.
func.func @f(%a: tensor<4xf32>, %c: tensor<8xi1>) {
  // expected-error@+1 {{'arith.select' condition must be i1 or tensor<4xi1>, got tensor<8xi1>}}
  %s = arith.select %c, %a, %a : tensor<8xi1>, tensor<4xf32>
  func.return
}

// -----

// select: the condition holds i1.
func.func @f(%a: tensor<4xf32>, %c: tensor<4xi32>) {
  // expected-error@+1 {{'arith.select' condition must be i1 or tensor<4xi1>, got tensor<4xi32>}}
  %s = arith.select %c, %a, %a : tensor<4xi32>, tensor<4xf32>
  func.return
}

// -----

// select: both values have the result type.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>, %c: tensor<4xi1>) {
  // expected-error@+1 {{'arith.select' attribute tensor<4xf32> expected from variable '_T', but got tensor<4xf16>}}
  %s = "arith.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  func.return
}

// -----

// sitofp: operand and result have one shape.
func.func @f(%a: tensor<4xi32>) {
  // expected-error@+1 {{'arith.sitofp' operand tensor<4xi32> and result tensor<8xf32> differ in shape}}
  %f = arith.sitofp %a : tensor<4xi32> to tensor<8xf32>
  func.return
}

// -----

// sitofp converts integers.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'arith.sitofp' cannot cast tensor<4xf32> to tensor<4xf32>}}
  %f = arith.sitofp %a : tensor<4xf32> to tensor<4xf32>
  func.return
}

// -----

// fptosi gives integers.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'arith.fptosi' cannot cast tensor<4xf32> to tensor<4xf16>}}
  %f = arith.fptosi %a : tensor<4xf32> to tensor<4xf16>
  func.return
}

// -----

// addf: operands and result share one type.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{'arith.addf' attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>}}
  %s = "arith.addf"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  func.return
}

// -----

// extf widens: a narrower result is a truncf (xDSL 0.74 accepts it; LLVM's fpext would not).
// extf widens: f32 to f16 is a truncf.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'arith.extf' result element type f16 must be wider than the operand's f32 (use arith.truncf)}}
  %h = arith.extf %a : tensor<4xf32> to tensor<4xf16>
  func.return
}

// -----

// truncf narrows: a wider result is an extf.
// truncf narrows: f16 to f32 is an extf.
func.func @f(%a: f16) {
  // expected-error@+1 {{'arith.truncf' result element type f32 must be narrower than the operand's f16 (use arith.extf)}}
  %f = arith.truncf %a : f16 to f32
  func.return
}

// -----

// truncf between two 16-bit types is no truncation.
// truncf from f16 to bf16 keeps the width: not a truncation.
func.func @f(%a: tensor<4xf16>) {
  // expected-error-re@+1 {{'arith.truncf' result element type bf16 must be narrower than the operand's f16{{$}}}}
  %b = arith.truncf %a : tensor<4xf16> to tensor<4xbf16>
  func.return
}

// -----

// extf is elementwise: one shape.
// extf is elementwise: operand and result have one shape.
func.func @f(%a: tensor<4xf16>) {
  // expected-error@+1 {{'arith.extf' operand tensor<4xf16> and result tensor<8xf32> differ in shape}}
  %f = arith.extf %a : tensor<4xf16> to tensor<8xf32>
  func.return
}
