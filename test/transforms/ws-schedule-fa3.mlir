// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (Attention takes about 4 s of CPU time: an explicit time limit keeps the test
// deterministic on a loaded machine; the default, 10 s, is for compiles.)
// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p 'ws-sched''ule{arch=h100 time-limit=120}' -o %t.fa3
// RUN: filecheck %s --input-file %t.fa3 --check-prefix=FA3
// RUN: ws-opt %t.fa3 -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=FA3H
// (Split from ws-schedule.mlir so that lit runs its solver calls beside the others.)

// On the bundled flash attention (the QK^T scale folded into the exponent, masked
// columns) the ping-pong optimum is two-stage: QK^T_j and the softmax in stage 0,
// PV_{j-1} in stage 1, so each group issues QK^T_j and PV_{j-1} back to back in its
// turn and waits for QK^T_j alone (pending = 1) before its exponentials, while PV
// runs on: FlashAttention-3's intra-warpgroup overlap, on top of the ping-pong.
// FA3: %qk_raw = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// FA3: %p = math.exp2 {{.*}} {ws.stage = 0 : i32
// FA3: %acc_new = tile.dot {{.*}} {ws.stage = 1 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// FA3: } {ws.schedule = {II = {{[0-9]+}} : i32, L = {{[0-9]+}} : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, pingpong = true, vl_warp = 1 : i32}}
// FA3H: nvgpu.wg.branch warps 4 to 8 "consumer0"
// FA3H: scf.for
// FA3H: nvvm.barrier [[T0:[0-9]+]] threads 256
// FA3H-NEXT: nvgpu.wgmma.fence
// FA3H-NEXT: %qk_raw{{(_[0-9]+)?}} = nvgpu.wgmma.mma_async
// FA3H-NEXT: nvgpu.wgmma.commit_group
// FA3H-NEXT: nvgpu.wgmma.fence
// FA3H-NEXT: %acc_new{{(_[0-9]+)?}} = nvgpu.wgmma.mma_async
// FA3H-NEXT: nvgpu.wgmma.commit_group
// FA3H-NEXT: nvvm.barrier_arrive [[T1:[0-9]+]] threads 256
// FA3H-NOT: nvgpu.wgmma.mma_async
// FA3H: nvgpu.wgmma.wait_group %qk_raw{{(_[0-9]+)?}} {pending = 1}
// FA3H-NOT: nvgpu.wgmma.wait_group
// FA3H: math.exp2
// FA3H-NOT: nvgpu.wgmma.mma_async
// FA3H: nvgpu.wgmma.wait_group %acc_new{{(_[0-9]+)?}} {pending = 0}
// FA3H: scf.yield
