// ws-lower-mma's invalid inputs: what wgmma cannot do is an error located at the dot
// (or, for an f32 dot, the tile.dot verifier's error before any pass), never a traceback.
// Each `// -----` part is one input; the errors are checked with --verify-diagnostics.
// (ws-lower-mma.mlir has the valid inputs.)
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-lower-mma > /dev/null

// -----

// An fp8 A transposed from a KxM slot: M-contiguous, which wgmma reads for f16 / bf16 only
// (its transpose-A bit).
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x32x64xf8E4M3FN, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a0 = nvgpu.smem.view %abuf[%s] : memref<2x32x64xf8E4M3FN, 3 : i64>
      %a = tile.trans %a0 [1, 0] : tensor<32x64xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf8E4M3FN, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error-re@+1 {{ws-lower-mma: mma.async_dot: operand A must be a K-contiguous MxK shared-memory tile {{.*}}; got %a (tile.trans), a transposed shared-memory tile (M-contiguous), which wgmma reads for f16/bf16 only}}
      %e = mma.async_dot %a, %bt, %acc : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
      %r = mma.wait %e {pending = 0} : tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// A sliced along K (warp_group.share along 1): its rows are no longer whole slot rows.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a0 = nvgpu.smem.view %abuf[%s] : memref<2x64x64xf16, 3 : i64>
      %a = warp_group.share %a0, 0 of 2 along 1 : tensor<64x64xf16> -> tensor<64x32xf16>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error-re@+1 {{ws-lower-mma: tile.dot: operand A {{.*}}; got %a (warp_group.share) along 1 (a slice across K)}}
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// An fp8 B as a KxN slot (N-contiguous): wgmma reads fp8 B K-major only.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf8E4M3FN, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x32x64xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf8E4M3FN, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x32x64xf8E4M3FN, 3 : i64>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error@+1 {{ws-lower-mma: tile.dot: operand B must be tile.trans [1, 0] of an NxK shared-memory tile (K-major B) or, for f16/bf16, a KxN shared-memory tile (N-major B); got %b (nvgpu.smem.view), a KxN shared-memory tile (N-contiguous), which wgmma reads for f16/bf16 only}}
      %d = tile.dot %a, %b, %acc : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// fp8: one wgmma covers K = 32; K = 16 is not a multiple of it.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x16xf8E4M3FN, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x16xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x16xf8E4M3FN, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x16xf8E4M3FN, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x16xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error@+1 {{ws-lower-mma: tile.dot: K = 16 is not a multiple of the wgmma K step 32 for f8E4M3FN}}
      %d = tile.dot %a, %bt, %acc : tensor<64x16xf8E4M3FN>, tensor<16x64xf8E4M3FN> -> tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// N = 272: one wgmma is at most n256.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xbf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x272x32xbf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xbf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x272x32xbf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<272x32xbf16> -> tensor<32x272xbf16>
      %acc = arith.constant dense<0.0> : tensor<64x272xf32>
      // expected-error@+1 {{ws-lower-mma: tile.dot: N = 272 must be a multiple of 8 and at most 256}}
      %d = tile.dot %a, %bt, %acc : tensor<64x32xbf16>, tensor<32x272xbf16> -> tensor<64x272xf32>
    }
  }
  func.return
}

// -----

// M = 64 rows for a branch of two warp groups (each issues m64 wgmmas: M must be 128k).
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 0 to 8 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error@+1 {{ws-lower-mma: tile.dot: M = 64 is not a multiple of 128 (64 rows per warp group, 2 warp group(s) in this branch)}}
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// wgmma.wait_group leaves at most 7 groups in flight.
func.func @f() {
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error@+1 {{ws-lower-mma: mma.wait leaves 8 dots in flight; wgmma.wait_group can leave at most 7 groups pending}}
      %r = mma.wait %acc {pending = 8} : tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// f32 operands: no tensor-core dot takes them (the tile.dot verifier says so before ws-lower-mma runs).
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf32, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf32, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf32, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf32, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      // expected-error@+1 {{'tile.dot' dot operand a must be f16, bf16, f8E4M3FN or f8E5M2, got f32}}
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    }
  }
  func.return
}
