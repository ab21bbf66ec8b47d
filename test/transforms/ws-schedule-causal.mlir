// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (Attention takes about 4 s of CPU time: an explicit time limit keeps the test
// deterministic on a loaded machine; the default, 10 s, is for compiles.)
// RUN: ws-opt %S/../Inputs/kernels/causal_attention.mlir -p 'ws-sched''ule{arch=h100 time-limit=120 pingpong=false}' | filecheck %s --check-prefix=CAUSAL
// (Split from ws-schedule.mlir so that lit runs its solver calls beside the others.)

// Causal attention: the mask and column offsets depend on the induction
// variable alone; they are scheduled (stage, order) but get no warp group:
// every partition that uses them recomputes them.
// CAUSAL: %qk_raw = tile.dot {{.*}}ws.warp = 0 : i32}
// CAUSAL: %offs_n = arith.addi %n_off_v, %rows {ws.stage = {{[0-9]+}} : i32, ws.order = {{[0-9]+}} : i32} : tensor<128xi32>
// CAUSAL: %causal = arith.cmpi sge, %offs_mb, %offs_nb {ws.stage = {{[0-9]+}} : i32, ws.order = {{[0-9]+}} : i32} : tensor<128x128xi32>
// CAUSAL: %qk = arith.select {{.*}}ws.warp = 0 : i32}
// CAUSAL: %acc_new = tile.dot {{.*}}ws.warp = 1 : i32}
// CAUSAL: } {ws.schedule = {II = {{[0-9]+}} : i32, L = {{[0-9]+}} : i32, warps = 2 : i32, solver = "cpsat", vl_warp = 2 : i32}}
