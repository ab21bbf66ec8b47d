// A symbol defined twice in one module is an error at the second definition, naming the
// first (xDSL 0.74 reports "Redefinition of symbol" on the module: without a location for
// the implicit top-level module, or at the module's line). Fuzz case 5352 of seed 20261130
// (issue 12): no_loop.mlir whose kernel's first line is repeated at its end.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// RUN: not ws-opt %S/Inputs/symbol-redefined.mlir -p 'ws-specialize{depth=1 mma-depth=0}' 2>&1 | filecheck %s --check-prefixes=NOTB,FUZZ
// RUN: not ws-opt %S/Inputs/symbol-redefined.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,FUZZ
// FUZZ: {{.*}}Inputs/symbol-redefined.mlir:14:1: error: 'func.func' redefinition of symbol "scale" (first defined at line 2)
// FUZZ-EMPTY:

// -----

func.func @f() {
  func.return
}
// expected-error@+1 {{'func.func' redefinition of symbol "f" (first defined at line 17)}}
func.func @f() {
  func.return
}

// -----

// In a nested module, at the nested definition.
builtin.module {
  func.func @g() {
    func.return
  }
  builtin.module {
    func.func @g() {
      func.return
    }
    // expected-error@+1 {{'func.func' redefinition of symbol "g" (first defined at line 33)}}
    func.func private @g()
  }
}

// -----

// The same name in two symbol tables is no redefinition.
func.func @h() {
  func.return
}
builtin.module {
  func.func @h() {
    func.return
  }
}
