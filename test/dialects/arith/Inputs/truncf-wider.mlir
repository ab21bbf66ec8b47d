// truncf narrows: f16 to f32 is an extf.
func.func @f(%a: f16) {
  %f = arith.truncf %a : f16 to f32
  func.return
}
