// Row-wrapped loads for ws-tma-load (Triton's tutorial form `(pid * 64 + arange(64)) % M`): the
// offsets in i64 (arith.extsi of i32 indices, Triton 3.6's form) and the column stride an argument
// (%U, taken to be 1 by the launch contract). @proven stores the loaded tile under the mask
// `rows < M`, so the wrapped rows are never written: it converts. The others cannot be proven and
// stay pointer loads: a store masked at another bound, a row reduction, a wrap on the dot's
// reduction axis.
func.func @proven(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %M: i32, %N: i32, %S: i32, %U: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %om = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %omv = tile.splat %om : i32 -> tensor<64xi32>
  %idx = arith.addi %omv, %r : tensor<64xi32>
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %wrapped = arith.remsi %idx, %Mv : tensor<64xi32>
  %w64 = arith.extsi %wrapped : tensor<64xi32> to tensor<64xi64>
  %r64 = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  %S64 = arith.extsi %S : i32 to i64
  %U64 = arith.extsi %U : i32 to i64
  %re = tile.expand_dims %w64, 1 : tensor<64xi64> -> tensor<64x1xi64>
  %Sv = tile.splat %S64 : i64 -> tensor<64x1xi64>
  %ro = arith.muli %re, %Sv : tensor<64x1xi64>
  %rb = tile.broadcast %ro : tensor<64x1xi64> -> tensor<64x64xi64>
  %ce = tile.expand_dims %r64, 0 : tensor<64xi64> -> tensor<1x64xi64>
  %Uv = tile.splat %U64 : i64 -> tensor<1x64xi64>
  %co = arith.muli %ce, %Uv : tensor<1x64xi64>
  %cb = tile.broadcast %co : tensor<1x64xi64> -> tensor<64x64xi64>
  %off = arith.addi %rb, %cb : tensor<64x64xi64>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi64>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %v2 = arith.addf %v, %v : tensor<64x64xf16>
  %ie = tile.expand_dims %idx, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Bv = tile.splat %M : i32 -> tensor<64x1xi32>
  %ok = arith.cmpi slt, %ie, %Bv : tensor<64x1xi32>
  %okb = tile.broadcast %ok : tensor<64x1xi1> -> tensor<64x64xi1>
  %c64v = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %yr = arith.muli %ie, %c64v : tensor<64x1xi32>
  %yrb = tile.broadcast %yr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ye = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %yeb = tile.broadcast %ye : tensor<1x64xi32> -> tensor<64x64xi32>
  %yoff = arith.addi %yrb, %yeb : tensor<64x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  tile.store %yp, %v2, %okb : tensor<64x64x!tile.ptr<f16>>
  func.return
}

func.func @other_bound(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %M: i32, %N: i32, %S: i32, %U: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %om = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %omv = tile.splat %om : i32 -> tensor<64xi32>
  %idx = arith.addi %omv, %r : tensor<64xi32>
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %wrapped = arith.remsi %idx, %Mv : tensor<64xi32>
  %w64 = arith.extsi %wrapped : tensor<64xi32> to tensor<64xi64>
  %r64 = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  %S64 = arith.extsi %S : i32 to i64
  %U64 = arith.extsi %U : i32 to i64
  %re = tile.expand_dims %w64, 1 : tensor<64xi64> -> tensor<64x1xi64>
  %Sv = tile.splat %S64 : i64 -> tensor<64x1xi64>
  %ro = arith.muli %re, %Sv : tensor<64x1xi64>
  %rb = tile.broadcast %ro : tensor<64x1xi64> -> tensor<64x64xi64>
  %ce = tile.expand_dims %r64, 0 : tensor<64xi64> -> tensor<1x64xi64>
  %Uv = tile.splat %U64 : i64 -> tensor<1x64xi64>
  %co = arith.muli %ce, %Uv : tensor<1x64xi64>
  %cb = tile.broadcast %co : tensor<1x64xi64> -> tensor<64x64xi64>
  %off = arith.addi %rb, %cb : tensor<64x64xi64>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi64>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %v2 = arith.addf %v, %v : tensor<64x64xf16>
  %ie = tile.expand_dims %idx, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Bv = tile.splat %N : i32 -> tensor<64x1xi32>
  %ok = arith.cmpi slt, %ie, %Bv : tensor<64x1xi32>
  %okb = tile.broadcast %ok : tensor<64x1xi1> -> tensor<64x64xi1>
  %c64v = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %yr = arith.muli %ie, %c64v : tensor<64x1xi32>
  %yrb = tile.broadcast %yr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ye = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %yeb = tile.broadcast %ye : tensor<1x64xi32> -> tensor<64x64xi32>
  %yoff = arith.addi %yrb, %yeb : tensor<64x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  tile.store %yp, %v2, %okb : tensor<64x64x!tile.ptr<f16>>
  func.return
}

func.func @reduced(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %M: i32, %N: i32, %S: i32, %U: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %om = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %omv = tile.splat %om : i32 -> tensor<64xi32>
  %idx = arith.addi %omv, %r : tensor<64xi32>
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %wrapped = arith.remsi %idx, %Mv : tensor<64xi32>
  %w64 = arith.extsi %wrapped : tensor<64xi32> to tensor<64xi64>
  %r64 = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  %S64 = arith.extsi %S : i32 to i64
  %U64 = arith.extsi %U : i32 to i64
  %re = tile.expand_dims %w64, 1 : tensor<64xi64> -> tensor<64x1xi64>
  %Sv = tile.splat %S64 : i64 -> tensor<64x1xi64>
  %ro = arith.muli %re, %Sv : tensor<64x1xi64>
  %rb = tile.broadcast %ro : tensor<64x1xi64> -> tensor<64x64xi64>
  %ce = tile.expand_dims %r64, 0 : tensor<64xi64> -> tensor<1x64xi64>
  %Uv = tile.splat %U64 : i64 -> tensor<1x64xi64>
  %co = arith.muli %ce, %Uv : tensor<1x64xi64>
  %cb = tile.broadcast %co : tensor<1x64xi64> -> tensor<64x64xi64>
  %off = arith.addi %rb, %cb : tensor<64x64xi64>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi64>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %v2 = arith.addf %v, %v : tensor<64x64xf16>
  %sum = tile.reduce sum %v2, 1 : tensor<64x64xf16> -> tensor<64xf16>
  %se = tile.expand_dims %sum, 1 : tensor<64xf16> -> tensor<64x1xf16>
  %sb = tile.broadcast %se : tensor<64x1xf16> -> tensor<64x64xf16>
  %ie = tile.expand_dims %idx, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Bv = tile.splat %M : i32 -> tensor<64x1xi32>
  %ok = arith.cmpi slt, %ie, %Bv : tensor<64x1xi32>
  %okb = tile.broadcast %ok : tensor<64x1xi1> -> tensor<64x64xi1>
  %c64v = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %yr = arith.muli %ie, %c64v : tensor<64x1xi32>
  %yrb = tile.broadcast %yr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ye = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %yeb = tile.broadcast %ye : tensor<1x64xi32> -> tensor<64x64xi32>
  %yoff = arith.addi %yrb, %yeb : tensor<64x64xi32>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %yoff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  tile.store %yp, %sb, %okb : tensor<64x64x!tile.ptr<f16>>
  func.return
}

func.func @on_k(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>, %M: i32, %N: i32, %S: i32, %U: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %om = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %omv = tile.splat %om : i32 -> tensor<64xi32>
  %idx = arith.addi %omv, %r : tensor<64xi32>
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %wrapped = arith.remsi %idx, %Mv : tensor<64xi32>
  %w64 = arith.extsi %wrapped : tensor<64xi32> to tensor<64xi64>
  %r64 = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  %S64 = arith.extsi %S : i32 to i64
  %U64 = arith.extsi %U : i32 to i64
  %re = tile.expand_dims %r64, 1 : tensor<64xi64> -> tensor<64x1xi64>
  %Sv = tile.splat %S64 : i64 -> tensor<64x1xi64>
  %ro = arith.muli %re, %Sv : tensor<64x1xi64>
  %rb = tile.broadcast %ro : tensor<64x1xi64> -> tensor<64x64xi64>
  %ce = tile.expand_dims %w64, 0 : tensor<64xi64> -> tensor<1x64xi64>
  %Uv = tile.splat %U64 : i64 -> tensor<1x64xi64>
  %co = arith.muli %ce, %Uv : tensor<1x64xi64>
  %cb = tile.broadcast %co : tensor<1x64xi64> -> tensor<64x64xi64>
  %off = arith.addi %rb, %cb : tensor<64x64xi64>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi64>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %v2 = arith.addf %v, %v : tensor<64x64xf16>
  %z = arith.constant dense<1.0> : tensor<64x64xf16>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %v, %z, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  %ie = tile.expand_dims %idx, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Bv = tile.splat %M : i32 -> tensor<64x1xi32>
  %ok = arith.cmpi slt, %ie, %Bv : tensor<64x1xi32>
  %okb = tile.broadcast %ok : tensor<64x1xi1> -> tensor<64x64xi1>
  %c64v = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %yr = arith.muli %ie, %c64v : tensor<64x1xi32>
  %yrb = tile.broadcast %yr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ye = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %yeb = tile.broadcast %ye : tensor<1x64xi32> -> tensor<64x64xi32>
  %yoff = arith.addi %yrb, %yeb : tensor<64x64xi32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %yoff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %yp, %d, %okb : tensor<64x64x!tile.ptr<f32>>
  func.return
}
