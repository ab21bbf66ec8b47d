// !aref.ring: the payload holds at least one type.
func.func @f() {
  %r = aref.create : !aref.ring<depth = 1>
  func.return
}
