// ws-partition's invalid inputs: what warp specialization cannot do is an error located at the
// op concerned, never a silent miscompile. Checked with --verify-diagnostics.
// (ws-partition.mlir and ws-partition-loops.mlir have the valid inputs.)
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-partition > /dev/null
// RUN: ws-opt %s --split-input-file --verify-diagnostics -p ws-specialize > /dev/null

// -----

// A work-stealing tile counter: the atomic's result gives both the TMA loads' rows and the store's.
// Duplicated into the producer and the consumer, it would count twice.
func.func @steal(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                 %ctr: !tile.ptr<i32>, %c_desc: !tile.desc<tensor<128x128xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  // expected-error@+1 {{'tile.atomic_add' writes memory and its result is needed by more than one partition}}
  %tile = tile.atomic_add %ctr, %c1 : !tile.ptr<i32>, i32 -> i32
  %om = arith.muli %tile, %c128 : i32
  %k_tiles = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc_k : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %c = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.desc_store %c_desc[%om, %c0], %c : !tile.desc<tensor<128x128xf16>>
  func.return
}

// -----

// The same counter used by the computation only (here: the store's rows): it stays in the
// consumer, runs once, and the kernel is specialized.
func.func @count_only(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                      %ctr: !tile.ptr<i32>, %c_desc: !tile.desc<tensor<128x128xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0 : i32
  %om = arith.muli %pid, %c128 : i32
  %k_tiles = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc_k : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %slot = tile.atomic_add %ctr, %c1 : !tile.ptr<i32>, i32 -> i32
  %os = arith.muli %slot, %c128 : i32
  %c = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.desc_store %c_desc[%os, %c0], %c : !tile.desc<tensor<128x128xf16>>
  func.return
}
