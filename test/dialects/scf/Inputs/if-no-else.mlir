// scf.if with results needs an else branch.
func.func @f(%c: i1, %x: tensor<4xf32>) {
  %t = scf.if %c -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  }
  func.return
}
