// load: reads through a pointer or a tile of pointers.
func.func @f(%x: tensor<64xi32>) {
  %v = tile.load %x : tensor<64xi32> -> tensor<64xi32>
  func.return
}
