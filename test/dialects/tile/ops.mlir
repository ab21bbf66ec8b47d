// Every tile op and type in its custom form: prints, re-parses to the same text,
// and has a generic form (the contract form of tile-dialect.md) that re-parses
// to the same custom text.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @types(
// CHECK-SAME: %p16: !tile.ptr<f16>, %pbf: !tile.ptr<bf16>, %p32: !tile.ptr<f32>,
// CHECK-SAME: %pe4: !tile.ptr<f8E4M3FN>, %pe5: !tile.ptr<f8E5M2>,
// CHECK-SAME: %pi1: !tile.ptr<i1>, %pi32: !tile.ptr<i32>, %pi64: !tile.ptr<i64>,
// CHECK-SAME: %d2: !tile.desc<tensor<128x64xf16>>, %d3: !tile.desc<tensor<2x64x32xbf16>>,
// CHECK-SAME: %d8: !tile.desc<tensor<64x128xf8E4M3FN>>, %dp: tensor<4x!tile.ptr<f32>>)
// CHECK-SAME: attributes {tile.kernel, tile.num_warps = 4 : i32}
// GENERIC-LABEL: "func.func"() <{sym_name = "types", function_type = (!tile.ptr<f16>, !tile.ptr<bf16>, !tile.ptr<f32>, !tile.ptr<f8E4M3FN>, !tile.ptr<f8E5M2>, !tile.ptr<i1>, !tile.ptr<i32>, !tile.ptr<i64>, !tile.desc<tensor<128x64xf16>>, !tile.desc<tensor<2x64x32xbf16>>, !tile.desc<tensor<64x128xf8E4M3FN>>, tensor<4x!tile.ptr<f32>>) -> ()}>
// GENERIC: }) {tile.kernel, tile.num_warps = 4 : i32} : () -> ()
func.func @types(%p16: !tile.ptr<f16>, %pbf: !tile.ptr<bf16>, %p32: !tile.ptr<f32>,
                 %pe4: !tile.ptr<f8E4M3FN>, %pe5: !tile.ptr<f8E5M2>,
                 %pi1: !tile.ptr<i1>, %pi32: !tile.ptr<i32>, %pi64: !tile.ptr<i64>,
                 %d2: !tile.desc<tensor<128x64xf16>>, %d3: !tile.desc<tensor<2x64x32xbf16>>,
                 %d8: !tile.desc<tensor<64x128xf8E4M3FN>>, %dp: tensor<4x!tile.ptr<f32>>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  func.return
}

// CHECK-LABEL: func.func @grid()
// CHECK-NEXT: %pid0 = tile.program_id 0 : i32
// CHECK-NEXT: %pid1 = tile.program_id 1 : i32
// CHECK-NEXT: %pid2 = tile.program_id 2 : i32
// CHECK-NEXT: %np0 = tile.num_programs 0 : i32
// CHECK-NEXT: %np2 = tile.num_programs 2 : i32
// GENERIC-LABEL: sym_name = "grid"
// GENERIC: %pid0 = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
// GENERIC-NEXT: %pid1 = "tile.program_id"() <{axis = 1 : i32}> : () -> i32
// GENERIC-NEXT: %pid2 = "tile.program_id"() <{axis = 2 : i32}> : () -> i32
// GENERIC-NEXT: %np0 = "tile.num_programs"() <{axis = 0 : i32}> : () -> i32
// GENERIC-NEXT: %np2 = "tile.num_programs"() <{axis = 2 : i32}> : () -> i32
func.func @grid() {
  %pid0 = tile.program_id 0 : i32
  %pid1 = tile.program_id 1 : i32
  %pid2 = tile.program_id 2 : i32
  %np0 = tile.num_programs 0 : i32
  %np2 = tile.num_programs 2 : i32
  func.return
}

// CHECK-LABEL: func.func @shapes(%n: i32, %f: f32, %p: !tile.ptr<f16>)
// CHECK-NEXT: %r = tile.make_range 0 to 64 : tensor<64xi32>
// CHECK-NEXT: %r2 = tile.make_range 64 to 192 : tensor<128xi32>
// CHECK-NEXT: %s = tile.splat %n : i32 -> tensor<64xi32>
// CHECK-NEXT: %sf = tile.splat %f : f32 -> tensor<4x8xf32>
// CHECK-NEXT: %sp = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
// CHECK-NEXT: %e1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
// CHECK-NEXT: %e0 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK-NEXT: %e2 = tile.expand_dims %sf, 2 : tensor<4x8xf32> -> tensor<4x8x1xf32>
// CHECK-NEXT: %b = tile.broadcast %e1 : tensor<64x1xi32> -> tensor<64x32xi32>
// CHECK-NEXT: %b0 = tile.broadcast %e0 : tensor<1x64xi32> -> tensor<16x64xi32>
// CHECK-NEXT: %bs = tile.broadcast %sf : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %t = tile.trans %sf [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %t3 = tile.trans %e2 [2, 0, 1] : tensor<4x8x1xf32> -> tensor<1x4x8xf32>
// GENERIC-LABEL: sym_name = "shapes"
// GENERIC: %r = "tile.make_range"() <{start = 0 : i32, end = 64 : i32}> : () -> tensor<64xi32>
// GENERIC-NEXT: %r2 = "tile.make_range"() <{start = 64 : i32, end = 192 : i32}> : () -> tensor<128xi32>
// GENERIC-NEXT: %s = "tile.splat"(%n) : (i32) -> tensor<64xi32>
// GENERIC-NEXT: %sf = "tile.splat"(%f) : (f32) -> tensor<4x8xf32>
// GENERIC-NEXT: %sp = "tile.splat"(%p) : (!tile.ptr<f16>) -> tensor<64x!tile.ptr<f16>>
// GENERIC-NEXT: %e1 = "tile.expand_dims"(%r) <{axis = 1 : i32}> : (tensor<64xi32>) -> tensor<64x1xi32>
// GENERIC-NEXT: %e0 = "tile.expand_dims"(%r) <{axis = 0 : i32}> : (tensor<64xi32>) -> tensor<1x64xi32>
// GENERIC-NEXT: %e2 = "tile.expand_dims"(%sf) <{axis = 2 : i32}> : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
// GENERIC-NEXT: %b = "tile.broadcast"(%e1) : (tensor<64x1xi32>) -> tensor<64x32xi32>
// GENERIC-NEXT: %b0 = "tile.broadcast"(%e0) : (tensor<1x64xi32>) -> tensor<16x64xi32>
// GENERIC-NEXT: %bs = "tile.broadcast"(%sf) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC-NEXT: %t = "tile.trans"(%sf) <{order = array<i32: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
// GENERIC-NEXT: %t3 = "tile.trans"(%e2) <{order = array<i32: 2, 0, 1>}> : (tensor<4x8x1xf32>) -> tensor<1x4x8xf32>
func.func @shapes(%n: i32, %f: f32, %p: !tile.ptr<f16>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %r2 = tile.make_range 64 to 192 : tensor<128xi32>
  %s = tile.splat %n : i32 -> tensor<64xi32>
  %sf = tile.splat %f : f32 -> tensor<4x8xf32>
  %sp = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %e1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %e0 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %e2 = tile.expand_dims %sf, 2 : tensor<4x8xf32> -> tensor<4x8x1xf32>
  %b = tile.broadcast %e1 : tensor<64x1xi32> -> tensor<64x32xi32>
  %b0 = tile.broadcast %e0 : tensor<1x64xi32> -> tensor<16x64xi32>
  %bs = tile.broadcast %sf : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = tile.trans %sf [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %t3 = tile.trans %e2 [2, 0, 1] : tensor<4x8x1xf32> -> tensor<1x4x8xf32>
  func.return
}

// CHECK-LABEL: func.func @pointers(%p: !tile.ptr<f16>, %n: i32, %o64: i64, %lim: tensor<64xi32>)
// CHECK-NEXT: %r = tile.make_range 0 to 64 : tensor<64xi32>
// CHECK-NEXT: %base = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
// CHECK-NEXT: %ptrs = tile.addptr %base, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
// CHECK-NEXT: %q = tile.addptr %p, %n : !tile.ptr<f16>, i32
// CHECK-NEXT: %q64 = tile.addptr %p, %o64 : !tile.ptr<f16>, i64
// CHECK-NEXT: %v = tile.load %ptrs : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
// CHECK-NEXT: %m = arith.cmpi slt, %r, %lim : tensor<64xi32>
// CHECK-NEXT: %vm = tile.load %ptrs, %m : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
// CHECK-NEXT: %vo = tile.load %ptrs, %m, %v : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
// CHECK-NEXT: %x = tile.load %q : !tile.ptr<f16> -> f16
// CHECK-NEXT: tile.store %ptrs, %v : tensor<64x!tile.ptr<f16>>
// CHECK-NEXT: tile.store %ptrs, %vo, %m : tensor<64x!tile.ptr<f16>>
// CHECK-NEXT: tile.store %q64, %x : !tile.ptr<f16>
// GENERIC-LABEL: sym_name = "pointers"
// GENERIC: %ptrs = "tile.addptr"(%base, %r) : (tensor<64x!tile.ptr<f16>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f16>>
// GENERIC-NEXT: %q = "tile.addptr"(%p, %n) : (!tile.ptr<f16>, i32) -> !tile.ptr<f16>
// GENERIC-NEXT: %q64 = "tile.addptr"(%p, %o64) : (!tile.ptr<f16>, i64) -> !tile.ptr<f16>
// GENERIC-NEXT: %v = "tile.load"(%ptrs) : (tensor<64x!tile.ptr<f16>>) -> tensor<64xf16>
// GENERIC-NEXT: %m = "arith.cmpi"(%r, %lim) <{predicate = 2 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %vm = "tile.load"(%ptrs, %m) : (tensor<64x!tile.ptr<f16>>, tensor<64xi1>) -> tensor<64xf16>
// GENERIC-NEXT: %vo = "tile.load"(%ptrs, %m, %v) : (tensor<64x!tile.ptr<f16>>, tensor<64xi1>, tensor<64xf16>) -> tensor<64xf16>
// GENERIC-NEXT: %x = "tile.load"(%q) : (!tile.ptr<f16>) -> f16
// GENERIC-NEXT: "tile.store"(%ptrs, %v) : (tensor<64x!tile.ptr<f16>>, tensor<64xf16>) -> ()
// GENERIC-NEXT: "tile.store"(%ptrs, %vo, %m) : (tensor<64x!tile.ptr<f16>>, tensor<64xf16>, tensor<64xi1>) -> ()
// GENERIC-NEXT: "tile.store"(%q64, %x) : (!tile.ptr<f16>, f16) -> ()
func.func @pointers(%p: !tile.ptr<f16>, %n: i32, %o64: i64, %lim: tensor<64xi32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %base = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %ptrs = tile.addptr %base, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %q = tile.addptr %p, %n : !tile.ptr<f16>, i32
  %q64 = tile.addptr %p, %o64 : !tile.ptr<f16>, i64
  %v = tile.load %ptrs : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  %m = arith.cmpi slt, %r, %lim : tensor<64xi32>
  %vm = tile.load %ptrs, %m : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  %vo = tile.load %ptrs, %m, %v : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  %x = tile.load %q : !tile.ptr<f16> -> f16
  tile.store %ptrs, %v : tensor<64x!tile.ptr<f16>>
  tile.store %ptrs, %vo, %m : tensor<64x!tile.ptr<f16>>
  tile.store %q64, %x : !tile.ptr<f16>
  func.return
}

// CHECK-LABEL: func.func @tma(%d: !tile.desc<tensor<128x64xf16>>, %d3: !tile.desc<tensor<2x64x32xbf16>>, %i: i32, %j: i32,
// CHECK-NEXT: %a = tile.desc_load %d[%i, %j] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
// CHECK-NEXT: %a3 = tile.desc_load %d3[%i, %j, %i] : !tile.desc<tensor<2x64x32xbf16>> -> tensor<2x64x32xbf16>
// CHECK-NEXT: tile.desc_store %d[%j, %i], %a : !tile.desc<tensor<128x64xf16>>
// CHECK-NEXT: tile.desc_store %d3[%i, %i, %j], %a3 : !tile.desc<tensor<2x64x32xbf16>>
// CHECK-NEXT: %h = tile.desc_load %d[%i, %j, %i] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
// CHECK-NEXT: tile.desc_store %d[%i, %j, %i], %h : !tile.desc<tensor<128x64xf16>>
// CHECK-NEXT: tile.desc_store add %d[%j, %i], %a : !tile.desc<tensor<128x64xf16>>
// CHECK-NEXT: tile.desc_store max %di[%i, %j], %ai : !tile.desc<tensor<64x32xi32>>
// GENERIC-LABEL: sym_name = "tma"
// GENERIC: %a = "tile.desc_load"(%d, %i, %j) : (!tile.desc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
// GENERIC-NEXT: %a3 = "tile.desc_load"(%d3, %i, %j, %i) : (!tile.desc<tensor<2x64x32xbf16>>, i32, i32, i32) -> tensor<2x64x32xbf16>
// GENERIC-NEXT: "tile.desc_store"(%d, %j, %i, %a) : (!tile.desc<tensor<128x64xf16>>, i32, i32, tensor<128x64xf16>) -> ()
// GENERIC-NEXT: "tile.desc_store"(%d3, %i, %i, %j, %a3) : (!tile.desc<tensor<2x64x32xbf16>>, i32, i32, i32, tensor<2x64x32xbf16>) -> ()
// GENERIC: "tile.desc_store"(%d, %j, %i, %a) <{reduce = "add"}> : (!tile.desc<tensor<128x64xf16>>, i32, i32, tensor<128x64xf16>) -> ()
// GENERIC-NEXT: "tile.desc_store"(%di, %i, %j, %ai) <{reduce = "max"}> : (!tile.desc<tensor<64x32xi32>>, i32, i32, tensor<64x32xi32>) -> ()
func.func @tma(%d: !tile.desc<tensor<128x64xf16>>, %d3: !tile.desc<tensor<2x64x32xbf16>>, %i: i32, %j: i32,
               %di: !tile.desc<tensor<64x32xi32>>, %ai: tensor<64x32xi32>) {
  %a = tile.desc_load %d[%i, %j] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %a3 = tile.desc_load %d3[%i, %j, %i] : !tile.desc<tensor<2x64x32xbf16>> -> tensor<2x64x32xbf16>
  tile.desc_store %d[%j, %i], %a : !tile.desc<tensor<128x64xf16>>
  tile.desc_store %d3[%i, %i, %j], %a3 : !tile.desc<tensor<2x64x32xbf16>>
  // a 2-D block of a 3-D tensor: the leading index picks the slice (a head, a batch)
  %h = tile.desc_load %d[%i, %j, %i] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
  tile.desc_store %d[%i, %j, %i], %h : !tile.desc<tensor<128x64xf16>>
  // reducing stores (TMA reduce): each element combined with the one in memory
  tile.desc_store add %d[%j, %i], %a : !tile.desc<tensor<128x64xf16>>
  tile.desc_store max %di[%i, %j], %ai : !tile.desc<tensor<64x32xi32>>
  func.return
}

// CHECK-LABEL: func.func @dots(
// CHECK-NEXT: %d16 = tile.dot %a16, %b16, %acc : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
// CHECK-NEXT: %dbf = tile.dot %abf, %bbf, %d16 : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xf32>
// CHECK-NEXT: %de4 = tile.dot %ae4, %be4, %dbf : tensor<64x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<64x16xf32>
// CHECK-NEXT: %de5 = tile.dot %ae5, %be5, %de4 : tensor<64x32xf8E5M2>, tensor<32x16xf8E5M2> -> tensor<64x16xf32>
// GENERIC-LABEL: sym_name = "dots"
// GENERIC: %d16 = "tile.dot"(%a16, %b16, %acc) : (tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
// GENERIC-NEXT: %dbf = "tile.dot"(%abf, %bbf, %d16) : (tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
// GENERIC-NEXT: %de4 = "tile.dot"(%ae4, %be4, %dbf) : (tensor<64x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>, tensor<64x16xf32>) -> tensor<64x16xf32>
// GENERIC-NEXT: %de5 = "tile.dot"(%ae5, %be5, %de4) : (tensor<64x32xf8E5M2>, tensor<32x16xf8E5M2>, tensor<64x16xf32>) -> tensor<64x16xf32>
func.func @dots(%a16: tensor<64x32xf16>, %b16: tensor<32x16xf16>,
                %abf: tensor<64x32xbf16>, %bbf: tensor<32x16xbf16>,
                %ae4: tensor<64x32xf8E4M3FN>, %be4: tensor<32x16xf8E4M3FN>,
                %ae5: tensor<64x32xf8E5M2>, %be5: tensor<32x16xf8E5M2>,
                %acc: tensor<64x16xf32>) {
  %d16 = tile.dot %a16, %b16, %acc : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  %dbf = tile.dot %abf, %bbf, %d16 : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xf32>
  %de4 = tile.dot %ae4, %be4, %dbf : tensor<64x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<64x16xf32>
  %de5 = tile.dot %ae5, %be5, %de4 : tensor<64x32xf8E5M2>, tensor<32x16xf8E5M2> -> tensor<64x16xf32>
  func.return
}

// CHECK-LABEL: func.func @reductions(%x: tensor<128x64xf32>, %i: tensor<64xi32>)
// CHECK-NEXT: %sum = tile.reduce sum %x, 1 : tensor<128x64xf32> -> tensor<128xf32>
// CHECK-NEXT: %max = tile.reduce max %x, 0 : tensor<128x64xf32> -> tensor<64xf32>
// CHECK-NEXT: %min = tile.reduce min %i, 0 : tensor<64xi32> -> i32
// GENERIC-LABEL: sym_name = "reductions"
// GENERIC: %sum = "tile.reduce"(%x) <{axis = 1 : i32, kind = "sum"}> : (tensor<128x64xf32>) -> tensor<128xf32>
// GENERIC-NEXT: %max = "tile.reduce"(%x) <{axis = 0 : i32, kind = "max"}> : (tensor<128x64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: %min = "tile.reduce"(%i) <{axis = 0 : i32, kind = "min"}> : (tensor<64xi32>) -> i32
func.func @reductions(%x: tensor<128x64xf32>, %i: tensor<64xi32>) {
  %sum = tile.reduce sum %x, 1 : tensor<128x64xf32> -> tensor<128xf32>
  %max = tile.reduce max %x, 0 : tensor<128x64xf32> -> tensor<64xf32>
  %min = tile.reduce min %i, 0 : tensor<64xi32> -> i32
  func.return
}
