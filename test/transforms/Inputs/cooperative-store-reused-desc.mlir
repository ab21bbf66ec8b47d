// C += A @ B^T through one descriptor of C, read and written: ws-cooperative{stores=split}
// cannot give each group a store of its own rows (the box of %c_desc is also the load's), so
// the store stays gathered into group 0's, with a remark (test/transforms/ws-cooperative.mlir).
builtin.module {
  func.func @accumulate(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                        %c_desc: !tile.desc<tensor<128x128xf16>>, %K: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant 128 : i32
    %Kt = arith.constant 64 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %t : i32
    %on = arith.muli %pn, %t : i32
    %kt = arith.ceildivsi %K, %Kt : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %res:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %acc0, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %acc2 = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %ok2 = arith.addi %ok, %Kt : i32
      scf.yield %acc2, %ok2 : tensor<128x128xf32>, i32
    }
    %cin = tile.desc_load %c_desc[%om, %on] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %cin32 = arith.extf %cin : tensor<128x128xf16> to tensor<128x128xf32>
    %sum = arith.addf %res#0, %cin32 : tensor<128x128xf32>
    %c = arith.truncf %sum : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<128x128xf16>>
    func.return
  }
}
