// warp_group.region / warp_group.partition in custom form: round trip, generic
// form, and the generic form re-parsing to the same custom text. A producer
// and a consumer exchange tiles only through an aref ring.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @specialized(%d: !tile.desc<tensor<128x64xf16>>, %n: i32)
// CHECK-SAME: attributes {tile.kernel, tile.num_warps = 12 : i32}
// CHECK-NEXT: %c0 = arith.constant 0 : i32
// CHECK-NEXT: %c1 = arith.constant 1 : i32
// CHECK-NEXT: %r = aref.create : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT: warp_group.region {
// CHECK-NEXT:   warp_group.partition 0 producer warps 4 regs 40 {
// CHECK-NEXT:     scf.for %k = %c0 to %n step %c1 : i32 {
// CHECK-NEXT:       %a = tile.desc_load %d[%k, %c0] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
// CHECK-NEXT:       aref.put %r[%k], %a : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   warp_group.partition 1 consumer warps 8 regs 232 {
// CHECK-NEXT:     scf.for %j = %c0 to %n step %c1 : i32 {
// CHECK-NEXT:       %b = aref.get %r[%j] : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT:       %s = tile.reduce sum %b, 1 : tensor<128x64xf16> -> tensor<128xf16>
// CHECK-NEXT:       aref.consumed %r[%j] : !aref.ring<tensor<128x64xf16>, depth = 2>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GENERIC-LABEL: sym_name = "specialized"
// GENERIC: "warp_group.region"() ({
// GENERIC-NEXT: "warp_group.partition"() <{id = 0 : i32, num_warps = 4 : i32, regs = 40 : i32, role = "producer"}> ({
// GENERIC: "aref.put"(%r, %k, %a) : (!aref.ring<tensor<128x64xf16>, depth = 2>, i32, tensor<128x64xf16>) -> ()
// GENERIC: }) : () -> ()
// GENERIC-NEXT: "warp_group.partition"() <{id = 1 : i32, num_warps = 8 : i32, regs = 232 : i32, role = "consumer"}> ({
// GENERIC: %b = "aref.get"(%r, %j) : (!aref.ring<tensor<128x64xf16>, depth = 2>, i32) -> tensor<128x64xf16>
// GENERIC: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
func.func @specialized(%d: !tile.desc<tensor<128x64xf16>>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 12 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = aref.create : !aref.ring<tensor<128x64xf16>, depth = 2>
  warp_group.region {
    warp_group.partition 0 producer warps 4 regs 40 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %a = tile.desc_load %d[%k, %c0] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
        aref.put %r[%k], %a : !aref.ring<tensor<128x64xf16>, depth = 2>
      }
    }
    warp_group.partition 1 consumer warps 8 regs 232 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        %b = aref.get %r[%j] : !aref.ring<tensor<128x64xf16>, depth = 2>
        %s = tile.reduce sum %b, 1 : tensor<128x64xf16> -> tensor<128xf16>
        aref.consumed %r[%j] : !aref.ring<tensor<128x64xf16>, depth = 2>
      }
    }
  }
  func.return
}

// Role and register budget are optional (a role that is not an identifier is
// quoted); partitions may be empty; extra attributes follow the body.
// CHECK-LABEL: func.func @optional_parts(%n: i32)
// CHECK-NEXT: warp_group.region {
// CHECK-NEXT:   warp_group.partition 0 warps 4 {
// CHECK-NEXT:     %x = arith.addi %n, %n : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   warp_group.partition 3 epilogue warps 4 {
// CHECK-NEXT:   } attributes {ws.note = "empty"}
// CHECK-NEXT:   warp_group.partition 7 warps 8 regs 24 {
// CHECK-NEXT:   }
// CHECK-NEXT:   warp_group.partition 9 "tma loads" warps 4 {
// CHECK-NEXT:   }
// CHECK-NEXT: } attributes {ws.stage = 1 : i64}
// GENERIC-LABEL: sym_name = "optional_parts"
// GENERIC: "warp_group.partition"() <{id = 0 : i32, num_warps = 4 : i32}> ({
// GENERIC: "warp_group.partition"() <{id = 3 : i32, num_warps = 4 : i32, role = "epilogue"}> ({
// GENERIC: }) {ws.note = "empty"} : () -> ()
// GENERIC: "warp_group.partition"() <{id = 7 : i32, num_warps = 8 : i32, regs = 24 : i32}> ({
// GENERIC: "warp_group.partition"() <{id = 9 : i32, num_warps = 4 : i32, role = "tma loads"}> ({
// GENERIC: }) {ws.stage = 1 : i64} : () -> ()
func.func @optional_parts(%n: i32) {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
    warp_group.partition 3 epilogue warps 4 {
    } attributes {ws.note = "empty"}
    warp_group.partition 7 warps 8 regs 24 {}
    warp_group.partition 9 "tma loads" warps 4 {}
  } attributes {ws.stage = 1}
  func.return
}

// Cooperative groups: share narrows a tile all groups read to the group's slice;
// gather assembles a tile from the groups' slices.
// CHECK-LABEL: func.func @cooperative
// CHECK: %a0 = warp_group.share %a, 1 of 2 along 0 : tensor<128x64xf16> -> tensor<64x64xf16>
// CHECK: %all = warp_group.gather %a0, 1 of 2 along 0 : tensor<64x64xf16> -> tensor<128x64xf16>
// CHECK: %cols = warp_group.gather %a0, 0 of 4 along 1 : tensor<64x64xf16> -> tensor<64x256xf16>
// GENERIC-LABEL: sym_name = "cooperative"
// GENERIC: "warp_group.share"(%a) <{group = 1 : i32, groups = 2 : i32, axis = 0 : i32}> : (tensor<128x64xf16>) -> tensor<64x64xf16>
// GENERIC: "warp_group.gather"(%a0) <{group = 1 : i32, groups = 2 : i32, axis = 0 : i32}> : (tensor<64x64xf16>) -> tensor<128x64xf16>
func.func @cooperative(%a: tensor<128x64xf16>) {
  %a0 = warp_group.share %a, 1 of 2 along 0 : tensor<128x64xf16> -> tensor<64x64xf16>
  %all = warp_group.gather %a0, 1 of 2 along 0 : tensor<64x64xf16> -> tensor<128x64xf16>
  %cols = warp_group.gather %a0, 0 of 4 along 1 : tensor<64x64xf16> -> tensor<64x256xf16>
  func.return
}

// Turns of a cooperative team (ws-pingpong): group 1 of 2 waits for its turn and
// passes it on.
// CHECK-LABEL: func.func @turns
// CHECK: warp_group.partition 2 consumer1 warps 4 {
// CHECK-NEXT: warp_group.turn_wait 1 of 2
// CHECK-NEXT: warp_group.turn_pass 1 of 2 {ws.note = "x"}
// GENERIC-LABEL: sym_name = "turns"
// GENERIC: "warp_group.turn_wait"() <{group = 1 : i32, groups = 2 : i32}> : () -> ()
// GENERIC: "warp_group.turn_pass"() <{group = 1 : i32, groups = 2 : i32}> {ws.note = "x"} : () -> ()
func.func @turns() {
  warp_group.region {
    warp_group.partition 2 consumer1 warps 4 {
      warp_group.turn_wait 1 of 2
      warp_group.turn_pass 1 of 2 {ws.note = "x"}
    }
  }
  func.return
}
