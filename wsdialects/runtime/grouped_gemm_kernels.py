"""The grouped GEMM kernels (Mixture-of-Experts layers) as text, in the form of
`torch._grouped_mm`: the tokens of all G experts in one A [sum M_g, K], the experts' weights
one B [G, N, K], int32 `offs` [G] the cumulative row ends (group g owns rows offs[g-1] ..
offs[g] of A and C, offs[-1] = 0; a group may be empty), C [sum M_g, N] with
C[rows of g] = A[rows of g] @ B[g]^T (fp32 accumulation, f16 or bf16 in and out).

The kernel is written as a Triton user would write it: one persistent launch whose programs
walk the output tiles of all groups (`for tile in range(pid, total, num_programs)`), a scan
over the group sizes finding each tile's group and its tile in the group (M fastest). No
descriptor is made per group and nothing waits for the host:

- A is read through one descriptor over the whole [sum M_g, K]: a tile's rows past its
  group's end read the next group's rows (or zeros past the tensor), which only reach output
  rows that the store drops;
- B through a 3-D descriptor whose access names the group first, so TMA clips at N and K;
- C by a masked store clipped at the group's last row (and at M, the rows of A and C: offsets
  past them write nothing) and at N: no group writes into the next group's rows (a TMA store's box cannot stop at a row inside the tensor without a
  descriptor per group).

The offsets stay on the device (what a router writes); the grid is any number of programs
(one per SM). `python -m wsdialects.runtime.grouped_gemm_kernels --out examples/kernels`
writes the bundled variants (a test checks they are what this module writes):

    text = grouped_mm(dtype="bf16", block_m=128, block_n=256, block_k=64, num_warps=8)
"""

from __future__ import annotations

from string import Template

DTYPES = ("f16", "bf16")

_GROUPED_MM = Template("""\
// Grouped GEMM in the form of torch._grouped_mm ($T): A [sum M_g, K], B [G, N, K], int32 offs
// [G] (cumulative row ends), C [sum M_g, N] with C[rows of g] = A[rows of g] @ B[g]^T. One
// persistent launch over all groups' tiles (${BM}x${BN}x${BK}, $W consumer warps), a scan over the
// offsets per tile; A through one descriptor, B through a 3-D descriptor (group first), C by a
// masked store clipped at the group's end. Grid: any number of programs (one per SM).
// Arguments: a, b, c (flat), offs, G, M = sum M_g (rows of A and C), N, K.
// Written by wsdialects/runtime/grouped_gemm_kernels.py.
builtin.module {
  func.func @$name(%a_desc: !tile.desc<tensor<${BM}x${BK}x$T>>, %b_desc: !tile.desc<tensor<${BN}x${BK}x$T>>,
                          %c_ptr: !tile.ptr<$T>, %offs: !tile.ptr<i32>, %G: i32, %M: i32, %N: i32, %K: i32)
      attributes {tile.kernel, tile.num_warps = $W : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cBK = arith.constant $BK : i32
    %cBM = arith.constant $BM : i32
    %cBN = arith.constant $BN : i32
    %pid = tile.program_id 0 : i32
    %nprog = tile.num_programs 0 : i32
    %tiles_n = arith.ceildivsi %N, %cBN : i32
    %k_tiles = arith.ceildivsi %K, %cBK : i32
    // The number of output tiles of all groups: sum over g of cdiv(M_g, $BM) * cdiv(N, $BN).
    %total:2 = scf.for %j = %c0 to %G step %c1 iter_args(%t = %c0, %start = %c0) -> (i32, i32) : i32 {
      %pe = tile.addptr %offs, %j : !tile.ptr<i32>, i32
      %end = tile.load %pe : !tile.ptr<i32> -> i32
      %mg = arith.subi %end, %start : i32
      %tm = arith.ceildivsi %mg, %cBM : i32
      %tg = arith.muli %tm, %tiles_n : i32
      %t2 = arith.addi %t, %tg : i32
      scf.yield %t2, %end : i32, i32
    }
    scf.for %tile = %pid to %total#0 step %nprog : i32 {
      // The scan: the group whose tiles [base, base + tiles of g) hold %tile, its first row, its
      // end row and the tile's index in the group.
      %f:6 = scf.for %j = %c0 to %G step %c1
          iter_args(%base = %c0, %start = %c0, %g = %c0, %row0 = %c0, %rowend = %c0, %local = %c0)
          -> (i32, i32, i32, i32, i32, i32) : i32 {
        %pe = tile.addptr %offs, %j : !tile.ptr<i32>, i32
        %end = tile.load %pe : !tile.ptr<i32> -> i32
        %mg = arith.subi %end, %start : i32
        %tm = arith.ceildivsi %mg, %cBM : i32
        %tg = arith.muli %tm, %tiles_n : i32
        %next = arith.addi %base, %tg : i32
        %ge = arith.cmpi sge, %tile, %base : i32
        %lt = arith.cmpi slt, %tile, %next : i32
        %hit = arith.andi %ge, %lt : i1
        %in = arith.subi %tile, %base : i32
        %g2 = arith.select %hit, %j, %g : i32
        %r02 = arith.select %hit, %start, %row0 : i32
        %re2 = arith.select %hit, %end, %rowend : i32
        %l2 = arith.select %hit, %in, %local : i32
        scf.yield %next, %end, %g2, %r02, %re2, %l2 : i32, i32, i32, i32, i32, i32
      }
      %mg = arith.subi %f#4, %f#3 : i32
      %tiles_m = arith.ceildivsi %mg, %cBM : i32
      %pm = arith.remsi %f#5, %tiles_m : i32
      %pn = arith.divsi %f#5, %tiles_m : i32
      %om_g = arith.muli %pm, %cBM : i32
      %om = arith.addi %f#3, %om_g : i32
      %on = arith.muli %pn, %cBN : i32
      %zero = arith.constant dense<0.0> : tensor<${BM}x${BN}xf32>
      %r:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<${BM}x${BN}xf32>, i32) : i32 {
        %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<${BM}x${BK}x$T>> -> tensor<${BM}x${BK}x$T>
        %b = tile.desc_load %b_desc[%f#2, %on, %ok] : !tile.desc<tensor<${BN}x${BK}x$T>> -> tensor<${BN}x${BK}x$T>
        %bt = tile.trans %b [1, 0] : tensor<${BN}x${BK}x$T> -> tensor<${BK}x${BN}x$T>
        %d = tile.dot %a, %bt, %acc : tensor<${BM}x${BK}x$T>, tensor<${BK}x${BN}x$T> -> tensor<${BM}x${BN}xf32>
        %ok2 = arith.addi %ok, %cBK : i32
        scf.yield %d, %ok2 : tensor<${BM}x${BN}xf32>, i32
      }
      %c = arith.truncf %r#0 : tensor<${BM}x${BN}xf32> to tensor<${BM}x${BN}x$T>
      %rm = tile.make_range 0 to $BM : tensor<${BM}xi32>
      %rn = tile.make_range 0 to $BN : tensor<${BN}xi32>
      %om_v = tile.splat %om : i32 -> tensor<${BM}xi32>
      %on_v = tile.splat %on : i32 -> tensor<${BN}xi32>
      %rows = arith.addi %om_v, %rm : tensor<${BM}xi32>
      %cols = arith.addi %on_v, %rn : tensor<${BN}xi32>
      %N_v = tile.splat %N : i32 -> tensor<${BM}xi32>
      %row_off = arith.muli %rows, %N_v : tensor<${BM}xi32>
      %row2 = tile.expand_dims %row_off, 1 : tensor<${BM}xi32> -> tensor<${BM}x1xi32>
      %col2 = tile.expand_dims %cols, 0 : tensor<${BN}xi32> -> tensor<1x${BN}xi32>
      %rowb = tile.broadcast %row2 : tensor<${BM}x1xi32> -> tensor<${BM}x${BN}xi32>
      %colb = tile.broadcast %col2 : tensor<1x${BN}xi32> -> tensor<${BM}x${BN}xi32>
      %off = arith.addi %rowb, %colb : tensor<${BM}x${BN}xi32>
      %base_p = tile.splat %c_ptr : !tile.ptr<$T> -> tensor<${BM}x${BN}x!tile.ptr<$T>>
      %ptrs = tile.addptr %base_p, %off : tensor<${BM}x${BN}x!tile.ptr<$T>>, tensor<${BM}x${BN}xi32>
      %row_end = arith.minsi %f#4, %M : i32
      %end_v = tile.splat %row_end : i32 -> tensor<${BM}xi32>
      %Nc_v = tile.splat %N : i32 -> tensor<${BN}xi32>
      %in_m = arith.cmpi slt, %rows, %end_v : tensor<${BM}xi32>
      %in_n = arith.cmpi slt, %cols, %Nc_v : tensor<${BN}xi32>
      %in_m2 = tile.expand_dims %in_m, 1 : tensor<${BM}xi1> -> tensor<${BM}x1xi1>
      %in_n2 = tile.expand_dims %in_n, 0 : tensor<${BN}xi1> -> tensor<1x${BN}xi1>
      %mmb = tile.broadcast %in_m2 : tensor<${BM}x1xi1> -> tensor<${BM}x${BN}xi1>
      %mnb = tile.broadcast %in_n2 : tensor<1x${BN}xi1> -> tensor<${BM}x${BN}xi1>
      %mask = arith.andi %mmb, %mnb : tensor<${BM}x${BN}xi1>
      tile.store %ptrs, %c, %mask : tensor<${BM}x${BN}x!tile.ptr<$T>>
    }
    func.return
  }
}
""")

_GROUPED_LIST = Template("""\
// Grouped GEMM over separate tensors ($T): group g multiplies its own A_g [M_g, K_g] by B_g
// [N_g, K_g]^T into C_g [M_g, N_g], every size per group. One descriptor per group and operand,
// built by the launch from the lists of tensors (!tile.descs, tile.desc_index); sizes is int32
// [G, 3] (M_g, N_g, K_g). One persistent launch over all groups' tiles (${BM}x${BN}x${BK}, $W
// consumer warps), a scan over the sizes per tile; C_g is written by a TMA store that its own
// descriptor clips at M_g and N_g. Grid: any number of programs (one per SM).
// Arguments: a_list, b_list, c_list, sizes, G.
// Written by wsdialects/runtime/grouped_gemm_kernels.py.
builtin.module {
  func.func @$name(%a_descs: !tile.descs<tensor<${BM}x${BK}x$T>>, %b_descs: !tile.descs<tensor<${BN}x${BK}x$T>>,
                   %c_descs: !tile.descs<tensor<${BM}x${BN}x$T>>, %sizes: !tile.ptr<i32>, %G: i32)
      attributes {tile.kernel, tile.num_warps = $W : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %cBK = arith.constant $BK : i32
    %cBM = arith.constant $BM : i32
    %cBN = arith.constant $BN : i32
    %pid = tile.program_id 0 : i32
    %nprog = tile.num_programs 0 : i32
    // The number of output tiles of all groups: sum over g of cdiv(M_g, $BM) * cdiv(N_g, $BN).
    %total = scf.for %j = %c0 to %G step %c1 iter_args(%t = %c0) -> (i32) : i32 {
      %row = arith.muli %j, %c3 : i32
      %pm = tile.addptr %sizes, %row : !tile.ptr<i32>, i32
      %m = tile.load %pm : !tile.ptr<i32> -> i32
      %col_n = arith.addi %row, %c1 : i32
      %pn = tile.addptr %sizes, %col_n : !tile.ptr<i32>, i32
      %n = tile.load %pn : !tile.ptr<i32> -> i32
      %tm = arith.ceildivsi %m, %cBM : i32
      %tn = arith.ceildivsi %n, %cBN : i32
      %tg = arith.muli %tm, %tn : i32
      %t2 = arith.addi %t, %tg : i32
      scf.yield %t2 : i32
    }
    scf.for %tile = %pid to %total step %nprog : i32 {
      // The scan: the group whose tiles [base, base + tiles of g) hold %tile, its sizes and the
      // tile's index in the group.
      %f:6 = scf.for %j = %c0 to %G step %c1
          iter_args(%base = %c0, %g = %c0, %local = %c0, %mg = %c0, %ng = %c0, %kg = %c0)
          -> (i32, i32, i32, i32, i32, i32) : i32 {
        %row = arith.muli %j, %c3 : i32
        %pm = tile.addptr %sizes, %row : !tile.ptr<i32>, i32
        %m = tile.load %pm : !tile.ptr<i32> -> i32
        %col_n = arith.addi %row, %c1 : i32
        %pn = tile.addptr %sizes, %col_n : !tile.ptr<i32>, i32
        %n = tile.load %pn : !tile.ptr<i32> -> i32
        %col_k = arith.addi %row, %c2 : i32
        %pk = tile.addptr %sizes, %col_k : !tile.ptr<i32>, i32
        %k = tile.load %pk : !tile.ptr<i32> -> i32
        %tm = arith.ceildivsi %m, %cBM : i32
        %tn = arith.ceildivsi %n, %cBN : i32
        %tg = arith.muli %tm, %tn : i32
        %next = arith.addi %base, %tg : i32
        %ge = arith.cmpi sge, %tile, %base : i32
        %lt = arith.cmpi slt, %tile, %next : i32
        %hit = arith.andi %ge, %lt : i1
        %in = arith.subi %tile, %base : i32
        %g2 = arith.select %hit, %j, %g : i32
        %l2 = arith.select %hit, %in, %local : i32
        %m2 = arith.select %hit, %m, %mg : i32
        %n2 = arith.select %hit, %n, %ng : i32
        %k2 = arith.select %hit, %k, %kg : i32
        scf.yield %next, %g2, %l2, %m2, %n2, %k2 : i32, i32, i32, i32, i32, i32
      }
      %tiles_m = arith.ceildivsi %f#3, %cBM : i32
      %pm = arith.remsi %f#2, %tiles_m : i32
      %pn = arith.divsi %f#2, %tiles_m : i32
      %om = arith.muli %pm, %cBM : i32
      %on = arith.muli %pn, %cBN : i32
      %k_tiles = arith.ceildivsi %f#5, %cBK : i32
      %ad = tile.desc_index %a_descs[%f#1] : !tile.descs<tensor<${BM}x${BK}x$T>> -> !tile.desc<tensor<${BM}x${BK}x$T>>
      %bd = tile.desc_index %b_descs[%f#1] : !tile.descs<tensor<${BN}x${BK}x$T>> -> !tile.desc<tensor<${BN}x${BK}x$T>>
      %cd = tile.desc_index %c_descs[%f#1] : !tile.descs<tensor<${BM}x${BN}x$T>> -> !tile.desc<tensor<${BM}x${BN}x$T>>
      %zero = arith.constant dense<0.0> : tensor<${BM}x${BN}xf32>
      %r:2 = scf.for %kk = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<${BM}x${BN}xf32>, i32) : i32 {
        %a = tile.desc_load %ad[%om, %ok] : !tile.desc<tensor<${BM}x${BK}x$T>> -> tensor<${BM}x${BK}x$T>
        %b = tile.desc_load %bd[%on, %ok] : !tile.desc<tensor<${BN}x${BK}x$T>> -> tensor<${BN}x${BK}x$T>
        %bt = tile.trans %b [1, 0] : tensor<${BN}x${BK}x$T> -> tensor<${BK}x${BN}x$T>
        %d = tile.dot %a, %bt, %acc : tensor<${BM}x${BK}x$T>, tensor<${BK}x${BN}x$T> -> tensor<${BM}x${BN}xf32>
        %ok2 = arith.addi %ok, %cBK : i32
        scf.yield %d, %ok2 : tensor<${BM}x${BN}xf32>, i32
      }
      %c = arith.truncf %r#0 : tensor<${BM}x${BN}xf32> to tensor<${BM}x${BN}x$T>
      tile.desc_store %cd[%om, %on], %c : !tile.desc<tensor<${BM}x${BN}x$T>>
    }
    func.return
  }
}
""")


def _check(dtype: str, block_m: int, block_n: int, block_k: int, num_warps: int) -> None:
    if dtype not in DTYPES:
        raise ValueError(f"grouped GEMM kernels take f16 or bf16, got {dtype}")
    for b in (block_m, block_n, block_k):
        if b <= 0 or b & (b - 1):
            raise ValueError(f"block sizes must be powers of two, got {b}")
    if num_warps % 4 or block_m % (16 * num_warps):
        raise ValueError(f"num_warps must be a multiple of 4 and block_m a multiple of 16 * num_warps, "
                         f"got block_m {block_m}, num_warps {num_warps}")


def kernel_name(dtype: str = "bf16") -> str:
    """The function (and bundled file) name: grouped_gemm for bf16, grouped_gemm_f16 for f16."""
    return "grouped_gemm" + ("_f16" if dtype == "f16" else "")


def grouped_mm(dtype: str = "bf16", block_m: int = 128, block_n: int = 256, block_k: int = 64,
               num_warps: int = 8) -> str:
    """MLIR text of the grouped GEMM kernel (module docstring) for `dtype` and the tile
    block_m x block_n, K steps of block_k; num_warps consumer warps (64 rows each per 4)."""
    _check(dtype, block_m, block_n, block_k, num_warps)
    return _GROUPED_MM.substitute(T=dtype, name=kernel_name(dtype), BM=block_m, BN=block_n, BK=block_k,
                                  W=num_warps)


def list_kernel_name(dtype: str = "bf16") -> str:
    """The function (and bundled file) name of the descriptor-array kernel."""
    return "grouped_gemm_descs" + ("_f16" if dtype == "f16" else "")


def grouped_list(dtype: str = "bf16", block_m: int = 128, block_n: int = 256, block_k: int = 64,
                 num_warps: int = 8) -> str:
    """MLIR text of the grouped GEMM over separate tensors (one descriptor per group and
    operand, `!tile.descs`): group g computes C_g = A_g @ B_g^T with its own M_g, N_g, K_g."""
    _check(dtype, block_m, block_n, block_k, num_warps)
    return _GROUPED_LIST.substitute(T=dtype, name=list_kernel_name(dtype), BM=block_m, BN=block_n, BK=block_k,
                                    W=num_warps)


# The variants kept in examples/kernels (the defaults' block sizes).
BUNDLED = ("bf16", "f16")


def bundled() -> dict[str, str]:
    """{file name: text} of the variants kept in examples/kernels."""
    out = {f"{kernel_name(t)}.mlir": grouped_mm(t) for t in BUNDLED}
    out.update({f"{list_kernel_name(t)}.mlir": grouped_list(t) for t in BUNDLED})
    return out


def main(argv=None) -> int:
    from wsdialects.runtime.bundled import write_bundled

    return write_bundled(bundled(), "grouped GEMM", argv)


if __name__ == "__main__":
    raise SystemExit(main())
