// dense: the literal has the tensor's shape.
func.func @f() {
  %c = arith.constant dense<[1, 2, 3]> : tensor<4xi32>
  func.return
}
