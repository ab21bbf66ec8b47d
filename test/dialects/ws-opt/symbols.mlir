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

// Kernels of two modules may share a name in MLIR (one per symbol table), not in the one LLVM
// module -t llvm / -t ptx lower them to (it had two `define @gemm`: invalid LLVM IR, exit 0
// under -t llvm and an internal error under -t ptx). Renamed, both are lowered.
// RUN: not ws-opt %S/Inputs/kernel-named-twice.mlir -p ws-hopper -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,TWICE
// TWICE: {{.*}}Inputs/kernel-named-twice.mlir:25:3: error: @gemm is a second tile.kernel of that name (the first is at line 3, in another module): the kernels are lowered to one LLVM module, where each name is one function; rename one
// RUN: sed 's/  func.func @gemm(/  func.func @gemm2(/' %S/Inputs/kernel-named-twice.mlir | ws-opt -p ws-hopper -t llvm 2>/dev/null | filecheck %s --check-prefix=RENAMED
// RENAMED: define ptx_kernel void @gemm(
// RENAMED: define ptx_kernel void @gemm2(

// -----

func.func @f() {
  func.return
}
// expected-error@+1 {{'func.func' redefinition of symbol "f" (first defined at line 26)}}
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
    // expected-error@+1 {{'func.func' redefinition of symbol "g" (first defined at line 42)}}
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
