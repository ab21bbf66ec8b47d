"""Ring positions across a kernel's tile loops: what ws-distribute counts with.

Both partitions address an aref ring by a *position* (slot = position mod depth), so
they must count the same positions. In one tile loop the position is the iteration
number `(iv - lb) / step`. Where several tile loops share a ring (`share_rings` in
ws-distribute: causal attention's two K/V loops, a two-pass kernel's two reads of X),
a later loop's positions continue after the earlier loop's last: `base + k`, the base
being the earlier loops' trip counts added up. A ring used in a loop nested in an outer
loop (a persistent GEMM's K loop inside its loop over tiles) has its base carried around
the outer loop as an iter_arg and advanced by the inner loop's trip count:

    %ring_base = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%ring_base_1 = %0) -> (i32) {
      scf.for %k = %c0 to %k_tiles step %c1 {
        %pos = arith.addi %ring_base_1, %k : i32
        aref.put %aref_a_b[%pos], %a, %b : ...
      }
      %trips = arith.maxsi ...              // trip_count of the K loop
      %ring_base_2 = arith.addi %ring_base_1, %trips : i32
      scf.yield %ring_base_2 : i32
    }

`RingPositions` keeps each ring's base while ws-distribute builds one partition's body;
`index_and_base` reads a position back into (iteration number, base) (ws-pipeline-mma
releases a slot P iterations late and drains the last ones at `base + j`).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Block, OpResult, SSAValue

from wsdialects.transforms.trip_count import trip_count


def const(block: Block, value: int, t=None) -> SSAValue:
    """An `arith.constant` (i32 unless `t`) appended to `block`."""
    c = arith.ConstantOp(IntegerAttr(value, t or IntegerType(32)))
    block.add_op(c)
    return c.result


def iteration_number(block: Block, loop: scf.ForOp, iv: SSAValue, mapping) -> SSAValue:
    """The iteration number (iv - lb) / step of `loop`'s copy (`iv`, `mapping`: the copy's
    induction variable and values), computed in `block`; `iv` itself when lb = 0, step = 1."""
    lb, step = loop.lb.owner, loop.step.owner
    if (isinstance(lb, arith.ConstantOp) and lb.value.value.data == 0
            and isinstance(step, arith.ConstantOp) and step.value.value.data == 1):
        return iv
    diff = arith.SubiOp(iv, mapping[loop.lb])
    pos = arith.DivUIOp(diff.result, mapping[loop.step])
    block.add_ops([diff, pos])
    pos.result.name_hint = "pos"
    return pos.result


def index_and_base(pos: SSAValue, loop: scf.ForOp) -> tuple[SSAValue, SSAValue | None]:
    """A ring position in `loop` as (iteration number, base): ws-distribute writes
    `base + k` where a ring's positions continue from an earlier loop (the base is
    defined outside the loop), else the position is the iteration number itself."""
    add = pos.owner if isinstance(pos, OpResult) else None
    if isinstance(add, arith.AddiOp) and not loop.is_ancestor(add.lhs.owner if isinstance(add.lhs, OpResult)
                                                              else add.lhs.owner.parent_op()):
        return add.rhs, add.lhs
    return pos, None


class RingPositions:
    """Each ring's position base where one partition's body is being built. A base is
    None (0), a value, or `(base, loop copy)` for `base + trips(loop copy)`, made when
    a position or a carried base needs it (right after the loop copy, once).

    `uses`: (ring, tile loop of the source) for each channel, the loop None for the
    one-shot loads before the loops. Per loop copy being built: `open` gives the
    initial values of the bases it carries, `positions` binds its iter_args and gives
    `pos_of(ring)` for its body, `yielded` the bases its body yields, `close` binds
    its results and moves the bases of its own rings past it."""

    def __init__(self, uses: list[tuple[SSAValue, scf.ForOp | None]]):
        self.uses = uses
        self.base: dict[SSAValue, object] = {}
        self._made: dict[object, SSAValue] = {}
        self._groups: dict[scf.ForOp, list[list[SSAValue]]] = {}

    def value(self, base) -> SSAValue | None:
        """The position base `base` as a value: `prev + trips(loop copy)` is computed
        right after the loop copy, once."""
        if base is None or isinstance(base, SSAValue):
            return base
        if base not in self._made:
            prev, copy = base
            pv = self.value(prev)
            ops, n = trip_count(copy)
            if pv is not None:
                ops.append(arith.AddiOp(pv, n))
                n = ops[-1].results[0]
                n.name_hint = "ring_base"
            copy.parent_block().insert_ops_after(ops, copy)
            self._made[base] = n
        return self._made[base]

    def _nested(self, loop: scf.ForOp) -> dict[SSAValue, frozenset]:
        """The rings of the tile loops nested in `loop`, each with the loops using it there."""
        out: dict[SSAValue, set] = {}
        for ring, lp in self.uses:
            if lp is not None and lp is not loop and loop.is_ancestor(lp):
                out.setdefault(ring, set()).add(lp)
        return {r: frozenset(ls) for r, ls in out.items()}

    def open(self, block: Block, loop: scf.ForOp) -> list[SSAValue]:
        """The initial values of the bases `loop`'s copy carries (built in `block`): one
        iter_arg per group of rings of its nested loops with the same base and loops."""
        groups: dict[tuple, list[SSAValue]] = {}
        for ring, users in self._nested(loop).items():
            groups.setdefault((self.base.get(ring), users), []).append(ring)
        self._groups[loop] = list(groups.values())
        inits = [self.value(base) for base, _ in groups]
        return [v if v is not None else const(block, 0) for v in inits]

    def positions(self, loop: scf.ForOp, body: Block, base_args, iv: SSAValue, mapping):
        """Bind the carried bases to `base_args` (iter_args of the copy's `body`) and
        return `pos_of(ring)`: the ring's position in `body`, made when first asked."""
        for arg, rings in zip(base_args, self._groups[loop]):
            arg.name_hint = "ring_base"
            for r in rings:
                self.base[r] = arg
        pos: list[SSAValue] = []
        shifted: dict[object, SSAValue] = {}
        entry = dict(self.base)  # the bases of the rings used in this loop's body are loop-invariant

        def pos_of(ring: SSAValue | None = None) -> SSAValue:
            if not pos:
                pos.append(iteration_number(body, loop, iv, mapping))
            base = self.value(entry.get(ring))
            if base is None:
                return pos[0]
            if base not in shifted:
                add = arith.AddiOp(base, pos[0])
                add.result.name_hint = "pos"
                body.add_op(add)
                shifted[base] = add.result
            return shifted[base]

        return pos_of

    def yielded(self, loop: scf.ForOp) -> list[SSAValue]:
        """The carried bases as the end of `loop`'s body has them."""
        return [self.value(self.base[rings[0]]) for rings in self._groups[loop]]

    def close(self, loop: scf.ForOp, copy: scf.ForOp, base_results) -> None:
        """After `loop`'s copy: its results carry the bases on; the rings its own body
        uses continue after its last position."""
        for res, rings in zip(base_results, self._groups.pop(loop)):
            res.name_hint = "ring_base"
            for r in rings:
                self.base[r] = res
        for ring in dict.fromkeys(r for r, lp in self.uses if lp is loop):
            self.base[ring] = (self.base.get(ring), copy)
