"""The passes' shortcuts give what the plain path gives: ws-lower-warp-groups verifies only the
ops it moved or made (the whole dispatch verifies too, turns and named barriers included), and
ws-cooperative re-makes a splat constant from its first element (the same attribute as from
every element)."""

import pytest
from xdsl.dialects.builtin import BFloat16Type, DenseIntOrFPElementsAttr, Float16Type, Float32Type, IntegerType, TensorType

from cases import CASES
from kernel_cache import compile_kernel
from wsdialects.transforms.cooperative import _is_splat


def test_lowered_turns_and_barriers_verify_as_a_whole():
    m = compile_kernel(CASES[0].path(), "ws-specialize{cooperative=2 pingpong=true},ws-lower-aref,ws-lower-warp-groups",
                       shared=True)
    names = {o.name for o in m.walk()}
    assert {"nvvm.barrier", "nvvm.barrier_arrive"} <= names  # the turns became named barriers
    for d in (o for o in m.walk() if o.name == "nvgpu.wg.dispatch"):
        d.verify()


@pytest.mark.parametrize("elt", [Float16Type(), BFloat16Type(), Float32Type(), IntegerType(32), IntegerType(1)])
def test_splat_from_first_element(elt):
    t = TensorType(elt, [64, 32])
    x = 1 if isinstance(elt, IntegerType) else -1.5
    whole = DenseIntOrFPElementsAttr.from_list(TensorType(elt, [128, 32]), [x] * 4096)
    first = next(whole.iter_values())
    assert DenseIntOrFPElementsAttr.from_list(t, [first]) == DenseIntOrFPElementsAttr.from_list(t, [first] * 2048)
    assert _is_splat(whole) and whole.is_splat()
    mixed = DenseIntOrFPElementsAttr.from_list(t, [x] * 2047 + [0])
    assert not _is_splat(mixed) and not mixed.is_splat()


def _aliases_plain(block, values, views):
    """`distribute.aliases` as a fixpoint over every op of the block (the definition)."""
    from xdsl.dialects import scf

    values, own, changed = set(values), block.parent_op(), True
    while changed:
        changed = False
        for op in block.walk():
            new = []
            if isinstance(op, views) and op.operands[0] in values:
                new.append(op.results[0])
            elif isinstance(op, scf.YieldOp) and (parent := op.parent_op()) is not own and parent is not None:
                for j, v in enumerate(op.operands):
                    if v in values and j < len(parent.results):
                        new.append(parent.results[j])
                        if isinstance(parent, scf.ForOp):
                            new.append(parent.body.block.args[j + 1])
            elif isinstance(op, scf.ForOp) and op is not own:
                for j, v in enumerate(op.iter_args):
                    if v in values:
                        new += [op.body.block.args[j + 1], op.results[j]]
            for v in new:
                if v not in values:
                    values.add(v)
                    changed = True
    return values


@pytest.mark.parametrize("kernel", ["flash_attention_causal.mlir", "staged_mlp.mlir"])
def test_aliases_and_users_from_uses(kernel):
    """`aliases` / `users_in` (from the values' uses) agree with a walk of every op of the block,
    for every get of a warp-specialized kernel, from each block around it."""
    from cases import INPUTS
    from wsdialects.aref import GetOp
    from wsdialects.transforms.borrowed_tiles import VIEW_OPS, aliases, users_in
    from wsdialects.transforms.stages import SLOT_VIEWS

    path = INPUTS / "scheduled" / kernel
    m = compile_kernel(path, "ws-partition,ws-distribute{depth=2}", shared=True)
    n, grown = 0, 0
    for get in (o for o in m.walk() if isinstance(o, GetOp)):
        block = get.parent_block()
        while block is not None:
            for views in (VIEW_OPS, SLOT_VIEWS):
                held = aliases(block, set(get.results), views)
                assert held == _aliases_plain(block, set(get.results), views)
                assert users_in(block, held) == [op for op in block.ops if any(
                    o in held for inner in op.walk() for o in inner.operands)]
                n += 1
                grown += len(held) > len(get.results)
            block = block.parent_block() if block.parent_op() is not None else None
    assert n >= 8 and grown  # some views / loop values alias a slot


def test_register_pressure_sees_the_intervals_around_each_point():
    """ws-register-budget gives each point only the intervals with start <= p <= end: the
    pressure (and the tiles blamed, in order) equals that computed from every interval."""
    from wsdialects.lower.register_budget import _BranchLiveness
    from wsdialects.nvgpu import BranchOp

    m = compile_kernel(CASES[0].path(), "ws-hopper", shared=True)
    points = 0
    for br in (o for o in m.walk() if isinstance(o, BranchOp)):
        live = _BranchLiveness(br)
        lives = live.intervals()
        for p in range(live.n):
            near = [lv for lv in lives if lv.start <= p <= lv.end]
            total, vals = live._pressure(p, lives)
            assert (total, list(vals.items())) == (lambda t, v: (t, list(v.items())))(*live._pressure(p, near))
            points += 1
    assert points > 50
