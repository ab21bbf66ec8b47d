// ws.organisation must hold ws-hopper's options with integer or boolean values.
// (ws-choose-organisation.mlir's BAD-ATTR)
func.func @k(%c_desc: !tile.desc<tensor<64x64xf16>>) attributes {tile.kernel, tile.num_warps = 4 : i32, ws.organisation = {depth = "deep"}} {
  func.return
}
