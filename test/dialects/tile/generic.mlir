// The generic form of every tile op, exactly as tile-dialect.md specifies it
// (the form other tests and the reference kernels are written in), parses,
// prints in the custom form, and prints back to the same generic form.
// RUN: ws-opt %s | filecheck %s
// RUN: ws-opt %s | ws-opt --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @all_ops(%d: !tile.desc<tensor<64x32xf16>>, %p: !tile.ptr<f32>, %n: i32, %acc: tensor<64x64xf32>)
// CHECK-SAME: attributes {tile.kernel, tile.num_warps = 8 : i32}
// CHECK-NEXT: %pid = tile.program_id 1 : i32
// CHECK-NEXT: %np = tile.num_programs 0 : i32
// CHECK-NEXT: %r = tile.make_range 0 to 64 : tensor<64xi32>
// CHECK-NEXT: %nv = tile.splat %n : i32 -> tensor<64xi32>
// CHECK-NEXT: %re = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
// CHECK-NEXT: %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
// CHECK-NEXT: %a = tile.desc_load %d[%pid, %n] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
// CHECK-NEXT: %at = tile.trans %a [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
// CHECK-NEXT: %c = tile.dot %a, %at, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: %s = tile.reduce sum %c, 1 : tensor<64x64xf32> -> tensor<64xf32>
// CHECK-NEXT: %m = tile.reduce max %c, 0 : tensor<64x64xf32> -> tensor<64xf32>
// CHECK-NEXT: %lo = tile.reduce min %s, 0 : tensor<64xf32> -> f32
// CHECK-NEXT: %base = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %ptrs = tile.addptr %base, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
// CHECK-NEXT: %mask = arith.cmpi slt, %r, %nv : tensor<64xi32>
// CHECK-NEXT: %old = tile.load %ptrs, %mask, %m : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
// CHECK-NEXT: %new = arith.addf %old, %s : tensor<64xf32>
// CHECK-NEXT: tile.store %ptrs, %new, %mask : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %a16 = arith.truncf %c : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT: %a16s = tile.trans %a16 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT: %blk = tile.desc_load %d[%n, %pid] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
// CHECK-NEXT: tile.desc_store %d[%n, %pid], %blk : !tile.desc<tensor<64x32xf16>>
// CHECK-NEXT: func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "all_ops", function_type = (!tile.desc<tensor<64x32xf16>>, !tile.ptr<f32>, i32, tensor<64x64xf32>) -> ()}>
// GENERIC: %pid = "tile.program_id"() <{axis = 1 : i32}> : () -> i32
// GENERIC-NEXT: %np = "tile.num_programs"() <{axis = 0 : i32}> : () -> i32
// GENERIC-NEXT: %r = "tile.make_range"() <{start = 0 : i32, end = 64 : i32}> : () -> tensor<64xi32>
// GENERIC-NEXT: %nv = "tile.splat"(%n) : (i32) -> tensor<64xi32>
// GENERIC-NEXT: %re = "tile.expand_dims"(%r) <{axis = 1 : i32}> : (tensor<64xi32>) -> tensor<64x1xi32>
// GENERIC-NEXT: %rb = "tile.broadcast"(%re) : (tensor<64x1xi32>) -> tensor<64x64xi32>
// GENERIC-NEXT: %a = "tile.desc_load"(%d, %pid, %n) : (!tile.desc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
// GENERIC-NEXT: %at = "tile.trans"(%a) <{order = array<i32: 1, 0>}> : (tensor<64x32xf16>) -> tensor<32x64xf16>
// GENERIC-NEXT: %c = "tile.dot"(%a, %at, %acc) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
// GENERIC-NEXT: %s = "tile.reduce"(%c) <{axis = 1 : i32, kind = "sum"}> : (tensor<64x64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: %m = "tile.reduce"(%c) <{axis = 0 : i32, kind = "max"}> : (tensor<64x64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: %lo = "tile.reduce"(%s) <{axis = 0 : i32, kind = "min"}> : (tensor<64xf32>) -> f32
// GENERIC-NEXT: %base = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
// GENERIC-NEXT: %ptrs = "tile.addptr"(%base, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
// GENERIC-NEXT: %mask = "arith.cmpi"(%r, %nv) <{predicate = 2 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %old = "tile.load"(%ptrs, %mask, %m) : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: %new = "arith.addf"(%old, %s) <{fastmath = #arith.fastmath<none>}> : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: "tile.store"(%ptrs, %new, %mask) : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
// GENERIC-NEXT: %a16 = "arith.truncf"(%c) : (tensor<64x64xf32>) -> tensor<64x64xf16>
// GENERIC-NEXT: %a16s = "tile.trans"(%a16) <{order = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
// GENERIC-NEXT: %blk = "tile.desc_load"(%d, %n, %pid) : (!tile.desc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
// GENERIC-NEXT: "tile.desc_store"(%d, %n, %pid, %blk) : (!tile.desc<tensor<64x32xf16>>, i32, i32, tensor<64x32xf16>) -> ()
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) {tile.kernel, tile.num_warps = 8 : i32} : () -> ()
"builtin.module"() ({
  "func.func"() <{sym_name = "all_ops", function_type = (!tile.desc<tensor<64x32xf16>>, !tile.ptr<f32>, i32, tensor<64x64xf32>) -> ()}> ({
  ^bb0(%d: !tile.desc<tensor<64x32xf16>>, %p: !tile.ptr<f32>, %n: i32, %acc: tensor<64x64xf32>):
    %pid = "tile.program_id"() <{axis = 1 : i32}> : () -> i32
    %np = "tile.num_programs"() <{axis = 0 : i32}> : () -> i32
    %r = "tile.make_range"() <{start = 0 : i32, end = 64 : i32}> : () -> tensor<64xi32>
    %nv = "tile.splat"(%n) : (i32) -> tensor<64xi32>
    %re = "tile.expand_dims"(%r) <{axis = 1 : i32}> : (tensor<64xi32>) -> tensor<64x1xi32>
    %rb = "tile.broadcast"(%re) : (tensor<64x1xi32>) -> tensor<64x64xi32>
    %a = "tile.desc_load"(%d, %pid, %n) : (!tile.desc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
    %at = "tile.trans"(%a) <{order = array<i32: 1, 0>}> : (tensor<64x32xf16>) -> tensor<32x64xf16>
    %c = "tile.dot"(%a, %at, %acc) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %s = "tile.reduce"(%c) <{axis = 1 : i32, kind = "sum"}> : (tensor<64x64xf32>) -> tensor<64xf32>
    %m = "tile.reduce"(%c) <{axis = 0 : i32, kind = "max"}> : (tensor<64x64xf32>) -> tensor<64xf32>
    %lo = "tile.reduce"(%s) <{axis = 0 : i32, kind = "min"}> : (tensor<64xf32>) -> f32
    %base = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
    %ptrs = "tile.addptr"(%base, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
    %mask = "arith.cmpi"(%r, %nv) <{predicate = 2 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
    %old = "tile.load"(%ptrs, %mask, %m) : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
    %new = "arith.addf"(%old, %s) <{fastmath = #arith.fastmath<none>}> : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    "tile.store"(%ptrs, %new, %mask) : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
    %a16 = "arith.truncf"(%c) : (tensor<64x64xf32>) -> tensor<64x64xf16>
    %a16s = "tile.trans"(%a16) <{order = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %blk = "tile.desc_load"(%d, %n, %pid) : (!tile.desc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
    "tile.desc_store"(%d, %n, %pid, %blk) : (!tile.desc<tensor<64x32xf16>>, i32, i32, tensor<64x32xf16>) -> ()
    "func.return"() : () -> ()
  }) {tile.kernel, tile.num_warps = 8 : i32} : () -> ()
}) : () -> ()
