// RUN: ws-opt %S/../../examples/kernels/flash_attention_bwd.mlir -p 'ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}' 2>&1 | filecheck %s --check-prefix=TMA
// RUN: ws-opt %S/../Inputs/kernels/attention_bwd_atomic.mlir -p 'ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}' 2>&1 | filecheck %s --check-prefix=ATOMIC
// RUN: ws-opt %S/../Inputs/kernels/attention_bwd_overlap.mlir -p 'ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}' 2>&1 | filecheck %s --check-prefix=OVERLAP
// RUN: ws-opt %S/../Inputs/kernels/attention_bwd_dq_first.mlir -p 'ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}' 2>&1 | filecheck %s --check-prefix=DQFIRST
// RUN: ws-opt %S/../Inputs/kernels/attention_bwd_lpt_causal.mlir -p 'ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}' 2>&1 | filecheck %s --check-prefix=LPT
// RUN: ws-opt %S/../../examples/kernels/flash_attention_bwd.mlir -p 'ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}' -t llvm 2>/dev/null | filecheck %s --check-prefix=LLVM

// The attention backward's main kernel under the runtime's pipeline (attention_bwd.BACKWARD_PIPELINE).
// TMA form: LSE and Delta come through the producer's ring as [1, 64] boxes, read by the
// consumer into its registers (a 1x64 row of the accumulator layout) and released at once; dQ^T
// is reduce-added by TMA.
// TMA: nvgpu.tma.async_load %lse_desc[%{{.*}}, %{{.*}}] -> %aref_lse_e_buf0
// TMA: "consumer"
// TMA: nvgpu.smem.load %lse_e : tensor<1x64xf32, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<1x64xf32, #layout.wgmma<warp_groups = 2>>
// TMA: tile.desc_store add %dqt_desc[
// TMA: } attributes {ws.regs_per_thread = 204 : i32}

// ws-register-budget counts what the first form holds beyond it: the offsets of its dQ pointer
// tile, made before the loop and read in it (held through the loop: 32 registers).
// ATOMIC: tile.atomic_add %dq_ptrs
// ATOMIC: } attributes {ws.regs_per_thread = 252 : i32}

// The overlapped dots: S^T and dP^T issued together, the first waited for with one group pending;
// dV issued before dP^T's wait; P (dV's register A) stays in its registers until the last wait.
// OVERLAP: %st_f = nvgpu.wgmma.mma_async %k
// OVERLAP-NEXT: nvgpu.wgmma.commit_group
// OVERLAP: %dpt_f = nvgpu.wgmma.mma_async %v
// OVERLAP-NEXT: nvgpu.wgmma.commit_group
// OVERLAP-NEXT: %st = nvgpu.wgmma.wait_group %st_f {pending = 1}
// OVERLAP: %dv_f = nvgpu.wgmma.mma_async %pt16, %do
// OVERLAP: %dpt = nvgpu.wgmma.wait_group %dpt_f {pending = 1}
// OVERLAP: nvgpu.wgmma.wait_group %dv_f, %dk_f, %dqt_i_f {pending = 0}
// OVERLAP: } attributes {ws.regs_per_thread = 220 : i32}

// dQ's dot issued before dK's (after dS^T is staged for it) and waited for with dV's while dK's
// is in flight: dQ^T's reduce-add (and the release of dO) come before dK's wait, Q's release after.
// DQFIRST: %dv_f = nvgpu.wgmma.mma_async %pt16, %do
// DQFIRST: %dpt = nvgpu.wgmma.wait_group %dpt_f {pending = 1}
// DQFIRST: nvgpu.fence.proxy_async
// DQFIRST: %dqt_i_f = nvgpu.wgmma.mma_async %kt, %dst16_s
// DQFIRST-NEXT: nvgpu.wgmma.commit_group
// DQFIRST-NEXT: nvgpu.wgmma.fence
// DQFIRST-NEXT: %dk_f = nvgpu.wgmma.mma_async %dst16, %q, %dk
// DQFIRST-NEXT: nvgpu.wgmma.commit_group
// DQFIRST-NEXT: %dv_new, %dqt_i = nvgpu.wgmma.wait_group %dv_f, %dqt_i_f {pending = 1}
// DQFIRST: nvgpu.mbarrier.arrive %aref_do_empty
// DQFIRST-NEXT: tile.desc_store add %dqt_desc[{{.*}}], %dqt_i
// DQFIRST-NEXT: %dk_new = nvgpu.wgmma.wait_group %dk_f {pending = 0}
// DQFIRST: nvgpu.mbarrier.arrive %aref_q_empty
// DQFIRST-NEXT: scf.yield %dk_new, %dv_new
// DQFIRST: } attributes {ws.regs_per_thread = 220 : i32}

// Longest-first order: the producer and the consumer each map their program onto (key block,
// head) from the launch's linear order, the head from the group (the last one may be short).
// LPT: "producer"
// LPT: %n_bh = tile.num_programs 1 : i32
// LPT: %heads = arith.minsi %group, %bh_left : i32
// LPT: %start_n = arith.divsi %in_grp, %heads : i32
// LPT: %[[BHP:.*]] = arith.addi %{{.*}}, %head : i32
// LPT: nvgpu.tma.async_load %k_desc[%[[BHP]], %kv_off, %c0]
// LPT: "consumer"
// LPT: %heads_1 = arith.minsi %group, %bh_left_1 : i32
// LPT: %[[BHC:.*]] = arith.addi %{{.*}}, %head_1 : i32
// LPT: tile.desc_store %dk_desc[%[[BHC]],

// The emitter computes a K step's wgmma descriptor and a staging buffer's element address where
// they are used (asm LLVM does not hoist out of the loop and hold there): the address is an xor
// of the thread's base and the load's immediate offset.
// LLVM: asm sideeffect "add.s64 $0, $1, 2;", "=l,l"
// LLVM: asm sideeffect "xor.b32 $0, $1, {{[0-9]+}};", "=r,r"
// LLVM: asm sideeffect "ld.shared.{{.*}} [$1+{{[0-9]+}}];"
