func.func @k(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
  %c1 = arith.constant 1
  %m = arith.addi %n, %c1 : i32
  func.return
}
