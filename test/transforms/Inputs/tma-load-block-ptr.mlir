// What block pointers become once Triton rewrites them: a per-program scalar offset of the base
// (a batch or head), tiles whose rows are contiguous (a K^T block pointer with order (0, 1)),
// boundary checks testing `>= 0` and `< bound` per dimension.

// A 32 x 64 tile whose dim 0 has stride 1 and dim 1 a row stride %S: TMA loads the 64 x 32 box
// and the pass transposes it.
func.func @transposed(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %S: i32) attributes {tile.kernel} {
  %d = tile.make_range 0 to 32 : tensor<32xi32>
  %n = tile.make_range 0 to 64 : tensor<64xi32>
  %de = tile.expand_dims %d, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %db = tile.broadcast %de : tensor<32x1xi32> -> tensor<32x64xi32>
  %ne = tile.expand_dims %n, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Sv = tile.splat %S : i32 -> tensor<1x64xi32>
  %ns = arith.muli %ne, %Sv : tensor<1x64xi32>
  %nb = tile.broadcast %ns : tensor<1x64xi32> -> tensor<32x64xi32>
  %off = arith.addi %db, %nb : tensor<32x64xi32>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %v = tile.load %xp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %yr = arith.muli %de, %c64 : tensor<32x1xi32>
  %yrb = tile.broadcast %yr : tensor<32x1xi32> -> tensor<32x64xi32>
  %yne = tile.broadcast %ne : tensor<1x64xi32> -> tensor<32x64xi32>
  %yoff = arith.addi %yrb, %yne : tensor<32x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  tile.store %yp, %v : tensor<32x64x!tile.ptr<f16>>
  func.return
}

// Each program reads rows of its own head, `x + pid * %HS` (i64), checked on both dims as a
// block pointer's boundary_check=(0, 1) tests them: `r >= 0`, `r < %M`, `c >= 0`, `c < %N`.
// Converted only in @head_columns, where the rows are not tested: the whole tensor's view cannot
// bound one head's rows at %M. @from_one tests its columns from 1, which TMA does not.
func.func @head_rows(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %S: i32, %HS: i32, %M: i32, %N: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %p64 = arith.extsi %pid : i32 to i64
  %HS64 = arith.extsi %HS : i32 to i64
  %hoff = arith.muli %p64, %HS64 : i64
  %base = tile.addptr %x, %hoff : !tile.ptr<f16>, i64
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %c = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %Sv = tile.splat %S : i32 -> tensor<16x1xi32>
  %rs = arith.muli %re, %Sv : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %ce = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %rb, %cb : tensor<16x64xi32>
  %xb = tile.splat %base : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %z1 = arith.constant dense<0> : tensor<16x1xi32>
  %Mv = tile.splat %M : i32 -> tensor<16x1xi32>
  %r0 = arith.cmpi sge, %re, %z1 : tensor<16x1xi32>
  %rM = arith.cmpi slt, %re, %Mv : tensor<16x1xi32>
  %rok = arith.andi %r0, %rM : tensor<16x1xi1>
  %rokb = tile.broadcast %rok : tensor<16x1xi1> -> tensor<16x64xi1>
  %z2 = arith.constant dense<0> : tensor<1x64xi32>
  %Nv = tile.splat %N : i32 -> tensor<1x64xi32>
  %c0 = arith.cmpi sge, %ce, %z2 : tensor<1x64xi32>
  %cN = arith.cmpi slt, %ce, %Nv : tensor<1x64xi32>
  %cok = arith.andi %c0, %cN : tensor<1x64xi1>
  %cokb = tile.broadcast %cok : tensor<1x64xi1> -> tensor<16x64xi1>
  %ok = arith.andi %rokb, %cokb : tensor<16x64xi1>
  %zero = arith.constant dense<0.0> : tensor<16x64xf16>
  %v = tile.load %xp, %ok, %zero : tensor<16x64x!tile.ptr<f16>> -> tensor<16x64xf16>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %yr = arith.muli %re, %c64 : tensor<16x1xi32>
  %yrb = tile.broadcast %yr : tensor<16x1xi32> -> tensor<16x64xi32>
  %yoff = arith.addi %yrb, %cb : tensor<16x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  tile.store %yp, %v : tensor<16x64x!tile.ptr<f16>>
  func.return
}

func.func @head_columns(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %S: i32, %HS: i32, %N: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %p64 = arith.extsi %pid : i32 to i64
  %HS64 = arith.extsi %HS : i32 to i64
  %hoff = arith.muli %p64, %HS64 : i64
  %base = tile.addptr %x, %hoff : !tile.ptr<f16>, i64
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %c = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %Sv = tile.splat %S : i32 -> tensor<16x1xi32>
  %rs = arith.muli %re, %Sv : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %ce = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %rb, %cb : tensor<16x64xi32>
  %xb = tile.splat %base : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %z2 = arith.constant dense<0> : tensor<1x64xi32>
  %Nv = tile.splat %N : i32 -> tensor<1x64xi32>
  %c0 = arith.cmpi sge, %ce, %z2 : tensor<1x64xi32>
  %cN = arith.cmpi slt, %ce, %Nv : tensor<1x64xi32>
  %cok = arith.andi %c0, %cN : tensor<1x64xi1>
  %ok = tile.broadcast %cok : tensor<1x64xi1> -> tensor<16x64xi1>
  %zero = arith.constant dense<0.0> : tensor<16x64xf16>
  %v = tile.load %xp, %ok, %zero : tensor<16x64x!tile.ptr<f16>> -> tensor<16x64xf16>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %yr = arith.muli %re, %c64 : tensor<16x1xi32>
  %yrb = tile.broadcast %yr : tensor<16x1xi32> -> tensor<16x64xi32>
  %yoff = arith.addi %yrb, %cb : tensor<16x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  tile.store %yp, %v : tensor<16x64x!tile.ptr<f16>>
  func.return
}

func.func @from_one(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %S: i32, %N: i32) attributes {tile.kernel} {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %c = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %Sv = tile.splat %S : i32 -> tensor<16x1xi32>
  %rs = arith.muli %re, %Sv : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %ce = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %rb, %cb : tensor<16x64xi32>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %one = arith.constant dense<1> : tensor<1x64xi32>
  %Nv = tile.splat %N : i32 -> tensor<1x64xi32>
  %c1 = arith.cmpi sge, %ce, %one : tensor<1x64xi32>
  %cN = arith.cmpi slt, %ce, %Nv : tensor<1x64xi32>
  %cok = arith.andi %c1, %cN : tensor<1x64xi1>
  %ok = tile.broadcast %cok : tensor<1x64xi1> -> tensor<16x64xi1>
  %zero = arith.constant dense<0.0> : tensor<16x64xf16>
  %v = tile.load %xp, %ok, %zero : tensor<16x64x!tile.ptr<f16>> -> tensor<16x64xf16>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %yr = arith.muli %re, %c64 : tensor<16x1xi32>
  %yrb = tile.broadcast %yr : tensor<16x1xi32> -> tensor<16x64xi32>
  %yoff = arith.addi %yrb, %cb : tensor<16x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  tile.store %yp, %v : tensor<16x64x!tile.ptr<f16>>
  func.return
}
