// !aref.ring: payloads are tiles.
func.func @f() {
  %r = aref.create : !aref.ring<f32, depth = 1>
  func.return
}
