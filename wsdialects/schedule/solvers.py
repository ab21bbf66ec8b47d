"""Constraint-solver backends behind one small interface.

The scheduling problems are written once as 0/1 and bounded-integer variables
with linear constraints (optionally guarded by literals) and an optional linear
objective; ``cpsat`` hands them to OR-Tools CP-SAT, ``z3`` to the z3 SMT solver
(pseudo-Boolean constraints where every variable is 0/1, linear integer
arithmetic otherwise).
"""

from __future__ import annotations

import sys
import time
import types
from typing import Any, Iterable, NamedTuple, Sequence

from wsdialects.diagnostics import WsError

SOLVERS = ("cpsat", "z3")

# A linear expression is a list of (coefficient, variable) pairs plus a constant.
Terms = Sequence[tuple[int, Any]]


# Deterministic seconds (CP-SAT's work measure) of the fast first run of a feasibility query.
FAST_WORK = 0.5


class SolverTimeout(RuntimeError):
    """The solver gave up (time limit) without proving feasibility or infeasibility."""


# solver -> (the module it imports, the package that has it, the extra that installs it)
PACKAGES = {"cpsat": ("ortools.sat.python.cp_model", "ortools", None), "z3": ("z3", "z3-solver", "z3")}


class MissingSolver(WsError, ImportError):
    """The package of a solver back end is not installed (a user error: exit 1)."""


def require_solver(name: str, where: str = "ws-schedule") -> None:
    """Raise MissingSolver, naming what to install, when `name`'s package is missing."""
    import importlib

    module, package, extra = PACKAGES[name]
    try:
        import_cp_model() if name == "cpsat" else importlib.import_module(module)
    except ImportError:
        install = f"pip install 'wsdialects[{extra}]'" if extra else f"pip install {package}"
        other = " (or use the default solver, cpsat)" if name != "cpsat" else ""
        raise MissingSolver(f"the {name} solver needs the Python package {package}, which is not installed: "
                            f"{install}{other}", where) from None


class Backend:
    """Interface: build variables and constraints, then :meth:`solve`.

    ``deadline`` (a ``time.monotonic()`` value) bounds the building too: every
    so many variables and constraints the clock is read, and past it the build
    stops with :class:`SolverTimeout` (the solve itself is bounded by the
    solver's own time limit)."""

    name = ""
    deadline: float | None = None
    work_limit: float | None = None  # deterministic work per solve (CP-SAT), None: none
    _built = 0
    # Feasibility queries of this model use CP-SAT's LP relaxation (a modulo
    # schedule within a length: the dependence chains and the modular capacities
    # are linear; without it such a query can run for seconds, with it 0.02 s).
    linear = False

    def tick(self) -> None:
        """Count one variable or constraint; check the clock every 1024."""
        self._built += 1
        if self._built & 1023 == 0 and self.deadline is not None and time.monotonic() > self.deadline:
            raise SolverTimeout("the time limit was reached while the model was being built")

    def bool(self, name: str) -> Any: ...
    def int(self, lo: int, hi: int, name: str) -> Any: ...
    def add(self, terms: Terms, lo: int | None = None, hi: int | None = None,
            when: Iterable[Any] = ()) -> None:
        """``lo <= sum(terms) <= hi``, enforced only when all literals in ``when`` hold."""
    def exactly_one(self, lits: Sequence[Any]) -> None: ...
    def clause(self, pos: Sequence[Any], neg: Sequence[Any] = ()) -> None:
        """At least one of ``pos`` holds or one of ``neg`` fails (0/1 variables)."""
        self.add([(1, x) for x in pos] + [(-1, x) for x in neg], lo=1 - len(neg))
    def minimize(self, terms: Terms) -> None: ...
    def hint(self, var: Any, value: int) -> None:
        """A suggested value (a search hint; never changes the answer)."""
    def clear_hints(self) -> None:
        """Forget every hint given so far."""
    retargetable = False  # whether set_bounds can change a built model (CP-SAT)

    def set_bounds(self, handle: Any, lo: int | None, hi: int | None) -> None:
        """Change the bounds of a variable, or of a linear constraint returned by
        :meth:`add`, in the built model (only where ``retargetable``)."""
        raise NotImplementedError
    def solve(self, time_limit: float, skip_fast: bool = False) -> bool:
        """True: a (for an objective: optimal) solution; False: proven infeasible.
        ``skip_fast``: a feasibility query known not to be settled by :meth:`solve_fast`
        goes on from there."""
    def solve_fast(self, time_limit: float) -> bool | None:
        """The fast first run of a feasibility query (as :meth:`solve` runs it): True or
        False when it settles the query, None when it does not (or the backend has none)."""
        return None
    def settle(self, time_limit: float, work: float, lp: bool = True) -> bool | None:
        """A run within ``work`` (CP-SAT's deterministic seconds): True (an optimal or, for a
        feasibility query, any solution) or False (none) when it settles the query, None when
        it does not (or the backend has no such run).  ``lp=False``: without the LP relaxation
        and in-processing (CP-SAT's search alone)."""
        return None
    def value(self, var: Any) -> int: ...
    def minimize_within(self, time_limit: float, work: float) -> bool:
        """Minimise the objective within ``work`` (CP-SAT's deterministic seconds, so the
        answer is the same on every run): True when a solution was found (the best within
        the budget, optimal or not).  A backend without such a bound (z3) finds none."""
        return False


class _DeferredPandas(types.ModuleType):
    """Stands for pandas in OR-Tools' cp_model: pandas is imported on first use."""

    def __getattr__(self, name: str) -> Any:
        import pandas
        return getattr(pandas, name)


def import_cp_model() -> types.ModuleType:
    """OR-Tools' ``cp_model``, imported without pandas when pandas is not loaded yet.

    cp_model imports pandas (0.3-0.6 s on the 2-core machine, about a tenth of a whole
    ``ws-opt`` run with ws-schedule) for its ``*_series`` helpers alone, which the
    scheduler never calls; at import it only names ``pd.Index`` and ``pd.Series`` in type
    annotations.  While cp_model is imported, ``pandas`` is a stand-in whose attributes
    are empty classes; afterwards cp_model's ``pd`` imports the real pandas on first use,
    and ``sys.modules`` holds no trace of the stand-in (test_solvers_import.py)."""
    name = "ortools.sat.python.cp_model"
    if name in sys.modules or "pandas" in sys.modules:
        import ortools.sat.python.cp_model as cp_model
        return cp_model
    stand_in = types.ModuleType("pandas")
    stand_in.__getattr__ = lambda attr: type(attr, (), {})  # type: ignore[method-assign]
    sys.modules["pandas"] = stand_in
    try:
        import ortools.sat.python.cp_model as cp_model
    finally:
        if sys.modules.get("pandas") is stand_in:
            del sys.modules["pandas"]
    if getattr(cp_model, "pd", None) is stand_in:
        cp_model.pd = _DeferredPandas("pandas")
    return cp_model


class _Row(NamedTuple):
    """A constraint of a CP-SAT model: its index in the proto."""

    index: int


class CpSatBackend(Backend):
    """CP-SAT, its model written straight into the model's proto.

    A variable is its index in the proto, a negated literal ``-index - 1`` (CP-SAT's own
    convention).  Each constraint is the message OR-Tools' ``CpModel`` methods write for it
    (a linear sum with its terms merged by variable, without zero coefficients, in
    variable order; ``true``/``false`` for a sum of no terms), at about half their Python
    cost: models are built far more often than they are solved (test_solvers_proto.py
    checks the protos against ``CpModel``'s)."""

    name = "cpsat"
    retargetable = True

    def __init__(self, workers: int = 1) -> None:
        cp_model = import_cp_model()
        self._cp = cp_model
        self.model = cp_model.CpModel()
        proto = self.model.Proto()
        self._variables, self._constraints = proto.variables, proto.constraints
        self.workers = workers
        self.solver = None

    def bool(self, name):
        self.tick()
        index = len(self._variables)
        var = self._variables.add()
        var.name = name
        var.domain.extend((0, 1))
        return index

    def int(self, lo, hi, name):
        self.tick()
        index = len(self._variables)
        var = self._variables.add()
        var.name = name
        var.domain.extend((lo, hi))
        return index

    def add(self, terms, lo=None, hi=None, when=()):
        self.tick()
        cp = self._cp
        lo = cp.INT_MIN if lo is None else lo
        hi = cp.INT_MAX if hi is None else hi
        index = len(self._constraints)
        if not terms:  # a constant: true or false (an empty "and" or "or")
            self.model.add_linear_constraint(0, lo, hi)
            return _Row(index)
        ct = self._constraints.add()
        merged: dict[int, int] = {}
        for c, v in terms:
            merged[v] = merged.get(v, 0) + c
        order = sorted(v for v, c in merged.items() if c)
        if order or lo <= hi:  # (CpModel writes no sum at all for no terms and no values)
            linear = ct.linear
            linear.vars.extend(order)
            linear.coeffs.extend([merged[v] for v in order])
            linear.domain.extend((lo, hi) if lo <= hi else ())
        when = list(when)
        if when:
            ct.enforcement_literal.extend(when)
        return _Row(index)

    def exactly_one(self, lits):
        self.tick()
        self._constraints.add().exactly_one.literals.extend(lits)

    def clause(self, pos, neg=()):
        self.tick()
        self._constraints.add().bool_or.literals.extend([*pos, *[-x - 1 for x in neg]])

    def _var(self, index: int):
        return self.model.get_int_var_from_proto_index(index)

    def minimize(self, terms):
        self.model.Minimize(sum(c * self._var(v) for c, v in terms))

    def hint(self, var, value):
        hint = self.model.Proto().solution_hint
        hint.vars.append(var)
        hint.values.append(int(value))

    def clear_hints(self):
        self.model.ClearHints()

    def set_bounds(self, handle, lo, hi):
        cp = self._cp
        lo = cp.INT_MIN if lo is None else lo
        hi = cp.INT_MAX if hi is None else hi
        if isinstance(handle, _Row):
            domain = self._constraints[handle.index].linear.domain
        else:
            domain = self._variables[handle].domain
        domain.clear()
        domain.extend([lo, hi] if lo <= hi else [])  # empty: as add() writes it

    def _run(self, time_limit, work, fast: bool, linear: bool | None = None):
        cp = self._cp
        self.solver = cp.CpSolver()
        params = self.solver.parameters
        params.max_time_in_seconds = float(time_limit)
        if work is not None:
            params.max_deterministic_time = float(work)
        params.num_workers = self.workers
        # The models are small and already tight (one-hot residues, clauses): CP-SAT's
        # presolve costs more than it saves on the queries the fast run settles and on the
        # optimizations (attention 2.9 s -> 1.9 s, causal attention 4.6 s -> 2.9 s in total
        # without it; and an optimum among ties would change with it).  A feasibility query
        # the fast run did not settle presolves: the register-bound proofs of the attention
        # backward take a third of the time with it.
        params.cp_model_presolve = not fast and not self.model.HasObjective()
        if fast:
            # Nor does in-processing (clause vivification, probing during the
            # search): flash attention d256's joint query at II 64 takes 0.3 s
            # instead of 1.6 s.
            params.use_sat_inprocessing = False
        if linear is False or (linear is None and not self.model.HasObjective() and not self.linear):
            # Pure feasibility (the joint problem, mostly proofs of infeasibility):
            # the LP relaxation costs far more than it prunes here (attention at
            # II 19..21: 0.4-0.5 s per proof instead of 1.3-2 s).  Optimization
            # (the modulo schedule) keeps the default, which it needs.
            params.linearization_level = 0
        status = self.solver.Solve(self.model)
        if status == cp.MODEL_INVALID:  # a defect of the model builders, not of the input
            raise RuntimeError(f"CP-SAT rejected the model: {self.model.Validate()}")
        return status

    def solve_fast(self, time_limit):
        # A feasibility query runs without in-processing first, within a share of the
        # work (FAST_WORK): its answer and its solution are final (the models are
        # feasibility questions: any solution is as good as another).
        cp = self._cp
        status = self._run(time_limit, FAST_WORK if self.work_limit is None else min(FAST_WORK, self.work_limit),
                           fast=True)
        return {cp.INFEASIBLE: False, cp.OPTIMAL: True, cp.FEASIBLE: True}.get(status)

    def settle(self, time_limit, work, lp=True):
        cp = self._cp
        work = work if self.work_limit is None else min(work, self.work_limit)
        status = self._run(time_limit, work, fast=not lp, linear=None if lp else False)
        return {cp.INFEASIBLE: False, cp.OPTIMAL: True}.get(status, None if self.model.HasObjective() else
                                                            status == cp.FEASIBLE or None)

    def solve(self, time_limit, skip_fast=False):
        cp = self._cp
        objective = self.model.HasObjective()
        if not objective and not skip_fast:
            # Only a query the fast run does not settle in its share runs again with
            # CP-SAT's standard search, which proves hard cases faster.
            t0 = time.monotonic()
            settled = self.solve_fast(time_limit)
            if settled is not None:
                return settled
            time_limit -= time.monotonic() - t0
            if time_limit <= 0:
                raise SolverTimeout("CP-SAT ran out of time")
        status = self._run(time_limit, self.work_limit, fast=False)
        if status == cp.OPTIMAL or (status == cp.FEASIBLE and not objective):
            return True
        if status == cp.INFEASIBLE:
            return False
        raise SolverTimeout(f"CP-SAT stopped with status {self.solver.StatusName(status)} "
                            f"(time limit {time_limit:.3g} s)")

    def minimize_within(self, time_limit, work):
        cp = self._cp
        work = work if self.work_limit is None else min(work, self.work_limit)
        # Without in-processing and without the LP (as feasibility queries run): on flash
        # attention's tie-break 0.1 deterministic s to the optimum, against 0.7 with them.
        status = self._run(time_limit, work, fast=True, linear=False)
        return status in (cp.OPTIMAL, cp.FEASIBLE)

    def value(self, var):
        return int(self.solver.Value(self._var(var)))


class Z3Backend(Backend):
    name = "z3"

    def __init__(self) -> None:
        import z3
        self._z3 = z3
        self.solver = z3.Solver()
        self._bools: set[int] = set()
        self._objective: Terms | None = None
        self._model = None

    def bool(self, name):
        self.tick()
        b = self._z3.Bool(name)
        self._bools.add(b.get_id())
        return b

    def int(self, lo, hi, name):
        self.tick()
        z3 = self._z3
        v = z3.Int(name)
        self.solver.add(v >= lo, v <= hi)
        return v

    def _is_bool(self, v) -> bool:
        return self._z3.is_bool(v)

    def _sum(self, terms):
        z3 = self._z3
        parts = []
        for c, v in terms:
            if self._is_bool(v):
                parts.append(z3.If(v, c, 0))
            else:
                parts.append(c * v)
        return z3.Sum(parts) if parts else z3.IntVal(0)

    def _constraint(self, terms, lo, hi):
        z3 = self._z3
        out = []
        if terms and all(self._is_bool(v) for _, v in terms):
            pairs = [(v, c) for c, v in terms]
            if lo is not None and hi is not None and lo == hi:
                out.append(z3.PbEq(pairs, lo))
            else:
                if lo is not None:
                    out.append(z3.PbGe(pairs, lo))
                if hi is not None:
                    out.append(z3.PbLe(pairs, hi))
            return out
        expr = self._sum(terms)
        if lo is not None and hi is not None and lo == hi:
            out.append(expr == lo)
        else:
            if lo is not None:
                out.append(expr >= lo)
            if hi is not None:
                out.append(expr <= hi)
        return out

    def add(self, terms, lo=None, hi=None, when=()):
        self.tick()
        z3 = self._z3
        when = list(when)
        for c in self._constraint(terms, lo, hi):
            self.solver.add(z3.Implies(z3.And(when), c) if when else c)

    def exactly_one(self, lits):
        self.tick()
        self.solver.add(self._z3.PbEq([(l, 1) for l in lits], 1))

    def clause(self, pos, neg=()):
        self.tick()
        z3 = self._z3
        self.solver.add(z3.Or(list(pos) + [z3.Not(x) for x in neg]))

    def minimize(self, terms):
        self._objective = list(terms)

    def solve(self, time_limit, skip_fast=False):
        z3 = self._z3
        deadline = time.monotonic() + time_limit

        def check():
            left = deadline - time.monotonic()
            if left <= 0:
                raise SolverTimeout("z3 ran out of time")
            self.solver.set("timeout", max(1, int(left * 1000)))
            r = self.solver.check()
            if r == z3.unknown:
                raise SolverTimeout(f"z3 returned unknown ({self.solver.reason_unknown()})")
            return r == z3.sat

        if not check():
            return False
        self._model = self.solver.model()
        if self._objective is None:
            return True
        # Descend on the objective: ask for a strictly better value until unsat.
        obj = self._sum(self._objective)
        while True:
            best = self._model.eval(obj, model_completion=True).as_long()
            self.solver.push()
            self.solver.add(obj < best)
            better = check()
            if better:
                self._model = self.solver.model()
            self.solver.pop()
            if not better:
                return True

    def value(self, var):
        z3 = self._z3
        v = self._model.eval(var, model_completion=True)
        if z3.is_true(v):
            return 1
        if z3.is_false(v):
            return 0
        return v.as_long()


def make_backend(name: str, deadline: float | None = None, work_limit: float | None = None) -> Backend:
    """A fresh backend by name: ``cpsat`` or ``z3``; ``deadline`` (a
    ``time.monotonic()`` value) bounds building its model; ``work_limit`` caps
    each solve's deterministic work (CP-SAT; z3 has the deadline only)."""
    if name not in SOLVERS:
        raise ValueError(f"unknown solver '{name}' (choose from {', '.join(SOLVERS)})")
    require_solver(name)
    b: Backend = CpSatBackend() if name == "cpsat" else Z3Backend()
    b.deadline = deadline
    b.work_limit = work_limit
    return b
