// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false}' | filecheck %s --check-prefix=IR
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false}' -t llvm -o %t.heur.ll
// RUN: filecheck %s --input-file %t.heur.ll --check-prefix=LL
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false depth=3 mma-depth=2}' -t llvm | filecheck %s --check-prefix=TAWA
// RUN: env WSDIALECTS_SCALAR_STORES=1 ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false}' -t llvm | filecheck %s --check-prefix=SCALAR
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false depth=5}' 2>&1 >/dev/null | filecheck %s --check-prefix=FIT
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=5 mma-depth=1}' -t llvm 2>&1 | filecheck %s --check-prefix=SMEM
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-hopper{auto=false}' 2>&1 >/dev/null | filecheck %s --check-prefix=FIT-ATTN
// RUN: ws-opt %S/../Inputs/kernels/no_loop.mlir -p ws-hopper{auto=false} 2>&1 >/dev/null | filecheck %s --check-prefix=ONCE
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2}' -t ptx | filecheck %s --check-prefix=PTX
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2}' -t llvm | filecheck %s --check-prefix=NOPIPE
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false persistent=true}' -t llvm | filecheck %s --check-prefix=PERSIST
// RUN: ws-opt %S/../Inputs/kernels/fp8_gemm.mlir -p 'ws-hopper{auto=false}' -t llvm | filecheck %s --check-prefix=FP8
// RUN: ws-opt %S/../Inputs/kernels/batched_gemm.mlir -p 'ws-hopper{auto=false}' -t llvm | filecheck %s --check-prefix=TMASTORE
// RUN: ws-opt %S/../Inputs/kernels/bias_gemm.mlir -p 'ws-hopper{auto=false}' -t llvm | filecheck %s --check-prefix=BIAS
// RUN: ws-opt %S/../Inputs/kernels/mean_gemm.mlir -p 'ws-hopper{auto=false}' -t llvm 2>&1 | filecheck %s --check-prefix=MEAN
// RUN: not ws-opt %S/../Inputs/kernels/no_loop.mlir -p 'ws-hopper{auto=false}' -t ptx 2>&1 | filecheck %s --check-prefix=NOWS
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false cooperative=2}' -t llvm | filecheck %s --check-prefix=COOP
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-sched''ule{arch=h100},ws-hopper{auto=false}' -t llvm > %t.sched.ll
// RUN: diff %t.sched.ll %t.heur.ll
// RUN: ws-opt %S/../Inputs/kernels/tma_store_gemm.mlir -p 'ws-hopper{auto=false cooperative=2}' -t llvm | filecheck %s --check-prefix=GATHER
// RUN: ws-opt %S/../Inputs/kernels/computed_dot.mlir -p 'ws-lower-aref,ws-lower-warp-groups' -t llvm | filecheck %s --check-prefix=CPUT
// RUN: ws-opt %S/../Inputs/kernels/computed_put.mlir -p 'ws-lower-aref,ws-lower-warp-groups' -t llvm | filecheck %s --check-prefix=CPUTLD
// RUN: ws-opt %S/../Inputs/kernels/relu_gemm.mlir -p 'ws-hopper{auto=false}' -t llvm | filecheck %s --check-prefix=IFRES
// RUN: not ws-opt %S/../Inputs/kernels/bad_gather.mlir -t llvm 2>&1 | filecheck %s --check-prefix=BADGATHER
// RUN: not ws-opt %S/../Inputs/kernels/bad_gather_order.mlir -t llvm 2>&1 | filecheck %s --check-prefix=GATHERORDER
// RUN: not ws-opt %S/../Inputs/kernels/bad_share_cols.mlir -p 'ws-lower-aref,ws-lower-warp-groups' -t llvm 2>&1 | filecheck %s --check-prefix=SHARECOLS
// RUN: not ws-opt %S/../Inputs/kernels/bad_share_rows.mlir -p 'ws-lower-aref,ws-lower-warp-groups' -t llvm 2>&1 | filecheck %s --check-prefix=SHAREROWS

// ws-hopper = ws-specialize (partition, distribute, pipeline-mma, ...) + ws-lower-aref +
// ws-lower-warp-groups + ws-lower-mma (dots -> nvgpu.wgmma ops, test/transforms/ws-lower-mma.mlir)
// + ...; tiles -> threads happens at emission (-t llvm / -t ptx).
// ws-hopper's defaults: depth 4, mma-depth 1 (see wsdialects/lower/hopper.py).
// IR: nvgpu.smem.alloc : memref<4x128x64xf16, 3 : i64>
// IR: nvgpu.mbarrier.create : !nvgpu.mbarriers<4>
// IR: nvgpu.wg.dispatch threads 384
// IR-NEXT: nvgpu.wg.branch warps 0 to 4 "producer"
// IR-NEXT: nvgpu.setmaxnreg dec 40
// IR: nvgpu.tma.async_load
// IR: nvgpu.wg.branch warps 4 to 12 "consumer"
// IR-NEXT: nvgpu.setmaxnreg inc 232
// IR: nvgpu.wgmma.fence
// IR-NEXT: nvgpu.wgmma.mma_async
// IR-NEXT: nvgpu.wgmma.commit_group
// IR-NEXT: nvgpu.wgmma.wait_group %{{.*}} {pending = 1}
// IR-NOT: aref.
// IR-NOT: {{ (tile\.dot|mma\.async_dot|mma\.wait) }}

// The lowering (target llvm): 384 threads; a FULL (1 arrival) and an EMPTY (8
// consumer warps) mbarrier per slot, initialised by thread 0 and fenced.
// LL: define ptx_kernel void @matmul(ptr %p0, ptr %p1, ptr addrspace(1) %p2, i32 %p3, i32 %p4, i32 %p5, i32 %p6)
// LL-COUNT-4: mbarrier.init.shared::cta.b64 [$1], $2; }", "r,r,r"(i32 %{{.*}}, i32 %{{.*}}, i32 1)
// LL: fence.mbarrier_init.release.cluster;
// LL: bar.sync 0;
// Producer warp group: fewer registers, wait EMPTY with parity ^ 1, one thread
// arrives with the payload bytes (128x64 + 256x64 halves) and issues both TMA loads.
// LL: setmaxnreg.dec.sync.aligned.u32 40;
// LL: urem i32 %{{.*}}, 4
// LL: udiv i32 %{{.*}}, 4
// LL: xor i32 %{{.*}}, 1
// LL: mbarrier.try_wait.parity.shared::cta.b64
// LL: mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 49152; }
// LL: @p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$4, $5}], [$3]; }
// LL: @p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$4, $5}], [$3]; }
// Consumer warp groups: more registers, wait FULL, four k16 wgmmas per 64-wide K
// tile from 128B-swizzled descriptors, retire them, then release the slot.
// LL: setmaxnreg.inc.sync.aligned.u32 232;
// LL: mbarrier.try_wait.parity.shared::cta.b64
// LL: wgmma.fence.sync.aligned;
// LL: or i64 %{{.*}}, 4611686293305360384
// LL-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// LL: wgmma.commit_group.sync.aligned;
// ws-pipeline-mma{depth=1} (the ws-hopper default): one wgmma group stays in flight;
// the slot of iteration k-1 is released once it retired, the last one after the loop.
// LL: wgmma.wait_group.sync.aligned 1;
// LL: if_then
// LL: @p mbarrier.arrive.shared::cta.b64 _, [$1];
// LL: wgmma.wait_group.sync.aligned 0;
// LL: @p mbarrier.arrive.shared::cta.b64 _, [$1];
// Epilogue (pointers contiguous along a row): each warp writes its 16 fragment rows of a
// 64-column chunk to padded shared memory as f16 pairs, then stores them row-wise as
// 16-byte vectors where all 8 masks hold and the address is 16-byte aligned, element by
// element (masked) otherwise.
// LL: cvt.rn.f16x2.f32 $0, $1, $2;
// LL: st.shared.b32 [$0], $1;
// LL: bar.warp.sync -1;
// LL: ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];
// LL: and i64 %{{.*}}, 15
// LL: {{^}}st_vec{{[0-9]+}}:
// LL-NEXT: st.global.v4.b32 [$0], {$1, $2, $3, $4};
// LL: {{^}}st_elem{{[0-9]+}}:
// LL: @p st.global.b16 [$0], $1;
// LL: bar.warp.sync -1;
// LL: attributes #0 = { "nvvm.maxntid"="384" "nvvm.minctasm"="1" }

// Tawa's ws-specialize defaults (depth 3, mma-depth 2) keep two groups in flight.
// TAWA: wgmma.wait_group.sync.aligned 2;
// TAWA: wgmma.wait_group.sync.aligned 0;

// WSDIALECTS_SCALAR_STORES=1: the epilogue stores element by element from the fragment.
// SCALAR: cvt.rn.f16x2.f32 $0, $1, $2;
// SCALAR-NOT: st.global.v4.b32
// SCALAR: @p st.global.b16 [$0], $1;
// SCALAR-NOT: st.global.v4.b32

// ws-hopper's depth is the deepest ring it uses: rings that do not fit in shared memory
// get the largest depth that does (a remark); an explicit depth whose ring does not fit is an
// error at the tile's load (ws-lower-aref).
// FIT: gemm.mlir:4:3: remark: ws-hopper: rings of depth 5 need {{[0-9]+}} bytes of shared memory, more than the 232448 a block can have; using depth 4
// FIT-ATTN: attention.mlir:4:3: remark: ws-hopper: rings of depth 4 need 328848 bytes of shared memory, more than the 232448 a block can have; using depth 2
// SMEM: gemm.mlir:21:7: error: ws-lower-aref: this tile's aref ring does not fit in shared memory: 5 slots of tensor<128x64xf16>, tensor<256x64xf16> take 245760 bytes, more than the 232448 bytes a block can have

// Without ws-pipeline-mma every dot retires (wait 0) before its slot is released.
// NOPIPE: wgmma.commit_group.sync.aligned;
// NOPIPE-NEXT: wgmma.wait_group.sync.aligned 0;
// NOPIPE: @p mbarrier.arrive.shared::cta.b64 _, [$1];

// Persistent: a tile loop over nctaid.x programs, the consumer's warps meet on a
// named barrier (id 2, 256 threads) before each epilogue.
// PERSIST: call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
// PERSIST: bar.sync 2, 256;

// PTX: .target sm_90a
// PTX: .maxntid 384
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16

// fp8: k32 per wgmma, two per 64-byte-wide K tile (64B swizzle), TMA store epilogue.
// FP8: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// FP8-NEXT: extractvalue
// FP8: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// FP8: fence.proxy.async.shared::cta;
// FP8: bar.sync 2, 128;
// FP8: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// bf16, grid z as the batch: the TMA store writes f32 through staging shared memory laid
// out like a slot: 64 f32 = 256-byte rows are two 128B-swizzled column blocks (pairs of
// columns per 64-bit store at the swizzled address), one TMA box each (the second 8 KiB and
// 32 columns on), then one commit and wait.
// TMASTORE: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
// TMASTORE: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// TMASTORE: %swz{{[0-9]+}} = xor i32
// TMASTORE: st.shared.v2.b32 [$0], {$1, $2};
// TMASTORE: fence.proxy.async.shared::cta;
// TMASTORE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$3, $4}], [$2]; }
// TMASTORE-NEXT: add i32 %stage{{[0-9]+}}, 8192
// TMASTORE-NEXT: add i32 %{{.*}}, 32
// TMASTORE-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$3, $4}], [$2]; }
// TMASTORE-NEXT: @p cp.async.bulk.commit_group; }
// The storing thread waits for the store to read its staging buffer only where the branch ends.
// TMASTORE-NOT: bar.sync
// TMASTORE: @p cp.async.bulk.wait_group.read 0; }
// TMASTORE-NEXT: br label %wg_done

// The bias vector is a masked pointer load per column the thread owns.
// BIAS: @p ld.global.b32 $0, [$1];
// BIAS: fadd contract float
// BIAS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// A 64x64 f32 slot (256-byte rows) is two 128B-swizzled column blocks of 64 x 32: two TMA
// boxes, the second 32 columns and 8 KiB further on.
// MEAN: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// MEAN: add i32 %{{.*}}, 8192
// MEAN: add i32 %{{.*}}, 32
// MEAN: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// NOWS: no_loop.mlir:2:1: error: -t ptx: @scale is not warp-specialized (ws-hopper left it as it is, see its remark); the Hopper lowering needs a kernel whose main loop loads tiles with tile.desc_load

// ws-schedule's lockstep team on the gemm (cooperative = 2, no ping-pong) stays one consumer
// branch of two warp groups: the kernel is the heuristic pipeline's, to the byte (as two
// branches ptxas serialized their wgmmas, C7520).
// ws-cooperative{groups=2}: two consumer
// branches of one warp group, 64 rows each. warp_group.share of the A slot is the slot
// itself for group 0 and the slot + 64 rows x 128 bytes for group 1 (a multiple of the
// 1024-byte 128B-swizzle atom: the wgmma descriptors need no base offset).
// COOP: setmaxnreg.dec.sync.aligned.u32 40;
// COOP: setmaxnreg.inc.sync.aligned.u32 232;
// COOP-NOT: %share
// COOP-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// COOP: setmaxnreg.inc.sync.aligned.u32 232;
// COOP: %share{{[0-9]+}} = add i32 %slot{{[0-9]+}}, 8192
// COOP-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// COOP: attributes #0 = { "nvvm.maxntid"="384"

// warp_group.gather + TMA store: both groups write their 64 rows into group 0's staging
// buffer (group 1 at row + 64: 8192 bytes on, an immediate of its stores), fence them for
// the async proxy and meet on named barrier 4 (ids 1-3 are the three branches') over all
// 256 consumer threads: group 0 waits there, group 1 only arrives; only group 0 issues the
// TMA store.
// GATHER: setmaxnreg.inc.sync.aligned.u32 232;
// GATHER: st.shared.b32 [$0], $1;
// GATHER: fence.proxy.async.shared::cta;
// GATHER-NEXT: bar.sync 4, 256;
// GATHER-NEXT: ptrtoint
// GATHER-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// GATHER: setmaxnreg.inc.sync.aligned.u32 232;
// GATHER: st.shared.b32 [$0+8192], $1;
// GATHER: fence.proxy.async.shared::cta;
// GATHER-NEXT: bar.arrive 4, 256;
// GATHER-NOT: cp.async.bulk.tensor
// GATHER: attributes #0

// A computed tile put through an aref (nvgpu.smem.store). The producer's own TMA load
// of X (a tile it computes with, not one it puts) goes to a staging buffer with an
// mbarrier of its own (the producer meets first: the last tile was read; the phase
// each thread waits for lives in a local). 2 * X is written to the slot, two halves per
// 32-bit store at the 128B-swizzled address, fenced, every thread arrives (per_thread).
// The consumer's wgmma reads the slot.
// CPUT: %phase{{[0-9]+}} = alloca i32
// CPUT: setmaxnreg.dec.sync.aligned.u32 40;
// CPUT: bar.sync 1, 128;
// CPUT-NEXT: ptrtoint
// CPUT-NEXT: @p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$3], 8192; @p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CPUT-NEXT: load i32, ptr %phase
// CPUT-NEXT: mbarrier.try_wait.parity
// CPUT: ld.shared.b16
// CPUT: fmul contract half
// CPUT: %swz{{[0-9]+}} = xor i32
// CPUT: st.shared.b32 [$0], $1;
// CPUT: fence.proxy.async.shared::cta;
// CPUT: call void asm sideeffect "mbarrier.arrive.shared::cta.b64 _, [$0];"
// CPUT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16

// computed_put: the consumer stores the slot with TMA: it reads the slot into registers
// where the IR reads it (swizzled ld.shared, before the slot's release), then meets (inside
// the loop: the last TMA store, one thread, has read the staging buffer) and writes pairs
// into the (swizzled) staging buffer.
// CPUTLD: st.shared.b32 [$0], $1;
// CPUTLD: "mbarrier.arrive.shared::cta.b64 _, [$0];"
// CPUTLD: setmaxnreg.dec.sync.aligned.u32 232;
// CPUTLD: mbarrier.try_wait.parity
// CPUTLD: %swz{{[0-9]+}} = xor i32
// CPUTLD: ld.shared.b16
// CPUTLD: bar.sync 2, 128;
// CPUTLD: st.shared.b32 [$0], $1;
// CPUTLD: fence.proxy.async.shared::cta;
// CPUTLD-NEXT: bar.sync 2, 128;
// CPUTLD: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// scf.if with results: a phi per accumulator register and one for the scalar.
// IFRES: %phi{{[0-9]+}} = phi float [%{{.*}}, %if_then{{[0-9]+}}], [%{{.*}}, %if_else{{[0-9]+}}]
// IFRES-COUNT-31: = phi float [%{{.*}}, %if_then{{[0-9]+}}], [%{{.*}}, %if_else{{[0-9]+}}]
// IFRES-NEXT: = phi float [0x4000000000000000, %if_then{{[0-9]+}}], [0x3FF0000000000000, %if_else{{[0-9]+}}]
// IFRES: fmul contract float %phi

// BADGATHER: bad_gather.mlir:7:7: error: warp_group.gather is lowered only when group 0 stores the gathered tile with tile.desc_store
// GATHERORDER: bad_gather_order.mlir:8:7: error: warp_group.gather: group 1 of 2 is not in the warp-group branch after its team's group 0
// SHARECOLS: bad_share_cols.mlir:27:9: error: warp_group.share along the contiguous dimension of a shared-memory tile is lowered only in whole column blocks of its 128B swizzle (a slice of 64 bytes of a row is no tile of the same layout)
// SHAREROWS: bad_share_rows.mlir:29:9: error: ws-lower-layouts: a 4x64 tile does not fit the wgmma accumulator of 1 warp group(s)

// ws-hopper chooses its ring depth without printing the remarks of a trial: each remark once
// (and not ws-register-budget's "run it after ws-lower-warp-groups": ws-partition's says why).
// ONCE: no_loop.mlir:2:1: remark: ws-partition: @scale has no loop with a TMA load
// ONCE-NOT: {{ws-partition|ws-register-budget}}
