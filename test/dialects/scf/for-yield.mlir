// An scf.for's scf.yield that does not match the loop's iter_args is reported at the yield
// (xDSL 0.74 reports it at the scf.for), naming the iter_arg and the type to yield; a loop
// body without its yield names the scf.yield it must end with (xDSL: "not a terminator").
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null

func.func @f(%n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
    %f = arith.sitofp %i : i32 to f64
    // expected-error@+1 {{'scf.yield' yields %f of type f64 for iter_arg %acc of type f32: a yielded value must have its iter_arg's type, as in `iter_args(...) -> (f32)`}}
    scf.yield %f : f64
  }
  func.return %s : f32
}

// -----

func.func @f(%n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %s, %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %k = %c0) -> (f32, i32) : i32 {
    // expected-error@+1 {{'scf.yield' yields 1 value, but the scf.for has 2 iter_args (%acc, %k): yield each iter_arg's next value, as in `iter_args(...) -> (f32, i32)`}}
    scf.yield %acc : f32
  }
  func.return %s : f32
}

// -----

func.func @f(%n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
    // expected-error@+1 {{'arith.addf' the block of the enclosing scf.for must end with scf.yield (the next values of its iter_args, if any); it ends with this arith.addf}}
    %a = arith.addf %acc, %z : f32
  }
  func.return %s : f32
}

// -----

// A correct loop: no diagnostic.
func.func @f(%n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
    %a = arith.addf %acc, %z : f32
    scf.yield %a : f32
  }
  func.return %s : f32
}
