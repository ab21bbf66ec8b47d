// tile.reshape / join / split, tile.make_desc and tile.atomic_add: custom form round trip and
// verifier errors.
// RUN: ws-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: tile.reshape %x : tensor<64xf32> -> tensor<32x2xf32>
// CHECK: %lo, %hi = tile.split %r : tensor<32x2xf32> -> tensor<32xf32>
// CHECK: tile.join %hi, %lo : tensor<32xf32> -> tensor<32x2xf32>
// CHECK: tile.make_desc %p, [%n, %n], [%s, %one] : !tile.ptr<f32> -> !tile.desc<tensor<16x16xf32>>
// CHECK: tile.atomic_add %ps, %x, %m : tensor<64x!tile.ptr<f32>>, tensor<64xf32> -> tensor<64xf32>
func.func @k(%p: !tile.ptr<f32>, %x: tensor<64xf32>, %m: tensor<64xi1>, %n: i32, %s: i64, %one: i64) attributes {tile.kernel} {
  %r = tile.reshape %x : tensor<64xf32> -> tensor<32x2xf32>
  %lo, %hi = tile.split %r : tensor<32x2xf32> -> tensor<32xf32>
  %j = tile.join %hi, %lo : tensor<32xf32> -> tensor<32x2xf32>
  %d = tile.make_desc %p, [%n, %n], [%s, %one] : !tile.ptr<f32> -> !tile.desc<tensor<16x16xf32>>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %o = tile.atomic_add %ps, %x, %m : tensor<64x!tile.ptr<f32>>, tensor<64xf32> -> tensor<64xf32>
  func.return
}

// -----

func.func @k(%x: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{changes the number of elements (64 -> 62)}}
  %r = tile.reshape %x : tensor<64xf32> -> tensor<31x2xf32>
  func.return
}

// -----

func.func @k(%x: tensor<32x4xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{split takes a tile whose minor dim is 2}}
  %a, %b = tile.split %x : tensor<32x4xf32> -> tensor<32xf32>
  func.return
}

// -----

func.func @k(%p: !tile.ptr<f16>, %n: i32, %s: i64) attributes {tile.kernel} {
  // expected-error @+1 {{descriptor element type f32 differs from the base pointer's f16}}
  %d = tile.make_desc %p, [%n, %n], [%s, %s] : !tile.ptr<f16> -> !tile.desc<tensor<16x16xf32>>
  func.return
}

// -----

func.func @k(%p: !tile.ptr<bf16>, %v: bf16) attributes {tile.kernel} {
  // expected-error @+1 {{atomic_add supports f32, f16 and i32 elements, got bf16}}
  %o = tile.atomic_add %p, %v : !tile.ptr<bf16>, bf16 -> bf16
  func.return
}
