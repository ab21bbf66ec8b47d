"""The interpreter's scalar integer arithmetic on Python ints (wsdialects/interpreter/ops_arith.py,
`_SIGNED`) gives what its numpy path gives: the same values of the same numpy types, for every
signed width and the index type, at the extremes of each range (wrap-around included), and the
same error for a division by zero."""

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Block

from wsdialects.interpreter import InterpretError
from wsdialects.interpreter import ops_arith
from wsdialects.interpreter.core import IMPLS

TYPES = {8: IntegerType(8), 16: IntegerType(16), 32: IntegerType(32), 64: IntegerType(64), "index": IndexType()}
BINARY = ["arith.addi", "arith.subi", "arith.muli", "arith.maxsi", "arith.minsi",
          "arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi"]
OPS = {"arith.addi": arith.AddiOp, "arith.subi": arith.SubiOp, "arith.muli": arith.MuliOp,
       "arith.maxsi": arith.MaxSIOp, "arith.minsi": arith.MinSIOp, "arith.divsi": arith.DivSIOp,
       "arith.remsi": arith.RemSIOp, "arith.ceildivsi": arith.CeilDivSIOp, "arith.floordivsi": arith.FloorDivSIOp}


def _values(bits: int) -> list[int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return [lo, lo + 1, -7, -2, -1, 0, 1, 2, 3, 7, hi - 1, hi]


def _frame():
    return SimpleNamespace(interp=SimpleNamespace(scalar_types={}))


def _both(op, operands, monkeypatch=None, numpy_calls=None):
    """(what the scalar path gives, what the numpy path gives) for `op` on numpy scalars
    `operands` (the numpy path: the same values as 0-d arrays), or the errors they raise;
    `numpy_calls` counts the scalar call's uses of the numpy path (`_out`)."""
    fn = IMPLS[op.name]

    def call(args):
        try:
            return fn(_frame(), op, args)
        except (InterpretError, OverflowError) as e:  # (the numpy path cannot mask 64-bit unsigned operands)
            return f"{type(e).__name__}: {e}"

    if numpy_calls is None:
        return call(operands), call([np.asarray(x) for x in operands])
    real_out = ops_arith._out
    with monkeypatch.context() as m:
        m.setattr(ops_arith, "_out", lambda o, v: numpy_calls.append(o.name) or real_out(o, v))
        got = call(operands)
    return got, call([np.asarray(x) for x in operands])


def _same(got, want):
    if isinstance(want, str):
        assert got == want
        return
    assert [type(x) for x in got] == [type(x) for x in want]
    assert [int(x) for x in got] == [int(x) for x in want]


def _dtype(width):
    return np.int64 if width == "index" else np.dtype(f"int{width}").type


def _check_pairs(op, width, monkeypatch, calls):
    """`op` on every pair of the width's interesting values: the scalar path's result is numpy's."""
    dt = _dtype(width)
    for x, y in itertools.product(_values(64 if width == "index" else width), repeat=2):
        _same(*_both(op, [dt(x), dt(y)], monkeypatch, calls))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's int64 overflow, wrapped alike
@pytest.mark.parametrize("width", list(TYPES))
def test_binary_ops_give_what_numpy_gives(width, monkeypatch):
    block = Block(arg_types=[TYPES[width], TYPES[width]])
    calls = []
    for name in BINARY:
        _check_pairs(OPS[name](block.args[0], block.args[1]), width, monkeypatch, calls)
    for pred in ["eq", "ne", "slt", "sle", "sgt", "sge"]:
        _check_pairs(arith.CmpiOp(block.args[0], block.args[1], pred), width, monkeypatch, calls)
    # the scalar path ran: numpy only for 64-bit divisions by a non-zero divisor
    nonzero = len(_values(8)) * (len(_values(8)) - 1)
    assert len(calls) == (4 * nonzero if width in (64, "index") else 0)


@pytest.mark.parametrize("src,dst", [(8, 32), (32, 8), (32, 64), (64, 32), (64, 16), (32, "index"),
                                     ("index", 32)])
def test_casts_give_what_numpy_gives(src, dst, monkeypatch):
    calls = []
    block = Block(arg_types=[TYPES[src]])
    ops = [arith.ExtSIOp(block.args[0], TYPES[dst]) if dst != "index" and src != "index" and dst > src
           else arith.TruncIOp(block.args[0], TYPES[dst]) if dst != "index" and src != "index"
           else arith.IndexCastOp(block.args[0], TYPES[dst])]
    dt = _dtype(src)
    for op in ops:
        for x in _values(64 if src == "index" else src):
            _same(*_both(op, [dt(x)], monkeypatch, calls))
    assert not calls


def test_division_by_zero_is_the_same_error():
    block = Block(arg_types=[TYPES[32], TYPES[32]])
    for name in ["arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi"]:
        got, want = _both(OPS[name](block.args[0], block.args[1]), [np.int32(5), np.int32(0)])
        assert got == want and "InterpretError" in got and "division by zero" in got


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("width", list(TYPES))
def test_unsigned_divisions_give_what_numpy_gives(width, monkeypatch):
    block = Block(arg_types=[TYPES[width], TYPES[width]])
    calls = []
    for op in (arith.DivUIOp(block.args[0], block.args[1]), arith.RemUIOp(block.args[0], block.args[1])):
        _check_pairs(op, width, monkeypatch, calls)
    if width not in (64, "index"):
        assert not calls  # the scalar path ran (at 64 bits numpy's, which fails to mask, as before)
