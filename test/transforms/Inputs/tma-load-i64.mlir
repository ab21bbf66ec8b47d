// Triton 3.6's form of a block pointer walking rows: the base `x + first * S` a scalar i64 addptr,
// the row offset an i64 iter_arg advanced by 32 in a loop stepping 32, offsets extsi'd to i64.
// ws-tma-load reads the row as `first + i` (i the induction variable) and converts the load.
func.func @row_blocks(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>, %R: i32, %S: i32, %first: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c0_64 = arith.constant 0 : i64
  %c32_64 = arith.constant 32 : i64
  %f64 = arith.extsi %first : i32 to i64
  %S64 = arith.extsi %S : i32 to i64
  %boff = arith.muli %f64, %S64 : i64
  %xbase = tile.addptr %x, %boff : !tile.ptr<f16>, i64
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %r64 = arith.extsi %r : tensor<32xi32> to tensor<32xi64>
  %cr = tile.make_range 0 to 64 : tensor<64xi32>
  %cr64 = arith.extsi %cr : tensor<64xi32> to tensor<64xi64>
  %ce = tile.expand_dims %cr64, 0 : tensor<64xi64> -> tensor<1x64xi64>
  %cb = tile.broadcast %ce : tensor<1x64xi64> -> tensor<32x64xi64>
  %Sv = tile.splat %S64 : i64 -> tensor<32x1xi64>
  %res:2 = scf.for %i = %c0 to %R step %c32 iter_args(%o = %c0_64, %acc = %zero) -> (i64, tensor<32x64xf32>) : i32 {
    %ov = tile.splat %o : i64 -> tensor<32xi64>
    %rows = arith.addi %ov, %r64 : tensor<32xi64>
    %re = tile.expand_dims %rows, 1 : tensor<32xi64> -> tensor<32x1xi64>
    %ro = arith.muli %re, %Sv : tensor<32x1xi64>
    %rb = tile.broadcast %ro : tensor<32x1xi64> -> tensor<32x64xi64>
    %off = arith.addi %rb, %cb : tensor<32x64xi64>
    %xb = tile.splat %xbase : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
    %xp = tile.addptr %xb, %off : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi64>
    %v = tile.load %xp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %vf = arith.extf %v : tensor<32x64xf16> to tensor<32x64xf32>
    %acc2 = arith.addf %acc, %vf : tensor<32x64xf32>
    %o2 = arith.addi %o, %c32_64 : i64
    scf.yield %o2, %acc2 : i64, tensor<32x64xf32>
  }
  %re = tile.expand_dims %r, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %yr = arith.muli %re, %c64 : tensor<32x1xi32>
  %yrb = tile.broadcast %yr : tensor<32x1xi32> -> tensor<32x64xi32>
  %ye = tile.expand_dims %cr, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %yeb = tile.broadcast %ye : tensor<1x64xi32> -> tensor<32x64xi32>
  %yoff = arith.addi %yrb, %yeb : tensor<32x64xi32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %yoff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  tile.store %yp, %res#1 : tensor<32x64x!tile.ptr<f32>>
  func.return
}
