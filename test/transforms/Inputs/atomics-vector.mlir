// tile.atomic_add of an f32 accumulator fragment whose adds the emitter may pair
// (red.global.add.v2.f32) where the pointers' alignment is proven, and the forms where it is
// not (ws-hopper-atomics-vector.mlir; test_atomic_add_kernels.py interprets them).

// C 16-byte aligned, its row stride a multiple of 16 and the tile's first column a multiple of 64: every pair of a thread's columns is 8-byte aligned (red.v2), masked at M and N.
func.func @aligned(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
    %c_ptr: !tile.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %stride_cm: i32 {tt.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
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
  %pid = tile.program_id 0 : i32
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c0n = arith.muli %pid, %c64 : i32
  %cstart = arith.addi %c0n, %c0 : i32
  %cs = tile.splat %cstart : i32 -> tensor<64xi32>
  %cols = arith.addi %cs, %rm : tensor<64xi32>
  %rx = tile.expand_dims %rm, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ss = tile.splat %stride_cm : i32 -> tensor<64x1xi32>
  %roff = arith.muli %rx, %Ss : tensor<64x1xi32>
  %rb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %cx = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cx : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %Ms = tile.splat %M : i32 -> tensor<64x1xi32>
  %rin = arith.cmpi slt, %rx, %Ms : tensor<64x1xi32>
  %rinb = tile.broadcast %rin : tensor<64x1xi1> -> tensor<64x64xi1>
  %Ns = tile.splat %N : i32 -> tensor<1x64xi32>
  %cin = arith.cmpi slt, %cx, %Ns : tensor<1x64xi32>
  %cinb = tile.broadcast %cin : tensor<1x64xi1> -> tensor<64x64xi1>
  %m = arith.andi %rinb, %cinb : tensor<64x64xi1>
  %old = tile.atomic_add %cptrs, %acc, %m : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}

// -----

// As @aligned without a mask.
func.func @aligned_unmasked(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
    %c_ptr: !tile.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %stride_cm: i32 {tt.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
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
  %pid = tile.program_id 0 : i32
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c0n = arith.muli %pid, %c64 : i32
  %cstart = arith.addi %c0n, %c0 : i32
  %cs = tile.splat %cstart : i32 -> tensor<64xi32>
  %cols = arith.addi %cs, %rm : tensor<64xi32>
  %rx = tile.expand_dims %rm, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ss = tile.splat %stride_cm : i32 -> tensor<64x1xi32>
  %roff = arith.muli %rx, %Ss : tensor<64x1xi32>
  %rb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %cx = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cx : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %old = tile.atomic_add %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}

// -----

// C's alignment unknown (no tt.divisibility): f32 is 4-byte aligned, a pair may not be 8.
func.func @unaligned_base(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
    %c_ptr: !tile.ptr<f32>, %M: i32, %N: i32, %stride_cm: i32 {tt.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
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
  %pid = tile.program_id 0 : i32
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c0n = arith.muli %pid, %c64 : i32
  %cstart = arith.addi %c0n, %c0 : i32
  %cs = tile.splat %cstart : i32 -> tensor<64xi32>
  %cols = arith.addi %cs, %rm : tensor<64xi32>
  %rx = tile.expand_dims %rm, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ss = tile.splat %stride_cm : i32 -> tensor<64x1xi32>
  %roff = arith.muli %rx, %Ss : tensor<64x1xi32>
  %rb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %cx = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cx : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %Ms = tile.splat %M : i32 -> tensor<64x1xi32>
  %rin = arith.cmpi slt, %rx, %Ms : tensor<64x1xi32>
  %rinb = tile.broadcast %rin : tensor<64x1xi1> -> tensor<64x64xi1>
  %Ns = tile.splat %N : i32 -> tensor<1x64xi32>
  %cin = arith.cmpi slt, %cx, %Ns : tensor<1x64xi32>
  %cinb = tile.broadcast %cin : tensor<1x64xi1> -> tensor<64x64xi1>
  %m = arith.andi %rinb, %cinb : tensor<64x64xi1>
  %old = tile.atomic_add %cptrs, %acc, %m : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}

// -----

// The row stride may be odd: the rows' pairs may not be 8-byte aligned.
func.func @odd_stride(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
    %c_ptr: !tile.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %stride_cm: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
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
  %pid = tile.program_id 0 : i32
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c0n = arith.muli %pid, %c64 : i32
  %cstart = arith.addi %c0n, %c0 : i32
  %cs = tile.splat %cstart : i32 -> tensor<64xi32>
  %cols = arith.addi %cs, %rm : tensor<64xi32>
  %rx = tile.expand_dims %rm, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ss = tile.splat %stride_cm : i32 -> tensor<64x1xi32>
  %roff = arith.muli %rx, %Ss : tensor<64x1xi32>
  %rb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %cx = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cx : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %Ms = tile.splat %M : i32 -> tensor<64x1xi32>
  %rin = arith.cmpi slt, %rx, %Ms : tensor<64x1xi32>
  %rinb = tile.broadcast %rin : tensor<64x1xi1> -> tensor<64x64xi1>
  %Ns = tile.splat %N : i32 -> tensor<1x64xi32>
  %cin = arith.cmpi slt, %cx, %Ns : tensor<1x64xi32>
  %cinb = tile.broadcast %cin : tensor<1x64xi1> -> tensor<64x64xi1>
  %m = arith.andi %rinb, %cinb : tensor<64x64xi1>
  %old = tile.atomic_add %cptrs, %acc, %m : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}

// -----

// The tile starts one column right of a multiple of 64: column 0 of the tile is odd.
func.func @odd_column(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
    %c_ptr: !tile.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %stride_cm: i32 {tt.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
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
  %pid = tile.program_id 0 : i32
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c0n = arith.muli %pid, %c64 : i32
  %cstart = arith.addi %c0n, %c1 : i32
  %cs = tile.splat %cstart : i32 -> tensor<64xi32>
  %cols = arith.addi %cs, %rm : tensor<64xi32>
  %rx = tile.expand_dims %rm, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ss = tile.splat %stride_cm : i32 -> tensor<64x1xi32>
  %roff = arith.muli %rx, %Ss : tensor<64x1xi32>
  %rb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %cx = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cx : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cbase = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %Ms = tile.splat %M : i32 -> tensor<64x1xi32>
  %rin = arith.cmpi slt, %rx, %Ms : tensor<64x1xi32>
  %rinb = tile.broadcast %rin : tensor<64x1xi1> -> tensor<64x64xi1>
  %Ns = tile.splat %N : i32 -> tensor<1x64xi32>
  %cin = arith.cmpi slt, %cx, %Ns : tensor<1x64xi32>
  %cinb = tile.broadcast %cin : tensor<1x64xi1> -> tensor<64x64xi1>
  %m = arith.andi %rinb, %cinb : tensor<64x64xi1>
  %old = tile.atomic_add %cptrs, %acc, %m : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}
