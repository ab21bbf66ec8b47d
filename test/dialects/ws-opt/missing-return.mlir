// A function whose block does not end with func.return: the error names the function and the
// terminator it needs, at its last op (xDSL 0.74: "Operation tile.store terminates block in
// single-block region but is not a terminator").
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null

func.func @k(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %m = arith.addi %n, %c1 : i32
  %r = tile.make_range 0 to 4 : tensor<4xi32>
  %pb = tile.splat %p : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
  %ps = tile.addptr %pb, %r : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  // expected-error@+1 {{'tile.store' the block of @k must end with func.return; it ends with this tile.store}}
  tile.store %ps, %r : tensor<4x!tile.ptr<i32>>
}

// -----

func.func @g(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'arith.addi' the block of @g must end with func.return; it ends with this arith.addi}}
  %m = arith.addi %n, %c1 : i32
}
