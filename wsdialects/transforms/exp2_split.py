"""`ws-exp2-split{fma-fraction=F degree=D arch=h100}`: a share of each exponential tile is
computed on the FMA pipe with a polynomial instead of the SFU's `ex2` (FlashAttention-4's split
of the softmax's exponentials between the two pipes).

The SFU computes 16 `ex2` per SM per clock on Hopper, the FMA pipe 128 float operations: in
attention's softmax the exponentials can be the bound while the FMA pipe has room. For an
element computed on the FMA pipe, 2^x = 2^n * p(f) with n = floor(x) and f = x - n in [0, 1)
(Cody-Waite range reduction): x is clamped to [-127, 128], n comes from one add rounding down
(x + 1.5 * 2^23 holds n in its low mantissa bits), p is a polynomial of `degree` 3, 4 or 5 with
p(0) = 1 (`COEFFS`, near-minimax in relative error, `REL_ERROR`), evaluated by Horner's rule in
FMAs, and 2^n is an integer add of n << 23 into p's exponent bits. That is 7 + degree
instructions on the FMA / ALU pipes per element instead of one MUFU.EX2. At the clamps the
result is exact: x <= -127 gives +0.0, x >= 128 gives +inf; a NaN gives +0.0 (the SFU: NaN).
Between -127 and -126 the result is a subnormal within 2^-126 of 2^x (the SFU's `ex2.ftz`
flushes it to 0).

The pass runs after the layouts (after `ws-hopper`: `ws-hopper,ws-exp2-split`) and marks each
`math.exp2` of an f32 tile in the wgmma accumulator fragment with the column blocks (8 columns:
one quad of accumulator registers per thread, so every thread makes the same choice) whose
elements go to the FMA pipe, spread evenly over the tile, and the degree:

    %p = math.exp2 %qk_c : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>
      ==>
    %p = math.exp2 %qk_c {ws.exp2_fma = {blocks = array<i32: 7, 15>, degree = 3 : i32}}
        : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>

(columns 56-63 and 120-127 by polynomial, the other 14 blocks on the SFU.) The emitter lowers
the marked elements to the polynomial (wsdialects/lower/llvm/elementwise.py) and the
interpreter computes them the same way in float32 (`exp2_fma_model`), so a kernel interpreted
before and after the pass differs by at most the polynomial's error.

`fma-fraction` is the share of the tile's columns (rounded to blocks); left out, it comes from
the machine model (`arch`, wsdialects/schedule/machines/): the share that makes the SFU's
cycles in the exp2's block (its exponentials and other SFU work) equal to the ALU cycles there
(the block's other elementwise work plus the polynomial's 7 + degree operations per element it
takes over), 0 where the ALU is already the busier one. A remark says what was chosen and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    Float32Type,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i32,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError, remark
from wsdialects.layout import WgmmaLayout, layout_of
from wsdialects.reporting import error_at, numbered

ATTR = "ws.exp2_fma"
BLOCK = 8  # columns per block: the 4 registers r = 4j..4j+3 of acc_fragment_offsets (columns 8j + {0, 1} + base)

# p(f) = 1 + c1 f + ... + cd f^d ~ 2^f on [0, 1), float32 coefficients fitted by Lawson's
# iteration (weighted least squares converging to the minimax fit) for the relative error
# with the constant term fixed at 1 (so that p(0) = 1 exactly: exact 0 and inf at the clamps).
COEFFS: dict[int, tuple[float, ...]] = {
    3: (0.6951148509979248, 0.22765372693538666, 0.07705903053283691),
    4: (0.693044900894165, 0.24127957224845886, 0.05224383994936943, 0.013425829820334911),
    5: (0.6931512951850891, 0.24016447365283966, 0.05579979717731476, 0.009017194621264935,
        0.001867051818408072),
}
# max |p(f) / 2^f - 1| over [0, 1) with float32 arithmetic, a little above the fit's
# (8.6e-5, 2.9e-6, 9.4e-8); test/python/test_exp2_split.py measures it on a dense grid.
REL_ERROR: dict[int, float] = {3: 9.0e-5, 4: 3.2e-6, 5: 2.5e-7}
LO, HI = -127.0, 128.0
ROUNDER = 12582912.0  # 1.5 * 2^23: x + ROUNDER rounded down holds floor(x) in its low mantissa bits
ROUNDER_PTX = "0f4B400000"  # ROUNDER as a PTX float literal


def ops_per_element(degree: int) -> int:
    """FMA / ALU instructions of one polynomial exponential: max, min, add.rm, two subs,
    `degree` FMAs, shl, add."""
    return 7 + degree


def exp2_fma_model(x: np.ndarray, degree: int) -> np.ndarray:
    """2^x as the lowering computes it on the FMA pipe, in float32, step for step (numpy's
    float64 product of two float32 values is exact, so each FMA is rounded once)."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        xc = np.fmin(np.fmax(x, np.float32(LO)), np.float32(HI))  # PTX max / min: NaN -> the other operand
        n = np.floor(xc)  # add.rm.f32 x, 1.5 * 2^23, then minus 1.5 * 2^23: exact for |x| <= 128
        f = (xc - n).astype(np.float32)
        p = np.full_like(f, np.float32(COEFFS[degree][-1]))
        for c in (*COEFFS[degree][-2::-1], 1.0):
            p = (p.astype(np.float64) * f.astype(np.float64) + np.float64(np.float32(c))).astype(np.float32)
        bits = p.view(np.int32).astype(np.int64) + (n.astype(np.int64) << 23)
    return (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32)


def read_mark(op: Operation) -> tuple[frozenset[int], int] | None:
    """The (column blocks, degree) of a marked `math.exp2`, None if it is not marked; a
    malformed mark is an error at the op."""
    a = op.attributes.get(ATTR)
    if a is None:
        return None
    ok = isinstance(a, DictionaryAttr) and set(a.data) == {"blocks", "degree"}
    blocks, degree = (a.data.get("blocks"), a.data.get("degree")) if ok else (None, None)
    if not (isinstance(blocks, DenseArrayBase) and isinstance(degree, IntegerAttr)
            and degree.value.data in COEFFS):
        raise error_at(op, f"'{ATTR}' must be {{blocks = array<i32: ...>, degree = 3, 4 or 5 : i32}}, got {a}")
    vals = [int(b) for b in blocks.get_values()]
    t = op.results[0].type
    n = t.get_shape()[-1] if isinstance(t, TensorType) and t.get_shape() else 0
    bad = [b for b in vals if not 0 <= b < n // BLOCK]
    if bad:
        raise error_at(op, f"'{ATTR}': {numbered('block', bad)} outside the {n // BLOCK} blocks of "
                           f"{BLOCK} columns of {t}")
    return frozenset(vals), degree.value.data


def spread(n_blocks: int, k: int) -> list[int]:
    """k of n_blocks blocks spread evenly (each block ends a run of n_blocks / k)."""
    return [b for b in range(n_blocks) if (b + 1) * k // n_blocks > b * k // n_blocks]


def _tile(t):
    """The machine model's view of a tensor type (shape, element bits), None for a scalar."""
    from wsdialects.schedule.machine import TileInfo

    if not isinstance(t, TensorType):
        return None
    return TileInfo(tuple(t.get_shape()), int(getattr(t.element_type, "bitwidth", 32)))


def _cycles_by_unit(block_ops, machine, skip: Operation) -> dict[str, float]:
    out: dict[str, float] = {}
    for o in block_ops:
        if o is skip:
            continue
        res = [t for t in (_tile(r.type) for r in o.results) if t is not None]
        opnds = [t for t in (_tile(x.type) for x in o.operands) if t is not None]
        if not res and not opnds:
            continue
        c = machine.op_cost(o.name, res, opnds)
        if c.unit is not None:
            out[c.unit] = out.get(c.unit, 0) + c.cycles
    return out


def model_fraction(op: Operation, machine, degree: int) -> tuple[float, str]:
    """The machine model's share of `op`'s elements for the FMA pipe, and why (for the remark)."""
    t = op.results[0].type
    e = math.prod(t.get_shape())
    sfu_rate = machine.rule("math.exp2")["per_cycle"]
    alu_rate = machine.rule("arith.addf")["per_cycle"]
    cyc = _cycles_by_unit(list(op.parent_block().ops), machine, op)
    sfu_unit, alu_unit = machine.rule("math.exp2")["unit"], machine.rule("arith.addf")["unit"]
    own, sfu_other, alu = e / sfu_rate, cyc.get(sfu_unit, 0.0), cyc.get(alu_unit, 0.0)
    per_elem = ops_per_element(degree) * e / alu_rate  # the ALU cycles if every element went to FMA
    f = max(0.0, min(1.0, (own + sfu_other - alu) / (own + per_elem)))
    why = (f"{machine.name}: {sfu_unit} {own + sfu_other:.0f} cycles in the block ({own:.0f} this exp2), "
           f"{alu_unit} {alu:.0f}; the polynomial costs {ops_per_element(degree)} {alu_unit} operations per element")
    return f, why


@dataclass(frozen=True)
class Exp2SplitPass(ModulePass):
    """A share of each exp2 tile's columns computed by polynomial on the FMA pipe, not the SFU."""

    name = "ws-exp2-split"
    fma_fraction: float | None = None  # share of the columns (rounded to blocks of 8); None: from the machine model
    degree: int = 3  # the polynomial's degree: 3, 4 or 5
    arch: str = "h100"  # the machine model the fraction comes from when fma-fraction is left out

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.degree not in COEFFS:
            raise WsError(f"{self.name}: degree must be 3, 4 or 5, got {self.degree}", "ws-opt")
        if self.fma_fraction is not None and not 0.0 <= self.fma_fraction <= 1.0:
            raise WsError(f"{self.name}: fma-fraction must be between 0 and 1, got {self.fma_fraction}", "ws-opt")
        machine = None
        if self.fma_fraction is None:
            from wsdialects.schedule.machine import load_machine

            try:
                machine = load_machine(self.arch)
            except ValueError as e:
                raise WsError(f"{self.name}: {e}", "ws-opt") from None
        exps = [o for o in op.walk() if o.name == "math.exp2"]
        seen = 0
        for e in exps:
            t = e.results[0].type
            if not (isinstance(t, TensorType) and isinstance(t.element_type, Float32Type)
                    and isinstance(layout_of(t), WgmmaLayout) and len(t.get_shape()) == 2):
                continue  # row slices (attention's rescale), scalars, tiles outside the fragment: the SFU
            seen += 1
            nb = t.get_shape()[1] // BLOCK
            if self.fma_fraction is None:
                frac, why = model_fraction(e, machine, self.degree)
            else:
                frac, why = self.fma_fraction, "fma-fraction"
            blocks = spread(nb, round(frac * nb))
            remark(e, f"{self.name}: {len(blocks)} of {nb} column blocks of {t.get_shape()[0]}x{t.get_shape()[1]} "
                      f"on the FMA pipe (degree {self.degree}, share {frac:.3f} from {why})")
            if not blocks:
                e.attributes.pop(ATTR, None)
                continue
            e.attributes[ATTR] = DictionaryAttr({
                "blocks": DenseArrayBase.from_list(i32, blocks),
                "degree": IntegerAttr(self.degree, i32),
            })
        if not seen:
            remark(op, f"{self.name}: no math.exp2 of an f32 tile in the wgmma accumulator fragment"
                       + (" (run it after the layouts: ws-hopper,ws-exp2-split)" if exps else "")
                       + "; nothing to split")
