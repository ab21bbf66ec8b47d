"""Shared-memory element addresses as the emitter writes them (wsdialects/lower/llvm/shared_address.py):
a per-thread base register, at most an xor of its 16-byte chunk bits, and a constant the load or store
carries as its immediate. The arithmetic, evaluated for threads' runtime fragment bases, lands on
`wsdialects.layout.smem_offset` for every element of a few tiles (swizzles, column blocks, a block
inside the 8-line pattern, transposed views, 8-bit, unswizzled, 1-D); and a kernel's per-element reads
of a slot in a loop use a handful of base registers, not one address per element."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float8E4M3FNType

from kernel_cache import compile_kernel
from wsdialects.layout import smem_offset
from wsdialects.lower.llvm.shared_address import SharedAddress, element_split, _span
from wsdialects.lower.llvm.types import Smem
from wsdialects.lower.to_llvm import lower_module

ROOT = Path(__file__).resolve().parents[2]
_OPS = {"mul": int.__mul__, "add": int.__add__, "lshr": int.__rshift__, "and": int.__and__, "xor": int.__xor__,
        "shl": int.__lshift__, "udiv": int.__floordiv__, "urem": int.__mod__}


class _Eval(SharedAddress):
    """The emitter's address arithmetic evaluated on constants: the runtime fragment bases are
    given as numbers whose possible bits `known_bits` names."""

    def __init__(self, known_bits: dict[str, int]):
        self.known_bits = known_bits
        self.memo = [{}]

    def lookup(self, key):
        return self.memo[-1].get(key)

    def _index(self, d) -> str:
        return str(int(d[0]) + d[1])

    def op(self, rhs, hint="v"):
        name, a, b = re.fullmatch(r"(\w+) i32 (-?\d+), (-?\d+)", rhs).groups()
        return str(_OPS[name](int(a), int(b)))

    def asm(self, text, cons, args, ret="void"):
        x = re.fullmatch(r"xor\.b32 \$0, \$1, (\d+);", text).group(1)
        return str(int(args[0][1]) ^ int(x))


F16, BF16, F32, F8 = Float16Type(), BFloat16Type(), Float32Type(), Float8E4M3FNType()
ROW1, ROW2, COL, COL4 = 0x37, 0x77, 0x6, 0xC  # the fragment bases' bits (one, two warp groups)
CASES = [  # (logical shape, element, bytes, swizzle, block bytes, transposed, row bits, column bits)
    ((64, 64), F16, 2, 128, 0, False, ROW1, COL),
    ((128, 128), BF16, 2, 128, 128 * 128, False, ROW2, COL),  # two column blocks
    ((64, 32), F16, 2, 64, 0, False, ROW1, COL),
    ((64, 16), F16, 2, 32, 0, False, ROW1, COL),
    ((64, 32), F32, 4, 128, 0, False, ROW1, COL),
    ((1, 64), F32, 4, 128, 128, False, 0, COL),  # a 1 x 64 row: its second block inside the pattern
    ((32, 64), F16, 2, 64, 0, True, COL, ROW1),  # transposed, not square: stored rows of 32 x 2 bytes
    ((128, 128), BF16, 2, 128, 128 * 128, True, COL, ROW2),
    ((64, 128), F8, 1, 128, 0, False, ROW1, COL4),
    ((128, 128), F8, 1, 128, 0, False, 32 | 16, 16 | 15),  # transpose_copy's ldmatrix row bases
    ((4, 24), F16, 2, 0, 0, False, 0x3, 0x7),  # unswizzled: linear
]


@pytest.mark.parametrize("shape,et,eb,swz,block,trans,mr,mc", CASES)
def test_emitted_addresses_are_smem_offset(shape, et, eb, swz, block, trans, mr, mc):
    addr = 3 * 1024
    S = Smem(str(addr), shape, et, swz, trans, block, 1024)
    rows, cols = shape
    stride = S.row_stride
    rng = random.Random(hash((shape, swz, block, trans)) & 0xFFFF)
    bases = [(R, C) for R in _span(mr) for C in _span(mc) if R < rows and C < cols]
    split = 0
    for R, C in rng.sample(bases, min(4, len(bases))):
        k = _Eval({str(R): mr, str(C): mc})
        for r in range(rows - R):
            for c in range(cols - C):
                if (r & mr or c & mc) and rng.random() > 0.02:
                    continue  # constants that share bits with the base: a few (the plain arithmetic)
                reg, imm = k.smem_ref(S, (str(R), r), (str(C), c))
                sr, sc = (C + c, R + r) if trans else (R + r, C + c)
                want = addr + smem_offset(sr, sc, eb, stride, swz, block)
                assert int(reg) + imm == want, (R, C, r, c)
                split += imm != 0
    assert split  # the constants went into immediates


def test_one_dimensional_array():
    S = Smem("2048", (128,), F32, 0)
    k = _Eval({})
    for rt in (0, 5, 64):
        for c in (0, 1, 8, 63):
            reg, imm = k.smem_ref(S, ((str(rt), c),))
            assert int(reg) + imm == 2048 + 4 * (rt + c)


def test_split_declines_a_carry():
    # a constant row 1 on a base whose row may be odd: rows R + 1 carry, no xor-and-add holds
    assert element_split(0x1, 1, 0, 0, 2, 128, 128, 0, 64, 64) is None
    # the fragment's constants (row + 8, column + 8) split: an immediate and a chunk xor
    assert element_split(ROW1, 8, COL, 8, 2, 128, 128, 0, 64, 64) == (16, 1024)


def test_slot_reads_in_a_loop_use_immediates():
    """computed_put reads two 64 x 64 f16 tiles element by element in loops (32 per thread each:
    the producer its staged TMA load, the consumer its slot): every ld.shared is one of at most 8
    registers per tile (a base and its chunk xors) plus an immediate, so LLVM has no per-element
    address to hoist out of the loop."""
    m = compile_kernel(ROOT / "test" / "Inputs" / "kernels" / "computed_put.mlir", "ws-lower-aref,ws-lower-warp-groups")
    ll = lower_module(m).llvm_ir
    loads = re.findall(r'"ld\.shared\.b16 \$0, \[\$1(\+\d+)?\];", "=h,r"\(i32 (%[\w.]+)\)', ll)
    assert len(loads) == 64
    assert len({reg for _, reg in loads}) <= 16
    assert sum(bool(imm) for imm, _ in loads) >= 32
    xor = r'(%[\w.]+) = call i32 asm sideeffect "xor\.b32 \$0, \$1, \d+;", "=r,r"\(i32 (%[\w.]+)\)'
    xors = dict(re.findall(xor, ll))
    assert len({xors.get(reg, reg) for _, reg in loads}) == 2  # one base per tile


def test_span():
    assert sorted(_span(0b1010).tolist()) == [0, 2, 8, 10]
    assert np.array_equal(_span(0), [0])
