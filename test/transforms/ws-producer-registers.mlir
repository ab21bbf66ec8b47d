// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-cooperative{groups=2},ws-producer-registers' | filecheck %s --check-prefix=TEAM
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-producer-registers' | filecheck %s --check-prefix=WIDE
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-producer-registers{regs=48}' | filecheck %s --check-prefix=NOGAIN
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-specialize{cooperative=2 pingpong=true v-transpose=producer},ws-producer-registers' 2>&1 | filecheck %s --check-prefix=HOLDS
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-producer-registers{regs=20}' 2>&1 | filecheck %s --check-prefix=BAD

// A TMA-only producer beside two consumer groups: 24 registers (down from 40), the groups 240
// (up from 232): (64512 - 128 x 24) / 256. The CTA holds 168 registers a thread from launch
// (64512, not the file's 65536) and setmaxnreg only moves them between its warp groups.
// TEAM: warp_group.partition 0 producer warps 4 regs 24
// TEAM: warp_group.partition 1 consumer0 warps 4 regs 240
// TEAM: warp_group.partition 2 consumer1 warps 4 regs 240

// One consumer partition of 8 warps: the same split.
// WIDE: warp_group.partition 0 producer warps 4 regs 24
// WIDE: warp_group.partition 1 consumer warps 8 regs 240

// With the producer at 48 the consumers would get 232, what they have: nothing changes.
// NOGAIN: warp_group.partition 0 producer warps 4 regs 40
// NOGAIN: warp_group.partition 1 consumer warps 8 regs 232

// A producer that transposes fp8 V in its registers keeps them (and the consumers theirs).
// HOLDS: remark: ws-producer-registers: the producer keeps its 56 registers: 'tile.trans' leaves a tile in its registers
// HOLDS: warp_group.partition 0 producer warps 4 regs 56
// HOLDS: warp_group.partition 1 consumer0 warps 4 regs 224

// BAD: error: ws-producer-registers: regs must be a multiple of 8 from 24 to 256, got 20
