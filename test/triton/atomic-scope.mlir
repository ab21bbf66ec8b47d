// tt.atomic_rmw's sem and scope: tile.atomic_add is ordered as acq_rel at gpu scope, at least
// as strong as any sem at scope cta or gpu, which import; scope sys (other devices, the host)
// would be weakened, so it is a located error.
// RUN: not ws-opt --split-input-file %s 2>&1 | filecheck %s

// CHECK: kernel.py:5:9: error: tt.atomic_rmw with scope 'sys' is not supported (only 'gpu' and 'cta', which tile.atomic_add's gpu scope covers)
// CHECK: func.func @relaxed_cta
// CHECK: tile.atomic_add {{.*}} : !tile.ptr<f32>, f32 -> f32
// CHECK: tile.atomic_add {{.*}} : !tile.ptr<i32>, i32 -> i32
module {
  tt.func public @relaxed_cta(%p: !tt.ptr<f32> loc(#loc), %q: !tt.ptr<i32> loc(#loc), %v: f32 loc(#loc), %w: i32 loc(#loc)) {
    %true = arith.constant true loc(#loc1)
    %o = tt.atomic_rmw fadd, relaxed, cta, %p, %v, %true : (!tt.ptr<f32>, f32, i1) -> f32 loc(#loc1)
    %n = tt.atomic_rmw add, release, gpu, %q, %w, %true : (!tt.ptr<i32>, i32, i1) -> i32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":4:9)

// -----

module {
  tt.func public @system(%p: !tt.ptr<f32> loc(#loc), %v: f32 loc(#loc)) {
    %true = arith.constant true loc(#loc1)
    %o = tt.atomic_rmw fadd, acq_rel, sys, %p, %v, %true : (!tt.ptr<f32>, f32, i1) -> f32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":3:1)
#loc1 = loc("kernel.py":5:9)
