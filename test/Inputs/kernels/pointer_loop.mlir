// A loop with pointer loads only (no TMA): left as it is.
func.func @rowsum(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %o = arith.muli %i, %c64 : i32
    %ov = tile.splat %o : i32 -> tensor<64xi32>
    %off = arith.addi %ov, %r : tensor<64xi32>
    %p = tile.addptr %base, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
    %a2 = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %a2 : tensor<64xf32>
  }
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %yp, %s : tensor<64x!tile.ptr<f32>>
  func.return
}
