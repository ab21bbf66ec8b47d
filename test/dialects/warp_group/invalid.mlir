// Invalid warp_group regions and partitions.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// partition: `warps N` is required.
// RUN: not ws-opt %S/Inputs/partition-syntax.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITION-SYNTAX
// PARTITION-SYNTAX: {{.*}}Inputs/partition-syntax.mlir:4:37: error: Expected 'warps'

// A value defined in one partition is not in scope in another: values cross
// partitions only through arefs (the verifier's check is in test/python).
// RUN: not ws-opt %S/Inputs/cross-partition-value.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,CROSS-PARTITION-VALUE
// CROSS-PARTITION-VALUE: {{.*}}Inputs/cross-partition-value.mlir:9:23: error: use of undefined value '%x'

// NOTB-NOT: {{Traceback|internal error}}

// -----

// partition: num_warps is a multiple of 4 (whole warp groups).
func.func @f(%n: i32) {
  warp_group.region {
    // expected-error@+1 {{'warp_group.partition' partition 0: num_warps must be a positive multiple of 4 (whole warp groups), got 6}}
    warp_group.partition 0 warps 6 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}

// -----

// partition: at least one warp group.
func.func @f(%n: i32) {
  warp_group.region {
    // expected-error@+1 {{'warp_group.partition' partition 0: num_warps must be a positive multiple of 4 (whole warp groups), got 0}}
    warp_group.partition 0 producer warps 0 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}

// -----

// partition: setmaxnreg budgets lie in [24, 256].
func.func @f(%n: i32) {
  warp_group.region {
    // expected-error@+1 {{'warp_group.partition' partition 0: register budget must be a multiple of 8 in [24, 256], got 300}}
    warp_group.partition 0 warps 4 regs 300 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}

// -----

// partition: setmaxnreg budgets are multiples of 8.
func.func @f(%n: i32) {
  warp_group.region {
    // expected-error@+1 {{'warp_group.partition' partition 0: register budget must be a multiple of 8 in [24, 256], got 100}}
    warp_group.partition 0 warps 4 regs 100 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}

// -----

// partition: only directly inside warp_group.region.
func.func @f(%n: i32) {
  // expected-error@+1 {{'warp_group.partition' warp_group.partition must be directly inside warp_group.region}}
  warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
  func.return
}

// -----

// region: at least one partition.
func.func @f(%n: i32) {
  // expected-error@+1 {{'warp_group.region' warp_group.region needs at least one partition}}
  warp_group.region {
  }
  func.return
}

// -----

// region: holds partitions only.
func.func @f(%n: i32) {
  // expected-error@+1 {{'warp_group.region' warp_group.region may only hold partitions, found arith.addi}}
  warp_group.region {
    warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
    %y = arith.addi %n, %n : i32
  }
  func.return
}

// -----

// region: partition ids are unique.
func.func @f(%n: i32) {
  // expected-error@+1 {{'warp_group.region' duplicate partition id 0}}
  warp_group.region {
    warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
    warp_group.partition 0 warps 8 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}

// -----

// share: the split axis divides evenly among the groups.
func.func @f(%a: tensor<96x64xf16>) {
  %s = warp_group.share %a, 0 of 4 along 1 : tensor<96x64xf16> -> tensor<96x16xf16>
  // expected-error@+1 {{'warp_group.share' dim 0 of size 96 does not split into 5 groups}}
  %t = "warp_group.share"(%a) <{axis = 0 : i32, group = 0 : i32, groups = 5 : i32}> : (tensor<96x64xf16>) -> tensor<19x64xf16>
  func.return
}

// -----

// gather: the result is the slice times the number of groups along the axis.
func.func @f(%a: tensor<64x64xf16>) {
  // expected-error@+1 {{'warp_group.gather' gather of tensor<64x64xf16> gives tensor<128x64xf16>, not tensor<64x128xf16>}}
  %g = "warp_group.gather"(%a) <{axis = 0 : i32, group = 0 : i32, groups = 2 : i32}> : (tensor<64x64xf16>) -> tensor<64x128xf16>
  func.return
}

// -----

// gather: the group index lies in [0, groups).
func.func @f(%a: tensor<64x64xf16>) {
  // expected-error@+1 {{'warp_group.gather' group 2 out of range for 2 groups}}
  %g = warp_group.gather %a, 2 of 2 along 0 : tensor<64x64xf16> -> tensor<128x64xf16>
  func.return
}

// -----

// gather: the axis is one of the tile's dims.
func.func @f(%a: tensor<64x64xf16>) {
  // expected-error@+1 {{'warp_group.gather' axis 2 out of range for a rank-2 tile}}
  %g = "warp_group.gather"(%a) <{axis = 2 : i32, group = 0 : i32, groups = 2 : i32}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
  func.return
}

// -----

// turn_wait / turn_pass: inside a partition.
// turn_wait: turns are taken by the groups of a team, inside partitions
func.func @f() {
  // expected-error@+1 {{'warp_group.turn_wait' warp_group.turn_wait must be inside a warp_group.partition}}
  warp_group.turn_wait 0 of 2
  func.return
}

// -----

// turn_pass: among at least two groups.
// turn_pass: at least two groups take turns
func.func @f() {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      // expected-error@+1 {{'warp_group.turn_pass' a turn is taken among at least 2 groups, got 1}}
      warp_group.turn_pass 0 of 1
    }
  }
  func.return
}

// -----

// turn_wait: the group index lies in [0, groups).
// turn_wait: the group index lies in [0, groups)
func.func @f() {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      // expected-error@+1 {{'warp_group.turn_wait' group 3 out of range for 2 groups}}
      warp_group.turn_wait 3 of 2
    }
  }
  func.return
}
