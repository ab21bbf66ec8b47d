// Schedule validation (issue 12): ws.stage / ws.order / ws.warp / ws.schedule are input,
// checked against the data dependences before ws-partition, ws-distribute,
// ws-pipeline-coarse or ws-specialize honour them (wsdialects/transforms/schedule_check.py).
//
// Issue 12, S3 - a ws.order that contradicts a dependence (%e ranked before %s, which it reads, in the
// same stage) used to compile into a deadlock; it is an error at the op.
// RUN: not ws-opt %S/../Inputs/kernels/scheduled/round_trip_bad_order.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=S3
// RUN: not ws-opt %S/../Inputs/kernels/scheduled/round_trip_bad_order.mlir -p ws-partition 2>&1 | filecheck %s --check-prefix=S3
// S3: round_trip_bad_order.mlir:21:5: error: schedule: 'math.exp2' is ordered before its operand's producer %s ('tile.dot' at 20:5) in stage 0 (ws.order 3 < 6)
//
// Checked on partitioned IR too: the dependence crosses partitions through the ring of %s.
// RUN: ws-opt %S/../Inputs/kernels/scheduled/round_trip.mlir -p ws-partition,ws-distribute | sed -e 's/ws.order = 3 : i32, ws.warp = 0/ws.order = 9 : i32, ws.warp = 0/' | not ws-opt -p ws-pipeline-coarse 2>&1 | filecheck %s --check-prefix=CROSS
// CROSS: <stdin>:61:11: error: schedule: 'math.exp2' is ordered before its operand's producer %s ('tile.dot' at 42:11) in stage 0 (ws.order 4 < 9)
//
// A schedule that respects the dependences compiles (and runs: test_schedule_check.py).
// RUN: ws-opt %S/../Inputs/kernels/scheduled/round_trip.mlir -p ws-specialize | filecheck %s --check-prefix=OK
// OK: } {ws.peeled = 1 : i32}
//
// The other rules, on round_trip.mlir with one attribute changed. (Attributes of the wrong
// kind, e.g. a ws.schedule that is no dictionary, are already rejected by the verifier.)
// RUN: sed -e 's/\(%acc2 = tile.dot .*{ws.stage = \)1/\10/' %S/../Inputs/kernels/scheduled/round_trip.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefix=STAGE
// STAGE: <stdin>:24:5: error: schedule: 'tile.dot' is in an earlier stage than its operand's producer %e16 ('arith.truncf' at 23:5) (ws.stage 0 < 1)
// RUN: not ws-opt %S/Inputs/schedule-carried.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=CARRIED
// CARRIED: schedule-carried.mlir:11:5: error: schedule: 'arith.addf' reads the previous iteration's result of %d ('tile.dot' at 10:5), which runs 2 stages later (ws.stage 0 + 1 < 2)
// RUN: sed -e 's/ws.warp = 1 : i32} : tensor<128x64xf32>/ws.warp = 7 : i32} : tensor<128x64xf32>/' %S/../Inputs/kernels/scheduled/round_trip.mlir | not ws-opt -p ws-partition 2>&1 | filecheck %s --check-prefix=WARP
// WARP: <stdin>:22:5: error: schedule: 'math.exp2' has ws.warp = 7, but the loop's schedule has warp groups 0..2
