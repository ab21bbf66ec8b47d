// Kernels whose epilogue is a tile.atomic_add (the Hopper lowering's cases): a GEMM tile
// C' = A @ B^T added into C in the forms the emitter takes: a fragment tile whose old values
// are read (atom), i32 and f16 elements (red), a row slice read back (atom, shuffled to the
// quad), a scalar (thread 0), and the two refused forms (a read scalar result, a column slice).

func.func @old_values(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                      %c_ptr: !tile.ptr<f32>, %o_ptr: !tile.ptr<f32>, %K: i32)
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
  %c64v = arith.constant dense<64> : tensor<64xi32>
  %roff = arith.muli %rm, %c64v : tensor<64xi32>
  %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %old = tile.atomic_add %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32> -> tensor<64x64xf32>
  %obase = tile.splat %o_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %optrs = tile.addptr %obase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %optrs, %old : tensor<64x64x!tile.ptr<f32>>
  func.return
}

// -----

func.func @int_and_half(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                        %i_ptr: !tile.ptr<i32>, %h_ptr: !tile.ptr<f16>, %n: i32, %K: i32)
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
  %c64v = arith.constant dense<64> : tensor<64xi32>
  %roff = arith.muli %rm, %c64v : tensor<64xi32>
  %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %nv = tile.splat %n : i32 -> tensor<64x64xi32>
  %in = arith.cmpi slt, %cb, %nv : tensor<64x64xi32>
  %ibase = tile.splat %i_ptr : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>>
  %iptrs = tile.addptr %ibase, %off : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  %ai = arith.fptosi %acc : tensor<64x64xf32> to tensor<64x64xi32>
  %u = tile.atomic_add %iptrs, %ai, %in : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32> -> tensor<64x64xi32>
  %hbase = tile.splat %h_ptr : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %hptrs = tile.addptr %hbase, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %ah = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  %w = tile.atomic_add %hptrs, %ah : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xf16> -> tensor<64x64xf16>
  func.return
}

// -----

func.func @row_sums(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                    %r_ptr: !tile.ptr<f32>, %o_ptr: !tile.ptr<f32>, %done: !tile.ptr<i32>, %K: i32)
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
  %sum = tile.reduce sum %acc, 1 : tensor<64x64xf32> -> tensor<64xf32>
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %rbase = tile.splat %r_ptr : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %rptrs = tile.addptr %rbase, %rm : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %old = tile.atomic_add %rptrs, %sum : tensor<64x!tile.ptr<f32>>, tensor<64xf32> -> tensor<64xf32>
  %obase = tile.splat %o_ptr : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %optrs = tile.addptr %obase, %rm : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %optrs, %old : tensor<64x!tile.ptr<f32>>
  %n = tile.atomic_add %done, %c1 : !tile.ptr<i32>, i32 -> i32
  func.return
}

// -----

func.func @row_sums_two_groups(%a_desc: !tile.desc<tensor<128x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                    %r_ptr: !tile.ptr<f32>, %o_ptr: !tile.ptr<f32>, %done: !tile.ptr<i32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%s = %zero) -> (tensor<128x64xf32>) : i32 {
    %ok = arith.muli %k, %c32 : i32
    %x = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<128x32xf16>> -> tensor<128x32xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %x, %yt, %s : tensor<128x32xf16>, tensor<32x64xf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  %sum = tile.reduce sum %acc, 1 : tensor<128x64xf32> -> tensor<128xf32>
  %rm = tile.make_range 0 to 128 : tensor<128xi32>
  %rbase = tile.splat %r_ptr : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %rptrs = tile.addptr %rbase, %rm : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %old = tile.atomic_add %rptrs, %sum : tensor<128x!tile.ptr<f32>>, tensor<128xf32> -> tensor<128xf32>
  %obase = tile.splat %o_ptr : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %obase, %rm : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %old : tensor<128x!tile.ptr<f32>>
  %n = tile.atomic_add %done, %c1 : !tile.ptr<i32>, i32 -> i32
  func.return
}
