// Invalid warp_group regions and partitions.
// Each case is one file in Inputs/: ws-opt exits non-zero and prints one
// located diagnostic (file:line:col: error: message), never a traceback.
//
// NOTB-NOT: {{Traceback|internal error}}

// partition: num_warps is a multiple of 4 (whole warp groups).
// RUN: not ws-opt %S/Inputs/partition-warps.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-WARPS
// PARTITION-WARPS: {{.*}}Inputs/partition-warps.mlir:4:5: error: 'warp_group.partition' partition 0: num_warps must be a positive multiple of 4 (whole warp groups), got 6

// partition: at least one warp group.
// RUN: not ws-opt %S/Inputs/partition-warps-zero.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-WARPS-ZERO
// PARTITION-WARPS-ZERO: {{.*}}Inputs/partition-warps-zero.mlir:4:5: error: 'warp_group.partition' partition 0: num_warps must be a positive multiple of 4 (whole warp groups), got 0

// partition: setmaxnreg budgets lie in [24, 256].
// RUN: not ws-opt %S/Inputs/partition-regs-range.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-REGS-RANGE
// PARTITION-REGS-RANGE: {{.*}}Inputs/partition-regs-range.mlir:4:5: error: 'warp_group.partition' partition 0: register budget must be a multiple of 8 in [24, 256], got 300

// partition: setmaxnreg budgets are multiples of 8.
// RUN: not ws-opt %S/Inputs/partition-regs-multiple.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-REGS-MULTIPLE
// PARTITION-REGS-MULTIPLE: {{.*}}Inputs/partition-regs-multiple.mlir:4:5: error: 'warp_group.partition' partition 0: register budget must be a multiple of 8 in [24, 256], got 100

// partition: only directly inside warp_group.region.
// RUN: not ws-opt %S/Inputs/partition-outside-region.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-OUTSIDE-REGION
// PARTITION-OUTSIDE-REGION: {{.*}}Inputs/partition-outside-region.mlir:3:3: error: 'warp_group.partition' warp_group.partition must be directly inside warp_group.region

// partition: `warps N` is required.
// RUN: not ws-opt %S/Inputs/partition-syntax.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-SYNTAX
// PARTITION-SYNTAX: {{.*}}Inputs/partition-syntax.mlir:4:37: error: Expected 'warps'

// region: at least one partition.
// RUN: not ws-opt %S/Inputs/region-empty.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REGION-EMPTY
// REGION-EMPTY: {{.*}}Inputs/region-empty.mlir:3:3: error: 'warp_group.region' warp_group.region needs at least one partition

// region: holds partitions only.
// RUN: not ws-opt %S/Inputs/region-non-partition.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REGION-NON-PARTITION
// REGION-NON-PARTITION: {{.*}}Inputs/region-non-partition.mlir:3:3: error: 'warp_group.region' warp_group.region may only hold partitions, found arith.addi

// region: partition ids are unique.
// RUN: not ws-opt %S/Inputs/region-duplicate-id.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,REGION-DUPLICATE-ID
// REGION-DUPLICATE-ID: {{.*}}Inputs/region-duplicate-id.mlir:3:3: error: 'warp_group.region' duplicate partition id 0

// A value defined in one partition is not in scope in another: values cross
// partitions only through arefs (the verifier's check is in test/python).
// RUN: not ws-opt %S/Inputs/cross-partition-value.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CROSS-PARTITION-VALUE
// CROSS-PARTITION-VALUE: {{.*}}Inputs/cross-partition-value.mlir:9:23: error: use of undefined value '%x'

// NOTB-NOT: {{Traceback|internal error}}

// share: the split axis divides evenly among the groups.
// RUN: not ws-opt %S/Inputs/share-uneven.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SHARE-UNEVEN
// SHARE-UNEVEN: {{.*}}Inputs/share-uneven.mlir:4:3: error: 'warp_group.share' dim 0 of size 96 does not split into 5 groups

// gather: the result is the slice times the number of groups along the axis.
// RUN: not ws-opt %S/Inputs/gather-shape.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,GATHER-SHAPE
// GATHER-SHAPE: {{.*}}Inputs/gather-shape.mlir:3:3: error: 'warp_group.gather' gather of tensor<64x64xf16> gives tensor<128x64xf16>, not tensor<64x128xf16>

// gather: the group index lies in [0, groups).
// RUN: not ws-opt %S/Inputs/gather-group.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,GATHER-GROUP
// GATHER-GROUP: {{.*}}Inputs/gather-group.mlir:3:3: error: 'warp_group.gather' group 2 out of range for 2 groups

// gather: the axis is one of the tile's dims.
// RUN: not ws-opt %S/Inputs/gather-axis.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,GATHER-AXIS
// GATHER-AXIS: {{.*}}Inputs/gather-axis.mlir:3:3: error: 'warp_group.gather' axis 2 out of range for a rank-2 tile

// turn_wait / turn_pass: inside a partition.
// RUN: not ws-opt %S/Inputs/turn-outside.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TURN-OUTSIDE
// TURN-OUTSIDE: {{.*}}Inputs/turn-outside.mlir:3:3: error: 'warp_group.turn_wait' warp_group.turn_wait must be inside a warp_group.partition

// turn_pass: among at least two groups.
// RUN: not ws-opt %S/Inputs/turn-groups.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TURN-GROUPS
// TURN-GROUPS: {{.*}}Inputs/turn-groups.mlir:5:7: error: 'warp_group.turn_pass' a turn is taken among at least 2 groups, got 1

// turn_wait: the group index lies in [0, groups).
// RUN: not ws-opt %S/Inputs/turn-group.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TURN-GROUP
// TURN-GROUP: {{.*}}Inputs/turn-group.mlir:5:7: error: 'warp_group.turn_wait' group 3 out of range for 2 groups
