// Program p adds A[32p : 32p + 64] @ B[0 : 64]^T into C at row 32p, column 48p + 8 with a TMA
// reduce-add (tile.desc_store add): neighbouring programs' tiles overlap by 32 rows and 16
// columns, and the last ones run past C's end (clipped). (A box may not start left of C: TMA
// stores take coordinates >= 0.) f32, and f16 / bf16 (the tile rounded to C's type, added by TMA).
// Grid: (programs,); A has at least 32 * programs + 32 rows (rows past A's end read zeros).

// f32: the accumulator itself.
func.func @overlap_f32(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                  %c_desc: !tile.desc<tensor<64x64xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c48 = arith.constant 48 : i32
  %c64 = arith.constant 64 : i32
  %p = tile.program_id 0 : i32
  %r0 = arith.muli %p, %c32 : i32
  %p48 = arith.muli %p, %c48 : i32
  %col0 = arith.addi %p48, %c8 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %x = tile.desc_load %a_desc[%r0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %x, %yt, %s : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.desc_store add %c_desc[%r0, %col0], %acc : !tile.desc<tensor<64x64xf32>>
  func.return
}

// -----

// f16: the accumulator rounded to f16.
func.func @overlap_f16(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                  %c_desc: !tile.desc<tensor<64x64xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c48 = arith.constant 48 : i32
  %c64 = arith.constant 64 : i32
  %p = tile.program_id 0 : i32
  %r0 = arith.muli %p, %c32 : i32
  %p48 = arith.muli %p, %c48 : i32
  %col0 = arith.addi %p48, %c8 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %x = tile.desc_load %a_desc[%r0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %x, %yt, %s : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %o = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  tile.desc_store add %c_desc[%r0, %col0], %o : !tile.desc<tensor<64x64xf16>>
  func.return
}

// -----

// bf16: the accumulator rounded to bf16.
func.func @overlap_bf16(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                  %c_desc: !tile.desc<tensor<64x64xbf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c48 = arith.constant 48 : i32
  %c64 = arith.constant 64 : i32
  %p = tile.program_id 0 : i32
  %r0 = arith.muli %p, %c32 : i32
  %p48 = arith.muli %p, %c48 : i32
  %col0 = arith.addi %p48, %c8 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %x = tile.desc_load %a_desc[%r0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %yt = tile.trans %y [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %x, %yt, %s : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %o = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.desc_store add %c_desc[%r0, %col0], %o : !tile.desc<tensor<64x64xbf16>>
  func.return
}
