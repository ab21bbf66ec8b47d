// P·V in e4m3 (the second dot of FP8 attention): V [L, 64] is loaded as stored, KxN with N
// contiguous, which fp8 wgmma cannot read as B; ws-producer-transpose has the producer copy
// each V tile transposed into a ring of its own. P [64, 64] (one block, used with every V
// block) and V are e4m3, O [64, 64] f32.
// docs: ws-producer-transpose after ws-partition,ws-distribute{depth=2}
func.func @pv8(%p_desc: !tile.desc<tensor<64x64xf8E4M3FN>>, %v_desc: !tile.desc<tensor<64x64xf8E4M3FN>>,
               %o_desc: !tile.desc<tensor<64x64xf32>>, %L: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %n = arith.ceildivsi %L, %c64 : i32
  %p = tile.desc_load %p_desc[%c0, %c0] : !tile.desc<tensor<64x64xf8E4M3FN>> -> tensor<64x64xf8E4M3FN>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %off = arith.muli %j, %c64 : i32
    %v = tile.desc_load %v_desc[%off, %c0] : !tile.desc<tensor<64x64xf8E4M3FN>> -> tensor<64x64xf8E4M3FN>
    %acc2 = tile.dot %p, %v, %acc : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    scf.yield %acc2 : tensor<64x64xf32>
  }
  tile.desc_store %o_desc[%c0, %c0], %r : !tile.desc<tensor<64x64xf32>>
  func.return
}
