// --verify-diagnostics: MLIR's expected-error / -warning / -remark / -note comments
// (@+N, @-N, @above, @below, @unknown, -re) matched against what ws-opt reports, one
// part of a --split-input-file input at a time; exit 0 when all match.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-partition | filecheck %s --check-prefix=OUT
// The parts that compile are still printed (the first, comments only, is an empty
// module), joined by the split marker:
// OUT: builtin.module {
// OUT-NEXT: }
// OUT-NEXT: // -----
// OUT-NEXT: builtin.module {
// OUT-NEXT: func.func @remark
//
// Mismatches are located errors (exit 1): an expected diagnostic that did not come,
// at the directive; one that came unexpected, at the diagnostic.
// RUN: not ws-opt %S/Inputs/verify-mismatch.mlir --split-input-file --verify-diagnostics 2>&1 >/dev/null | filecheck %s --check-prefix=BAD
// BAD: verify-mismatch.mlir:5:6: error: expected error "axis must be 0, 1 or 2, got 4" was not produced
// BAD-NEXT: verify-mismatch.mlir:6:3: error: unexpected error: 'tile.program_id' axis must be 0, 1 or 2, got 3
// BAD-NEXT: verify-mismatch.mlir:11:35: error: expected warning "never comes" was not produced
// BAD-NEXT: verify-mismatch.mlir:17:3: error: unexpected error: 'tile.num_programs' axis must be 0, 1 or 2, got 5
// BAD-NEXT: verify-mismatch.mlir:22:6: error: expected remark "wrong severity" was not produced
// BAD-NEXT: verify-mismatch.mlir:23:3: error: unexpected error: 'tile.program_id' axis must be 0, 1 or 2, got 9
// BAD-NOT: error
//
// Without --verify-diagnostics the same file reports each part's error at its line
// in the whole file (the other parts still run), and exits 1.
// RUN: not ws-opt %S/Inputs/verify-mismatch.mlir --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=PLAIN
// PLAIN: verify-mismatch.mlir:6:3: error: 'tile.program_id' axis must be 0, 1 or 2, got 3
// PLAIN-NEXT: verify-mismatch.mlir:17:3: error: 'tile.num_programs' axis must be 0, 1 or 2, got 5
// PLAIN-NEXT: verify-mismatch.mlir:23:3: error: 'tile.program_id' axis must be 0, 1 or 2, got 9

// -----

// On the line itself.
func.func @on_the_line() {
  %p = tile.program_id 3 : i32 // expected-error {{axis must be 0, 1 or 2, got 3}}
  func.return
}

// -----

// @+N / @-N: N lines below / above the directive.
func.func @offsets() {
  // expected-error@+2 {{'tile.program_id' axis must be 0, 1 or 2, got 4}}

  %p = tile.program_id 4 : i32
  func.return
}

// -----

func.func @offset_above() {
  %p = tile.program_id 5 : i32
  // expected-error@-1 {{got 5}}
  func.return
}

// -----

// @above / @below: the closest line above / below that holds no directive
// (test/python/test_driver.py checks lines of several directives).
func.func @above() {
  %p = tile.program_id 6 : i32
  // expected-error@above {{got 6}}
  func.return
}

// -----

func.func @below() {
  // expected-error@below {{got 7}}
  %p = tile.program_id 7 : i32
  func.return
}

// -----

// -re: the {{...}} parts of the message are regular expressions.
func.func @regex() {
  // expected-error-re@+1 {{axis must be {{[0-9]}}, 1 or 2, got {{[0-9]+}}}}
  %p = tile.program_id 12 : i32
  func.return
}

// -----

// Remarks and warnings count too: ws-partition's remark on a kernel with no TMA loop.
// expected-remark@below {{ws-partition: @remark has no loop with a TMA load}}
func.func @remark(%n: i32) attributes {tile.kernel} {
  func.return
}
