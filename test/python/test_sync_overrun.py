"""The skeleton's shortcuts for a run that will surely overrun its budget (`Overrun` in
wsdialects/sync/plan.py, `Skeleton._ahead`): they stop such runs early (most of the check's
time went into them) and change nothing else. Each profile's traces, or the error a run
raises, are the same as with the shortcuts off, on kernels whose runs overrun at several
input sizes (persistent with few programs, cooperative), and on some that divide by zero."""

import pytest
from xdsl.dialects.builtin import IntegerAttr

from cases import CASES
from kernel_cache import compile_kernel
from wsdialects.sync import plan, skeleton
from wsdialects.sync.skeleton import CONTAINERS, PROFILES, TooLong, traces

# (pipeline, kernels): persistent kernels whose runs overrun at several sizes, aref and lowered IR
PIPELINES = [("ws-specialize{depth=2 mma-depth=1 cooperative=2 persistent=true programs=2}",
              ["gemm", "causal_attention", "bias_gemm", "softmax_gemm"]),
             ("ws-specialize{depth=3 mma-depth=1 persistent=true programs=3}", ["attention", "fused_mlp"]),
             ("ws-hopper{cooperative=2 persistent=true programs=2}", ["gemm"])]


def _signature(result):
    """What a `traces` call gave, comparable across calls on the same module."""
    if isinstance(result, Exception):
        return type(result).__name__, str(result), id(getattr(result, "op", None))
    if result is None:
        return None
    ident = lambda x: x if isinstance(x, int | type(None)) else id(x)  # noqa: E731 - ops by identity
    return [(id(t.container),
             [[(e.kind, id(e.op), ident(e.obj), e.pos, e.arg, e.slot and tuple(map(ident, e.slot)))
               for e in p.events] for p in t.parties],
             sorted((id(k[0]), k[1], v[0], id(v[1])) for k, v in t.inits.items())) for t in result]


def _traces(kernel, profile):
    try:
        return _signature(traces(kernel, profile))
    except Exception as e:  # noqa: BLE001 - compared
        return _signature(e)


def _steps(monkeypatch, counted: list):
    """Count the steps of every skeleton run (finished or overrun) into `counted`."""
    run = skeleton.Skeleton.run

    def counting(self):
        try:
            return run(self)
        finally:
            counted.append(self.steps)

    monkeypatch.setattr(skeleton.Skeleton, "run", counting)


def _shortcuts_off(monkeypatch):
    monkeypatch.setattr(plan.Overrun, "per_iteration", lambda self, loop, body, env: None)
    monkeypatch.setattr(plan.Overrun, "quiet", lambda self, region, env: False)


def _kernels(module):
    return [f for f in module.walk() if f.name == "func.func" and any(o.name in CONTAINERS for o in f.walk())]


def _compare(module, monkeypatch) -> tuple[int, int]:
    """Every profile of every kernel of `module`: the same with and without the shortcuts;
    returns the steps run (with, without)."""
    with_, without = [], []
    with monkeypatch.context() as m:
        _steps(m, with_)
        fast = [_traces(k, p) for k in _kernels(module) for p in PROFILES]
    with monkeypatch.context() as m:
        _steps(m, without)
        _shortcuts_off(m)
        slow = [_traces(k, p) for k in _kernels(module) for p in PROFILES]
    assert fast == slow
    return sum(with_), sum(without)


@pytest.mark.parametrize("pipeline,names", PIPELINES, ids=[p for p, _ in PIPELINES])
def test_shortcuts_change_no_trace(pipeline, names, monkeypatch):
    saved = 0
    for case in [c for c in CASES if c.name in names]:
        fast, slow = _compare(compile_kernel(case.path(), pipeline), monkeypatch)
        saved += slow - fast
    assert saved > 0  # and they do stop runs early


def _zero_the_k_tile(module) -> None:
    """The K tile 0: the tile loop's first iteration divides by zero (its K loop's bound)."""
    zeroed = [o for o in module.walk() if o.name == "arith.constant" and isinstance(o.value, IntegerAttr)
              and o.value.value.data == 64]
    assert zeroed
    for o in zeroed:
        o.properties["value"] = IntegerAttr(0, o.value.type)


def _zero_at_k_5(module) -> None:
    """The producer's ring position taken modulo k - 5: its K loop divides by zero at k = 5 (only
    where the loop runs that far), in a tile loop that overruns."""
    from xdsl.dialects.arith import ConstantOp, RemSIOp, SubiOp

    put = next(o for o in module.walk() if o.name == "aref.put")
    k = put.parent_block().args[0]
    five = ConstantOp(IntegerAttr(5, k.type))
    d = SubiOp(k, five)
    r = RemSIOp(put.operands[1], d)
    put.parent_block().insert_ops_before([five, d, r], put)
    put.operands[1] = r.result


@pytest.mark.parametrize("mutate", [_zero_the_k_tile, _zero_at_k_5])
def test_a_division_by_zero_is_reported_alike(mutate, monkeypatch):
    """A run that divides by zero raises its Fault, with the shortcuts as without."""
    module = compile_kernel(CASES[0].path(), PIPELINES[0][0])
    mutate(module)
    _compare(module, monkeypatch)
    with pytest.raises(Exception, match="divides by zero"):
        traces(_kernels(module)[0], PROFILES[1])


def test_an_overrun_is_stopped_before_the_partitions_run(monkeypatch):
    """A persistent kernel's consumer estimates its tile loop above the budget whatever the
    producer counts: the run stops before the producer's loop (`Skeleton._ahead`)."""
    module = compile_kernel(CASES[0].path(), PIPELINES[0][0])
    counted = []
    _steps(monkeypatch, counted)
    kernel = _kernels(module)[0]
    with pytest.raises(TooLong):
        skeleton.Skeleton(kernel, PROFILES[1]).run()
    assert counted[-1] < 100
