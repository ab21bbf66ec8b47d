// C = A @ B^T on 64x64 tiles, C written the Triton way: a tile of pointers c + row * S + col,
// masked by row < M and col < N: the input of the ws-tma-store example in docs/passes.md.
// Grid: (cdiv(M, 64), cdiv(N, 64)).
// docs: ws-tma-store
func.func @gemm(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                %c: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %S: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c64 : i32
  %on = arith.muli %pn, %c64 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<64x64xf32>, i32
  }
  %h = arith.truncf %r#0 : tensor<64x64xf32> to tensor<64x64xf16>
  %range = tile.make_range 0 to 64 : tensor<64xi32>
  %om_v = tile.splat %om : i32 -> tensor<64xi32>
  %on_v = tile.splat %on : i32 -> tensor<64xi32>
  %rows = arith.addi %om_v, %range : tensor<64xi32>
  %cols = arith.addi %on_v, %range : tensor<64xi32>
  %S_v = tile.splat %S : i32 -> tensor<64xi32>
  %row_off = arith.muli %rows, %S_v : tensor<64xi32>
  %ro2 = tile.expand_dims %row_off, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %co2 = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rob = tile.broadcast %ro2 : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %co2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rob, %cob : tensor<64x64xi32>
  %base = tile.splat %c : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ptrs = tile.addptr %base, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %M_v = tile.splat %M : i32 -> tensor<64xi32>
  %N_v = tile.splat %N : i32 -> tensor<64xi32>
  %in_m = arith.cmpi slt, %rows, %M_v : tensor<64xi32>
  %in_n = arith.cmpi slt, %cols, %N_v : tensor<64xi32>
  %im2 = tile.expand_dims %in_m, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %in2 = tile.expand_dims %in_n, 0 : tensor<64xi1> -> tensor<1x64xi1>
  %imb = tile.broadcast %im2 : tensor<64x1xi1> -> tensor<64x64xi1>
  %inb = tile.broadcast %in2 : tensor<1x64xi1> -> tensor<64x64xi1>
  %mask = arith.andi %imb, %inb : tensor<64x64xi1>
  tile.store %ptrs, %h, %mask : tensor<64x64x!tile.ptr<f16>>
  func.return
}
