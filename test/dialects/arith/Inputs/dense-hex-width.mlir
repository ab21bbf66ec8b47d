// dense: a hexadecimal f16 element has 16 bits.
func.func @f() {
  %c = arith.constant dense<0xFF800000> : tensor<4xf16>
  func.return
}
