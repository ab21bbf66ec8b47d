// fused_mlp.mlir with a schedule whose warp group 0 holds stages 1 and 3 (%s, %acc2).
builtin.module {
  func.func @fused_mlp(%x_desc: !tile.desc<tensor<64x64xf16>>, %w1_desc: !tile.desc<tensor<64x64xf16>>, %w2_desc: !tile.desc<tensor<64x64xf16>>, %o_ptr: !tile.ptr<f32>, %M: i32, %H: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %pm = tile.program_id 0 : i32
    %om = arith.muli %pm, %c64 : i32
    %x = tile.desc_load %x_desc[%om, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %nh = arith.ceildivsi %H, %c64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r, %r_1 = scf.for %j = %c0 to %nh step %c1 iter_args(%acc = %zero, %oh = %c0) -> (tensor<64x64xf32>, i32) : i32 {
      %w1 = tile.desc_load %w1_desc[%oh, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 1 : i32, ws.order = 1 : i32, ws.warp = 2 : i32}
      %w1t = tile.trans %w1 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %s = tile.dot %x, %w1t, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32> {ws.stage = 1 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %h = arith.maximumf %s, %zero {ws.stage = 1 : i32, ws.order = 3 : i32, ws.warp = 1 : i32} : tensor<64x64xf32>
      %h16 = arith.truncf %h {ws.stage = 2 : i32, ws.order = 4 : i32, ws.warp = 1 : i32} : tensor<64x64xf32> to tensor<64x64xf16>
      %w2 = tile.desc_load %w2_desc[%oh, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 2 : i32}
      %acc2 = tile.dot %h16, %w2, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32> {ws.stage = 3 : i32, ws.order = 5 : i32, ws.warp = 0 : i32}
      %oh2 = arith.addi %oh, %c64 : i32
      scf.yield %acc2, %oh2 : tensor<64x64xf32>, i32
    } {ws.schedule = {II = 8 : i32, L = 8 : i32, warps = 2 : i32, vl_warp = 2 : i32}}
    %rm = tile.make_range 0 to 64 : tensor<64xi32>
    %omv = tile.splat %om : i32 -> tensor<64xi32>
    %rows = arith.addi %omv, %rm : tensor<64xi32>
    %c64v = arith.constant dense<64> : tensor<64xi32>
    %roff = arith.muli %rows, %c64v : tensor<64xi32>
    %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
    %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
    %off = arith.addi %rb, %cb : tensor<64x64xi32>
    %base = tile.splat %o_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
    %ptrs = tile.addptr %base, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    %Mv = tile.splat %M : i32 -> tensor<64xi32>
    %mr = arith.cmpi slt, %rows, %Mv : tensor<64xi32>
    %mr2 = tile.expand_dims %mr, 1 : tensor<64xi1> -> tensor<64x1xi1>
    %mask = tile.broadcast %mr2 : tensor<64x1xi1> -> tensor<64x64xi1>
    tile.store %ptrs, %r, %mask : tensor<64x64x!tile.ptr<f32>>
    func.return
  }
}
