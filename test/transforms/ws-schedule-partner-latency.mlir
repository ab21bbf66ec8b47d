// ws-schedule{partner-latency=true}: a ping-pong member's elementwise ops priced as measured
// beside its partner (machines/h100.json chain_latency.with_partner). On 176-key attention tiles
// the default model fits a member's whole chain QK^T -> softmax -> P·V in one II and keeps P·V
// in QK^T's stage; priced with the partner, the chain no longer fits and P·V with O's rescale
// goes one stage behind (FA3's pipeline: P·V of iteration j-1 issued right after QK^T of j).
// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// RUN: ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-sched''ule{arch=h100 partner-latency=true time-limit=120}' | filecheck %s --check-prefix=PARTNER
// RUN: ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-sched''ule{arch=h100 time-limit=120}' | filecheck %s --check-prefix=DEFAULT

// PARTNER: %qk_raw = tile.dot {{.*}} {ws.stage = 0 : i32
// PARTNER: %p = math.exp2 %qk_c {ws.stage = 0 : i32
// PARTNER: %acc_s = arith.mulf %acc, %alpha_b {ws.stage = 1 : i32
// PARTNER: %p16 = arith.truncf %p {ws.stage = 0 : i32
// PARTNER: %acc_new = tile.dot %p16, %v, %acc_s {{.*}} {ws.stage = 1 : i32
// PARTNER: ws.schedule = {{{.*}}cooperative = 2 : i32, pingpong = true

// DEFAULT: %qk_raw = tile.dot {{.*}} {ws.stage = 0 : i32
// DEFAULT: %acc_new = tile.dot %p16, %v, %acc_s {{.*}} {ws.stage = 0 : i32
// DEFAULT: ws.schedule = {{{.*}}cooperative = 2 : i32, pingpong = true
