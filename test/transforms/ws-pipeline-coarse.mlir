// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},ws-pipeline-coarse' | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-coarse' | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../Inputs/kernels/fused_mlp.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma,ws-pipeline-coarse' | filecheck %s --check-prefix=MLP
// RUN: ws-opt %S/../Inputs/kernels/staged_mlp.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-coarse' | filecheck %s --check-prefix=STAGED
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2},ws-pipeline-coarse' 2>&1 | filecheck %s --check-prefix=GEMM
// RUN: ws-opt %S/../Inputs/kernels/dual_dot.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=0},ws-pipeline-coarse' 2>&1 | filecheck %s --check-prefix=DUAL
// RUN: ws-opt %s -p 'ws-partition,ws-distribute{depth=1},ws-pipeline-coarse' 2>&1 | filecheck %s --check-prefix=SHALLOW
// RUN: ws-opt %s -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-coarse' 2>&1 | filecheck %s --check-prefix=HELD
// RUN: ws-opt %s -p ws-hopper 2>&1 | filecheck %s --check-prefix=HOPPER
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-specialize{depth=2 mma-depth=1}' | ws-opt --print-op-generic | ws-opt | filecheck %s --check-prefix=ATTN
// The partitions' copies of a scheduled loop: a ring whose slot is alive from the put (stage 0) to
// the release (stage 1, two dots in flight) gets 4 slots instead of 3 (X's one ring, read by both
// consumers, is held to stage 1 by consumer_w2); stages a copy cannot follow
// leave every copy unpipelined (issue 12; fuzz run 2026-11-25).
// RUN: ws-opt %S/Inputs/coarse-stage-gap.mlir -p 'ws-partition,ws-distribute,ws-pipeline-mma,ws-pipeline-coarse' | filecheck %s --check-prefix=GAP
// RUN: ws-opt %S/Inputs/coarse-stages-disagree.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},ws-pipeline-coarse' 2>&1 | filecheck %s --check-prefix=DISAGREE

// Attention (Algorithm 1): prologue T_0, C_0 under a trips > 0 guard; the steady
// state issues T_j, rescales the accumulator U_{j-2} left with C_{j-1}'s alpha (the
// rescale only feeds U, so it runs in U's stage: alpha travels, not the rescaled
// tile), issues U_{j-1} from carried P, waits for T_j with U_{j-1} still in flight,
// runs the softmax and waits for U_{j-1}; the epilogue rescales and runs U_{N-1}.
// K slots are released by stage 0, V slots by stage 1.
// ATTN: warp_group.partition 1 consumer
// ATTN: %runs = arith.cmpi sgt, %trips
// ATTN: %second = arith.addi %[[LB:.*]], %[[STEP:.*]] : i32
// ATTN: scf.if %runs -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
// ATTN-NEXT: %[[K0:.*]] = aref.get %aref_k[%[[LB]]]
// ATTN: mma.async_dot %{{.*}}, %{{.*}}, %zero_qk
// ATTN-NEXT: mma.wait %{{.*}} {pending = 0}
// ATTN-NEXT: aref.consumed %aref_k[%[[LB]]]
// ATTN-NOT: aref.get %aref_v
// ATTN-NOT: arith.mulf %acc0
// ATTN: %p16 = arith.truncf
// ATTN-NEXT: scf.for %[[J:.*]] = %second to %{{.*}} step %[[STEP]] iter_args(%m_i = %m_ij, %l_i = %l_new, %alpha_prev = %alpha, %j_prev = %[[LB]], %p16_prev = %p16, %acc_prev = %acc0)
// ATTN-NEXT: %[[K:.*]] = aref.get %aref_k[%[[J]]]
// ATTN-NEXT: %[[KT:.*]] = tile.trans %[[K]]
// ATTN-NEXT: %[[T:.*]] = mma.async_dot %{{.*}}, %[[KT]], %zero_qk
// ATTN-NEXT: %[[AE:.*]] = tile.expand_dims %alpha_prev, 1
// ATTN-NEXT: %[[AB:.*]] = tile.broadcast %[[AE]]
// ATTN-NEXT: %[[ACCS:.*]] = arith.mulf %acc_prev, %[[AB]]
// ATTN-NEXT: %[[V:.*]] = aref.get %aref_v[%j_prev]
// ATTN-NEXT: %[[U:.*]] = mma.async_dot %p16_prev, %[[V]], %[[ACCS]]
// ATTN-NEXT: %[[S:.*]] = mma.wait %[[T]] {pending = 1}
// ATTN-NEXT: aref.consumed %aref_k[%[[J]]]
// ATTN-NEXT: tile.reduce max %[[S]]
// ATTN: %[[ALPHA:alpha[_0-9]*]] = math.exp2
// ATTN: %[[P16:.*]] = arith.truncf
// ATTN-NEXT: %[[O:.*]] = mma.wait %[[U]] {pending = 0}
// ATTN-NEXT: aref.consumed %aref_v[%j_prev]
// ATTN-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[ALPHA]], %[[J]], %[[P16]], %[[O]]
// ATTN-NEXT: } {ws.peeled = 1 : i32}
// ATTN-NEXT: %[[AEL:.*]] = tile.expand_dims %alpha_last, 1
// ATTN-NEXT: %[[ABL:.*]] = tile.broadcast %[[AEL]]
// ATTN-NEXT: %[[ACCL:.*]] = arith.mulf %acc_last, %[[ABL]]
// ATTN-NEXT: %[[VL:.*]] = aref.get %aref_v[%j_last]
// ATTN-NEXT: %[[UL:.*]] = mma.async_dot %p16_last, %[[VL]], %[[ACCL]]
// ATTN-NEXT: %[[OL:.*]] = mma.wait %[[UL]] {pending = 0}
// ATTN-NEXT: aref.consumed %aref_v[%j_last]
// ATTN-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[OL]]
// ATTN-NEXT: } else {
// ATTN-NEXT: scf.yield %m0, %l0, %acc0
// ATTN: arith.divf

// The second dot accumulates into its own iter_arg: its previous result is carried
// to the next steady-state iteration (acc_prev), not rescaled by stage 0.
// MLP: scf.for %[[J:.*]] = %second to %{{.*}} iter_args(%j_prev = %{{.*}}, %h16_prev = %h16, %acc_prev = %zero)
// MLP: %[[U:.*]] = mma.async_dot %h16_prev, %{{.*}}, %acc_prev
// MLP-NEXT: mma.wait %{{.*}} {pending = 1}
// MLP: %[[W:.*]] = mma.wait %[[U]] {pending = 0}
// MLP: scf.yield %[[J]], %{{.*}}, %[[W]]
// MLP: mma.async_dot %h16_last, %{{.*}}, %acc_last

// ws.stage / ws.order drive the stages and the steady-state order instead of the
// T/C/U cues: the relu (stage 1) of iteration j-1 runs after T_j's issue.
// STAGED: scf.for %[[J:.*]] = %second to %n step %{{.*}} iter_args(%s_prev = %s_1, %j_prev = %{{.*}}, %acc_prev = %zero)
// STAGED-NEXT: aref.get %aref_w1[%[[J]]]
// STAGED-NEXT: tile.trans
// STAGED-NEXT: %[[T:.*]] = mma.async_dot
// STAGED-NEXT: %h = arith.maximumf %s_prev, %zero
// STAGED-NEXT: %h16 = arith.truncf %h
// STAGED-NEXT: %[[W2:.*]] = aref.get %aref_w2[%j_prev]
// STAGED-NEXT: %[[U:.*]] = mma.async_dot %h16, %[[W2]], %acc_prev
// STAGED-NEXT: mma.wait %[[T]] {pending = 1}
// STAGED-NEXT: aref.consumed %aref_w1[%[[J]]]
// STAGED-NEXT: mma.wait %[[U]] {pending = 0}
// STAGED-NEXT: aref.consumed %aref_w2[%j_prev]

// One dot: nothing to do, no remark. Two independent dots: no C stage.
// GEMM-NOT: remark
// GEMM-NOT: ws.peeled
// DUAL: remark: ws-pipeline-coarse: no second dot reads work done on the first dot's result (no C stage)
// DUAL-NOT: ws.peeled

// Both dots read the W tile: pipelined, stage 0 would get the slot and stage 1 read it
// one iteration later through a loop value, which wgmma cannot take as an operand (it
// reads a slot's tiles in the iteration that gets them); the loop stays as it is and
// ws-hopper lowers it. A ring of depth 1 could not hold the two slots either.
// SHALLOW: remark: ws-pipeline-coarse: loop not pipelined: aref ring of depth 1 would hold two slots across iterations
// SHALLOW-NOT: ws.peeled
// HELD: remark: ws-pipeline-coarse: loop not pipelined: the tile of %aref_w is read in stage 0 and again in stage 1 (by 'mma.async_dot'): the pipelined loop would carry it to the next iteration as a loop value
// HELD-NOT: ws.peeled
// HOPPER: nvgpu.wgmma.mma_async
// HOPPER-NOT: error

func.func @shared_tile(%x_desc: !tile.desc<tensor<64x64xf16>>, %w_desc: !tile.desc<tensor<64x64xf16>>,
                       %o_ptr: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %x = tile.desc_load %x_desc[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero, %oh = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %w = tile.desc_load %w_desc[%oh, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %wt = tile.trans %w [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %x, %wt, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %h = arith.maximumf %s, %zero : tensor<64x64xf32>
    %h16 = arith.truncf %h : tensor<64x64xf32> to tensor<64x64xf16>
    %acc2 = tile.dot %h16, %w, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %oh2 = arith.addi %oh, %c64 : i32
    scf.yield %acc2, %oh2 : tensor<64x64xf32>, i32
  }
  %rm = tile.make_range 0 to 64 : tensor<64xi32>
  %c64v = arith.constant dense<64> : tensor<64xi32>
  %roff = arith.muli %rm, %c64v : tensor<64xi32>
  %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %base = tile.splat %o_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %base, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %ptrs, %r#0 : tensor<64x64x!tile.ptr<f32>>
  func.return
}

// GAP:      %aref_w1 = aref.create : !aref.ring<tensor<128x64xf16>, depth = 3>
// GAP-NEXT: %aref_w2 = aref.create : !aref.ring<tensor<128x64xf16>, depth = 3>
// GAP-NEXT: %aref_x = aref.create consumers = 2 : !aref.ring<tensor<128x64xf16>, depth = 4>
// GAP:      warp_group.partition 0 producer
// GAP:      aref.put %aref_x[%k]
// GAP:      aref.put %aref_w2[%k_prev]
// GAP:      } {ws.peeled = 1 : i32}
// GAP:      warp_group.partition 2 consumer_w2
// GAP:      aref.get %aref_x[%[[K:.*]]]
// GAP-NEXT: aref.get %aref_w2[%[[K]]]
// GAP-NOT:  ws.peeled

// DISAGREE: coarse-stages-disagree.mlir:3:3: remark: ws-pipeline-coarse: loop not pipelined: stages [0, 2]: only two-stage pipelines are supported; no partition's copy of the loop is pipelined (their steps must agree)
// DISAGREE-NOT: ws.peeled
