// H[M,N] (f16) = silu(X[M,K] @ W1[N,K]^T) * (X[M,K] @ W3[N,K]^T): a gated MLP's (SwiGLU)
// first layer; f16 inputs, two fp32 accumulators fed by one X tile per K step (X, W1 and
// W3 travel together through one aref), silu(g) = g / (1 + exp(-g)) in fp32, f16 H.
// 128x128x64 tiles, 8 consumer warps (2 x 64 accumulator registers per thread);
// H through a TMA store (rows and columns past M and N dropped).
// Grid: (cdiv(M, 128) * cdiv(N, 128)), M fastest. Arguments: x (M x K), w1 (N x K),
// w3 (N x K), h (M x N, f16), M, K.
func.func @gated_mlp(%x_desc: !tile.desc<tensor<128x64xf16>>, %w1_desc: !tile.desc<tensor<128x64xf16>>,
                     %w3_desc: !tile.desc<tensor<128x64xf16>>, %h_desc: !tile.desc<tensor<128x128xf16>>,
                     %M: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0 : i32
  %npm = arith.ceildivsi %M, %c128 : i32
  %pm = arith.remsi %pid, %npm : i32
  %pn = arith.divsi %pid, %npm : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c128 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:3 = scf.for %k = %c0 to %kt step %c1 iter_args(%g = %z, %u = %z, %ok = %c0) -> (tensor<128x128xf32>, tensor<128x128xf32>, i32) : i32 {
    %x = tile.desc_load %x_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %w1 = tile.desc_load %w1_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %w3 = tile.desc_load %w3_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %w1t = tile.trans %w1 [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %w3t = tile.trans %w3 [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %g2 = tile.dot %x, %w1t, %g : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %u2 = tile.dot %x, %w3t, %u : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %g2, %u2, %ok2 : tensor<128x128xf32>, tensor<128x128xf32>, i32
  }
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %ng = arith.negf %r#0 : tensor<128x128xf32>
  %e = math.exp %ng : tensor<128x128xf32>
  %den = arith.addf %one, %e : tensor<128x128xf32>
  %silu = arith.divf %r#0, %den : tensor<128x128xf32>
  %h = arith.mulf %silu, %r#1 : tensor<128x128xf32>
  %h16 = arith.truncf %h : tensor<128x128xf32> to tensor<128x128xf16>
  tile.desc_store %h_desc[%om, %on], %h16 : !tile.desc<tensor<128x128xf16>>
  func.return
}
