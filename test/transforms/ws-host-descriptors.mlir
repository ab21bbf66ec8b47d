// ws-host-descriptors: Triton's attention tutorial makes its four descriptors on the device
// (tl.make_tensor_descriptor over Q, K, V, O: Z * H * N_CTX rows of HEAD_DIM, strides [HEAD_DIM, 1]);
// each becomes a trailing !tile.desc argument the launch builds, the contract (ws.host_descs) says
// from which pointer argument and which polynomials of the arguments (rows = 128 * Z * H), O is
// stored through (no copy at launch), and the row count's arithmetic goes with the ops.
// RUN: ws-opt %S/../Inputs/triton/attention_desc_f16_d32_n128.ttir -p ws-host-descriptors 2>&1 | filecheck %s
// CHECK: attention_desc.py:52:14: remark: ws-host-descriptors: built at launch over argument 0 (Q) as argument 7
// CHECK: attention_desc.py:54:14: remark: ws-host-descriptors: built at launch over argument 1 (K) as argument 8
// CHECK: attention_desc.py:56:14: remark: ws-host-descriptors: built at launch over argument 2 (V) as argument 9
// CHECK: attention_desc.py:58:14: remark: ws-host-descriptors: built at launch over argument 3 (O) as argument 10
// CHECK: func.func @attention_desc_kernel(%Q: !tile.ptr<f16>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>, %O: !tile.ptr<f16>, %sm_scale: f32, %Z: i32, %H: i32, %q_desc: !tile.desc<tensor<64x32xf16>>, %k_desc: !tile.desc<tensor<32x32xf16>>, %v_desc: !tile.desc<tensor<32x32xf16>>, %o_desc: !tile.desc<tensor<64x32xf16>>)
// CHECK-SAME: ws.host_descs = [{ptr = 0 : i32, desc = 7 : i32, shape = {{\[}}{{\[}}[128 : i64, 5 : i32, 6 : i32]], {{\[}}[32 : i64]]], strides = {{\[}}{{\[}}[32 : i64]], {{\[}}[1 : i64]]], stored = 0 : i32},
// CHECK-SAME: {ptr = 1 : i32, desc = 8 : i32, {{.*}}, stored = 0 : i32}, {ptr = 2 : i32, desc = 9 : i32, {{.*}}, stored = 0 : i32},
// CHECK-SAME: {ptr = 3 : i32, desc = 10 : i32, shape = {{\[}}{{\[}}[128 : i64, 5 : i32, 6 : i32]], {{\[}}[32 : i64]]], strides = {{\[}}{{\[}}[32 : i64]], {{\[}}[1 : i64]]], stored = 1 : i32}]
// CHECK-NOT: tile.make_desc
// CHECK-NOT: %y_dim
// CHECK: %q = tile.desc_load %q_desc[%qo_offset_y_1, %c0_i32] : !tile.desc<tensor<64x32xf16>>
// CHECK: scf.for
// CHECK: tile.desc_load %k_desc[%k, %c0_i32] : !tile.desc<tensor<32x32xf16>>
// CHECK: tile.desc_load %v_desc[%k, %c0_i32] : !tile.desc<tensor<32x32xf16>>
// CHECK: tile.desc_store %o_desc[%qo_offset_y_1, %c0_i32], %{{.*}} : !tile.desc<tensor<64x32xf16>>

// The contract verifies when read back, and a second run leaves the kernel as it is.
// RUN: ws-opt %S/../Inputs/triton/attention_desc_f16_d32_n128.ttir -p ws-host-descriptors 2>/dev/null | ws-opt -p ws-host-descriptors 2>&1 | filecheck %s --check-prefix=AGAIN
// AGAIN-NOT: remark
// AGAIN-NOT: warning
// AGAIN: func.func @attention_desc_kernel({{.*}}, %o_desc: !tile.desc<tensor<64x32xf16>>)
// AGAIN-NOT: %o_desc_
// AGAIN-SAME: ws.host_descs

// A 3-D tensor read in 2-D boxes: sizes and strides from i32 arguments (the i64 strides through
// arith.extsi), two identical descriptors become one argument, O's stored through.
// RUN: ws-opt %S/Inputs/host-descriptors.mlir -p ws-host-descriptors 2>&1 | filecheck %s --check-prefix=THREE
// THREE: host-descriptors.mlir:14:3: remark: ws-host-descriptors: built at launch over argument 0 (q) as argument 4
// THREE: host-descriptors.mlir:15:3: remark: ws-host-descriptors: built at launch over argument 0 (q) as argument 4
// THREE: host-descriptors.mlir:16:3: remark: ws-host-descriptors: built at launch over argument 1 (o) as argument 5
// THREE: func.func @three_d(%q: !tile.ptr<f16>, %o: !tile.ptr<f16>, %BH: i32, %L: i32, %d1: !tile.desc<tensor<64x64xf16>>, %od: !tile.desc<tensor<64x64xf16>>)
// THREE-SAME: ws.host_descs = [{ptr = 0 : i32, desc = 4 : i32, shape = {{\[}}{{\[}}[1 : i64, 2 : i32]], {{\[}}[1 : i64, 3 : i32]], {{\[}}[64 : i64]]], strides = {{\[}}{{\[}}[64 : i64, 3 : i32]], {{\[}}[64 : i64]], {{\[}}[1 : i64]]], stored = 0 : i32},
// THREE-SAME: {ptr = 1 : i32, desc = 5 : i32, {{.*}}, stored = 1 : i32}]
// THREE-NOT: arith.extsi
// THREE: %a = tile.desc_load %d1[%bh, %c0, %c0]
// THREE-NEXT: %b = tile.desc_load %d1[%bh, %c64, %c0]
// THREE: tile.desc_store %od[%bh, %c0, %c0]

// What it leaves on the device, each with its reason (the expected-remark comments in the input).
// RUN: ws-opt %S/Inputs/host-descriptors-left.mlir -p ws-host-descriptors --verify-diagnostics | filecheck %s --check-prefix=LEFT
// LEFT-COUNT-5: tile.make_desc
// LEFT-NOT: ws.host_descs

// ws-hopper runs it first; where it leaves one, the lowering's located error stands after the remark.
// RUN: not ws-opt %S/Inputs/host-descriptors-left.mlir -p ws-hopper -t ptx 2>&1 | filecheck %s --check-prefix=ERR
// ERR: host-descriptors-left.mlir:15:3: remark: ws-host-descriptors: left on the device: its size 0 depends on a program id
// ERR: host-descriptors-left.mlir:15:3: error: 'tile.make_desc' cannot be lowered to Hopper code

// ws-specialize runs it first: the imported attention is warp-specialized (a TMA producer of K and V),
// and so is the causal one, in both its loops.
// RUN: ws-opt %S/../Inputs/triton/attention_desc_f16_d32_n128.ttir -p ws-specialize 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC-NOT: remark
// SPEC: aref.create : !aref.ring<tensor<32x32xf16>
// SPEC: warp_group.partition 0 producer
// SPEC: tile.desc_load %q_desc
// SPEC: scf.for
// SPEC: tile.desc_load %k_desc
// SPEC: aref.put
// SPEC: warp_group.partition 1 consumer
// SPEC-NOT: tile.desc_load
// SPEC: tile.desc_store %o_desc
// RUN: ws-opt %S/../Inputs/triton/attention_desc_causal_bf16_d32_n128.ttir -p ws-specialize 2>&1 | filecheck %s --check-prefix=CAUSAL
// CAUSAL-NOT: remark
// CAUSAL: warp_group.partition 0 producer
// CAUSAL-COUNT-2: tile.desc_load %k_desc
// CAUSAL: warp_group.partition 1 consumer

// ... and ws-hopper writes its PTX.
// RUN: ws-opt %S/../Inputs/triton/attention_desc_f16_d32_n128.ttir -p ws-hopper -t ptx 2>&1 | filecheck %s --check-prefix=PTX
// PTX-NOT: error
// PTX: .entry attention_desc_kernel(
// PTX: cp.async.bulk.tensor
// PTX: wgmma.mma_async

// With ws-persistent the grid arguments follow the descriptors, and the printed kernel (an imported
// one, with argument attributes) reads back.
// RUN: ws-opt %S/../Inputs/triton/attention_desc_f16_d32_n128.ttir -p "ws-hopper{persistent=true programs=3}" 2>/dev/null | ws-opt 2>&1 | filecheck %s --check-prefix=PERS
// PERS: func.func @attention_desc_kernel({{.*}}, %o_desc: !tile.desc<tensor<64x32xf16>>, %ws_grid_x: i32, %ws_grid_y: i32, %ws_grid_z: i32)
// PERS-SAME: ws.persistent = {programs = 3 : i32}
