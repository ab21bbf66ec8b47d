"""The synchronization check's shortcuts give what its plain routines give: the skeleton's
unsigned division fast path (`plan._fast_path`) is `Skeleton.compute`, a value in the range
`_unwrapped` gives is one `_wrap` leaves as it is, and `check_sync` leaves Python's garbage
collector as it found it (it pauses it while it runs)."""

import gc

import pytest
from xdsl.dialects.arith import ConstantOp, DivUIOp, RemUIOp
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp

from wsdialects.sync import Violation, check
from wsdialects.sync.plan import _F_INT, _MASK, _fast_path, _unwrapped, _wrap
from wsdialects.sync.skeleton import PROFILES, Skeleton


@pytest.mark.parametrize("make", [DivUIOp, RemUIOp], ids=["divui", "remui"])
def test_unsigned_fast_path_is_compute(make):
    plain = Skeleton(None, PROFILES[0], relevant=set())
    for bits in (8, 16, 32, 64):
        t = IntegerType(bits)
        op = make(ConstantOp(IntegerAttr(1, t)), ConstantOp(IntegerAttr(1, t)))
        mode, (fn, divlike, lo, hi) = _fast_path(op, bits)
        assert mode == _F_INT and divlike  # (a zero divisor takes the plain path: a Fault)
        values = [-(1 << (bits - 1)), -700, -7, -1, 0, 1, 5, 64, 700, (1 << (bits - 1)) - 1]
        for a in values:
            for b in values:
                if b != 0 and -(1 << (bits - 1)) <= a < 1 << (bits - 1):
                    x = fn(a, b)
                    fast = x if lo <= x < hi else _wrap(x, bits)  # as `Skeleton._exec`
                    assert fast == plain.compute(op, [a, b], bits)[0], (op.name, bits, a, b)


def test_unwrapped_is_what_wrap_leaves():
    for bits in _MASK:
        lo, hi = _unwrapped(bits)
        for x in {lo - 1, lo, lo + 1, -1, 0, 1, hi - 1, hi, hi + 1, 1 << bits, -(1 << bits), 3 << bits}:
            assert (lo <= x < hi) == (_wrap(x, bits) == x), (bits, x)


def test_check_sync_leaves_the_collector_as_it_was(monkeypatch):
    seen = []

    def failing(module):
        seen.append(gc.isenabled())
        raise Violation(module, "a defect")

    monkeypatch.setattr(check, "_check", failing)
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            with pytest.raises(Violation):
                check.check_sync(ModuleOp([]))
            assert gc.isenabled() == enabled
    finally:
        gc.enable()
    assert seen == [False, False]
