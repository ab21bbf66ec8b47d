// `ws-opt examples/kernels/gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// choice for the bundled GEMM (the two compute groups as one lockstep cooperative team), kept as IR for machines
// without OR-Tools (bench/gemm.py's ws-schedule column).
builtin.module {
  func.func @matmul(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>, %c_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Mt = arith.constant 128 : i32
    %Nt = arith.constant 256 : i32
    %Kt = arith.constant 64 : i32
    %pid = tile.program_id 0 : i32
    %num_pid_m = arith.ceildivsi %M, %Mt : i32
    %pid_m = arith.remsi %pid, %num_pid_m : i32
    %pid_n = arith.divsi %pid, %num_pid_m : i32
    %o_am = arith.muli %pid_m, %Mt : i32
    %o_bn = arith.muli %pid_n, %Nt : i32
    %k_tiles = arith.ceildivsi %K, %Kt : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %res, %res_1 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %acc0, %o_k = %c0) -> (tensor<128x256xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%o_am, %o_k] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %b = tile.desc_load %b_desc[%o_bn, %o_k] : !tile.desc<tensor<256x64xf16>> -> tensor<256x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %bt = tile.trans %b [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
      %acc2 = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %o_k2 = arith.addi %o_k, %Kt : i32
      scf.yield %acc2, %o_k2 : tensor<128x256xf32>, i32
    } {ws.schedule = {II = 12 : i32, L = 13 : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, vl_warp = 1 : i32}}
    %c = arith.truncf %res : tensor<128x256xf32> to tensor<128x256xf16>
    %rm = tile.make_range 0 to 128 : tensor<128xi32>
    %rn = tile.make_range 0 to 256 : tensor<256xi32>
    %o_am_v = tile.splat %o_am : i32 -> tensor<128xi32>
    %o_bn_v = tile.splat %o_bn : i32 -> tensor<256xi32>
    %offs_m = arith.addi %o_am_v, %rm : tensor<128xi32>
    %offs_n = arith.addi %o_bn_v, %rn : tensor<256xi32>
    %scm = tile.splat %stride_cm : i32 -> tensor<128xi32>
    %row_off = arith.muli %offs_m, %scm : tensor<128xi32>
    %row2 = tile.expand_dims %row_off, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %col2 = tile.expand_dims %offs_n, 0 : tensor<256xi32> -> tensor<1x256xi32>
    %rowb = tile.broadcast %row2 : tensor<128x1xi32> -> tensor<128x256xi32>
    %colb = tile.broadcast %col2 : tensor<1x256xi32> -> tensor<128x256xi32>
    %off = arith.addi %rowb, %colb : tensor<128x256xi32>
    %base = tile.splat %c_ptr : !tile.ptr<f16> -> tensor<128x256x!tile.ptr<f16>>
    %ptrs = tile.addptr %base, %off : tensor<128x256x!tile.ptr<f16>>, tensor<128x256xi32>
    %Mv = tile.splat %M : i32 -> tensor<128xi32>
    %Nv = tile.splat %N : i32 -> tensor<256xi32>
    %mm = arith.cmpi slt, %offs_m, %Mv : tensor<128xi32>
    %mn = arith.cmpi slt, %offs_n, %Nv : tensor<256xi32>
    %mm2 = tile.expand_dims %mm, 1 : tensor<128xi1> -> tensor<128x1xi1>
    %mn2 = tile.expand_dims %mn, 0 : tensor<256xi1> -> tensor<1x256xi1>
    %mmb = tile.broadcast %mm2 : tensor<128x1xi1> -> tensor<128x256xi1>
    %mnb = tile.broadcast %mn2 : tensor<1x256xi1> -> tensor<128x256xi1>
    %mask = arith.andi %mmb, %mnb : tensor<128x256xi1>
    tile.store %ptrs, %c, %mask : tensor<128x256x!tile.ptr<f16>>
    func.return
  }
}
