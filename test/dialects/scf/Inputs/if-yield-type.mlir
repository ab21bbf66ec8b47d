// scf.if: each branch yields the result types.
func.func @f(%c: i1, %x: tensor<4xf32>, %i: i32) {
  %t, %s = scf.if %c -> (tensor<4xf32>, f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %x, %one : tensor<4xf32>, f32
  } else {
    scf.yield %x, %i : tensor<4xf32>, i32
  }
  func.return
}
