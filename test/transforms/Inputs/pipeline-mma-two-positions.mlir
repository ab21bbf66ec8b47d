// ws-partition,ws-distribute{depth=3} of examples/kernels/gemm.mlir, changed by hand: each
// iteration puts its tiles at two positions (2k, 2k+1) of one ring and the consumer reads A
// from the first and B from the second, releasing both.
builtin.module {
  func.func @matmul(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>, %c_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32) attributes {tile.kernel, tile.num_warps = 12 : i32, ws.distributed = "producer warps 4, consumer warps 8"} {
    %aref_a_b = aref.create : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
    warp_group.region {
      warp_group.partition 0 producer warps 4 regs 40 {
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
        %res = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%o_k = %c0) -> (i32) : i32 {
          %a = tile.desc_load %a_desc[%o_am, %o_k] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
          %b = tile.desc_load %b_desc[%o_bn, %o_k] : !tile.desc<tensor<256x64xf16>> -> tensor<256x64xf16>
          %two = arith.constant 2 : i32
          %p0 = arith.muli %k, %two : i32
          %p1 = arith.addi %p0, %c1 : i32
          aref.put %aref_a_b[%p0], %a, %b : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          aref.put %aref_a_b[%p1], %a, %b : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          %o_k2 = arith.addi %o_k, %Kt : i32
          scf.yield %o_k2 : i32
        }
      }
      warp_group.partition 1 consumer warps 8 regs 232 {
        %c0_1 = arith.constant 0 : i32
        %c1_1 = arith.constant 1 : i32
        %Mt_1 = arith.constant 128 : i32
        %Nt_1 = arith.constant 256 : i32
        %Kt_1 = arith.constant 64 : i32
        %pid_1 = tile.program_id 0 : i32
        %num_pid_m_1 = arith.ceildivsi %M, %Mt_1 : i32
        %pid_m_1 = arith.remsi %pid_1, %num_pid_m_1 : i32
        %pid_n_1 = arith.divsi %pid_1, %num_pid_m_1 : i32
        %o_am_1 = arith.muli %pid_m_1, %Mt_1 : i32
        %o_bn_1 = arith.muli %pid_n_1, %Nt_1 : i32
        %k_tiles_1 = arith.ceildivsi %K, %Kt_1 : i32
        %acc0 = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
        %res_1 = scf.for %k_1 = %c0_1 to %k_tiles_1 step %c1_1 iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
          %two_1 = arith.constant 2 : i32
          %q0 = arith.muli %k_1, %two_1 : i32
          %q1 = arith.addi %q0, %c1_1 : i32
          %a_1, %b_0 = aref.get %aref_a_b[%q0] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          %a_0, %b_1 = aref.get %aref_a_b[%q1] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          %bt = tile.trans %b_1 [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
          %acc2 = tile.dot %a_1, %bt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
          aref.consumed %aref_a_b[%q0] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          aref.consumed %aref_a_b[%q1] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          scf.yield %acc2 : tensor<128x256xf32>
        }
        %c = arith.truncf %res_1 : tensor<128x256xf32> to tensor<128x256xf16>
        %rm = tile.make_range 0 to 128 : tensor<128xi32>
        %rn = tile.make_range 0 to 256 : tensor<256xi32>
        %o_am_v = tile.splat %o_am_1 : i32 -> tensor<128xi32>
        %o_bn_v = tile.splat %o_bn_1 : i32 -> tensor<256xi32>
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
      }
    }
    func.return
  }
}
