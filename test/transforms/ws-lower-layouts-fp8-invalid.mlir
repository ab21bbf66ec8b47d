// ws-lower-layouts converts an 8-bit register A (an fp8 P) from the accumulator fragment into
// wgmma's 8-bit A fragment only; an fp8 A in any other register layout is a located error at
// the dot (ws-stage-operands, which ws-hopper runs first, would stage this transposed one in
// shared memory, where fp8 wgmma cannot read it M-contiguous either: ws-lower-mma's error).
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-lower-mma,ws-lower-layouts > /dev/null

// -----

func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<1x128x64xf8E4M3FN, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<1x64x128xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
    }
    nvgpu.wg.branch warps 4 to 8 "consumer" {
      %c0 = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%c0] : memref<1x128x64xf8E4M3FN, 3 : i64>
      %at = tile.trans %a [1, 0] : tensor<128x64xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
      %zero = arith.constant dense<0.0> : tensor<128x128xf32>
      %s = tile.dot %a, %at, %zero : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x128xf32>
      %p8 = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xf8E4M3FN>
      %pt = tile.trans %p8 [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
      %b = nvgpu.smem.view %bbuf[%c0] : memref<1x64x128xf8E4M3FN, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x128xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
      %acc = arith.constant dense<0.0> : tensor<128x64xf32>
      // expected-error-re@+1 {{ws-lower-layouts: the A operand of this dot is an 8-bit register tile in #layout.permute<order = [1, 0], {{.*}}>; only a tile in the accumulator fragment #layout.wgmma<warp_groups = 1> {{.*}} is converted into wgmma's 8-bit A fragment #layout.operand_a<parent = #layout.wgmma<warp_groups = 1>>}}
      %d = tile.dot %pt, %bt, %acc : tensor<128x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<128x64xf32>
    }
  }
  func.return
}
