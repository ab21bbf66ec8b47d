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
// TERMINATOR: {{.*}}Inputs/missing-terminator.mlir:3:3: error: 'arith.addi' the block of @f must end with func.return; it ends with this arith.addi

// --- bad options: answered in the user's spelling, with the closest name -----

// RUN: not ws-opt %S/Inputs/ok.mlir -p ws-specialise 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-PASS
// UNKNOWN-PASS: ws-opt: error: unknown pass 'ws-specialise' (did you mean 'ws-specialize'?); ws-opt --help lists the passes
// RUN: not ws-opt %S/Inputs/ok.mlir --pass-pipeline='builtin.module(ws-specialise)' 2>&1 | filecheck %s --check-prefixes=NOTB,UNKNOWN-PASS
// RUN: not ws-opt %S/Inputs/ok.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefixes=NOTB,NO-SUCH-PASS
// NO-SUCH-PASS: ws-opt: error: unknown pass 'no-such-pass'; ws-opt --help lists the passes

// Options are named with dashes, as written; values are checked against the option's type.
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{mma-dept=2}' 2>&1 | filecheck %s --check-prefixes=NOTB,BAD-OPTION
// BAD-OPTION: ws-opt: error: ws-specialize has no option 'mma-dept' (did you mean 'mma-depth'?); its options: depth, mma-depth, cooperative, pingpong, persistent, programs
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-partition{bogus=1}' 2>&1 | filecheck %s --check-prefixes=NOTB,NO-OPTIONS
// NO-OPTIONS: ws-opt: error: ws-partition has no option 'bogus'; it takes no options
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{mma-depth=x}' 2>&1 | filecheck %s --check-prefixes=NOTB,OPTION-TYPE
// OPTION-TYPE: ws-opt: error: option 'mma-depth' of ws-specialize expects an integer, got 'x'
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{depth=1,2}' 2>&1 | filecheck %s --check-prefixes=NOTB,OPTION-LIST
// OPTION-LIST: ws-opt: error: option 'depth' of ws-specialize takes one value, an integer; got 2 values (1,2)
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{pingpong=3}' 2>&1 | filecheck %s --check-prefixes=NOTB,OPTION-BOOL
// OPTION-BOOL: ws-opt: error: option 'pingpong' of ws-specialize expects true or false, got '3'
// ws-hopper's organisation options also take `auto` (the model's choice): anything else is named.
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-hopper{pingpong=3}' 2>&1 | filecheck %s --check-prefixes=NOTB,OPTION-AUTO-BOOL
// OPTION-AUTO-BOOL: ws-opt: error: ws-hopper: pingpong must be true, false or auto, got '3'
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-hopper{depth=deep}' 2>&1 | filecheck %s --check-prefixes=NOTB,OPTION-AUTO-INT
// OPTION-AUTO-INT: ws-opt: error: ws-hopper: depth must be an integer or auto, got 'deep'
// An underscore spelling is still accepted (xDSL's), and means the same option.
// RUN: ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{mma_depth=1}' 2>&1 | filecheck %s --check-prefixes=NOTB,OK

// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-partition{' 2>&1 | filecheck %s --check-prefixes=NOTB,BAD-PIPELINE
// BAD-PIPELINE: ws-opt: error: bad pass pipeline 'ws-partition{' at column 14: expected an option name here

// RUN: not ws-opt %S/Inputs/ok.mlir --pass-pipeline=ws-partition 2>&1 | filecheck %s --check-prefixes=NOTB,NOT-MODULE
// NOT-MODULE: ws-opt: error: --pass-pipeline must be 'builtin.module(...)', got 'ws-partition'

// RUN: not ws-opt %S/Inputs/ok.mlir -p ws-partition --pass-pipeline='builtin.module(ws-partition)' 2>&1 | filecheck %s --check-prefixes=NOTB,BOTH
// BOTH: ws-opt: error: give either -p or --pass-pipeline, not both

// RUN: not ws-opt %S/Inputs/ok.mlir -t ptxx 2>&1 | filecheck %s --check-prefixes=NOTB,TARGET
// TARGET: ws-opt: error: unknown target 'ptxx' (did you mean 'ptx'?); targets: mlir, llvm, ptx

// Usage errors exit 1, never argparse's 2, the status of a compiler defect (test/python/test_driver.py).
// RUN: not ws-opt %S/Inputs/ok.mlir --split-inpt-file 2>&1 | filecheck %s --check-prefixes=NOTB,FLAG
// FLAG: ws-opt: error: unknown flag '--split-inpt-file' (did you mean '--split-input-file'?); see ws-opt --help
// RUN: not ws-opt %S/Inputs/ok.mlir extra 2>&1 | filecheck %s --check-prefixes=NOTB,EXTRA
// EXTRA: ws-opt: error: unexpected argument 'extra'; see ws-opt --help
// Flags are not abbreviated.
// RUN: not ws-opt %S/Inputs/ok.mlir --split 2>&1 | filecheck %s --check-prefixes=NOTB,ABBREV
// ABBREV: ws-opt: error: unknown flag '--split'

// No Python reprs (lists, tuples, class names) in any of the messages above.
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{depth=1,2}' 2>&1 | filecheck %s --check-prefixes=NOREPR
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialise,ws-partitio' 2>&1 | filecheck %s --check-prefixes=NOREPR
// RUN: not ws-opt %S/Inputs/ok.mlir -p 'ws-specialize{mma_dept=2}' 2>&1 | filecheck %s --check-prefixes=NOREPR
// NOREPR-NOT: {{\[\'|\(\'|<class|\(1, 2\)}}

// --- output flags shared with ws-schedule -----------------------------------

// RUN: ws-opt %S/Inputs/ok.mlir --output-file %t.b.out && filecheck %s --check-prefixes=NOTB,OK < %t.b.out
// RUN: ws-opt %S/Inputs/ok.mlir --output %t.c.out && filecheck %s --check-prefixes=NOTB,OK < %t.c.out
// RUN: ws-opt --version | filecheck %s --check-prefixes=VERSION
// VERSION: ws-opt (wsdialects) {{[0-9]+\.[0-9]+}}

// --- --help: every pass with its description and its options with defaults ---

// RUN: env COLUMNS=200 ws-opt --help | filecheck %s --check-prefixes=NOTB,HELP
// HELP: usage: ws-opt
// HELP: --pass-pipeline
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: --mlir-print-ir-after-all
// HELP: --mlir-timing
// HELP: passes (-p
// HELP:       ws-partition
// HELP-NEXT:      Tag every op of a tile kernel with the partitions (producer, consumer) that need it.
// HELP:       ws-specialize
// HELP-NEXT:      Partition, distribute, pipeline
// HELP-NEXT:      options: depth=3  mma-depth=2  cooperative=1  pingpong=false  persistent=false  programs=0
// HELP:       ws-hopper
// HELP:           options: depth=auto  mma-depth=auto
// HELP:       ws-register-budget
// A narrow terminal wraps between words, never inside a pass or flag name.
// RUN: env COLUMNS=40 ws-opt --help | filecheck %s --check-prefixes=NARROW
// NARROW-NOT: {{[a-z]-$}}

// NOTB-NOT: {{Traceback|internal error}}
