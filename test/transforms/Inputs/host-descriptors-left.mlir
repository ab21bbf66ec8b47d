// tile.make_desc ops ws-host-descriptors leaves on the device, each with the remark that says why
// (ws-host-descriptors.mlir checks them with --verify-diagnostics).
// expected-remark @+1 {{ws-host-descriptors: no tile.make_desc built at launch}}
func.func @left(%p: !tile.ptr<f16>, %M: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c1_64 = arith.constant 1 : i64
  %c2_64 = arith.constant 2 : i64
  %c64_64 = arith.constant 64 : i64
  %pid = tile.program_id 0 : i32
  %rows = arith.muli %pid, %c64 : i32
  // expected-remark @+1 {{ws-host-descriptors: left on the device: its size 0 depends on a program id (a descriptor the launch builds is one per launch)}}
  %a = tile.make_desc %p, [%rows, %c64], [%c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %half = arith.divsi %M, %c2 : i32
  // expected-remark @+1 {{ws-host-descriptors: left on the device: its size 0 is not + - * of the kernel's arguments and constants}}
  %b = tile.make_desc %p, [%half, %c64], [%c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  // expected-remark @+1 {{ws-host-descriptors: left on the device: its innermost stride is 2, not 1 (TMA moves rows of contiguous elements)}}
  %c = tile.make_desc %p, [%M, %c64], [%c64_64, %c2_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %off = arith.muli %M, %c64 : i32
  %q = tile.addptr %p, %off : !tile.ptr<f16>, i32
  // expected-remark @+1 {{ws-host-descriptors: left on the device: its base is not a pointer argument of the kernel (a pointer computed on the device)}}
  %d = tile.make_desc %q, [%M, %c64], [%c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
  %x0 = tile.desc_load %a[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %x1 = tile.desc_load %b[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %x2 = tile.desc_load %c[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %x3 = tile.desc_load %d[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-remark @+1 {{ws-host-descriptors: left on the device: it is made inside a loop (a descriptor per iteration, not one per launch)}}
    %e = tile.make_desc %p, [%M, %c64], [%c64_64, %c1_64] : !tile.ptr<f16> -> !tile.desc<tensor<64x64xf16>>
    %x4 = tile.desc_load %e[%i, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    scf.yield
  }
  func.return
}
