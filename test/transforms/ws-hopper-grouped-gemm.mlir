// The bundled grouped GEMM (examples/kernels/grouped_gemm.mlir, torch._grouped_mm's form, written
// by wsdialects/runtime/grouped_gemm_kernels.py in its default form) through ws-hopper with the
// runtime's pipeline: the producer and both groups of the ping-pong team walk the groups in turn
// (one load of the offsets per group, a program's tiles of the group strided by the programs, the
// ring position carried through both loops); a tile that lies in its group is gathered by the team
// and written by one TMA store of C's descriptor, the group's last tile by each group's masked
// store. test_grouped_gemm.py interprets every form before and after and runs ptxas on them.
// RUN: ws-opt %S/../../examples/kernels/grouped_gemm.mlir -p 'ws-hopper{cooperative=2 pingpong=true}' 2>/dev/null | filecheck %s

// CHECK:      func.func @grouped_gemm(%a_desc: !tile.desc<tensor<128x64xbf16>>, %b_desc: !tile.desc<tensor<256x64xbf16>>, %c_ptr: !tile.ptr<bf16>, %c_desc: !tile.desc<tensor<128x256xbf16>>, %offs: !tile.ptr<i32>, %G: i32, %M: i32, %N: i32, %K: i32)
// CHECK:      nvgpu.wg.branch warps 0 to 4 "producer"
// CHECK:      scf.for %g = %c0 to %G step %c1 iter_args(%base = %c0, %row0 = %c0, %[[RB:.*]] = %{{.*}}) -> (i32, i32, i32)
// CHECK-NEXT:   %pe = tile.addptr %offs, %g
// CHECK-NEXT:   %rowend = tile.load %pe
// CHECK:        %first = arith.remsi %shift, %nprog
// CHECK-NEXT:   scf.for %local = %first to %tg step %nprog iter_args(%{{.*}} = %[[RB]]) -> (i32)
// CHECK-NOT:    tile.load
// CHECK:          nvgpu.tma.async_load %b_desc[%g, %on, %ok]
// CHECK:      nvgpu.wg.branch warps 4 to 8 "consumer0"
// CHECK:        scf.for %local_1 = %first_1 to %tg_1 step %nprog_1
// CHECK:          nvgpu.wgmma.mma_async
// CHECK:          %whole = arith.cmpi sle, %om_end, %row_end : i32
// CHECK-NEXT:     scf.if %whole {
// CHECK-NEXT:       %c_all = warp_group.gather %c, 0 of 2 along 0 : tensor<64x256xbf16, {{.*}}> -> tensor<128x256xbf16, #layout.shared<swizzle = 128, order = [1, 0]>>
// CHECK-NEXT:       tile.desc_store %c_desc[%om_1, %on_1], %c_all
// CHECK-NEXT:     } else {
// CHECK:            tile.store %ptrs, %c, %mask : tensor<64x256x!tile.ptr<bf16>
// CHECK:      nvgpu.wg.branch warps 8 to 12 "consumer1"
// CHECK:          scf.if %whole_1 {
// CHECK-NEXT:       warp_group.gather %c_1, 1 of 2 along 0
// CHECK-NEXT:     } else {
// CHECK:            tile.store %ptrs_1, %c_1, %mask_1
