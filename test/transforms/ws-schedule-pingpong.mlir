// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (Attention takes about 4 s of CPU time: an explicit time limit keeps the test
// deterministic on a loaded machine; the default, 10 s, is for compiles.)
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{arch=h100 time-limit=120}' -o %t.pp
// RUN: filecheck %s --input-file %t.pp --check-prefix=PP
// RUN: ws-opt %t.pp -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=PPH
// (Split from ws-schedule.mlir so that lit runs its solver calls beside the others.)

// The joint problem's own choice for attention (pingpong=true, the default): the two
// compute groups as one ping-pong team -- each runs the whole body on 64 rows, the
// second offset by half the II, so one's exponentials overlap the other's MMAs
// (FA3's ping-pong). Its II reaches the tensor-core bound, below the split schedule's. Priced at
// occupancy the team's schedule is one stage, so partner-latency=auto prices each member's
// softmax as measured beside its partner (and the registers fit).
// PP: %qk = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// PP: %acc_new = tile.dot {{.*}} ws.warp = 0 : i32}
// PP: } {ws.schedule = {II = [[II:[0-9]+]] : i32, L = {{[0-9]+}} : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, pingpong = true, partner_latency = true, vl_warp = 1 : i32}}
// ws-hopper builds that team (ws-cooperative + ws-pingpong): 64-row wgmmas, and each
// group issues its MMAs between a wait on its own named barrier and an arrival on the
// other's (the two groups' turns alternate on the tensor cores). With the partner's prices
// PV_{j-1} runs one stage behind QK^T_j, issued in the same turn (FA3's pipeline).
// PPH: nvgpu.wg.branch warps 4 to 8 "consumer0"
// PPH: scf.for
// PPH: nvvm.barrier [[B0:[0-9]+]] threads 256
// PPH-NEXT: nvgpu.wgmma.fence
// PPH-NEXT: %qk{{(_[0-9]+)?}} = nvgpu.wgmma.mma_async {{.*}} -> tensor<64x128xf32
// PPH-NEXT: nvgpu.wgmma.commit_group
// PPH-NEXT: nvgpu.wgmma.fence
// PPH-NEXT: %acc_new{{(_[0-9]+)?}} = nvgpu.wgmma.mma_async {{.*}} -> tensor<64x128xf32
// PPH-NEXT: nvgpu.wgmma.commit_group
// PPH-NEXT: nvvm.barrier_arrive [[B1:[0-9]+]] threads 256
// PPH: nvgpu.wgmma.wait_group %qk{{(_[0-9]+)?}} {pending = 1}
// PPH: math.exp2
// PPH: nvgpu.wgmma.wait_group %acc_new{{(_[0-9]+)?}} {pending = 0}
// PPH: nvgpu.wg.branch warps 8 to 12 "consumer1"
// PPH: nvvm.barrier_arrive [[B0]] threads 256
// PPH: scf.for
// PPH: nvvm.barrier [[B1]] threads 256
// PPH-NEXT: nvgpu.wgmma.fence
// PPH-NEXT: nvgpu.wgmma.mma_async
// PPH-NEXT: nvgpu.wgmma.commit_group
// PPH-NEXT: nvgpu.wgmma.fence
// PPH-NEXT: nvgpu.wgmma.mma_async
// PPH-NEXT: nvgpu.wgmma.commit_group
// PPH-NEXT: nvvm.barrier_arrive [[B0]] threads 256
