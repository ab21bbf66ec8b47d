// Invalid arith on tiles.
// Each case is one file in Inputs/: ws-opt exits non-zero and prints one
// located diagnostic (file:line:col: error: message), never a traceback.
//
// NOTB-NOT: {{Traceback|internal error}}

// cmpi: the result is i1 shaped like the operands.
// RUN: not ws-opt %S/Inputs/cmpi-result-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPI-RESULT-SHAPE
// CMPI-RESULT-SHAPE: {{.*}}Inputs/cmpi-result-shape.mlir:3:3: error: 'arith.cmpi' result must be tensor<4xi1> for operands of type tensor<4xi32>, got tensor<8xi1>

// cmpi: tensor operands give a tensor of i1, not one i1.
// RUN: not ws-opt %S/Inputs/cmpi-scalar-result.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPI-SCALAR-RESULT
// CMPI-SCALAR-RESULT: {{.*}}Inputs/cmpi-scalar-result.mlir:3:3: error: 'arith.cmpi' result must be tensor<4xi1> for operands of type tensor<4xi32>, got i1

// cmpi: predicates are 0..9.
// RUN: not ws-opt %S/Inputs/cmpi-predicate.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPI-PREDICATE
// CMPI-PREDICATE: {{.*}}Inputs/cmpi-predicate.mlir:3:3: error: 'arith.cmpi' predicate 12 out of range

// cmpi: an unknown predicate name.
// RUN: not ws-opt %S/Inputs/cmpi-predicate-name.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPI-PREDICATE-NAME
// CMPI-PREDICATE-NAME: {{.*}}Inputs/cmpi-predicate-name.mlir:3:19: error: unknown predicate 'foo' (expected one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)

// cmpi compares integers.
// RUN: not ws-opt %S/Inputs/cmpi-float.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPI-FLOAT
// CMPI-FLOAT: {{.*}}Inputs/cmpi-float.mlir:3:3: error: 'arith.cmpi' Unexpected attribute f32

// cmpf: both operands have one type.
// RUN: not ws-opt %S/Inputs/cmpf-operands.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CMPF-OPERANDS
// CMPF-OPERANDS: {{.*}}Inputs/cmpf-operands.mlir:3:3: error: 'arith.cmpf' operands differ in type: tensor<4xf32> vs tensor<4xf16>

// select: the condition is i1 or shaped like the values.
// RUN: not ws-opt %S/Inputs/select-cond-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SELECT-COND-SHAPE
// SELECT-COND-SHAPE: {{.*}}Inputs/select-cond-shape.mlir:3:3: error: 'arith.select' condition must be i1 or tensor<4xi1>, got tensor<8xi1>

// select: the condition holds i1.
// RUN: not ws-opt %S/Inputs/select-cond-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SELECT-COND-TYPE
// SELECT-COND-TYPE: {{.*}}Inputs/select-cond-type.mlir:3:3: error: 'arith.select' condition must be i1 or tensor<4xi1>, got tensor<4xi32>

// select: both values have the result type.
// RUN: not ws-opt %S/Inputs/select-values.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SELECT-VALUES
// SELECT-VALUES: {{.*}}Inputs/select-values.mlir:3:3: error: 'arith.select' attribute tensor<4xf32> expected from variable '_T', but got tensor<4xf16>

// sitofp: operand and result have one shape.
// RUN: not ws-opt %S/Inputs/sitofp-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SITOFP-SHAPE
// SITOFP-SHAPE: {{.*}}Inputs/sitofp-shape.mlir:3:3: error: 'arith.sitofp' operand tensor<4xi32> and result tensor<8xf32> differ in shape

// sitofp converts integers.
// RUN: not ws-opt %S/Inputs/sitofp-float-input.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SITOFP-FLOAT-INPUT
// SITOFP-FLOAT-INPUT: {{.*}}Inputs/sitofp-float-input.mlir:3:3: error: 'arith.sitofp' cannot cast tensor<4xf32> to tensor<4xf32>

// fptosi gives integers.
// RUN: not ws-opt %S/Inputs/fptosi-int-result.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,FPTOSI-INT-RESULT
// FPTOSI-INT-RESULT: {{.*}}Inputs/fptosi-int-result.mlir:3:3: error: 'arith.fptosi' cannot cast tensor<4xf32> to tensor<4xf16>

// addf: operands and result share one type.
// RUN: not ws-opt %S/Inputs/addf-mixed.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ADDF-MIXED
// ADDF-MIXED: {{.*}}Inputs/addf-mixed.mlir:3:3: error: 'arith.addf' attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>

// addi (custom form): an operand used at a type other than its own.
// RUN: not ws-opt %S/Inputs/addi-use-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ADDI-USE-TYPE
// ADDI-USE-TYPE: {{.*}}Inputs/addi-use-type.mlir:3:23: error: operand is used with type tensor<4xi32>, but has been previously used or defined with type tensor<4xi64>

// dense: the literal has the tensor's shape.
// RUN: not ws-opt %S/Inputs/dense-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DENSE-SHAPE
// DENSE-SHAPE: {{.*}}Inputs/dense-shape.mlir:3:23: error: Shape mismatch in dense literal. Expected [4] shape from the type, but got [3] shape.

// dense: a hexadecimal f16 element has 16 bits.
// RUN: not ws-opt %S/Inputs/dense-hex-width.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DENSE-HEX-WIDTH
// DENSE-HEX-WIDTH: {{.*}}Inputs/dense-hex-width.mlir:3:29: error: hexadecimal literal too wide for f16

// extf widens: a narrower result is a truncf (xDSL 0.74 accepts it; LLVM's fpext would not).
// RUN: not ws-opt %S/Inputs/extf-narrower.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,EXTF-NARROWER
// EXTF-NARROWER: {{.*}}Inputs/extf-narrower.mlir:3:3: error: 'arith.extf' result element type f16 must be wider than the operand's f32 (use arith.truncf)

// truncf narrows: a wider result is an extf.
// RUN: not ws-opt %S/Inputs/truncf-wider.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRUNCF-WIDER
// TRUNCF-WIDER: {{.*}}Inputs/truncf-wider.mlir:3:3: error: 'arith.truncf' result element type f32 must be narrower than the operand's f16 (use arith.extf)

// truncf between two 16-bit types is no truncation.
// RUN: not ws-opt %S/Inputs/truncf-same-width.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TRUNCF-SAME-WIDTH
// TRUNCF-SAME-WIDTH: {{.*}}Inputs/truncf-same-width.mlir:3:3: error: 'arith.truncf' result element type bf16 must be narrower than the operand's f16{{$}}

// extf is elementwise: one shape.
// RUN: not ws-opt %S/Inputs/extf-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,EXTF-SHAPE
// EXTF-SHAPE: {{.*}}Inputs/extf-shape.mlir:3:3: error: 'arith.extf' operand tensor<4xf16> and result tensor<8xf32> differ in shape

// NOTB-NOT: {{Traceback|internal error}}
