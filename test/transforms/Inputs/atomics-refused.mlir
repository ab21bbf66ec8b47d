// tile.atomic_add forms the Hopper lowering refuses, each with a located error: a scalar
// add whose old value is read (one thread adds; every thread would need the value), and a
// column slice (every fragment row holds it).

func.func @ticket(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                  %c_ptr: !tile.ptr<f32>, %counter: !tile.ptr<i32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c32 : i32
    %x = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %x, %yt, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %t = tile.atomic_add %counter, %c1 : !tile.ptr<i32>, i32 -> i32
  %tf = arith.sitofp %t : i32 to f32
  %tv = tile.splat %tf : f32 -> tensor<64x64xf32>
  %out = arith.addf %acc, %tv : tensor<64x64xf32>
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c64v = arith.constant dense<64> : tensor<64xi32>
  %roff = arith.muli %rm, %c64v : tensor<64xi32>
  %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %out : tensor<64x64x!tile.ptr<f32>>
  func.return
}

// -----

func.func @column_slice(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                        %c_ptr: !tile.ptr<f32>, %bias_ptr: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c32 : i32
    %x = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %x, %yt, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %bbase = tile.splat %bias_ptr : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %bptrs = tile.addptr %bbase, %rm : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %ones = arith.constant dense<1.0> : tensor<64xf32>
  %bias = tile.atomic_add %bptrs, %ones : tensor<64x!tile.ptr<f32>>, tensor<64xf32> -> tensor<64xf32>
  %be = tile.expand_dims %bias, 0 : tensor<64xf32> -> tensor<1x64xf32>
  %bb = tile.broadcast %be : tensor<1x64xf32> -> tensor<64x64xf32>
  %out = arith.addf %acc, %bb : tensor<64x64xf32>
  %c64v = arith.constant dense<64> : tensor<64xi32>
  %roff = arith.muli %rm, %c64v : tensor<64xi32>
  %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %out : tensor<64x64x!tile.ptr<f32>>
  func.return
}
