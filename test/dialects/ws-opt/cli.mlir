// The ws-opt driver: inputs, outputs, options, and its diagnostics for bad
// input. Every failure exits non-zero with one `file:line:col: error:` line
// (or `ws-opt: error:` for bad options) and never a Python traceback.
//
// NOTB-NOT: {{Traceback|internal error}}

// --- inputs and outputs -----------------------------------------------------

// An empty file, or one with only comments, is an empty module.
// RUN: ws-opt %S/Inputs/empty.mlir | filecheck %s --check-prefixes=NOTB,EMPTY
// RUN: ws-opt %S/Inputs/comments-only.mlir | filecheck %s --check-prefixes=NOTB,EMPTY
// EMPTY: builtin.module {
// EMPTY-NEXT: }

// Standard input, `-o`, and the generic form of the whole module.
// RUN: ws-opt < %S/Inputs/ok.mlir | filecheck %s --check-prefixes=NOTB,OK
// RUN: ws-opt - < %S/Inputs/ok.mlir | filecheck %s --check-prefixes=NOTB,OK
// RUN: ws-opt %S/Inputs/ok.mlir -o %t.out && filecheck %s --check-prefixes=NOTB,OK < %t.out
// RUN: ws-opt %S/Inputs/ok.mlir --print-op-generic | filecheck %s --check-prefixes=NOTB,GENERIC
// RUN: ws-opt %S/Inputs/ok.mlir -p '' | filecheck %s --check-prefixes=NOTB,OK
// OK: builtin.module {
// OK-NEXT: func.func @k(%n: i32) attributes {tile.kernel} {
// OK-NEXT:   %p = tile.program_id 0 : i32
// OK-NEXT:   %x = arith.addi %p, %n : i32
// OK-NEXT:   func.return
// OK-NEXT: }
// OK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{sym_name = "k", function_type = (i32) -> ()}> ({
// GENERIC-NEXT: ^bb0(%n: i32):
// GENERIC-NEXT: %p = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
// GENERIC-NEXT: %x = "arith.addi"(%p, %n) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) {tile.kernel} : () -> ()
// GENERIC-NEXT: }) : () -> ()

// Source locations of every parsed op.
// RUN: ws-opt %S/Inputs/ok.mlir --print-debuginfo | filecheck %s --check-prefixes=NOTB,DEBUGINFO
// DEBUGINFO: %p = tile.program_id 0 : i32 loc("{{.*}}ok.mlir":3:3)
// DEBUGINFO: %x = arith.addi %p, %n : i32 loc("{{.*}}ok.mlir":4:3)

// --- bad input --------------------------------------------------------------

// RUN: not ws-opt %S/Inputs/missing-file.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MISSING
// MISSING: {{.*}}Inputs/missing-file.mlir: error: cannot read input: No such file or directory

// RUN: not ws-opt %S/Inputs 2>&1 | filecheck %s --check-prefixes=NOTB,DIRECTORY
// DIRECTORY: {{.*}}Inputs: error: cannot read input: Is a directory

// A missing type: reported at the next token, as MLIR does.
// Bytes that are not UTF-8 are bad input, located at the first bad byte (a UTF-8
// byte-order mark is dropped); an output that cannot be written is named.
// RUN: printf 'builtin.module \377{\n}\n' > %t.bin
// RUN: not ws-opt %t.bin 2>&1 | filecheck %s --check-prefixes=NOTB,NOT-UTF8
// NOT-UTF8: .bin:1:16: error: input is not UTF-8 text (byte 0xff)
// -t llvm with no tile kernel: located at the function without 'tile.kernel', or at the
// start of a file with no function (found by the fuzzer: '<input>: error').
// RUN: sed 's/ attributes {tile.kernel}//' %S/Inputs/ok.mlir > %t.nokernel.mlir
// RUN: not ws-opt %t.nokernel.mlir -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,NOKERNEL
// NOKERNEL: .nokernel.mlir:2:1: error: no tile.kernel function to lower: @k has no 'tile.kernel' attribute
// RUN: not ws-opt %S/Inputs/empty.mlir -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,NOFUNC
// NOFUNC: empty.mlir:1:1: error: no tile.kernel function to lower

// A character the lexer rejects as the very first token (the parser lexes it while being
// built) is located too, and shown even when invisible (U+2028, found by the fuzzer).
// RUN: printf '\342\200\250builtin.module {\n}\n' > %t.ls.mlir
// RUN: not ws-opt %t.ls.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,FIRST-TOKEN
// FIRST-TOKEN: .ls.mlir:1:1: error: unexpected character '\u2028' (U+2028)
// RUN: printf '\357\273\277' > %t.bom
// RUN: cat %t.bom %S/Inputs/ok.mlir > %t.bom.mlir
// RUN: ws-opt %t.bom.mlir | filecheck %s --check-prefixes=NOTB,OK
// RUN: not ws-opt %S/Inputs/ok.mlir -o %t.missing-dir/out.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,UNWRITABLE
// UNWRITABLE: missing-dir/out.mlir: error: cannot write output: No such file or directory

// RUN: not ws-opt %S/Inputs/syntax-error.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SYNTAX
// SYNTAX: {{.*}}Inputs/syntax-error.mlir:4:3: error: type expected

// RUN: not ws-opt %S/Inputs/unknown-op.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-OP
// UNKNOWN-OP: {{.*}}Inputs/unknown-op.mlir:3:3: error: Operation foo.bar is not registered

// RUN: not ws-opt %S/Inputs/unknown-custom-op.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-CUSTOM
// UNKNOWN-CUSTOM: {{.*}}Inputs/unknown-custom-op.mlir:3:3: error: Operation tile.frobnicate is not registered

// RUN: not ws-opt %S/Inputs/unknown-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-TYPE
// UNKNOWN-TYPE: {{.*}}Inputs/unknown-type.mlir:2:18: error: 'tile.pointer' is not registered

// RUN: not ws-opt %S/Inputs/undefined-value.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,UNDEFINED
// UNDEFINED: {{.*}}Inputs/undefined-value.mlir:3:23: error: use of undefined value '%m'

// RUN: not ws-opt %S/Inputs/use-before-def.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DOMINANCE
// DOMINANCE: {{.*}}Inputs/use-before-def.mlir:3:3: error: 'arith.addi' operand #0 does not dominate this use

// RUN: not ws-opt %S/Inputs/missing-terminator.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TERMINATOR
// TERMINATOR: {{.*}}Inputs/missing-terminator.mlir:3:3: error: 'arith.addi' Operation arith.addi terminates block in single-block region but is not a terminator

// --- bad options ------------------------------------------------------------

// RUN: not ws-opt %S/Inputs/ok.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-PASS
// UNKNOWN-PASS: ws-opt: error: unknown pass: ['no-such-pass']

// RUN: not ws-opt %S/Inputs/ok.mlir --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-PASS

// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-partition{bogus=1}' 2>&1 | filecheck %s --check-prefixes=NOTB,BAD-OPTION
// BAD-OPTION: ws-opt: error: bad pass option in 'ws-partition{bogus=1}': {{.*}}bogus

// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-partition{' 2>&1 | filecheck %s --check-prefixes=NOTB,BAD-PIPELINE
// BAD-PIPELINE: ws-opt: error: bad pass pipeline 'ws-partition{': Expected argument name here

// RUN: not ws-opt %S/Inputs/ok.mlir --pass-pipeline=ws-partition 2>&1 | filecheck %s --check-prefixes=NOTB,NOT-MODULE
// NOT-MODULE: ws-opt: error: --pass-pipeline must be 'builtin.module(...)', got 'ws-partition'

// RUN: not ws-opt %S/Inputs/ok.mlir -p ws-partition --pass-pipeline='builtin.module(ws-partition)' 2>&1 | filecheck %s --check-prefixes=NOTB,BOTH
// BOTH: ws-opt: error: give either -p or --pass-pipeline, not both

// RUN: not ws-opt %S/Inputs/ok.mlir -t no-such-target 2>&1 | filecheck %s --check-prefixes=NOTB,TARGET
// TARGET: ws-opt: error: unknown target 'no-such-target' (available: mlir

// RUN: not ws-opt %S/Inputs/ok.mlir --no-such-flag 2>&1 | filecheck %s --check-prefixes=NOTB,FLAG
// FLAG: ws-opt: error: unrecognized arguments: --no-such-flag

// RUN: ws-opt --help | filecheck %s --check-prefixes=NOTB,HELP
// HELP: usage: ws-opt
// HELP: --pass-pipeline

// NOTB-NOT: {{Traceback|internal error}}
