"""The checks of MLIR's `scf.if` and `scf.for` verifiers that xDSL 0.74 lacks.

xDSL 0.74 verifies no yield of an `scf.if`: an `scf.if` with results and no
`else`, a branch without `scf.yield` (the parser adds an empty one), or a yield
of the wrong number or types of values all verify, and the passes and the LLVM
emitter then fail on them. MLIR rejects them; `diagnostics.verify` runs
`verify_scf` on every op (after the op's own verifier), so here they are located
errors at the `scf.if` (`test/python/test_xdsl_workarounds.py` shows stock xDSL
accepts them). An `scf.yield` of an `scf.for` that does not match the loop's iter_args is reported at the
yield, naming the iter_arg and its type (xDSL reports it at the `scf.for`). A valid `scf.if`
with results:

    %t, %s = scf.if %c -> (tensor<64x64xf32>, f32) {
      scf.yield %x, %a : tensor<64x64xf32>, f32
    } else {
      scf.yield %y, %b : tensor<64x64xf32>, f32
    }

An `scf.for` whose step is a constant of zero or less never ends (or runs backwards);
MLIR's verifier rejects it ("constant step operand must be positive"), xDSL 0.74 does
not, and the passes then build partitions that spin on the same ring position. A
step that is not a constant is the kernel's business, as in MLIR.

(A subclass of xDSL's `IfOp` cannot be registered in its place: `scf.yield`
accepts only xDSL's `IfOp` as its parent, and the passes build xDSL's class.)
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException


def _verify_if(op: scf.IfOp) -> None:
    want = list(op.output.types)
    if want and not op.false_region.blocks:
        raise VerifyException(f"an scf.if with results must have an else branch yielding {len(want)} values")
    for what, region in (("then", op.true_region), ("else", op.false_region)):
        if not region.blocks:
            continue
        if len(region.blocks) != 1:
            raise VerifyException(f"the {what} branch of scf.if must be one block")
        last = region.block.last_op
        if not isinstance(last, scf.YieldOp):
            raise VerifyException(f"the {what} branch of scf.if must end in scf.yield")
        got = [v.type for v in last.operands]
        if got != want:
            raise VerifyException(
                f"the {what} branch yields ({', '.join(map(str, got))}) but the scf.if has results "
                f"({', '.join(map(str, want))})")


def _verify_for(op: scf.ForOp) -> None:
    step = op.step.owner
    if isinstance(step, arith.ConstantOp) and isinstance(step.value, IntegerAttr) and step.value.value.data <= 0:
        raise VerifyException(f"constant step operand must be positive, got {step.value.value.data}")


def _verify_for_yield(op: scf.YieldOp) -> None:
    """An scf.for's yield against its iter_args, reported at the yield (xDSL reports it at the
    scf.for, without saying which iter_arg), naming the iter_arg and the type it must have."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp):
        return
    args = list(loop.body.block.args[1:]) if loop.body.blocks else []
    got = [v.type for v in op.operands]
    names = [f"%{a.name_hint}" if a.name_hint else f"#{i}" for i, a in enumerate(args)]
    decl = f"`iter_args(...) -> ({', '.join(str(a.type) for a in args)})`"
    if len(got) != len(args):
        raise VerifyException(f"yields {len(got)} value{'' if len(got) == 1 else 's'}, but the scf.for has "
                              f"{len(args)} iter_arg{'' if len(args) == 1 else 's'} "
                              f"({', '.join(names) or 'none'}): yield each iter_arg's next value, as in {decl}")
    for i, (v, a) in enumerate(zip(op.operands, args)):
        if v.type != a.type:
            what = f"%{v.name_hint}" if v.name_hint else f"value #{i}"
            raise VerifyException(f"yields {what} of type {v.type} for iter_arg {names[i]} of type {a.type}: "
                                  f"a yielded value must have its iter_arg's type, as in {decl}")


_checks: dict[type, object] = {}  # op class -> its check (None: none), found once per class


def verify_scf(op: Operation) -> None:
    """Raise VerifyException where `op` breaks a rule of MLIR's scf verifiers that xDSL skips."""
    cls = type(op)
    check = _checks.get(cls, False)
    if check is False:
        check = _checks[cls] = (_verify_if if isinstance(op, scf.IfOp) else
                                _verify_for if isinstance(op, scf.ForOp) else
                                _verify_for_yield if isinstance(op, scf.YieldOp) else None)
    if check is not None:
        check(op)
