// An attribute of a tile.kernel function that nothing reads is a located warning at the
// func.func, with the closest known name: `num_warps` without the `tile.` prefix would
// otherwise be dropped silently and the kernel run with 4 warps. Known attributes (the
// author's and those the passes write), `ws.note` and other dialects' attributes are not
// warned about, and neither is a function that is not a kernel. --verify-diagnostics fails
// on any warning not expected here.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// Once per input, not after every pass:
// RUN: ws-opt %S/Inputs/kernel-num-warps-typo.mlir -p ws-specialize 2>&1 >/dev/null | filecheck %s --check-prefix=ONCE
// ONCE: kernel-num-warps-typo.mlir:2:1: warning: unknown attribute 'num_warps' on the tile.kernel function @copy is ignored; did you mean 'tile.num_warps'?
// ONCE-NOT: warning:

// expected-warning@+1 {{unknown attribute 'num_warps' on the tile.kernel function @k is ignored; did you mean 'tile.num_warps'?}}
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel, num_warps = 8 : i32} {
  func.return
}

// -----

// expected-warning@+1 {{unknown attribute 'tile.numwarps' on the tile.kernel function @k is ignored; did you mean 'tile.num_warps'?}}
func.func @k(%p: !tile.ptr<f32>) attributes {tile.numwarps = 8 : i32, tile.kernel} {
  func.return
}

// -----

// expected-warning@+1 {{unknown attribute 'ws.depth' on the tile.kernel function @k is ignored (a kernel's own attributes are tile.kernel and tile.num_warps)}}
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel, ws.depth = 2 : i32} {
  func.return
}

// -----

// Known: the author's, the passes', a free-form note, another dialect's; and a plain function.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32, ws.partitioned = "producer, consumer",
                                              ws.note = "any", llvm.emit_c_interface} {
  func.return
}
func.func @helper(%x: i32) -> i32 attributes {num_warps = 8 : i32} {
  func.return %x : i32
}
