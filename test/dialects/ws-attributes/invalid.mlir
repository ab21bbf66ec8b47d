// The tile.* / ws.* attributes the passes read (wsdialects/attributes.py) are
// checked for type and shape like a dialect's attributes: a wrong one is one
// located error at the op that carries it, before any pass reads it. Each RUN
// line fills the kernel's FUNC_ATTRS, DOT_ATTRS and LOOP_ATTRS.
//
// NOTB-NOT: {{Traceback|internal error}}

// The template is valid with no attributes, and with ws-schedule's.
// RUN: sed 's/ FUNC_ATTRS//; s/{DOT_ATTRS}//; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | ws-opt -p ws-specialize | filecheck %s --check-prefix=OK
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 0 : i32/; s/LOOP_ATTRS/ws.schedule = {II = 4 : i32, L = 8 : i32, warps = 1 : i32, vl_warp = 1 : i32, solver = "cpsat"}/' %S/Inputs/kernel.mlir | ws-opt -p ws-specialize | filecheck %s --check-prefix=OK
// OK: warp_group.partition 1 consumer warps 8

// ws.schedule is a dictionary (ws-partition read it as one).
// RUN: sed 's/ FUNC_ATTRS//; s/{DOT_ATTRS}//; s/LOOP_ATTRS/ws.schedule = "II=4"/' %S/Inputs/kernel.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,SCHED-DICT
// SCHED-DICT: <stdin>:8:3: error: 'scf.for' ws.schedule must be a dictionary such as {II = 4 : i32, L = 8 : i32, warps = 2 : i32}, got "II=4"
// SCHED-DICT-EMPTY:

// ... of integers (and a solver name).
// RUN: sed 's/ FUNC_ATTRS//; s/{DOT_ATTRS}//; s/LOOP_ATTRS/ws.schedule = {II = 4 : i32, vl_warp = "tma"}/' %S/Inputs/kernel.mlir | not ws-opt -p ws-partition 2>&1 | filecheck %s --check-prefixes=NOTB,SCHED-KEY
// SCHED-KEY: <stdin>:8:3: error: 'scf.for' ws.schedule: vl_warp must be an integer, got "tma"
// RUN: sed 's/ FUNC_ATTRS//; s/{DOT_ATTRS}//; s/LOOP_ATTRS/ws.schedule = {II = 0 : i32}/' %S/Inputs/kernel.mlir | not ws-opt -p ws-partition 2>&1 | filecheck %s --check-prefixes=NOTB,SCHED-II
// SCHED-II: <stdin>:8:3: error: 'scf.for' ws.schedule: II must be at least 1, got 0

// ... on the loop it schedules.
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.schedule = {II = 4 : i32}/; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-partition 2>&1 | filecheck %s --check-prefixes=NOTB,SCHED-OP
// SCHED-OP: <stdin>:11:5: error: 'tile.dot' ws.schedule belongs on an scf.for (the scheduled loop), not on 'tile.dot'

// ws.stage / ws.order / ws.warp are non-negative integers.
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.stage = 1.5 : f32/; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-pipeline-coarse 2>&1 | filecheck %s --check-prefixes=NOTB,STAGE
// STAGE: <stdin>:11:5: error: 'tile.dot' ws.stage must be an integer (e.g. `ws.stage = 0 : i32`), got 1.500000e+00 : f32
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.order = "first"/; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,ORDER
// ORDER: <stdin>:11:5: error: 'tile.dot' ws.order must be an integer (e.g. `ws.order = 0 : i32`), got "first"
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.warp = -1 : i32/; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,WARP
// WARP: <stdin>:11:5: error: 'tile.dot' ws.warp must be at least 0, got -1

// The partitioning tags (ws-partition writes them, ws-distribute reads them).
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.partition = "consumer"/; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefixes=NOTB,PART
// PART: <stdin>:11:5: error: 'tile.dot' ws.partition must be an array<i32: ...> of partition ids, got "consumer"
// RUN: sed 's/ FUNC_ATTRS//; s/DOT_ATTRS/ws.role = "compute"/; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefixes=NOTB,ROLE
// ROLE: <stdin>:11:5: error: 'tile.dot' ws.role must be "iter" or "tile", got "compute"
// RUN: sed 's/ FUNC_ATTRS//; s/{DOT_ATTRS}//; s/LOOP_ATTRS/ws.carried = [array<i32: 1>]/' %S/Inputs/kernel.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefixes=NOTB,CARRIED
// CARRIED: <stdin>:8:3: error: 'scf.for' ws.carried has 1 entries for 2 iter_args
// RUN: sed 's/ FUNC_ATTRS/, ws.partitioned = "producer"/; s/{DOT_ATTRS}//; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt -p ws-distribute 2>&1 | filecheck %s --check-prefixes=NOTB,PARTITIONED
// PARTITIONED: <stdin>:2:1: error: 'func.func' ws.partitioned must name two or more partitions, e.g. "producer, consumer", got "producer"
// RUN: sed 's/ FUNC_ATTRS/, ws.persistent = {programs = 0 : i32}/; s/{DOT_ATTRS}//; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | not ws-opt 2>&1 | filecheck %s --check-prefixes=NOTB,PERSISTENT
// PERSISTENT: <stdin>:2:1: error: 'func.func' ws.persistent: programs must be at least 1, got 0

// Other ws.* attributes are free-form notes.
// RUN: sed 's/ FUNC_ATTRS/, ws.note = 3 : i32/; s/{DOT_ATTRS}//; s/{LOOP_ATTRS}//' %S/Inputs/kernel.mlir | ws-opt | filecheck %s --check-prefix=NOTE
// NOTE: ws.note = 3 : i32
