// ws-stage-operands' refusals, and what stays refused after it: each a located error, never a
// traceback. Each `// -----` part is one input (ws-stage-operands.mlir has the valid ones).
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-stage-operands,ws-lower-mma > /dev/null

// -----

// A register B whose rows (8 f16: 16 bytes) have no wgmma swizzle: it cannot be staged.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<1x64x16xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %c0 = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%c0] : memref<1x64x16xf16, 3 : i64>
      %b = arith.constant dense<1.0> : tensor<16x8xf16>
      %acc = arith.constant dense<0.0> : tensor<64x8xf32>
      // expected-error@+1 {{ws-stage-operands: operand B of this dot is a register tile that wgmma must read from shared memory, but a row of 16 bytes has no wgmma swizzle (need 32, 64 or a multiple of 128 bytes)}}
      %d = tile.dot %a, %b, %acc : tensor<64x16xf16>, tensor<16x8xf16> -> tensor<64x8xf32>
    }
  }
  func.return
}

// -----

// An fp8 register tile used transposed as A: staged M-contiguous, which wgmma reads for
// f16 / bf16 only (its transpose-A bit): ws-lower-mma refuses it at the dot.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<1x64x32xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %c0 = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%c0] : memref<1x64x32xf8E4M3FN, 3 : i64>
      %at = tile.trans %a [1, 0] : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %x = tile.dot %a, %at, %acc : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
      %y = arith.truncf %x : tensor<64x64xf32> to tensor<64x64xf8E4M3FN>
      %yt = tile.trans %y [1, 0] : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
      %b = nvgpu.smem.view %abuf[%c0] : memref<1x64x32xf8E4M3FN, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
      %acc2 = arith.constant dense<0.0> : tensor<64x32xf32>
      // expected-error-re@+1 {{ws-lower-mma: tile.dot: operand A must be {{.*}}; got %y_a (tile.trans), a transposed shared-memory tile (M-contiguous), which wgmma reads for f16/bf16 only}}
      %d = tile.dot %yt, %b, %acc2 : tensor<64x64xf8E4M3FN>, tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
    }
  }
  func.return
}
