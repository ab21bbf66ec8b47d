// ws-lower-layouts' invalid regroupings: a tile.reshape that moves elements between
// threads, and a tile.split whose minor 2 is not a pair of one thread's registers,
// are errors located at the op that say which form is lowered. Each `// -----` part
// is one input; the errors are checked with --verify-diagnostics.
// (ws-lower-layouts-regroup.mlir has the lowered forms.)
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-lower-layouts > /dev/null

// -----

// A general reshape of the accumulator: 64x64 -> 64x32x2 regroups columns across threads.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x64xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x64xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      // expected-error@+1 {{ws-lower-layouts: tile.reshape of 64x64 to 64x32x2 moves elements between threads, which is not lowered; a reshape that only inserts or removes dims of size 1 is (and tile.join / tile.split for a minor dim of 2)}}
      %r = tile.reshape %d : tensor<64x64xf32> -> tensor<64x32x2xf32>
    }
  }
  func.return
}

// -----

// A row vector (64) made a 1x64 row: the size-1 dim goes where the rows were.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x64xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x64xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %m = tile.reduce max %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
      // expected-error-re@+1 {{ws-lower-layouts: tile.reshape of 64 to 1x64 of a tile in #layout.slice<dim = 1, {{.*}}> moves elements between threads (its size-1 dims change places), which is not lowered; only inserting or removing dims of size 1 where the layout keeps each element in its thread is}}
      %r = tile.reshape %m : tensor<64xf32> -> tensor<1x64xf32>
    }
  }
  func.return
}

// -----

// A split of a joined tile whose dims were transposed: its minor 2 is no longer a
// #layout.pair.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x64xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x64xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %j = tile.join %d, %d : tensor<64x64xf32> -> tensor<64x64x2xf32>
      %t = tile.trans %j [1, 0, 2] : tensor<64x64x2xf32> -> tensor<64x64x2xf32>
      // expected-error-re@+1 {{ws-lower-layouts: tile.split is lowered only where its minor dim of 2 is a pair of one thread's registers (#layout.pair); the operand of this one (64x64x2) is needed in #layout.permute<order = [1, 0, 2], {{.*}}>}}
      %lo, %hi = tile.split %t : tensor<64x64x2xf32> -> tensor<64x64xf32>
    }
  }
  func.return
}
