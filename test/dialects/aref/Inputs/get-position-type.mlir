// get: the ring position is i32, i64 or index.
func.func @f(%k: f32) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  %v = aref.get %r[%k : f32] : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}
