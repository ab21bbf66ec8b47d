// Invalid integer casts on tiles (int-casts.mlir has the valid forms).
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null

func.func @f(%i: tensor<64xi32>) {
  // expected-error@+1 {{'arith.extsi' result element type i32 must be wider than the operand's i32}}
  %x = "arith.extsi"(%i) : (tensor<64xi32>) -> tensor<64xi32>
  func.return
}

// -----

func.func @f(%i: tensor<64xi32>) {
  // expected-error@+1 {{'arith.trunci' result element type i64 must be narrower than the operand's i32}}
  %x = "arith.trunci"(%i) : (tensor<64xi32>) -> tensor<64xi64>
  func.return
}

// -----

func.func @f(%i: tensor<64xi32>) {
  // expected-error@+1 {{'arith.extui' operand tensor<64xi32> and result tensor<32xi64> differ in shape}}
  %x = "arith.extui"(%i) : (tensor<64xi32>) -> tensor<32xi64>
  func.return
}

// -----

func.func @f(%i: tensor<64xf32>) {
  // expected-error@+1 {{'arith.extsi' cannot cast tensor<64xf32> to tensor<64xi64>}}
  %x = "arith.extsi"(%i) : (tensor<64xf32>) -> tensor<64xi64>
  func.return
}

// -----

func.func @f(%i: tensor<64xi32>) {
  // expected-error@+1 {{'arith.index_cast' cannot cast tensor<64xi32> to tensor<64xi64>: exactly one side must be index, the other an integer}}
  %x = "arith.index_cast"(%i) : (tensor<64xi32>) -> tensor<64xi64>
  func.return
}
