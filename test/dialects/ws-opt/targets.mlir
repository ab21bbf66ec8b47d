// -t llvm / -t ptx lower the output of ws-hopper; given less they say what they do.
//
// Not warp-specialized: refused at the kernel, with the command to run.
// RUN: not ws-opt %shared/kernels/gemm.mlir -t ptx 2>&1 | filecheck %s --check-prefix=REFUSED
// REFUSED: gemm.mlir:4:3: error: -t ptx: @matmul is not warp-specialized yet; run the Hopper pipeline first: ws-opt {{.*}}gemm.mlir -p ws-hopper -t ptx
// RUN: not ws-opt - -t llvm < %shared/kernels/gemm.mlir 2>&1 | filecheck %s --check-prefix=REFUSED-STDIN
// REFUSED-STDIN: <stdin>:4:3: error: -t llvm: @matmul is not warp-specialized yet; run the Hopper pipeline first: ws-opt FILE -p ws-hopper -t llvm
//
// Warp-specialized but not lowered (-p ws-specialize): the lowering half of ws-hopper
// runs, with a remark naming its passes and what differs from -p ws-hopper.
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-specialize -t llvm 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// REMARK: gemm.mlir:4:3: remark: -t llvm: the IR is not lowered yet; running ws-lower-aref,ws-lower-warp-groups,ws-lead-warp,ws-stage-operands,ws-lower-mma,ws-lower-layouts,ws-version-masks,ws-register-budget (the lowering half of ws-hopper); the rings keep the depths they have (-p ws-hopper would choose the organisation and depths per kernel, less depth where shared memory is short)
//
// So with ws-hopper's fixed organisation (auto=false) the two give the same LLVM IR, and ws-hopper's
// output is lowered as it is (no remark).
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=4 mma-depth=1}' -t llvm -o %t.specialize.ll
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-hopper{auto=false} -t llvm -o %t.hopper.ll 2>&1 | filecheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark
// RUN: diff %t.specialize.ll %t.hopper.ll
// Also where the lowering half does more than lower (causal attention: ws-version-masks
// versions the key and diagonal masks, ws-lead-warp runs the producer in one warp).
// RUN: ws-opt %S/../../../examples/kernels/flash_attention_causal.mlir -p 'ws-specialize{depth=2 mma-depth=1}' -t llvm -o %t.attn-specialize.ll
// RUN: ws-opt %S/../../../examples/kernels/flash_attention_causal.mlir -p ws-hopper{auto=false} -t llvm -o %t.attn-hopper.ll
// RUN: diff %t.attn-specialize.ll %t.attn-hopper.ll
