func.func @k(%x: f32) attributes {tile.kernel} {
  %half = arith.constant 0.5  // a comment: with a colon
  %y = arith.mulf %x, %half : f32
  func.return
}
