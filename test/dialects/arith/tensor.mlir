// arith and math on tiles with MLIR's semantics, including the forms stock
// xDSL 0.74 rejects (tensor compares, tensor select conditions, int<->float
// casts on tensors) and hexadecimal float constants.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @compare_select(%a: tensor<64xi32>, %b: tensor<64xi32>, %x: tensor<64xf32>, %y: tensor<64xf32>, %s: i32, %t: i32)
// CHECK-NEXT: %eq = arith.cmpi eq, %a, %b : tensor<64xi32>
// CHECK-NEXT: %ne = arith.cmpi ne, %a, %b : tensor<64xi32>
// CHECK-NEXT: %slt = arith.cmpi slt, %a, %b : tensor<64xi32>
// CHECK-NEXT: %sge = arith.cmpi sge, %a, %b : tensor<64xi32>
// CHECK-NEXT: %ult = arith.cmpi ult, %a, %b : tensor<64xi32>
// CHECK-NEXT: %scalar = arith.cmpi sgt, %s, %t : i32
// CHECK-NEXT: %olt = arith.cmpf olt, %x, %y : tensor<64xf32>
// CHECK-NEXT: %oge = arith.cmpf oge, %x, %y : tensor<64xf32>
// CHECK-NEXT: %une = arith.cmpf une, %x, %y : tensor<64xf32>
// CHECK-NEXT: %sel = arith.select %olt, %x, %y : tensor<64xi1>, tensor<64xf32>
// CHECK-NEXT: %seli = arith.select %slt, %a, %b : tensor<64xi1>, tensor<64xi32>
// CHECK-NEXT: %sels = arith.select %scalar, %x, %y : tensor<64xf32>
// CHECK-NEXT: %selss = arith.select %scalar, %s, %t : i32
// CHECK-NEXT: %both = arith.andi %eq, %olt : tensor<64xi1>
// GENERIC-LABEL: sym_name = "compare_select"
// GENERIC: %eq = "arith.cmpi"(%a, %b) <{predicate = 0 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %ne = "arith.cmpi"(%a, %b) <{predicate = 1 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %slt = "arith.cmpi"(%a, %b) <{predicate = 2 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %sge = "arith.cmpi"(%a, %b) <{predicate = 5 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %ult = "arith.cmpi"(%a, %b) <{predicate = 6 : i64}> : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
// GENERIC-NEXT: %scalar = "arith.cmpi"(%s, %t) <{predicate = 4 : i64}> : (i32, i32) -> i1
// GENERIC-NEXT: %olt = "arith.cmpf"(%x, %y) <{predicate = 4 : i64, fastmath = #arith.fastmath<none>}> : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
// GENERIC-NEXT: %oge = "arith.cmpf"(%x, %y) <{predicate = 3 : i64, fastmath = #arith.fastmath<none>}> : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
// GENERIC-NEXT: %une = "arith.cmpf"(%x, %y) <{predicate = 13 : i64, fastmath = #arith.fastmath<none>}> : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
// GENERIC-NEXT: %sel = "arith.select"(%olt, %x, %y) : (tensor<64xi1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: %seli = "arith.select"(%slt, %a, %b) : (tensor<64xi1>, tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
// GENERIC-NEXT: %sels = "arith.select"(%scalar, %x, %y) : (i1, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// GENERIC-NEXT: %selss = "arith.select"(%scalar, %s, %t) : (i1, i32, i32) -> i32
func.func @compare_select(%a: tensor<64xi32>, %b: tensor<64xi32>, %x: tensor<64xf32>, %y: tensor<64xf32>, %s: i32, %t: i32) {
  %eq = arith.cmpi eq, %a, %b : tensor<64xi32>
  %ne = arith.cmpi ne, %a, %b : tensor<64xi32>
  %slt = arith.cmpi slt, %a, %b : tensor<64xi32>
  %sge = arith.cmpi sge, %a, %b : tensor<64xi32>
  %ult = arith.cmpi ult, %a, %b : tensor<64xi32>
  %scalar = arith.cmpi sgt, %s, %t : i32
  %olt = arith.cmpf olt, %x, %y : tensor<64xf32>
  %oge = arith.cmpf oge, %x, %y : tensor<64xf32>
  %une = arith.cmpf une, %x, %y : tensor<64xf32>
  %sel = arith.select %olt, %x, %y : tensor<64xi1>, tensor<64xf32>
  %seli = arith.select %slt, %a, %b : tensor<64xi1>, tensor<64xi32>
  %sels = arith.select %scalar, %x, %y : tensor<64xf32>
  %selss = arith.select %scalar, %s, %t : i32
  %both = arith.andi %eq, %olt : tensor<64xi1>
  func.return
}

// CHECK-LABEL: func.func @casts(%i: tensor<64xi32>, %f: tensor<64xf32>, %h: tensor<64xf16>, %s: i32)
// CHECK-NEXT: %sf = arith.sitofp %i : tensor<64xi32> to tensor<64xf32>
// CHECK-NEXT: %uf = arith.uitofp %i : tensor<64xi32> to tensor<64xf16>
// CHECK-NEXT: %fs = arith.fptosi %f : tensor<64xf32> to tensor<64xi32>
// CHECK-NEXT: %fu = arith.fptoui %h : tensor<64xf16> to tensor<64xi64>
// CHECK-NEXT: %ss = arith.sitofp %s : i32 to f32
// CHECK-NEXT: %ext = arith.extf %h : tensor<64xf16> to tensor<64xf32>
// CHECK-NEXT: %tr = arith.truncf %f : tensor<64xf32> to tensor<64xbf16>
// CHECK-NEXT: %e4 = arith.truncf %f : tensor<64xf32> to tensor<64xf8E4M3FN>
// CHECK-NEXT: %e5 = arith.truncf %h : tensor<64xf16> to tensor<64xf8E5M2>
// CHECK-NEXT: %back = arith.extf %e4 : tensor<64xf8E4M3FN> to tensor<64xf32>
// GENERIC-LABEL: sym_name = "casts"
// GENERIC: %sf = "arith.sitofp"(%i) : (tensor<64xi32>) -> tensor<64xf32>
// GENERIC-NEXT: %uf = "arith.uitofp"(%i) : (tensor<64xi32>) -> tensor<64xf16>
// GENERIC-NEXT: %fs = "arith.fptosi"(%f) : (tensor<64xf32>) -> tensor<64xi32>
// GENERIC-NEXT: %fu = "arith.fptoui"(%h) : (tensor<64xf16>) -> tensor<64xi64>
// GENERIC-NEXT: %ss = "arith.sitofp"(%s) : (i32) -> f32
// GENERIC-NEXT: %ext = "arith.extf"(%h) : (tensor<64xf16>) -> tensor<64xf32>
// GENERIC-NEXT: %tr = "arith.truncf"(%f) : (tensor<64xf32>) -> tensor<64xbf16>
// GENERIC-NEXT: %e4 = "arith.truncf"(%f) : (tensor<64xf32>) -> tensor<64xf8E4M3FN>
func.func @casts(%i: tensor<64xi32>, %f: tensor<64xf32>, %h: tensor<64xf16>, %s: i32) {
  %sf = arith.sitofp %i : tensor<64xi32> to tensor<64xf32>
  %uf = arith.uitofp %i : tensor<64xi32> to tensor<64xf16>
  %fs = arith.fptosi %f : tensor<64xf32> to tensor<64xi32>
  %fu = arith.fptoui %h : tensor<64xf16> to tensor<64xi64>
  %ss = arith.sitofp %s : i32 to f32
  %ext = arith.extf %h : tensor<64xf16> to tensor<64xf32>
  %tr = arith.truncf %f : tensor<64xf32> to tensor<64xbf16>
  %e4 = arith.truncf %f : tensor<64xf32> to tensor<64xf8E4M3FN>
  %e5 = arith.truncf %h : tensor<64xf16> to tensor<64xf8E5M2>
  %back = arith.extf %e4 : tensor<64xf8E4M3FN> to tensor<64xf32>
  func.return
}

// CHECK-LABEL: func.func @elementwise(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %i: tensor<8x16xi32>, %j: tensor<8x16xi32>, %n: i32, %m: i32)
// CHECK-NEXT: %0 = arith.addf %x, %y : tensor<8x16xf32>
// CHECK-NEXT: %1 = arith.subf %0, %y : tensor<8x16xf32>
// CHECK-NEXT: %2 = arith.mulf %1, %x : tensor<8x16xf32>
// CHECK-NEXT: %3 = arith.divf %2, %y : tensor<8x16xf32>
// CHECK-NEXT: %4 = arith.maximumf %3, %x : tensor<8x16xf32>
// CHECK-NEXT: %5 = arith.minimumf %4, %y : tensor<8x16xf32>
// CHECK-NEXT: %6 = arith.negf %5 : tensor<8x16xf32>
// CHECK-NEXT: %7 = arith.addi %i, %j : tensor<8x16xi32>
// CHECK-NEXT: %8 = arith.subi %7, %j : tensor<8x16xi32>
// CHECK-NEXT: %9 = arith.muli %8, %i : tensor<8x16xi32>
// CHECK-NEXT: %10 = arith.divsi %9, %j : tensor<8x16xi32>
// CHECK-NEXT: %11 = arith.remsi %10, %j : tensor<8x16xi32>
// CHECK-NEXT: %12 = arith.andi %11, %i : tensor<8x16xi32>
// CHECK-NEXT: %13 = arith.ori %12, %i : tensor<8x16xi32>
// CHECK-NEXT: %14 = arith.xori %13, %i : tensor<8x16xi32>
// CHECK-NEXT: %15 = arith.ceildivsi %n, %m : i32
// CHECK-NEXT: %16 = math.exp %x : tensor<8x16xf32>
// CHECK-NEXT: %17 = math.exp2 %16 : tensor<8x16xf32>
// CHECK-NEXT: %18 = math.log %17 : tensor<8x16xf32>
// CHECK-NEXT: %19 = math.sqrt %18 : tensor<8x16xf32>
// CHECK-NEXT: %20 = math.rsqrt %19 : tensor<8x16xf32>
// GENERIC-LABEL: sym_name = "elementwise"
// GENERIC: %0 = "arith.addf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC: %7 = "arith.addi"(%i, %j) <{overflowFlags = #arith.overflow<none>}> : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
// GENERIC: %15 = "arith.ceildivsi"(%n, %m) : (i32, i32) -> i32
// GENERIC-NEXT: %16 = "math.exp"(%x) <{fastmath = #arith.fastmath<none>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @elementwise(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %i: tensor<8x16xi32>, %j: tensor<8x16xi32>, %n: i32, %m: i32) {
  %0 = arith.addf %x, %y : tensor<8x16xf32>
  %1 = arith.subf %0, %y : tensor<8x16xf32>
  %2 = arith.mulf %1, %x : tensor<8x16xf32>
  %3 = arith.divf %2, %y : tensor<8x16xf32>
  %4 = arith.maximumf %3, %x : tensor<8x16xf32>
  %5 = arith.minimumf %4, %y : tensor<8x16xf32>
  %6 = arith.negf %5 : tensor<8x16xf32>
  %7 = arith.addi %i, %j : tensor<8x16xi32>
  %8 = arith.subi %7, %j : tensor<8x16xi32>
  %9 = arith.muli %8, %i : tensor<8x16xi32>
  %10 = arith.divsi %9, %j : tensor<8x16xi32>
  %11 = arith.remsi %10, %j : tensor<8x16xi32>
  %12 = arith.andi %11, %i : tensor<8x16xi32>
  %13 = arith.ori %12, %i : tensor<8x16xi32>
  %14 = arith.xori %13, %i : tensor<8x16xi32>
  %15 = arith.ceildivsi %n, %m : i32
  %16 = math.exp %x : tensor<8x16xf32>
  %17 = math.exp2 %16 : tensor<8x16xf32>
  %18 = math.log %17 : tensor<8x16xf32>
  %19 = math.sqrt %18 : tensor<8x16xf32>
  %20 = math.rsqrt %19 : tensor<8x16xf32>
  func.return
}

// Hexadecimal elements of a float tensor are bit patterns (MLIR's reading):
// 0xFF800000 is -inf in f32, 0xFC00 in f16, 0xFF80 in bf16; 0x3F800000 is 1.0
// (printed as a number: it is not special); +inf and NaN stay bit patterns.
// CHECK-LABEL: func.func @constants()
// CHECK-NEXT: %ninf = arith.constant dense<{{0x[fF][fF]800000}}> : tensor<128xf32>
// CHECK-NEXT: %ninf16 = arith.constant dense<{{0x[fF][cC]00}}> : tensor<4xf16>
// CHECK-NEXT: %ninfbf = arith.constant dense<{{0x[fF][fF]80}}> : tensor<2xbf16>
// CHECK-NEXT: %special = arith.constant dense<[{{0x7[fF]800000}}, {{0x[fF][fF]800000}}, {{0x7[fF][cC]00000}}]> : tensor<3xf32>
// CHECK-NEXT: %one = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %iv = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK-NEXT: %hexi = arith.constant dense<255> : tensor<4xi32>
// CHECK-NEXT: %b = arith.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: %c = arith.constant 7 : i32
// CHECK-NEXT: %f = arith.constant 1.4426950{{[0-9]*}} : f32
func.func @constants() {
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %ninf16 = arith.constant dense<0xFC00> : tensor<4xf16>
  %ninfbf = arith.constant dense<0xFF80> : tensor<2xbf16>
  %special = arith.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<3xf32>
  %one = arith.constant dense<0x3F800000> : tensor<4xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %iv = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %hexi = arith.constant dense<0xFF> : tensor<4xi32>
  %b = arith.constant dense<true> : tensor<4xi1>
  %c = arith.constant 7 : i32
  %f = arith.constant 1.44269504 : f32
  func.return
}

// Discardable attributes (the passes' annotations) and fastmath flags survive
// the custom form of compares and selects (xDSL 0.74's cmpi/cmpf drop them).
// CHECK-LABEL: func.func @annotated(%a: tensor<8xi32>, %x: tensor<8xf32>)
// CHECK-NEXT: %m = arith.cmpi slt, %a, %a {ws.partition = array<i32: 1>} : tensor<8xi32>
// CHECK-NEXT: %f = arith.cmpf olt, %x, %x fastmath<fast> {ws.role = "tile"} : tensor<8xf32>
// CHECK-NEXT: %s = arith.select %f, %x, %x {ws.role = "tile"} : tensor<8xi1>, tensor<8xf32>
// GENERIC-LABEL: sym_name = "annotated"
// GENERIC: %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> {ws.partition = array<i32: 1>} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
// GENERIC-NEXT: %f = "arith.cmpf"(%x, %x) <{predicate = 4 : i64, fastmath = #arith.fastmath<fast>}> {ws.role = "tile"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
func.func @annotated(%a: tensor<8xi32>, %x: tensor<8xf32>) {
  %m = arith.cmpi slt, %a, %a {ws.partition = array<i32: 1>} : tensor<8xi32>
  %f = arith.cmpf olt, %x, %x fastmath<fast> {ws.role = "tile"} : tensor<8xf32>
  %s = arith.select %f, %x, %x {ws.role = "tile"} : tensor<8xi1>, tensor<8xf32>
  func.return
}
