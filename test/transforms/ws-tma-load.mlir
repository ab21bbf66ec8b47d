// ws-tma-load: the pointer GEMM's two loads (Triton's classic form, masked at M, N and K, other = 0)
// become TMA loads at (pid_m * 128, k * 64) and (k * 64, pid_n * 128); the pointer iter_args and the
// masks go; the contract records the views (A: M x K, row stride stride_am; B: K x N, stride_bk).
// RUN: ws-opt %S/../Inputs/kernels/pointer_gemm.mlir -p ws-tma-load 2>&1 | filecheck %s
// CHECK: pointer_gemm.mlir:81:5: remark: ws-tma-load: a TMA load of argument 0 (a)
// CHECK: remark: ws-tma-load: a TMA load of argument 1 (b)
// CHECK: func.func @pointer_gemm({{.*}}, %stride_cm: i32, %a_tma: !tile.desc<tensor<128x64xf16>>, %b_tma: !tile.desc<tensor<64x128xf16>>)
// CHECK-SAME: ws.tma_loads = [{ptr = 0 : i32, desc = 9 : i32, stride = {{\[}}[1 : i64, 6 : i32]], shape = {{\[}}{{\[}}[1 : i64, 3 : i32]], {{\[}}[1 : i64, 5 : i32]]]},
// CHECK-SAME: {ptr = 1 : i32, desc = 10 : i32, stride = {{\[}}[1 : i64, 7 : i32]], shape = {{\[}}{{\[}}[1 : i64, 5 : i32]], {{\[}}[1 : i64, 4 : i32]]]}]
// CHECK: %om = arith.muli %pid_m, %c128 : i32
// CHECK: %on = arith.muli %pid_n, %c128 : i32
// CHECK: scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT: %kk = arith.muli %k, %c64 : i32
// CHECK-NEXT: %av = tile.desc_load %a_tma[%om, %kk] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
// CHECK-NEXT: %bv = tile.desc_load %b_tma[%kk, %on] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
// CHECK-NEXT: tile.dot %av, %bv, %acc
// CHECK-NEXT: scf.yield %d : tensor<128x128xf32>
// CHECK: tile.store %c_ptrs, %cv, %c_mask

// Loads it leaves, each with its reason.
// RUN: ws-opt %S/Inputs/tma-load-left.mlir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=LEFT
// LEFT: tma-load-left.mlir:29:5: remark: ws-tma-load: left as a pointer load: its mask is not a bounds test (cmpi predicate 1)
// LEFT: tma-load-left.mlir:30:5: remark: ws-tma-load: left as a pointer load: its innermost stride is not 1
// LEFT: tma-load-left.mlir:31:5: remark: ws-tma-load: left as a pointer load: its `other` is not 0
// LEFT: tma-load-left.mlir:32:5: remark: ws-tma-load: left as a pointer load: the kernel also writes through this argument
// LEFT: tma-load-left.mlir:3:1: remark: ws-tma-load: no pointer-tile load turned into a TMA load
// LEFT-NOT: desc_load
// LEFT-NOT: ws.tma_loads

// ws-specialize runs it first: the pointer GEMM is warp-specialized (a producer of TMA loads).
// RUN: ws-opt %S/../Inputs/kernels/pointer_gemm.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC-NOT: remark
// SPEC: aref.create
// SPEC: tile.desc_load %a_tma
// SPEC: tile.desc_load %b_tma

// A 1-D tile (pointer_loop.mlir) stays a pointer load (a !tile.desc box is 2-D or 3-D); in
// ws-specialize the remark says why the loop is not warp-specialized.
// RUN: ws-opt %S/../Inputs/kernels/pointer_loop.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=ONED
// ONED: pointer_loop.mlir:14:5: remark: ws-tma-load: left as a pointer load: a 1-D tile
// ONED: remark: ws-partition: @rowsum has no loop with a TMA load

// Triton's tutorial matmul as Triton prints it (examples/triton/gemm_pointer.py): rows wrapped
// `% M` and columns `% N`, which only masked-off lanes of C's store see (mask `offs_cm < M`,
// `offs_cn < N`), and the column strides stride_ak / stride_bn arguments the contract takes to be
// 1 (`unit`): both loads convert, with M and N as their bounds.
// RUN: ws-opt %S/../Inputs/triton/gemm_pointer_f16_64x64x32_g2.ttir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=TUT
// TUT: gemm_pointer.py:31:13: remark: ws-tma-load: a TMA load of argument 0 (a_ptr); its column stride %stride_ak is 1 by the launch contract, assumed of the stride arguments %stride_am and %stride_ak as the one passed later (a launch where it is not reads a contiguous copy)
// TUT: gemm_pointer.py:32:13: remark: ws-tma-load: a TMA load of argument 1 (b_ptr); its column stride %stride_bn is 1 by the launch contract, assumed of the stride arguments %stride_bk and %stride_bn as the one passed later (a launch
// TUT: %stride_cn: i32, %a_ptr_tma: !tile.desc<tensor<64x32xf16>>, %b_ptr_tma: !tile.desc<tensor<32x64xf16>>)
// TUT-SAME: ws.tma_loads = [{ptr = 0 : i32, desc = 12 : i32, stride = {{\[}}[1 : i64, 6 : i32]], shape = {{\[}}{{\[}}[1 : i64, 3 : i32]], {{\[}}[1 : i64, 5 : i32]]], unit = 7 : i32},
// TUT-SAME: {ptr = 1 : i32, desc = 13 : i32, stride = {{\[}}[1 : i64, 8 : i32]], shape = {{\[}}{{\[}}[1 : i64, 5 : i32]], {{\[}}[1 : i64, 4 : i32]]], unit = 9 : i32}]
// TUT-NOT: arith.remsi %offs_am
// TUT: scf.for %k = %c0_i32 to %1 step %c1_i32 iter_args(%acc_2 = %acc) -> (tensor<64x64xf32>) : i32 {
// TUT-NEXT: %a = arith.muli %k, %c32_i32 : i32
// TUT-NEXT: tile.desc_load %a_ptr_tma[%offs_am, %a] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
// TUT-NEXT: tile.desc_load %b_ptr_tma[%a, %offs_bn] : !tile.desc<tensor<32x64xf16>> -> tensor<32x64xf16>
// TUT-NEXT: tile.dot
// TUT: tile.store %c_ptrs{{.*}}, %c, %{{[0-9]+}} : tensor<64x64x!tile.ptr<f16>>

// ...and ws-hopper warp-specializes it and lowers it to PTX (both tile shapes of the example, and
// the 64x64x32 one as Triton 3.4 and 3.6 print it).
// RUN: ws-opt %S/../Inputs/triton/gemm_pointer_f16_64x64x32_g2.ttir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=TUTWS
// TUTWS-NOT: remark
// TUTWS: nvgpu.wg.dispatch
// TUTWS: nvgpu.wg.branch
// TUTWS: nvgpu.tma.async_load
// TUTWS: nvgpu.tma.async_load
// TUTWS: nvgpu.wg.branch
// TUTWS: nvgpu.wgmma.mma_async
// RUN: ws-opt %S/../Inputs/triton/gemm_pointer_f16_64x64x32_g2.ttir -p ws-hopper{auto=false} -t ptx 2>&1 | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../Inputs/triton/gemm_pointer_f16_128x256x64_g8.ttir -p ws-hopper{auto=false} -t ptx 2>&1 | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../Inputs/triton/v3.4/gemm_pointer_f16_64x64x32_g2.ttir -p ws-hopper{auto=false} -t ptx 2>&1 | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../Inputs/triton/v3.6/gemm_pointer_f16_64x64x32_g2.ttir -p ws-hopper{auto=false} -t ptx 2>&1 | filecheck %s --check-prefix=PTX
// PTX-NOT: remark
// PTX: .entry gemm_pointer_kernel(
// PTX: cp.async.bulk.tensor.2d
// PTX: wgmma.mma_async

// Wraps in i64 offsets (arith.extsi) with the column stride an argument: where a store's mask
// bounds the wrapped index by the same value the load converts; where it cannot be proven, the
// load stays and the remark says why.
// RUN: ws-opt %S/Inputs/tma-load-wrap.mlir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=WRAP
// WRAP: tma-load-wrap.mlir:31:3: remark: ws-tma-load: a TMA load of argument 0 (x)
// WRAP: tma-load-wrap.mlir:73:3: remark: ws-tma-load: left as a pointer load: its rows wrap (an index taken modulo a bound), which TMA would read as zeros, and the pass cannot prove that only masked-off lanes of stores see them: a store of them (at {{.*}}tma-load-wrap.mlir:87:3) has no mask that bounds the same index by the same value
// WRAP: tma-load-wrap.mlir:115:3: remark: ws-tma-load: left as a pointer load: its rows wrap {{.*}}: they reach 'tile.reduce'
// WRAP: tma-load-wrap.mlir:160:3: remark: ws-tma-load: left as a pointer load: its columns wrap {{.*}}: the wrapped axis is summed over by a tile.dot
// WRAP: func.func @proven({{.*}}, %x_tma: !tile.desc<tensor<64x64xf16>>) attributes {tile.kernel, ws.tma_loads = [{ptr = 0 : i32, desc = 6 : i32, stride = {{\[}}[1 : i64, 4 : i32]], shape = {{\[}}{{\[}}[1 : i64, 2 : i32]], {{\[}}[64 : i64]]], unit = 5 : i32}]}
// WRAP: %v = tile.desc_load %x_tma[%om, %{{.*}}] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
// WRAP: tile.store %yp, %v2, %okb
// WRAP: func.func @other_bound(
// WRAP: tile.load %xp

// Triton 3.6's block-pointer form: a scalar i64 base offset of the pointer (`x + first * S`) and
// the rows an i64 iter_arg advanced by 32 in a loop stepping 32; the row is `first + i`, and the
// offset iter_arg, now dead, goes.
// RUN: ws-opt %S/Inputs/tma-load-i64.mlir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=I64
// I64: tma-load-i64.mlir:30:5: remark: ws-tma-load: a TMA load of argument 0 (x)
// I64: ws.tma_loads = [{ptr = 0 : i32, desc = 5 : i32, stride = {{\[}}[1 : i64, 3 : i32]], shape = {{\[}}[], {{\[}}[64 : i64]]], extent = 1 : i32}]
// I64: scf.for %i = %c0 to %R step %c32 iter_args(%acc = %zero) -> (tensor<32x64xf32>) : i32 {
// I64-NEXT: %[[ROW:.*]] = arith.addi %first, %i : i32
// I64-NEXT: tile.desc_load %x_tma[%[[ROW]], %{{.*}}] : !tile.desc<tensor<32x64xf16>> -> tensor<32x64xf16>

// Block pointers as Triton 3.6 rewrites them (examples/triton/attention_block_ptr.py): each base
// is `X + off_z * stride_xz + off_h * stride_xh`, a per-program scalar offset that becomes a row
// offset of the whole tensor's view (the kernel divides the outer strides by the row stride; the
// launch checks they are multiples, contract `multiples`); K^T's dim 0 is contiguous (order
// (0, 1)), so its [BN, D] box is loaded and transposed; the inner strides are arguments taken to
// be 1 (`unit`); the i64 offset iter_args go.
// RUN: ws-opt %S/../Inputs/triton/v3.6/attention_block_ptr_f16_d32_64x32.ttir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=BP
// BP: attention_block_ptr.py:40:16: remark: ws-tma-load: a TMA load of argument 0 (Q); its column stride %stride_qk is 1 by the launch contract, assumed of the stride arguments %stride_qm and %stride_qk as the one passed later (a launch where it is not reads a contiguous copy); its per-program offset is a row offset: the launch checks that the row stride divides %stride_qz, %stride_qh
// BP: attention_block_ptr.py:42:20: remark: ws-tma-load: a TMA load of the transposed box (its rows are contiguous) of argument 1 (K); its row stride %stride_kk is 1 by the launch contract, assumed of the stride arguments %stride_kn and %stride_kk {{.*}} divides %stride_kz, %stride_kh
// BP: attention_block_ptr.py:50:20: remark: ws-tma-load: a TMA load of argument 2 (V); its column stride %stride_vk is 1 {{.*}} divides %stride_vz, %stride_vh
// BP: %N_CTX: i32, %Q_tma: !tile.desc<tensor<64x32xf16>>, %K_tma: !tile.desc<tensor<32x32xf16>>, %V_tma: !tile.desc<tensor<32x32xf16>>)
// BP-SAME: ws.tma_loads = [{ptr = 0 : i32, desc = 23 : i32, stride = {{\[}}[1 : i64, 7 : i32]], shape = {{\[}}[], {{\[}}[32 : i64]]], extent = 1 : i32, unit = 8 : i32, multiples = {{\[}}{{\[}}[1 : i64, 5 : i32]], {{\[}}[1 : i64, 6 : i32]]]},
// BP-SAME: {ptr = 1 : i32, desc = 24 : i32, stride = {{\[}}[1 : i64, 11 : i32]], shape = {{\[}}[], {{\[}}[32 : i64]]], extent = 1 : i32, unit = 12 : i32, multiples = {{\[}}{{\[}}[1 : i64, 9 : i32]], {{\[}}[1 : i64, 10 : i32]]]},
// BP-SAME: {ptr = 2 : i32, desc = 25 : i32, stride = {{\[}}[1 : i64, 15 : i32]], shape = {{\[}}[], {{\[}}[32 : i64]]], extent = 1 : i32, unit = 16 : i32, multiples = {{\[}}{{\[}}[1 : i64, 13 : i32]], {{\[}}[1 : i64, 14 : i32]]]}]
// BP-DAG: %[[KH:.*]] = arith.divsi %stride_kh, %stride_kn : i32
// BP-DAG: %[[KZ:.*]] = arith.divsi %stride_kz, %stride_kn : i32
// BP-DAG: %[[QZ:.*]] = arith.divsi %stride_qz, %stride_qm : i32
// BP: %[[QZR:.*]] = arith.muli %off_z, %[[QZ]] : i32
// BP: tile.desc_load %Q_tma[%{{.*}}, %{{.*}}] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
// BP: %[[KZR:.*]] = arith.muli %off_z, %[[KZ]] : i32
// BP-NEXT: %[[KHR:.*]] = arith.muli %off_h, %[[KH]] : i32
// BP-NEXT: %[[KHEAD:.*]] = arith.addi %[[KZR]], %[[KHR]] : i32
// BP: scf.for %[[N:.*]] = %c0_i32 to %N_CTX step %c32_i32 iter_args(%m_i_{{.*}} = %m_i, %l_i_{{.*}} = %l_i, %arg28 = %cst) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x32xf32>) : i32 {
// BP-NEXT: %[[KROW:.*]] = arith.addi %[[KHEAD]], %[[N]] : i32
// BP-NEXT: %[[KBOX:.*]] = tile.desc_load %K_tma[%[[KROW]], %{{.*}}] : !tile.desc<tensor<32x32xf16>> -> tensor<32x32xf16>
// BP-NEXT: %k = tile.trans %[[KBOX]] [1, 0] : tensor<32x32xf16> -> tensor<32x32xf16>
// BP-NEXT: tile.dot %q_{{.*}}, %k, %cst
// BP: %v = tile.desc_load %V_tma[%{{.*}}, %{{.*}}] : !tile.desc<tensor<32x32xf16>> -> tensor<32x32xf16>
// BP-NOT: tile.load
// BP: tile.store

// ...and ws-hopper warp-specializes it, as Triton 3.4 prints it too: a producer issuing the
// three TMA loads (Q once, K and V per iteration), a consumer running the wgmmas on the
// transposed K.
// RUN: ws-opt %S/../Inputs/triton/v3.4/attention_block_ptr_f16_d32_64x32.ttir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=BPWS
// BPWS-NOT: remark
// BPWS: nvgpu.wg.branch warps 0 to 4 "producer"
// BPWS: nvgpu.tma.async_load %arg0_tma
// BPWS: scf.for
// BPWS: nvgpu.tma.async_load %arg1_tma
// BPWS: nvgpu.tma.async_load %arg2_tma
// BPWS: nvgpu.wg.branch warps 4 to 8 "consumer"
// BPWS: tile.trans %{{.*}} [1, 0] : tensor<32x32xf16, #layout.shared<swizzle = 64, order = [1, 0]>> -> tensor<32x32xf16, #layout.shared<swizzle = 64, order = [0, 1]>>
// BPWS: nvgpu.wgmma.mma_async

// The same rewriting by hand: a transposed tile (dim 0 contiguous), one head's rows checked at
// a bound (left: the whole tensor's view cannot bound them), one head's columns checked `>= 0`
// and `< N` (converted, the row stride dividing %HS), columns checked from 1 (left).
// RUN: ws-opt %S/Inputs/tma-load-block-ptr.mlir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=BPH
// BPH: tma-load-block-ptr.mlir:19:3: remark: ws-tma-load: a TMA load of the transposed box (its rows are contiguous) of argument 0 (x)
// BPH: tma-load-block-ptr.mlir:66:3: remark: ws-tma-load: left as a pointer load: its rows are bounded and its pointer has a per-program offset (such as a batch or head offset), which the TMA view of the whole tensor cannot bound
// BPH: tma-load-block-ptr.mlir:101:3: remark: ws-tma-load: a TMA load of argument 0 (x); its per-program offset is a row offset: the launch checks that the row stride divides %HS
// BPH: tma-load-block-ptr.mlir:131:3: remark: ws-tma-load: left as a pointer load: its columns are bounded from below at another index than 0
// BPH: func.func @transposed({{.*}}, %x_tma: !tile.desc<tensor<64x32xf16>>) attributes {tile.kernel, ws.tma_loads = [{ptr = 0 : i32, desc = 3 : i32, stride = {{\[}}[1 : i64, 2 : i32]], shape = {{\[}}[], {{\[}}[32 : i64]]], extent = 1 : i32}]}
// BPH: %[[T:.*]] = tile.desc_load %x_tma[%{{.*}}, %{{.*}}] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
// BPH-NEXT: %v = tile.trans %[[T]] [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
// BPH: func.func @head_rows(
// BPH: tile.load %xp, %ok, %zero
// BPH: func.func @head_columns({{.*}}, %x_tma: !tile.desc<tensor<16x64xf16>>) attributes {tile.kernel, ws.tma_loads = [{ptr = 0 : i32, desc = 5 : i32, stride = {{\[}}[1 : i64, 2 : i32]], shape = {{\[}}[], {{\[}}[1 : i64, 4 : i32]]], extent = 1 : i32, multiples = {{\[}}{{\[}}[1 : i64, 3 : i32]]]}]}
// BPH-NEXT: %[[Q:.*]] = arith.divsi %HS, %S : i32
// BPH: %[[R:.*]] = arith.muli %pid, %[[Q]] : i32
// BPH: tile.desc_load %x_tma[%[[R]], %{{.*}}] : !tile.desc<tensor<16x64xf16>> -> tensor<16x64xf16>
// BPH: func.func @from_one(
// BPH: tile.load %xp, %ok, %zero

// Block pointers with boundary checks on both dims (test/triton/Inputs, Triton 3.6): `r >= 0`
// and `c >= 0` are TMA's own lower bounds, so the load converts with M x K as its bounds.
// RUN: ws-opt %S/../triton/Inputs/block_pointer_rowsum_v3.6.ttir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=BPCHK
// BPCHK: remark: ws-tma-load: a TMA load of argument 0 (A)
// BPCHK: ws.tma_loads = [{ptr = 0 : i32, desc = 5 : i32, stride = {{\[}}[1 : i64, 4 : i32]], shape = {{\[}}{{\[}}[1 : i64, 2 : i32]], {{\[}}[1 : i64, 3 : i32]]]}]
// BPCHK: tile.desc_load %A_tma
