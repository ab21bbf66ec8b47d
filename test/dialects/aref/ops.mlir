// The aref ring type and its ops in custom form: round trip, generic form,
// and the generic form re-parsing to the same custom text.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @ring_types(%r1: !aref.ring<tensor<128x64xf16>, depth = 1>, %r3: !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>, %rf: !aref.ring<tensor<128xf32>, tensor<128x128xf32>, tensor<128xi1>, depth = 2>)
// GENERIC-LABEL: "func.func"() <{sym_name = "ring_types", function_type = (!aref.ring<tensor<128x64xf16>, depth = 1>, !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>, !aref.ring<tensor<128xf32>, tensor<128x128xf32>, tensor<128xi1>, depth = 2>) -> ()}>
func.func @ring_types(%r1: !aref.ring<tensor<128x64xf16>, depth = 1>,
                      %r3: !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>,
                      %rf: !aref.ring<tensor<128xf32>, tensor<128x128xf32>, tensor<128xi1>, depth = 2>) {
  func.return
}

// CHECK-LABEL: func.func @ring_ops(%a: tensor<128x64xf16>, %b: tensor<256x64xf16>, %k: i32, %k64: i64, %ki: index)
// CHECK-NEXT: %one = aref.create : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT: %two = aref.create consumers = 2 : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// CHECK-NEXT: aref.put %one[%k], %a : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT: %x = aref.get %one[%k] : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT: aref.consumed %one[%k] : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT: aref.put %two[%k64 : i64], %a, %b : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// CHECK-NEXT: %y, %z = aref.get %two[%k64 : i64] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// CHECK-NEXT: aref.consumed %two[%ki : index] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// GENERIC-LABEL: sym_name = "ring_ops"
// GENERIC: %one = "aref.create"() : () -> !aref.ring<tensor<128x64xf16>, depth = 2>
// GENERIC-NEXT: %two = "aref.create"() <{consumers = 2 : i32}> : () -> !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// GENERIC-NEXT: "aref.put"(%one, %k, %a) : (!aref.ring<tensor<128x64xf16>, depth = 2>, i32, tensor<128x64xf16>) -> ()
// GENERIC-NEXT: %x = "aref.get"(%one, %k) : (!aref.ring<tensor<128x64xf16>, depth = 2>, i32) -> tensor<128x64xf16>
// GENERIC-NEXT: "aref.consumed"(%one, %k) : (!aref.ring<tensor<128x64xf16>, depth = 2>, i32) -> ()
// GENERIC-NEXT: "aref.put"(%two, %k64, %a, %b) : (!aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>, i64, tensor<128x64xf16>, tensor<256x64xf16>) -> ()
// GENERIC-NEXT: %y, %z = "aref.get"(%two, %k64) : (!aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>, i64) -> (tensor<128x64xf16>, tensor<256x64xf16>)
// GENERIC-NEXT: "aref.consumed"(%two, %ki) : (!aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>, index) -> ()
func.func @ring_ops(%a: tensor<128x64xf16>, %b: tensor<256x64xf16>, %k: i32, %k64: i64, %ki: index) {
  %one = aref.create : !aref.ring<tensor<128x64xf16>, depth = 2>
  %two = aref.create consumers = 2 : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
  aref.put %one[%k], %a : !aref.ring<tensor<128x64xf16>, depth = 2>
  %x = aref.get %one[%k] : !aref.ring<tensor<128x64xf16>, depth = 2>
  aref.consumed %one[%k] : !aref.ring<tensor<128x64xf16>, depth = 2>
  aref.put %two[%k64 : i64], %a, %b : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
  %y, %z = aref.get %two[%k64 : i64] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
  aref.consumed %two[%ki : index] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
  func.return
}

// An explicitly written `: i32` position is the default and prints without it.
// CHECK-LABEL: func.func @default_position(%a: tensor<64xf32>, %k: i32)
// CHECK-NEXT: %r = aref.create : !aref.ring<tensor<64xf32>, depth = 1>
// CHECK-NEXT: aref.put %r[%k], %a : !aref.ring<tensor<64xf32>, depth = 1>
// CHECK-NEXT: %v = aref.get %r[%k] : !aref.ring<tensor<64xf32>, depth = 1>
func.func @default_position(%a: tensor<64xf32>, %k: i32) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 1>
  aref.put %r[%k : i32], %a : !aref.ring<tensor<64xf32>, depth = 1>
  %v = aref.get %r[%k : i32] : !aref.ring<tensor<64xf32>, depth = 1>
  func.return
}
