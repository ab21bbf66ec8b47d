// Pointer loads ws-tma-load leaves as they are: a mask that is not a bounds test, an innermost
// stride of 2, `other` = 1, and an argument the kernel also stores through.
func.func @left(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %n: i32, %S: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Sv = tile.splat %S : i32 -> tensor<64x1xi32>
  %rs = arith.muli %re, %Sv : tensor<64x1xi32>
  %rb = tile.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %two = arith.constant dense<2> : tensor<64x64xi32>
  %cb2 = arith.muli %cb, %two : tensor<64x64xi32>
  %off2 = arith.addi %rb, %cb2 : tensor<64x64xi32>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %xp2 = tile.addptr %xb, %off2 : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %odd = arith.constant dense<3> : tensor<64x64xi32>
  %ne = arith.cmpi ne, %cb, %odd : tensor<64x64xi32>
  %one = arith.constant dense<1.0> : tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf16>
  %nv = tile.splat %n : i32 -> tensor<64x64xi32>
  %in = arith.cmpi slt, %cb, %nv : tensor<64x64xi32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf16>) : i32 {
    %a = tile.load %xp, %ne : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %b = tile.load %xp2 : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %c = tile.load %xp, %in, %one : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %d = tile.load %yp, %in, %zero : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %ab = arith.addf %a, %b : tensor<64x64xf16>
    %cd = arith.addf %c, %d : tensor<64x64xf16>
    %t = arith.addf %ab, %cd : tensor<64x64xf16>
    %acc2 = arith.addf %acc, %t : tensor<64x64xf16>
    scf.yield %acc2 : tensor<64x64xf16>
  }
  tile.store %yp, %s : tensor<64x64x!tile.ptr<f16>>
  func.return
}
