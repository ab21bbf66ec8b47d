// !tile.descs (one TMA descriptor per group, built at launch) and tile.desc_index: custom and
// generic forms round trip; verifier and parser errors.
// RUN: ws-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @k(%a: !tile.descs<tensor<64x32xbf16>>, %g: i32)
// CHECK: %d = tile.desc_index %a[%g] : !tile.descs<tensor<64x32xbf16>> -> !tile.desc<tensor<64x32xbf16>>
// CHECK: %e = tile.desc_index %a[%g] : !tile.descs<tensor<64x32xbf16>> -> !tile.desc<tensor<64x32xbf16>>
// CHECK: tile.desc_load %d[%g, %g] : !tile.desc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
func.func @k(%a: !tile.descs<tensor<64x32xbf16>>, %g: i32) attributes {tile.kernel} {
  %d = tile.desc_index %a[%g] : !tile.descs<tensor<64x32xbf16>> -> !tile.desc<tensor<64x32xbf16>>
  %e = "tile.desc_index"(%a, %g) : (!tile.descs<tensor<64x32xbf16>>, i32) -> !tile.desc<tensor<64x32xbf16>>
  %x = tile.desc_load %d[%g, %g] : !tile.desc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
  func.return
}

// -----

func.func @k(%a: !tile.descs<tensor<64x32xbf16>>, %g: i32) attributes {tile.kernel} {
  // expected-error @+1 {{desc_index of !tile.descs<tensor<64x32xbf16>> gives !tile.desc<tensor<64x32xbf16>>, not !tile.desc<tensor<64x64xbf16>>}}
  %e = "tile.desc_index"(%a, %g) : (!tile.descs<tensor<64x32xbf16>>, i32) -> !tile.desc<tensor<64x64xbf16>>
  func.return
}

// -----

// expected-error @+1 {{!tile.desc block must be 2-D or 3-D, got rank 1}}
func.func @k(%a: !tile.descs<tensor<64xbf16>>) attributes {tile.kernel} {
  func.return
}

// -----

func.func @k(%a: !tile.descs<tensor<64x32xbf16>>, %g: i32) attributes {tile.kernel} {
  // expected-error @+1 {{desc_index of !tile.descs<tensor<64x32xbf16>> gives !tile.desc<tensor<64x32xbf16>>, not !tile.desc<tensor<64x32xf16>>}}
  %e = tile.desc_index %a[%g] : !tile.descs<tensor<64x32xbf16>> -> !tile.desc<tensor<64x32xf16>>
  func.return
}
