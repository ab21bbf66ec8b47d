// An op of no registered dialect.
func.func @f() {
  "foo.bar"() : () -> ()
  func.return
}
