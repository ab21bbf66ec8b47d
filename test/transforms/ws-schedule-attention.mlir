// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (Attention takes about 4 s of CPU time: an explicit time limit keeps the test
// deterministic on a loaded machine; the default, 10 s, is for compiles.)
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{arch=h100 solver=cpsat time-limit=120 pingpong=false}' -o %t
// RUN: filecheck %s --input-file %t --check-prefix=ATTR
// RUN: ws-opt %t --print-op-generic | ws-opt | filecheck %s --check-prefix=ATTR
// RUN: ws-opt %t -p 'ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=DIST
// RUN: ws-opt %t -p 'ws-specialize{depth=3 mma-depth=2}' | filecheck %s --check-prefix=SPEC
// (Split from ws-schedule.mlir so that lit runs its solver calls beside the others.)

// ws-schedule writes Twill's optimum (II = 23, L = 40 on the h100 model, whose dots
// take their measured 128-cycle latency on top of their tensor-core time) on the
// loop, and stage / order in the steady state / warp group on every scheduled
// op (TMA loads on the variable-latency group 2; QK^T on group 0, PV on group 1).
// Views (tile.trans, expand_dims, broadcast) and scalars get none.
// ATTR: scf.for %j = %c0 to %n_tiles step %c1 iter_args
// ATTR-NEXT: %k = tile.desc_load {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 2 : i32}
// ATTR-NEXT: %kt = tile.trans %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>{{$}}
// ATTR-NEXT: %qk = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// ATTR: %p = math.exp2 %qk_c {ws.stage = {{[0-9]+}} : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32} : tensor<128x128xf32>
// ATTR: %alpha_e = tile.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>{{$}}
// ATTR: %v = tile.desc_load {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 2 : i32}
// ATTR: %acc_new = tile.dot %p16, %v, %acc_s {{.*}} {ws.stage = 1 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 1 : i32}
// ATTR-NEXT: %kv_next = arith.addi %kv_row, %Bn : i32
// ATTR-NEXT: scf.yield
// ATTR-NEXT: } {ws.schedule = {II = 23 : i32, L = 40 : i32, warps = 2 : i32, solver = "cpsat", vl_warp = 2 : i32}}

// Honoured: one consumer partition per warp group, each with its own loop copy;
// every tile crossing partitions travels through its own aref -- the TMA loads,
// and computed tiles too: the P tile (p16) from the softmax group to the PV group.
// DIST: %aref_k = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// DIST: %aref_q = aref.create : !aref.ring<tensor<128x128xf16>, depth = 1>
// DIST: %aref_p16 = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// DIST: %aref_v = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// DIST: warp_group.partition 0 producer warps 4 regs 40 {
// DIST-NOT: tile.dot
// DIST: aref.put %aref_k[%j], %k
// DIST: aref.put %aref_v[%j], %v
// DIST: warp_group.partition 1 consumer_w0 warps 4 regs 232 {
// DIST: %[[Q:.*]] = aref.get %aref_q
// DIST: scf.for %[[J:[a-z_0-9]+]] = {{.*}} : i32 {
// DIST-NEXT: %[[K:.*]] = aref.get %aref_k[%[[J]]]
// DIST-NEXT: %kt = tile.trans %[[K]] [1, 0]
// DIST-NEXT: %qk = tile.dot %[[Q]], %kt, %zero_qk {{.*}} ws.warp = 0 : i32}
// DIST-NEXT: aref.consumed %aref_k[%[[J]]]
// DIST-NOT: ws.warp = 1
// DIST: %p16 = arith.truncf %p {{.*}}ws.warp = 0 : i32}
// DIST-NEXT: aref.put %aref_p16[%[[J]]], %p16
// DIST: } {ws.schedule = {II = 23 : i32
// DIST-NEXT: aref.consumed %aref_q
// DIST: warp_group.partition 2 consumer_w1 warps 4 regs 232 {
// DIST-NOT: ws.warp = 0
// DIST: scf.for %[[J2:.*]] = %{{.*}} iter_args({{.*}}%acc = %acc0) -> ({{.*}}tensor<128x128xf32>) : i32 {
// DIST: %[[V:.*]] = aref.get %aref_v[%[[J2]]]
// DIST-NEXT: %[[P:.*]] = aref.get %aref_p16[%[[J2]]]
// DIST-NEXT: %acc_new = tile.dot %[[P]], %[[V]], %acc_s {{.*}} ws.warp = 1 : i32}
// DIST-NEXT: aref.consumed %aref_p16[%[[J2]]]
// DIST-NEXT: aref.consumed %aref_v[%[[J2]]]
// DIST: tile.desc_store %o_desc

// ws-specialize (partition, distribute, pipeline-mma) compiles the schedule:
// each group's dots are issued asynchronously.
// SPEC: warp_group.partition 1 consumer_w0 warps 4 regs 232 {
// SPEC: %qk = mma.async_dot
// SPEC: mma.wait %qk {pending = 0}
// SPEC: warp_group.partition 2 consumer_w1 warps 4 regs 232 {
// SPEC: %acc_new = mma.async_dot
// SPEC: mma.wait %acc_new {pending = 0}
