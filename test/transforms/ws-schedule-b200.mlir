// ws-schedule on the Blackwell model (issue 41): the bundled FA4-style kernel gets FA4's warp
// roles (test/schedule/test_blackwell.py asserts the whole structure); here the IR shape: the
// MMAs on the issuer warp named by ws.schedule, the TMA loads on W_vl, each sub-tile's
// exponential on a compute group of its own, both rescales on a third; QK^T one stage ahead of
// P.V. The Hopper passes refuse the schedule (located, exit 1); bad options are errors.
// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (About 20 s of CPU: an explicit time limit keeps the test deterministic on a loaded machine.)
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fa4.mlir -p 'ws-sched''ule{arch=b200 time-limit=300}' -o %t.fa4
// RUN: filecheck %s --input-file %t.fa4 --check-prefix=FA4
// RUN: not ws-opt %t.fa4 -p ws-specialize 2>&1 | filecheck %s --check-prefix=HOPPER
// RUN: not ws-opt %S/../../examples/kernels/flash_attention_fa4.mlir -p 'ws-sched''ule{arch=b200 reg-limit=8}' 2>&1 | filecheck %s --check-prefix=BADREG
// RUN: not ws-opt %S/../../examples/kernels/flash_attention_fa4.mlir -p 'ws-sched''ule{warp-groups=9}' 2>&1 | filecheck %s --check-prefix=BADGROUPS

// FA4: %k = tile.desc_load {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 3 : i32}
// FA4: %v = tile.desc_load {{.*}} ws.warp = 3 : i32
// FA4: %s0 = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 4 : i32}
// FA4: %p0 = math.exp2 {{.*}} ws.warp = [[SM0:[0-2]]] : i32
// FA4: %acc_s0 = arith.mulf {{.*}} ws.warp = [[CORR:[0-2]]] : i32
// FA4: %o0 = tile.dot {{.*}} {ws.stage = 1 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 4 : i32}
// FA4: %s1 = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 4 : i32}
// FA4-NOT: ws.warp = [[SM0]]
// FA4: %p1 = math.exp2 {{.*}} ws.warp = [[SM1:[0-2]]] : i32
// FA4: %acc_s1 = arith.mulf {{.*}} ws.warp = [[CORR]] : i32
// FA4: %o1 = tile.dot {{.*}} {ws.stage = 1 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 4 : i32}
// FA4: } {ws.schedule = {II = {{[0-9]+}} : i32, L = {{[0-9]+}} : i32, warps = 3 : i32, solver = "cpsat", vl_warp = 3 : i32, issuer_warp = 4 : i32}}

// HOPPER: .fa4:{{[0-9]+}}:{{[0-9]+}}: error: schedule: ws.schedule has an issuer warp (4: tcgen05.mma issued by one thread, accumulators in tensor memory), a Blackwell schedule; the Hopper passes cannot build it

// BADREG: error: ws-schedule: reg-limit must be from 24 to 255 registers per thread, got 8
// BADGROUPS: error: ws-schedule: warp-groups must be from 1 to 8, got 9
