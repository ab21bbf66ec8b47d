// ws-producer-transpose: placement=producer where the producer cannot have the registers (a
// 256x128 byte tile over 128 threads: 64 + 16 registers, more than the 56 it may have)
// is a located error; placement=auto leaves such a tile to the consumers; a bad placement is named.
//
// RUN: not ws-opt %s -p 'ws-producer-transpose{placement=producer}' 2>&1 | filecheck %s
// RUN: ws-opt %s -p ws-producer-transpose | filecheck %s --check-prefix=AUTO
// RUN: not ws-opt %s -p 'ws-producer-transpose{placement=both}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK: ws-producer-transpose-invalid.mlir:[[# @LINE + 17]]:9: error: ws-producer-transpose: the producer would need 80 registers a thread to transpose this tile, more than the 56 the register file leaves it (use placement=consumer)
// CHECK-NOT: Traceback

// AUTO:     warp_group.partition 0 producer warps 4 regs 40 {
// AUTO-NOT: aref_vt
// AUTO:     %v_1 = aref.get %aref_v[%j_1]
// AUTO-NEXT: %a = mma.async_dot %p, %v_1, %acc

// BAD: error: ws-producer-transpose: placement must be auto, producer or consumer, got 'both'

func.func @pv(%v_desc: !tile.desc<tensor<256x128xf8E4M3FN>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %aref_v = aref.create : !aref.ring<tensor<256x128xf8E4M3FN>, depth = 2>
  warp_group.region {
    warp_group.partition 0 producer warps 4 regs 40 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        %v = tile.desc_load %v_desc[%j, %c0] : !tile.desc<tensor<256x128xf8E4M3FN>> -> tensor<256x128xf8E4M3FN>
        aref.put %aref_v[%j], %v : !aref.ring<tensor<256x128xf8E4M3FN>, depth = 2>
      }
    }
    warp_group.partition 1 consumer warps 8 regs 232 {
      %p = arith.constant dense<1.0> : tensor<128x256xf8E4M3FN>
      %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
      %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
        %v = aref.get %aref_v[%j] : !aref.ring<tensor<256x128xf8E4M3FN>, depth = 2>
        %a = mma.async_dot %p, %v, %acc : tensor<128x256xf8E4M3FN>, tensor<256x128xf8E4M3FN> -> tensor<128x128xf32>
        %a2 = mma.wait %a {pending = 0} : tensor<128x128xf32>
        aref.consumed %aref_v[%j] : !aref.ring<tensor<256x128xf8E4M3FN>, depth = 2>
        scf.yield %a2 : tensor<128x128xf32>
      }
    }
  }
  func.return
}
