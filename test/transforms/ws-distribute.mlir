// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3}' | filecheck %s --check-prefix=GEMM
// RUN: ws-opt %shared/kernels/attention.mlir --pass-pipeline='builtin.module(ws-partition,ws-distribute{depth=2})' | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../Inputs/kernels/dual_dot.mlir -p 'ws-partition,ws-distribute{depth=4}' | filecheck %s --check-prefix=DUAL
// RUN: ws-opt %S/../Inputs/kernels/mean_gemm.mlir -p 'ws-partition,ws-distribute{depth=1}' | filecheck %s --check-prefix=MEAN
// RUN: ws-opt %S/../Inputs/kernels/fp8_gemm.mlir -p 'ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=FP8
// RUN: ws-opt %S/../Inputs/kernels/pointer_loop.mlir -p 'ws-partition,ws-distribute' 2>&1 | filecheck %s --check-prefix=LEFT
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=0}' 2>&1 | filecheck %s --check-prefix=BADDEPTH
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute' | ws-opt --print-op-generic | ws-opt | filecheck %s --check-prefix=GEMM

// The producer holds only the TMA loads, their address math and the puts; the
// consumer holds get, dot, consumed and the epilogue. A and B feed the same dot,
// so they share one ring (a tuple payload).
// GEMM: func.func @matmul
// GEMM-SAME: tile.num_warps = 12 : i32
// GEMM: %aref_a_b = aref.create : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// GEMM-NEXT: warp_group.region {
// GEMM-NEXT: warp_group.partition 0 producer warps 4 regs 40 {
// GEMM-NOT: tile.dot
// GEMM-NOT: tile.store
// GEMM: scf.for %k = %c0 to %k_tiles step %c1 iter_args(%o_k = %c0) -> (i32) : i32 {
// GEMM-NEXT: %a = tile.desc_load %a_desc[%o_am, %o_k]
// GEMM-NEXT: %b = tile.desc_load %b_desc[%o_bn, %o_k]
// GEMM-NEXT: aref.put %aref_a_b[%k], %a, %b : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// GEMM-NEXT: %o_k2 = arith.addi %o_k, %Kt : i32
// GEMM-NEXT: scf.yield %o_k2 : i32
// GEMM: warp_group.partition 1 consumer warps 8 regs 232 {
// GEMM-NOT: tile.desc_load
// GEMM: scf.for %[[K:.*]] = %{{.*}} iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
// GEMM-NEXT: %[[A:.*]], %[[B:.*]] = aref.get %aref_a_b[%[[K]]]
// GEMM-NEXT: %bt = tile.trans %[[B]] [1, 0]
// GEMM-NEXT: %acc2 = tile.dot %[[A]], %bt, %acc
// GEMM-NEXT: aref.consumed %aref_a_b[%[[K]]]
// GEMM-NEXT: scf.yield %acc2
// GEMM: tile.store
// GEMM: func.return

// Attention: Q travels once through a depth-1 ring released after the loop;
// K and V feed different dots, so they have rings of their own, and K's slot is
// released right after QK^T, long before V's.
// ATTN: %aref_q = aref.create : !aref.ring<tensor<128x128xf16>, depth = 1>
// ATTN: %aref_k = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// ATTN: %aref_v = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// ATTN: warp_group.partition 0 producer
// ATTN: aref.put %aref_q
// ATTN: scf.for
// ATTN: %k = tile.desc_load
// ATTN-NEXT: aref.put %aref_k
// ATTN: %v = tile.desc_load
// ATTN-NEXT: aref.put %aref_v
// ATTN: warp_group.partition 1 consumer
// ATTN: aref.get %aref_q
// ATTN: scf.for
// ATTN: aref.get %aref_k
// ATTN: %qk = tile.dot
// ATTN-NEXT: aref.consumed %aref_k
// ATTN: aref.get %aref_v
// ATTN: %acc_new = tile.dot
// ATTN-NEXT: aref.consumed %aref_v
// ATTN: scf.yield
// ATTN-NEXT: }
// ATTN-NEXT: aref.consumed %aref_q
// ATTN: tile.desc_store

// One load shared by two dots: A, Wg and Wu ride one ring.
// DUAL: aref.create : !aref.ring<tensor<64x32xf16>, tensor<64x32xf16>, tensor<64x32xf16>, depth = 4>
// DUAL: aref.put %aref_a_wg_wu[%k], %a, %wg, %wu
// DUAL: aref.get %aref_a_wg_wu
// DUAL: %u2 = tile.dot
// DUAL-NEXT: aref.consumed %aref_a_wg_wu

// The K offset is used by the loads and after the loop: both loops carry it.
// MEAN: warp_group.partition 0 producer
// MEAN: scf.for {{.*}} iter_args(%ok = %c0) -> (i32)
// MEAN: warp_group.partition 1 consumer
// MEAN: scf.for {{.*}} iter_args(%acc = %zero, %ok{{.*}} = %c0{{.*}}) -> (tensor<64x64xf32>, i32)
// MEAN: arith.sitofp

// A loop with lower bound 0 and step 2: the ring position is (k - lb) / step.
// FP8: aref.create : !aref.ring<tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, depth = 2>
// FP8: %[[D:.*]] = arith.subi %k2, %lb
// FP8-NEXT: %pos = arith.divui %[[D]], %c2
// FP8: aref.put %aref_x_y[%pos]

// LEFT: remark: ws-partition: @rowsum has no loop with a TMA load
// LEFT-NOT: warp_group
// LEFT: scf.for
// BADDEPTH: error: ws-distribute: depth must be >= 1, got 0
// BADDEPTH-NOT: Traceback

// A TMA-loaded tile the consumer carries to the next iteration: a located error at
// the load (it used to build invalid IR, reported at 1:1).
// RUN: not ws-opt %S/Inputs/distribute-carried-tma-tile.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=CARRIED
// CARRIED: {{.*}}distribute-carried-tma-tile.mlir:11:5: error: ws-distribute: this TMA-loaded tile reaches the next iteration (the loop's scf.yield operand #2); it lives in an aref slot that is released every iteration: carry a tile computed from it instead, or load it in the iteration that uses it
// CARRIED-NOT: Traceback

// A view of a TMA tile used only inside an scf.if travels through the ring (it
// used to stay behind in the producer), and the slot is released after the last
// use of the if's result, not after the if.
// RUN: ws-opt %S/Inputs/distribute-tile-through-if.mlir -p 'ws-partition,ws-distribute' | filecheck %s --check-prefix=THROUGH-IF
// THROUGH-IF: aref.put %aref_a[%k], %a
// THROUGH-IF: warp_group.partition 1 consumer
// THROUGH-IF: %[[A:.*]] = aref.get %aref_a[%[[K:.*]]]
// THROUGH-IF: tile.trans %[[A]]
// THROUGH-IF: %sel = scf.if
// THROUGH-IF: tile.dot %prev, %sel, %acc
// THROUGH-IF-NEXT: aref.consumed %aref_a[%[[K]]]

// Tags written by hand (or left stale) are checked before anything is built: one
// located error at the op, never a KeyError / IndexError or IR that does not verify.
// RUN: ws-opt %S/Inputs/distribute-tagged.mlir -p ws-distribute | filecheck %s --check-prefix=TAGGED
// TAGGED: warp_group.partition 1 consumer warps 8
// RUN: sed 's/%c64 = arith.constant {ws.partition = array<i32: 0>, ws.role = "iter"}/%c64 = arith.constant/' %S/Inputs/distribute-tagged.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefix=UNTAGGED
// UNTAGGED: <stdin>:6:5: error: ws-distribute: this op has no ws.partition tag; the kernel's partition tags are stale; run ws-partition again
// RUN: sed '7s/array<i32: 1>/array<i32: 5>/' %S/Inputs/distribute-tagged.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefix=NOPART
// NOPART: <stdin>:7:5: error: ws-distribute: ws.partition [5] names a partition the kernel does not have (ws.partitioned lists 2)
// RUN: sed '14s/ws.carried = \[array<i32: 1>/ws.carried = [array<i32: 2>/' %S/Inputs/distribute-tagged.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefix=NOCARRY
// NOCARRY: <stdin>:8:5: error: ws-distribute: ws.carried entry #0 [2] names a partition the kernel does not have (ws.partitioned lists 2)
// The accumulator's zero only in the producer: the consumer's loop cannot start from it.
// RUN: sed '7s/array<i32: 1>/array<i32: 0>/' %S/Inputs/distribute-tagged.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: <stdin>:8:5: error: ws-distribute: 'scf.for' runs in partition 1, which does not have its operand (computed by 'arith.constant' in partitions [0]): the ws.partition / ws.carried tags are inconsistent; run ws-partition again
// The store moved to the producer, which does not carry the accumulator.
// RUN: sed '15s/array<i32: 1>/array<i32: 0>/' %S/Inputs/distribute-tagged.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefix=STORE-IN-PRODUCER
// STORE-IN-PRODUCER: <stdin>:15:5: error: ws-distribute: 'tile.desc_store' runs in partition 0, which does not have its operand (loop value #0, which ws.carried gives to partitions [1]): the ws.partition / ws.carried tags are inconsistent; run ws-partition again
// With a ws-schedule warp assignment (three partitions), a scalar that one partition
// computes and another uses (it used to become an aref of an i32, reported without a location).
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_split.mlir -p ws-partition | sed '6s/array<i32: 0, 1, 2>/array<i32: 0>/' | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefix=SCALAR
// SCALAR: <stdin>:22:5: error: ws-distribute: 'arith.ceildivsi' runs in partition 1 but uses a i32 that only partitions [0] compute (a scalar is recomputed where it is needed, not sent); the ws.partition tags are inconsistent; run ws-partition again

// A TMA tile that two scheduled partitions use (the solver's S1 schedule: %x feeds a dot on
// each warp group) travels through one ring of two consumers: the producer issues one load,
// used by its put only (a TMA copy into the slot), and both partitions get and release the
// same slot.
// RUN: ws-opt %S/../Inputs/kernels/scheduled/two_dots_shared_load.mlir -p 'ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=SHARED
// RUN: ws-opt %S/../Inputs/kernels/dual_dot_async.mlir -p 'ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=ASYNC
// SHARED:      %aref_x = aref.create consumers = 2 : !aref.ring<tensor<128x64xf16>, depth = 2>
// SHARED-NOT:  aref.create {{.*}}tensor<128x64xf16>, depth = 2>{{$}}
// SHARED:      warp_group.partition 0 producer
// SHARED:        %[[X:.*]] = tile.desc_load %x_desc
// SHARED-NEXT:   aref.put %aref_x[%{{.*}}], %[[X]]
// SHARED-NOT:    tile.desc_load %x_desc
// SHARED:      warp_group.partition 1
// SHARED:        aref.get %aref_x
// SHARED:        aref.consumed %aref_x
// SHARED:      warp_group.partition 2
// SHARED:        aref.get %aref_x
// SHARED:        aref.consumed %aref_x

// The kernel's own async dots read the slot until the wait that retires them: the release
// follows the wait, not the dots' issue.
// ASYNC: %[[A:.*]], %[[WG:.*]], %[[WU:.*]] = aref.get %aref_a_wg_wu[%[[K:.*]]]
// ASYNC: %g_f = mma.async_dot %[[A]]
// ASYNC-NEXT: %u_f = mma.async_dot %[[A]]
// ASYNC-NEXT: %g2, %u2 = mma.wait %g_f, %u_f {pending = 0}
// ASYNC-NEXT: aref.consumed %aref_a_wg_wu[%[[K]]]
