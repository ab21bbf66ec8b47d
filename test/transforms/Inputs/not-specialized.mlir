// A kernel without a loop of TMA loads (tile.desc_load): ws-partition leaves it as it is.
func.func @softmax(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0 : i32
  %row = arith.muli %pid, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %rv = tile.splat %row : i32 -> tensor<128xi32>
  %off = arith.addi %rv, %r : tensor<128xi32>
  %xp = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xps = tile.addptr %xp, %off : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xps : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %e = math.exp %v : tensor<128xf32>
  %yp = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yps = tile.addptr %yp, %off : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yps, %e : tensor<128x!tile.ptr<f32>>
  func.return
}
