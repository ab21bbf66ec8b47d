// RUN: ws-opt %s -p ws-hopper{auto=false} -o %t 2>&1 | filecheck %s --check-prefix=WARN
// RUN: filecheck %s --input-file %t --check-prefix=IR
// RUN: ws-opt %s -p 'ws-hopper{auto=false cooperative=2}' 2>&1 | filecheck %s --check-prefix=COOP
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=GEMM
// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=FA
// RUN: ws-opt %s -p ws-register-budget 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not ws-opt %S/Inputs/regs_per_thread_misplaced.mlir 2>&1 | filecheck %s --check-prefix=BAD

// ws-register-budget (last in ws-hopper) writes the registers per thread each warp-group
// branch needs as `ws.regs_per_thread` and warns, at the op that made the largest tile
// live at the peak, where that is above the branch's setmaxnreg budget.
//
// The 128x256 GEMM on one consumer warp group (tile.num_warps = 4): its f32 accumulator
// alone is 128 * 256 / 128 = 256 registers per thread; ptxas would spill ~2.5 KB per
// thread. The warning points at the dot and names the numbers and the remedies.
// WARN: ws-register-budget.mlir:54:7: warning: ws-register-budget: the consumer branch (warps 4 to 8) needs about [[N:[0-9]+]] registers per thread, above its budget of 255 (setmaxnreg 256); ptxas will spill registers to local memory. The 128x256xf32 tile alone takes 256 registers per thread in 1 warp group: spread it over more warp groups (tile.num_warps = 8 on the kernel, or ws-hopper{cooperative=2}) or use a smaller tile
// WARN-NOT: warning
// IR: nvgpu.wg.branch warps 0 to 4 "producer"
// IR: nvgpu.setmaxnreg dec 40
// IR: attributes {ws.regs_per_thread = {{[0-9]+}} : i32}
// IR: nvgpu.wg.branch warps 4 to 8 "consumer"
// IR: nvgpu.setmaxnreg inc 256
// IR: nvgpu.wgmma.mma_async {{.*}} -> tensor<128x256xf32, #layout.wgmma<warp_groups = 1>>
// IR: attributes {ws.regs_per_thread = 284 : i32}
//
// Two consumer warp groups split the accumulator (64 rows, 128 registers each): no warning.
// COOP-NOT: warning
// COOP: nvgpu.wg.branch warps 4 to 8 "consumer0"
// COOP: attributes {ws.regs_per_thread = 156 : i32}
// COOP: nvgpu.wg.branch warps 8 to 12 "consumer1"
// COOP: attributes {ws.regs_per_thread = 156 : i32}
// COOP-NOT: warning
builtin.module {
  func.func @matmul(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>,
                    %c_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32)
      attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Mt = arith.constant 128 : i32
    %Nt = arith.constant 256 : i32
    %Kt = arith.constant 64 : i32
    %pid = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
    %num_pid_m = arith.ceildivsi %M, %Mt : i32
    %pid_m = arith.remsi %pid, %num_pid_m : i32
    %pid_n = arith.divsi %pid, %num_pid_m : i32
    %o_am = arith.muli %pid_m, %Mt : i32
    %o_bn = arith.muli %pid_n, %Nt : i32
    %k_tiles = arith.ceildivsi %K, %Kt : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %res:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %acc0, %o_k = %c0) -> (tensor<128x256xf32>, i32) : i32 {
      %a = "tile.desc_load"(%a_desc, %o_am, %o_k) : (!tile.desc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
      %b = "tile.desc_load"(%b_desc, %o_bn, %o_k) : (!tile.desc<tensor<256x64xf16>>, i32, i32) -> tensor<256x64xf16>
      %bt = "tile.trans"(%b) <{order = array<i32: 1, 0>}> : (tensor<256x64xf16>) -> tensor<64x256xf16>
      %acc2 = "tile.dot"(%a, %bt, %acc) : (tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
      %o_k2 = arith.addi %o_k, %Kt : i32
      scf.yield %acc2, %o_k2 : tensor<128x256xf32>, i32
    }
    %c = arith.truncf %res#0 : tensor<128x256xf32> to tensor<128x256xf16>
    %rm = "tile.make_range"() <{start = 0 : i32, end = 128 : i32}> : () -> tensor<128xi32>
    %rn = "tile.make_range"() <{start = 0 : i32, end = 256 : i32}> : () -> tensor<256xi32>
    %o_am_v = "tile.splat"(%o_am) : (i32) -> tensor<128xi32>
    %o_bn_v = "tile.splat"(%o_bn) : (i32) -> tensor<256xi32>
    %offs_m = arith.addi %o_am_v, %rm : tensor<128xi32>
    %offs_n = arith.addi %o_bn_v, %rn : tensor<256xi32>
    %scm = "tile.splat"(%stride_cm) : (i32) -> tensor<128xi32>
    %row_off = arith.muli %offs_m, %scm : tensor<128xi32>
    %row2 = "tile.expand_dims"(%row_off) <{axis = 1 : i32}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %col2 = "tile.expand_dims"(%offs_n) <{axis = 0 : i32}> : (tensor<256xi32>) -> tensor<1x256xi32>
    %rowb = "tile.broadcast"(%row2) : (tensor<128x1xi32>) -> tensor<128x256xi32>
    %colb = "tile.broadcast"(%col2) : (tensor<1x256xi32>) -> tensor<128x256xi32>
    %off = arith.addi %rowb, %colb : tensor<128x256xi32>
    %base = "tile.splat"(%c_ptr) : (!tile.ptr<f16>) -> tensor<128x256x!tile.ptr<f16>>
    %ptrs = "tile.addptr"(%base, %off) : (tensor<128x256x!tile.ptr<f16>>, tensor<128x256xi32>) -> tensor<128x256x!tile.ptr<f16>>
    %Mv = "tile.splat"(%M) : (i32) -> tensor<128xi32>
    %Nv = "tile.splat"(%N) : (i32) -> tensor<256xi32>
    %mm = "arith.cmpi"(%offs_m, %Mv) <{predicate = 2 : i64}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %mn = "arith.cmpi"(%offs_n, %Nv) <{predicate = 2 : i64}> : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi1>
    %mm2 = "tile.expand_dims"(%mm) <{axis = 1 : i32}> : (tensor<128xi1>) -> tensor<128x1xi1>
    %mn2 = "tile.expand_dims"(%mn) <{axis = 0 : i32}> : (tensor<256xi1>) -> tensor<1x256xi1>
    %mmb = "tile.broadcast"(%mm2) : (tensor<128x1xi1>) -> tensor<128x256xi1>
    %mnb = "tile.broadcast"(%mn2) : (tensor<1x256xi1>) -> tensor<128x256xi1>
    %mask = arith.andi %mmb, %mnb : tensor<128x256xi1>
    "tile.store"(%ptrs, %c, %mask) : (tensor<128x256x!tile.ptr<f16>>, tensor<128x256xf16>, tensor<128x256xi1>) -> ()
    func.return
  }
}

// The bundled kernels that ptxas assembles without spills get the estimate and no warning
// (ptxas needs 154 and 193 registers; test/lower/test_register_budget.py).
// GEMM-NOT: warning
// GEMM: nvgpu.wg.branch warps 4 to 12 "consumer"
// GEMM: attributes {ws.regs_per_thread = 156 : i32}
// FA-NOT: warning
// FA: attributes {ws.regs_per_thread = 196 : i32}

// Before ws-lower-warp-groups there is no branch to estimate: a remark, the IR unchanged.
// EARLY: ws-register-budget.mlir:34:3: remark: ws-register-budget: no nvgpu.wg.branch to estimate (run it after ws-lower-warp-groups)
// EARLY-NOT: ws.regs_per_thread

// BAD: regs_per_thread_misplaced.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'func.func' ws.regs_per_thread belongs on an nvgpu.wg.branch, not on 'func.func'

// ws-hopper runs it last, and a kernel it did not warp-specialize has no branch: ws-partition's
// remark says why, and ws-register-budget's advice to run it later (which the author cannot
// take) is left out.
// HOPPER-ONLY: not-specialized.mlir:2:1: remark: ws-partition: @softmax has no loop with a TMA load
// HOPPER-ONLY-NOT: ws-register-budget
// RUN: ws-opt %S/Inputs/not-specialized.mlir -p ws-hopper{auto=false} 2>&1 >/dev/null | filecheck %s --check-prefix=HOPPER-ONLY
