// Probe: examples/kernels/gemm.mlir after `ws-tma-store,ws-specialize{persistent=true cooperative=2 pingpong=true
// depth=3 mma-depth=1}`, edited by hand: each consumer group stores its own 64x256 rows with a TMA store of its
// own (the descriptor's box is 64x256) instead of gathering the 128x256 tile into group 0's staging buffer
// (a named barrier of both groups at every epilogue) for one store. Timed by tools/probes/repeat_ab.py with
// 'src=bench/kernels/split_store/gemm_pingpong.mlir:<lowering passes>'.
builtin.module {
  func.func @matmul(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>, %c_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32, %c_ptr_tma: !tile.desc<tensor<64x256xf16>>, %c_ptr_tma_ok: i32, %ws_grid_x: i32, %ws_grid_y: i32, %ws_grid_z: i32) attributes {tile.kernel, tile.num_warps = 12 : i32, ws.tma_stores = [{ptr = 2 : i32, rows = 3 : i32, cols = 4 : i32, stride = 6 : i32, desc = 7 : i32}], ws.distributed = "producer warps 4, consumer warps 8", ws.persistent = {programs = 132 : i32}} {
    %aref_a_b = aref.create consumers = 2 : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
    warp_group.region {
      warp_group.partition 0 producer warps 4 regs 40 {
        %program = tile.program_id 0 : i32
        %programs = tile.num_programs 0 : i32
        %0 = arith.muli %ws_grid_x, %ws_grid_y : i32
        %tiles = arith.muli %0, %ws_grid_z : i32
        %1 = arith.constant 0 : i32
        %2, %3 = scf.for %tile = %program to %tiles step %programs iter_args(%ring_base = %1, %tile_count = %1) -> (i32, i32) : i32 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %Mt = arith.constant 128 : i32
          %Nt = arith.constant 256 : i32
          %Kt = arith.constant 64 : i32
          %num_pid_m = arith.ceildivsi %M, %Mt : i32
          %tile_group = arith.constant 8 : i32
          %4 = arith.constant 1 : i32
          %slice_tile = arith.remsi %tile, %ws_grid_x : i32
          %decode_width = arith.maxsi %num_pid_m, %4 : i32
          %full_columns = arith.divsi %ws_grid_x, %decode_width : i32
          %full_tiles = arith.muli %full_columns, %decode_width : i32
          %5 = arith.maxsi %full_columns, %4 : i32
          %band_tiles = arith.muli %tile_group, %5 : i32
          %band = arith.divsi %slice_tile, %band_tiles : i32
          %band_x = arith.muli %band, %tile_group : i32
          %x_left = arith.subi %decode_width, %band_x : i32
          %6 = arith.minsi %x_left, %tile_group : i32
          %7 = arith.constant 1 : i32
          %band_size = arith.maxsi %6, %7 : i32
          %in_band = arith.remsi %slice_tile, %band_tiles : i32
          %band_dx = arith.remsi %in_band, %band_size : i32
          %pid_x = arith.addi %band_x, %band_dx : i32
          %pid_y = arith.divsi %in_band, %band_size : i32
          %8 = arith.muli %pid_y, %decode_width : i32
          %grouped_pid = arith.addi %pid_x, %8 : i32
          %in_full_columns = arith.cmpi slt, %slice_tile, %full_tiles : i32
          %pid = arith.select %in_full_columns, %grouped_pid, %slice_tile : i32
          %pid_m = arith.remsi %pid, %num_pid_m : i32
          %pid_n = arith.divsi %pid, %num_pid_m : i32
          %o_am = arith.muli %pid_m, %Mt : i32
          %o_bn = arith.muli %pid_n, %Nt : i32
          %k_tiles = arith.ceildivsi %K, %Kt : i32
          %res = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%o_k = %c0) -> (i32) : i32 {
            %a = tile.desc_load %a_desc[%o_am, %o_k] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
            %b = tile.desc_load %b_desc[%o_bn, %o_k] : !tile.desc<tensor<256x64xf16>> -> tensor<256x64xf16>
            %9 = arith.addi %k, %ring_base : i32
            aref.put %aref_a_b[%9], %a, %b : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
            %o_k2 = arith.addi %o_k, %Kt : i32
            scf.yield %o_k2 : i32
          }
          %10 = arith.constant 1 : i32
          %11 = arith.subi %k_tiles, %c0 : i32
          %12 = arith.ceildivsi %11, %c1 : i32
          %13 = arith.constant 0 : i32
          %trips = arith.maxsi %12, %13 : i32
          %14 = arith.addi %ring_base, %trips : i32
          %15 = arith.addi %tile_count, %10 : i32
          scf.yield %14, %15 : i32, i32
        }
      }
      warp_group.partition 1 consumer0 warps 4 regs 232 {
        %program_1 = tile.program_id 0 : i32
        %programs_1 = tile.num_programs 0 : i32
        %16 = arith.muli %ws_grid_x, %ws_grid_y : i32
        %tiles_1 = arith.muli %16, %ws_grid_z : i32
        %17 = arith.constant 0 : i32
        %18, %19 = scf.for %tile_1 = %program_1 to %tiles_1 step %programs_1 iter_args(%ring_base_1 = %17, %tile_count_1 = %17) -> (i32, i32) : i32 {
          %c0_1 = arith.constant 0 : i32
          %c1_1 = arith.constant 1 : i32
          %Mt_1 = arith.constant 128 : i32
          %Nt_1 = arith.constant 256 : i32
          %Kt_1 = arith.constant 64 : i32
          %num_pid_m_1 = arith.ceildivsi %M, %Mt_1 : i32
          %tile_group_1 = arith.constant 8 : i32
          %20 = arith.constant 1 : i32
          %slice_tile_1 = arith.remsi %tile_1, %ws_grid_x : i32
          %decode_width_1 = arith.maxsi %num_pid_m_1, %20 : i32
          %full_columns_1 = arith.divsi %ws_grid_x, %decode_width_1 : i32
          %full_tiles_1 = arith.muli %full_columns_1, %decode_width_1 : i32
          %21 = arith.maxsi %full_columns_1, %20 : i32
          %band_tiles_1 = arith.muli %tile_group_1, %21 : i32
          %band_1 = arith.divsi %slice_tile_1, %band_tiles_1 : i32
          %band_x_1 = arith.muli %band_1, %tile_group_1 : i32
          %x_left_1 = arith.subi %decode_width_1, %band_x_1 : i32
          %22 = arith.minsi %x_left_1, %tile_group_1 : i32
          %23 = arith.constant 1 : i32
          %band_size_1 = arith.maxsi %22, %23 : i32
          %in_band_1 = arith.remsi %slice_tile_1, %band_tiles_1 : i32
          %band_dx_1 = arith.remsi %in_band_1, %band_size_1 : i32
          %pid_x_1 = arith.addi %band_x_1, %band_dx_1 : i32
          %pid_y_1 = arith.divsi %in_band_1, %band_size_1 : i32
          %24 = arith.muli %pid_y_1, %decode_width_1 : i32
          %grouped_pid_1 = arith.addi %pid_x_1, %24 : i32
          %in_full_columns_1 = arith.cmpi slt, %slice_tile_1, %full_tiles_1 : i32
          %pid_1 = arith.select %in_full_columns_1, %grouped_pid_1, %slice_tile_1 : i32
          %pid_m_1 = arith.remsi %pid_1, %num_pid_m_1 : i32
          %pid_n_1 = arith.divsi %pid_1, %num_pid_m_1 : i32
          %o_am_1 = arith.muli %pid_m_1, %Mt_1 : i32
          %o_bn_1 = arith.muli %pid_n_1, %Nt_1 : i32
          %k_tiles_1 = arith.ceildivsi %K, %Kt_1 : i32
          %acc0 = arith.constant dense<0.000000e+00> : tensor<64x256xf32>
          %res_1 = scf.for %k_1 = %c0_1 to %k_tiles_1 step %c1_1 iter_args(%acc = %acc0) -> (tensor<64x256xf32>) : i32 {
            %25 = arith.addi %k_1, %ring_base_1 : i32
            %a_1, %b_1 = aref.get %aref_a_b[%25] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
            %a_g0 = warp_group.share %a_1, 0 of 2 along 0 : tensor<128x64xf16> -> tensor<64x64xf16>
            %bt = tile.trans %b_1 [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
            warp_group.turn_wait 0 of 2
            %acc2 = mma.async_dot %a_g0, %bt, %acc : tensor<64x64xf16>, tensor<64x256xf16> -> tensor<64x256xf32>
            warp_group.turn_pass 0 of 2
            %acc2_1 = mma.wait %acc2 {pending = 1} : tensor<64x256xf32>
            %lag = arith.constant 1 : i32
            %retired = arith.cmpi sge, %k_1, %lag : i32
            %prev = arith.subi %k_1, %lag : i32
            scf.if %retired {
              %26 = arith.addi %prev, %ring_base_1 : i32
              aref.consumed %aref_a_b[%26] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
            }
            scf.yield %acc2_1 : tensor<64x256xf32>
          }
          %res_2 = mma.wait %res_1 {pending = 0} : tensor<64x256xf32>
          %27 = arith.subi %k_tiles_1, %c0_1 : i32
          %28 = arith.ceildivsi %27, %c1_1 : i32
          %29 = arith.constant 0 : i32
          %trips_1 = arith.maxsi %28, %29 : i32
          %30 = arith.constant 1 : i32
          %31 = arith.constant 0 : i32
          %32 = arith.constant 1 : i32
          %33 = arith.subi %trips_1, %30 : i32
          %drain_from = arith.maxsi %33, %31 : i32
          scf.for %j = %drain_from to %trips_1 step %32 : i32 {
            %34 = arith.addi %j, %ring_base_1 : i32
            aref.consumed %aref_a_b[%34] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          }
          warp_group.barrier
          %c = arith.truncf %res_2 : tensor<64x256xf32> to tensor<64x256xf16>
          %rm = tile.make_range 0 to 64 : tensor<64xi32>
          %rn = tile.make_range 0 to 256 : tensor<256xi32>
          %o_am_v = tile.splat %o_am_1 : i32 -> tensor<64xi32>
          %o_bn_v = tile.splat %o_bn_1 : i32 -> tensor<256xi32>
          %offs_m = arith.addi %o_am_v, %rm : tensor<64xi32>
          %offs_n = arith.addi %o_bn_v, %rn : tensor<256xi32>
          %scm = tile.splat %stride_cm : i32 -> tensor<64xi32>
          %row_off = arith.muli %offs_m, %scm : tensor<64xi32>
          %row2 = tile.expand_dims %row_off, 1 : tensor<64xi32> -> tensor<64x1xi32>
          %col2 = tile.expand_dims %offs_n, 0 : tensor<256xi32> -> tensor<1x256xi32>
          %rowb = tile.broadcast %row2 : tensor<64x1xi32> -> tensor<64x256xi32>
          %colb = tile.broadcast %col2 : tensor<1x256xi32> -> tensor<64x256xi32>
          %off = arith.addi %rowb, %colb : tensor<64x256xi32>
          %base = tile.splat %c_ptr : !tile.ptr<f16> -> tensor<64x256x!tile.ptr<f16>>
          %ptrs = tile.addptr %base, %off : tensor<64x256x!tile.ptr<f16>>, tensor<64x256xi32>
          %Mv = tile.splat %M : i32 -> tensor<64xi32>
          %Nv = tile.splat %N : i32 -> tensor<256xi32>
          %mm = arith.cmpi slt, %offs_m, %Mv : tensor<64xi32>
          %mn = arith.cmpi slt, %offs_n, %Nv : tensor<256xi32>
          %mm2 = tile.expand_dims %mm, 1 : tensor<64xi1> -> tensor<64x1xi1>
          %mn2 = tile.expand_dims %mn, 0 : tensor<256xi1> -> tensor<1x256xi1>
          %mmb = tile.broadcast %mm2 : tensor<64x1xi1> -> tensor<64x256xi1>
          %mnb = tile.broadcast %mn2 : tensor<1x256xi1> -> tensor<64x256xi1>
          %mask = arith.andi %mmb, %mnb : tensor<64x256xi1>
          %35 = arith.constant 0 : i32
          %tma = arith.cmpi ne, %c_ptr_tma_ok, %35 : i32
          scf.if %tma {
            tile.desc_store %c_ptr_tma[%o_am_1, %o_bn_1], %c : !tile.desc<tensor<64x256xf16>>
          } else {
            tile.store %ptrs, %c, %mask : tensor<64x256x!tile.ptr<f16>>
          }
          %36 = arith.constant 1 : i32
          %37 = arith.subi %k_tiles_1, %c0_1 : i32
          %38 = arith.ceildivsi %37, %c1_1 : i32
          %39 = arith.constant 0 : i32
          %trips_2 = arith.maxsi %38, %39 : i32
          %40 = arith.addi %ring_base_1, %trips_2 : i32
          %41 = arith.addi %tile_count_1, %36 : i32
          scf.yield %40, %41 : i32, i32
        }
        warp_group.turn_wait 0 of 2
      }
      warp_group.partition 2 consumer1 warps 4 regs 232 {
        warp_group.turn_pass 1 of 2
        %program_2 = tile.program_id 0 : i32
        %programs_2 = tile.num_programs 0 : i32
        %42 = arith.muli %ws_grid_x, %ws_grid_y : i32
        %tiles_2 = arith.muli %42, %ws_grid_z : i32
        %43 = arith.constant 0 : i32
        %44, %45 = scf.for %tile_2 = %program_2 to %tiles_2 step %programs_2 iter_args(%ring_base_2 = %43, %tile_count_2 = %43) -> (i32, i32) : i32 {
          %c0_2 = arith.constant 0 : i32
          %c1_2 = arith.constant 1 : i32
          %Mt_2 = arith.constant 128 : i32
          %Nt_2 = arith.constant 256 : i32
          %Kt_2 = arith.constant 64 : i32
          %num_pid_m_2 = arith.ceildivsi %M, %Mt_2 : i32
          %tile_group_2 = arith.constant 8 : i32
          %46 = arith.constant 1 : i32
          %slice_tile_2 = arith.remsi %tile_2, %ws_grid_x : i32
          %decode_width_2 = arith.maxsi %num_pid_m_2, %46 : i32
          %full_columns_2 = arith.divsi %ws_grid_x, %decode_width_2 : i32
          %full_tiles_2 = arith.muli %full_columns_2, %decode_width_2 : i32
          %47 = arith.maxsi %full_columns_2, %46 : i32
          %band_tiles_2 = arith.muli %tile_group_2, %47 : i32
          %band_2 = arith.divsi %slice_tile_2, %band_tiles_2 : i32
          %band_x_2 = arith.muli %band_2, %tile_group_2 : i32
          %x_left_2 = arith.subi %decode_width_2, %band_x_2 : i32
          %48 = arith.minsi %x_left_2, %tile_group_2 : i32
          %49 = arith.constant 1 : i32
          %band_size_2 = arith.maxsi %48, %49 : i32
          %in_band_2 = arith.remsi %slice_tile_2, %band_tiles_2 : i32
          %band_dx_2 = arith.remsi %in_band_2, %band_size_2 : i32
          %pid_x_2 = arith.addi %band_x_2, %band_dx_2 : i32
          %pid_y_2 = arith.divsi %in_band_2, %band_size_2 : i32
          %50 = arith.muli %pid_y_2, %decode_width_2 : i32
          %grouped_pid_2 = arith.addi %pid_x_2, %50 : i32
          %in_full_columns_2 = arith.cmpi slt, %slice_tile_2, %full_tiles_2 : i32
          %pid_2 = arith.select %in_full_columns_2, %grouped_pid_2, %slice_tile_2 : i32
          %pid_m_2 = arith.remsi %pid_2, %num_pid_m_2 : i32
          %pid_n_2 = arith.divsi %pid_2, %num_pid_m_2 : i32
          %o_am_2 = arith.muli %pid_m_2, %Mt_2 : i32
          %o_bn_2 = arith.muli %pid_n_2, %Nt_2 : i32
          %k_tiles_2 = arith.ceildivsi %K, %Kt_2 : i32
          %acc0_1 = arith.constant dense<0.000000e+00> : tensor<64x256xf32>
          %res_3 = scf.for %k_2 = %c0_2 to %k_tiles_2 step %c1_2 iter_args(%acc_1 = %acc0_1) -> (tensor<64x256xf32>) : i32 {
            %51 = arith.addi %k_2, %ring_base_2 : i32
            %a_2, %b_2 = aref.get %aref_a_b[%51] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
            %a_g1 = warp_group.share %a_2, 1 of 2 along 0 : tensor<128x64xf16> -> tensor<64x64xf16>
            %bt_1 = tile.trans %b_2 [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
            warp_group.turn_wait 1 of 2
            %acc2_2 = mma.async_dot %a_g1, %bt_1, %acc_1 : tensor<64x64xf16>, tensor<64x256xf16> -> tensor<64x256xf32>
            warp_group.turn_pass 1 of 2
            %acc2_3 = mma.wait %acc2_2 {pending = 1} : tensor<64x256xf32>
            %lag_1 = arith.constant 1 : i32
            %retired_1 = arith.cmpi sge, %k_2, %lag_1 : i32
            %prev_1 = arith.subi %k_2, %lag_1 : i32
            scf.if %retired_1 {
              %52 = arith.addi %prev_1, %ring_base_2 : i32
              aref.consumed %aref_a_b[%52] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
            }
            scf.yield %acc2_3 : tensor<64x256xf32>
          }
          %res_4 = mma.wait %res_3 {pending = 0} : tensor<64x256xf32>
          %53 = arith.subi %k_tiles_2, %c0_2 : i32
          %54 = arith.ceildivsi %53, %c1_2 : i32
          %55 = arith.constant 0 : i32
          %trips_3 = arith.maxsi %54, %55 : i32
          %56 = arith.constant 1 : i32
          %57 = arith.constant 0 : i32
          %58 = arith.constant 1 : i32
          %59 = arith.subi %trips_3, %56 : i32
          %drain_from_1 = arith.maxsi %59, %57 : i32
          scf.for %j_1 = %drain_from_1 to %trips_3 step %58 : i32 {
            %60 = arith.addi %j_1, %ring_base_2 : i32
            aref.consumed %aref_a_b[%60] : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
          }
          warp_group.barrier
          %c_1 = arith.truncf %res_4 : tensor<64x256xf32> to tensor<64x256xf16>
          %rm_1 = tile.make_range 64 to 128 : tensor<64xi32>
          %rn_1 = tile.make_range 0 to 256 : tensor<256xi32>
          %o_am_v_1 = tile.splat %o_am_2 : i32 -> tensor<64xi32>
          %o_bn_v_1 = tile.splat %o_bn_2 : i32 -> tensor<256xi32>
          %offs_m_1 = arith.addi %o_am_v_1, %rm_1 : tensor<64xi32>
          %offs_n_1 = arith.addi %o_bn_v_1, %rn_1 : tensor<256xi32>
          %scm_1 = tile.splat %stride_cm : i32 -> tensor<64xi32>
          %row_off_1 = arith.muli %offs_m_1, %scm_1 : tensor<64xi32>
          %row2_1 = tile.expand_dims %row_off_1, 1 : tensor<64xi32> -> tensor<64x1xi32>
          %col2_1 = tile.expand_dims %offs_n_1, 0 : tensor<256xi32> -> tensor<1x256xi32>
          %rowb_1 = tile.broadcast %row2_1 : tensor<64x1xi32> -> tensor<64x256xi32>
          %colb_1 = tile.broadcast %col2_1 : tensor<1x256xi32> -> tensor<64x256xi32>
          %off_1 = arith.addi %rowb_1, %colb_1 : tensor<64x256xi32>
          %base_1 = tile.splat %c_ptr : !tile.ptr<f16> -> tensor<64x256x!tile.ptr<f16>>
          %ptrs_1 = tile.addptr %base_1, %off_1 : tensor<64x256x!tile.ptr<f16>>, tensor<64x256xi32>
          %Mv_1 = tile.splat %M : i32 -> tensor<64xi32>
          %Nv_1 = tile.splat %N : i32 -> tensor<256xi32>
          %mm_1 = arith.cmpi slt, %offs_m_1, %Mv_1 : tensor<64xi32>
          %mn_1 = arith.cmpi slt, %offs_n_1, %Nv_1 : tensor<256xi32>
          %mm2_1 = tile.expand_dims %mm_1, 1 : tensor<64xi1> -> tensor<64x1xi1>
          %mn2_1 = tile.expand_dims %mn_1, 0 : tensor<256xi1> -> tensor<1x256xi1>
          %mmb_1 = tile.broadcast %mm2_1 : tensor<64x1xi1> -> tensor<64x256xi1>
          %mnb_1 = tile.broadcast %mn2_1 : tensor<1x256xi1> -> tensor<64x256xi1>
          %mask_1 = arith.andi %mmb_1, %mnb_1 : tensor<64x256xi1>
          %61 = arith.constant 0 : i32
          %tma_1 = arith.cmpi ne, %c_ptr_tma_ok, %61 : i32
          scf.if %tma_1 {
            %half_rows = arith.constant 64 : i32
            %o_am_g1 = arith.addi %o_am_2, %half_rows : i32
            tile.desc_store %c_ptr_tma[%o_am_g1, %o_bn_2], %c_1 : !tile.desc<tensor<64x256xf16>>
          } else {
            tile.store %ptrs_1, %c_1, %mask_1 : tensor<64x256x!tile.ptr<f16>>
          }
          %62 = arith.constant 1 : i32
          %63 = arith.subi %k_tiles_2, %c0_2 : i32
          %64 = arith.ceildivsi %63, %c1_2 : i32
          %65 = arith.constant 0 : i32
          %trips_4 = arith.maxsi %64, %65 : i32
          %66 = arith.addi %ring_base_2, %trips_4 : i32
          %67 = arith.addi %tile_count_2, %62 : i32
          scf.yield %66, %67 : i32, i32
        }
      }
    }
    func.return
  }
}
