"""CpSatBackend writes its model straight into the proto: the same messages OR-Tools'
CpModel methods write (so the same model, the same search, the same schedules)."""

import random

import pytest


def _build_both(rng):
    """A random model through CpModel's methods and through CpSatBackend: both protos."""
    from wsdialects.schedule.solvers import import_cp_model, make_backend

    cp = import_cp_model()
    model, b = cp.CpModel(), make_backend("cpsat")
    n = rng.randint(1, 8)
    xs = [model.NewBoolVar(f"x{i}") for i in range(n)] + [model.NewIntVar(0, 9, "k")]
    ys = [b.bool(f"x{i}") for i in range(n)] + [b.int(0, 9, "k")]
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        if kind < 0.6:  # a linear sum: repeated and cancelling terms, zero coefficients, empty domains
            idx = [rng.randrange(n + 1) for _ in range(rng.randint(0, 5))]
            coefs = [rng.choice([0, 1, -1, 2, 3, -5]) for _ in idx]
            lo, hi = rng.choice([None, -3, 0, 1, 5]), rng.choice([None, -4, 0, 1, 4, 10])
            when = [rng.randrange(n) for _ in range(rng.choice([0, 0, 1, 2]))] if idx else []
            expr = cp.LinearExpr.weighted_sum([xs[i] for i in idx], coefs) if idx else 0
            ct = model.add_linear_constraint(expr, cp.INT_MIN if lo is None else lo, cp.INT_MAX if hi is None else hi)
            if when:
                ct.only_enforce_if([xs[i] for i in when])
            b.add([(c, ys[i]) for c, i in zip(coefs, idx)], lo, hi, when=[ys[i] for i in when])
        elif kind < 0.8:
            pos = [rng.randrange(n) for _ in range(rng.randint(0, 3))]
            neg = [rng.randrange(n) for _ in range(rng.randint(0, 3))]
            model.add_bool_or([xs[i] for i in pos] + [xs[i].Not() for i in neg])
            b.clause([ys[i] for i in pos], [ys[i] for i in neg])
        else:
            lits = [rng.randrange(n) for _ in range(rng.randint(1, 3))]
            model.AddExactlyOne([xs[i] for i in lits])
            b.exactly_one([ys[i] for i in lits])
    if rng.random() < 0.5:
        terms = [(rng.choice([1, -2, 3]), rng.randrange(n + 1)) for _ in range(4)]
        model.Minimize(sum(c * xs[i] for c, i in terms))
        b.minimize([(c, ys[i]) for c, i in terms])
    for _ in range(rng.randint(0, 3)):
        j, v = rng.randrange(n), rng.randint(0, 1)
        model.AddHint(xs[j], v)
        b.hint(ys[j], v)
    return str(model.Proto()), str(b.model.Proto())


@pytest.mark.parametrize("seed", range(4))
def test_backend_writes_cpmodels_proto(seed):
    pytest.importorskip("ortools")
    rng = random.Random(seed)
    for trial in range(100):
        expected, written = _build_both(rng)
        assert written == expected, trial


def test_bounds_move_a_variable_and_a_sum():
    """set_bounds changes a variable's domain and a linear constraint's, as retarget needs."""
    pytest.importorskip("ortools")
    from wsdialects.schedule.bounds import Deadline
    from wsdialects.schedule.solvers import make_backend

    b = make_backend("cpsat", Deadline(10).at)
    x, y = b.int(0, 9, "x"), b.int(0, 9, "y")
    row = b.add([(1, x), (1, y)], lo=12)
    b.minimize([(1, x), (2, y)])
    assert b.solve(10) and (b.value(x), b.value(y)) == (9, 3)
    b.set_bounds(x, 0, 5)
    b.set_bounds(row, 8, None)
    assert b.solve(10) and (b.value(x), b.value(y)) == (5, 3)
