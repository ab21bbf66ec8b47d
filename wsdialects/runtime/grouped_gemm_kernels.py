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

import textwrap
from dataclasses import dataclass
from string import Template

DTYPES = ("f16", "bf16")

# The kernel's pieces: a header, the walk over the tiles (its head and tail around the tile's
# work), the tile's place in its group (its order), the K loop, and the store.
_HEAD = Template("""\
// Grouped GEMM in the form of torch._grouped_mm ($T): A [sum M_g, K], B [G, N, K], int32 offs
// [G] (cumulative row ends), C [sum M_g, N] with C[rows of g] = A[rows of g] @ B[g]^T. One
// persistent launch over all groups' tiles (${BM}x${BN}x${BK}, $W consumer warps); $walk_doc;
// $order_doc; A through one descriptor, B through a 3-D descriptor (group first), C $store_doc.
// Grid: any number of programs (one per SM). Form: $form.
// Arguments: a, b, c (flat)$c_desc_doc, offs, G, M = sum M_g (rows of A and C), N, K.
// Written by wsdialects/runtime/grouped_gemm_kernels.py.
builtin.module {
  func.func @$name(%a_desc: !tile.desc<tensor<${BM}x${BK}x$T>>, %b_desc: !tile.desc<tensor<${BN}x${BK}x$T>>,
                          %c_ptr: !tile.ptr<$T>,$c_desc_arg %offs: !tile.ptr<i32>, %G: i32, %M: i32, %N: i32, %K: i32)
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
""")

# Every tile scans the offsets from group 0 (G loads a tile): the tiles of all groups numbered
# group after group, program p takes tiles p, p + P, ...
_WALK_SCAN = """\
    // The number of output tiles of all groups: sum over g of cdiv(M_g, BM) * cdiv(N, BN).
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
          iter_args(%base = %c0, %start = %c0, %g0 = %c0, %r0 = %c0, %re = %c0, %l0 = %c0)
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
        %g2 = arith.select %hit, %j, %g0 : i32
        %r02 = arith.select %hit, %start, %r0 : i32
        %re2 = arith.select %hit, %end, %re : i32
        %l2 = arith.select %hit, %in, %l0 : i32
        scf.yield %next, %end, %g2, %r02, %re2, %l2 : i32, i32, i32, i32, i32, i32
      }
      %g = arith.addi %f#2, %c0 : i32
      %row0 = arith.addi %f#3, %c0 : i32
      %rowend = arith.addi %f#4, %c0 : i32
      %local = arith.addi %f#5, %c0 : i32
      %mg = arith.subi %rowend, %row0 : i32
      %tiles_m = arith.ceildivsi %mg, %cBM : i32
"""
_WALK_SCAN_END = """\
    }
"""

# The same tiles for the same programs, found without a search: the groups in order, one load
# each, and in group g (tiles base .. base + T_g of the numbering above) the tiles l with
# base + l = p (mod P), l = (p - base) mod P, l + P, ...
_WALK_GROUPS = """\
    // Group after group (one load of the offsets each): program p takes the tiles of group g
    // whose number in the numbering of all groups' tiles, base + l, is p modulo the programs.
    %walk:2 = scf.for %g = %c0 to %G step %c1 iter_args(%base = %c0, %row0 = %c0) -> (i32, i32) : i32 {
      %pe = tile.addptr %offs, %g : !tile.ptr<i32>, i32
      %rowend = tile.load %pe : !tile.ptr<i32> -> i32
      %mg = arith.subi %rowend, %row0 : i32
      %tiles_m = arith.ceildivsi %mg, %cBM : i32
      %tg = arith.muli %tiles_m, %tiles_n : i32
      %base_mod = arith.remsi %base, %nprog : i32
      %ahead = arith.addi %pid, %nprog : i32
      %shift = arith.subi %ahead, %base_mod : i32
      %first = arith.remsi %shift, %nprog : i32
      scf.for %local = %first to %tg step %nprog : i32 {
"""
_WALK_GROUPS_END = """\
      }
      %next = arith.addi %base, %tg : i32
      scf.yield %next, %rowend : i32, i32
    }
"""

# The tile's (row, column) in its group: M fastest down the group's whole height, or in bands
# of B rows of tiles (M fastest in a band of B rows, the band's columns in turn).
_ORDER_M = """\
      %pm = arith.remsi %local, %tiles_m : i32
      %pn = arith.divsi %local, %tiles_m : i32
"""
_ORDER_BAND = Template("""\
      %cband = arith.constant $band : i32
      %per_band = arith.muli %cband, %tiles_n : i32
      %band = arith.divsi %local, %per_band : i32
      %first_m = arith.muli %band, %cband : i32
      %rows_left = arith.subi %tiles_m, %first_m : i32
      %band_h = arith.minsi %rows_left, %cband : i32
      %in_band = arith.remsi %local, %per_band : i32
      %pm_b = arith.remsi %in_band, %band_h : i32
      %pm = arith.addi %first_m, %pm_b : i32
      %pn = arith.divsi %in_band, %band_h : i32
""")

_TILE = Template("""\
      %om_g = arith.muli %pm, %cBM : i32
      %om = arith.addi %row0, %om_g : i32
      %on = arith.muli %pn, %cBN : i32
      %zero = arith.constant dense<0.0> : tensor<${BM}x${BN}xf32>
      %r:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<${BM}x${BN}xf32>, i32) : i32 {
        %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<${BM}x${BK}x$T>> -> tensor<${BM}x${BK}x$T>
        %b = tile.desc_load %b_desc[%g, %on, %ok] : !tile.desc<tensor<${BN}x${BK}x$T>> -> tensor<${BN}x${BK}x$T>
        %bt = tile.trans %b [1, 0] : tensor<${BN}x${BK}x$T> -> tensor<${BK}x${BN}x$T>
        %d = tile.dot %a, %bt, %acc : tensor<${BM}x${BK}x$T>, tensor<${BK}x${BN}x$T> -> tensor<${BM}x${BN}xf32>
        %ok2 = arith.addi %ok, %cBK : i32
        scf.yield %d, %ok2 : tensor<${BM}x${BN}xf32>, i32
      }
      %c = arith.truncf %r#0 : tensor<${BM}x${BN}xf32> to tensor<${BM}x${BN}x$T>
      %row_end = arith.minsi %rowend, %M : i32
""")

# The store clipped at the group's end row (and at M) and at N, through pointers.
_MASKED_STORE = Template("""\
${I}%rm = tile.make_range 0 to $BM : tensor<${BM}xi32>
${I}%rn = tile.make_range 0 to $BN : tensor<${BN}xi32>
${I}%om_v = tile.splat %om : i32 -> tensor<${BM}xi32>
${I}%on_v = tile.splat %on : i32 -> tensor<${BN}xi32>
${I}%rows = arith.addi %om_v, %rm : tensor<${BM}xi32>
${I}%cols = arith.addi %on_v, %rn : tensor<${BN}xi32>
${I}%N_v = tile.splat %N : i32 -> tensor<${BM}xi32>
${I}%row_off = arith.muli %rows, %N_v : tensor<${BM}xi32>
${I}%row2 = tile.expand_dims %row_off, 1 : tensor<${BM}xi32> -> tensor<${BM}x1xi32>
${I}%col2 = tile.expand_dims %cols, 0 : tensor<${BN}xi32> -> tensor<1x${BN}xi32>
${I}%rowb = tile.broadcast %row2 : tensor<${BM}x1xi32> -> tensor<${BM}x${BN}xi32>
${I}%colb = tile.broadcast %col2 : tensor<1x${BN}xi32> -> tensor<${BM}x${BN}xi32>
${I}%off = arith.addi %rowb, %colb : tensor<${BM}x${BN}xi32>
${I}%base_p = tile.splat %c_ptr : !tile.ptr<$T> -> tensor<${BM}x${BN}x!tile.ptr<$T>>
${I}%ptrs = tile.addptr %base_p, %off : tensor<${BM}x${BN}x!tile.ptr<$T>>, tensor<${BM}x${BN}xi32>
${I}%end_v = tile.splat %row_end : i32 -> tensor<${BM}xi32>
${I}%Nc_v = tile.splat %N : i32 -> tensor<${BN}xi32>
${I}%in_m = arith.cmpi slt, %rows, %end_v : tensor<${BM}xi32>
${I}%in_n = arith.cmpi slt, %cols, %Nc_v : tensor<${BN}xi32>
${I}%in_m2 = tile.expand_dims %in_m, 1 : tensor<${BM}xi1> -> tensor<${BM}x1xi1>
${I}%in_n2 = tile.expand_dims %in_n, 0 : tensor<${BN}xi1> -> tensor<1x${BN}xi1>
${I}%mmb = tile.broadcast %in_m2 : tensor<${BM}x1xi1> -> tensor<${BM}x${BN}xi1>
${I}%mnb = tile.broadcast %in_n2 : tensor<1x${BN}xi1> -> tensor<${BM}x${BN}xi1>
${I}%mask = arith.andi %mmb, %mnb : tensor<${BM}x${BN}xi1>
${I}tile.store %ptrs, %c, %mask : tensor<${BM}x${BN}x!tile.ptr<$T>>
""")

# A tile whose rows all lie in its group (and below M) by a TMA store of C's descriptor, which
# clips it at N; the group's last tile, cut by the group's end, by the masked store.
_TMA_STORE = Template("""\
      %om_end = arith.addi %om, %cBM : i32
      %whole = arith.cmpi sle, %om_end, %row_end : i32
      scf.if %whole {
        tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<${BM}x${BN}x$T>>
      } else {
$masked      }
""")

_TAIL = """\
    func.return
  }
}
"""

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


@dataclass(frozen=True)
class Form:
    """How the kernel walks its tiles and stores them (module docstring, "Forms"):
    walk "scan" (every tile scans the offsets from group 0) or "groups" (the groups in turn, a
    program's tiles of each group strided by the programs: no search); band 0 (M fastest down a
    group) or B (bands of B rows of tiles); store "masked" (pointers) or "tma" (a TMA store of
    C's descriptor where the tile lies in its group, the masked store for a group's last tile)."""

    walk: str = "groups"
    band: int = 0
    store: str = "tma"

    def __post_init__(self):
        if self.walk not in ("scan", "groups"):
            raise ValueError(f"walk must be scan or groups, got {self.walk!r}")
        if self.store not in ("masked", "tma"):
            raise ValueError(f"store must be masked or tma, got {self.store!r}")
        if self.band < 0:
            raise ValueError(f"band must be 0 (M fastest) or a number of rows of tiles, got {self.band}")

    @property
    def name(self) -> str:
        return f"{self.walk}/{'m' if not self.band else f'band{self.band}'}/{self.store}"


# The forms by name (bench/grouped_gemm.py --forms): the first as written before the forms, then
# each change alone and together. DEFAULT is what grouped_gemm() and the bundled kernels use.
FORMS = {"scan": Form("scan", 0, "masked"), "groups": Form("groups", 0, "masked"), "tma": Form("scan", 0, "tma"),
         "groups+tma": Form("groups", 0, "tma"), "groups+tma+band8": Form("groups", 8, "tma"),
         "groups+tma+band16": Form("groups", 16, "tma")}
DEFAULT = "groups+tma"


def form(spec: "str | Form | None") -> Form:
    """The Form named `spec` (a key of FORMS), `spec` itself if a Form, DEFAULT's if None."""
    if spec is None:
        return FORMS[DEFAULT]
    if isinstance(spec, Form):
        return spec
    if spec not in FORMS:
        raise ValueError(f"unknown grouped GEMM form {spec!r}; forms: {', '.join(FORMS)}")
    return FORMS[spec]


def grouped_mm(dtype: str = "bf16", block_m: int = 128, block_n: int = 256, block_k: int = 64,
               num_warps: int = 8, form_: "str | Form | None" = None) -> str:
    """MLIR text of the grouped GEMM kernel (module docstring) for `dtype` and the tile
    block_m x block_n, K steps of block_k; num_warps consumer warps (64 rows each per 4);
    `form_` a Form or a name of FORMS (DEFAULT's if None)."""
    _check(dtype, block_m, block_n, block_k, num_warps)
    f = form(form_)
    subs = dict(T=dtype, name=kernel_name(dtype), BM=block_m, BN=block_n, BK=block_k, W=num_warps)
    tma = f.store == "tma"
    head = _HEAD.substitute(
        subs, form=f.name,
        walk_doc=("a scan over the offsets per tile" if f.walk == "scan" else
                  "the groups in turn, one load of the offsets each, a program's tiles of a group strided by the programs"),
        order_doc="M fastest in a group" if not f.band else f"tiles in bands of {f.band} rows of tiles",
        store_doc=("by a TMA store where the tile lies in its group, else a masked store clipped at the group's end"
                   if tma else "by a masked store clipped at the group's end"),
        c_desc_doc=", c again (C's descriptor)" if tma else "",
        c_desc_arg=f" %c_desc: !tile.desc<tensor<{block_m}x{block_n}x{dtype}>>," if tma else "")
    walk, walk_end = (_WALK_SCAN, _WALK_SCAN_END) if f.walk == "scan" else (_WALK_GROUPS, _WALK_GROUPS_END)
    order = _ORDER_BAND.substitute(band=f.band) if f.band else _ORDER_M
    inner = "  " if f.walk == "groups" else ""
    masked = _MASKED_STORE.substitute(subs, I="      ")
    store = _TMA_STORE.substitute(subs, masked=textwrap.indent(masked, "  ")) if tma else masked
    body = textwrap.indent(order + _TILE.substitute(subs) + store, inner)
    return head + walk + body + walk_end + _TAIL


def arguments(a, b, c, offs, G: int, M: int, N: int, K: int, form_: "str | Form | None" = None) -> list:
    """The kernel's arguments in order for `form_` (C twice where the form stores by TMA: as the
    pointer and as the tensor its descriptor is built over)."""
    extra = [c] if form(form_).store == "tma" else []
    return [a, b, c, *extra, offs, G, M, N, K]


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
