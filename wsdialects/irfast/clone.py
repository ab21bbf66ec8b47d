"""`Operation.clone` in one pass: the objects and fields xDSL 0.74's clone makes (see the
package docstring)."""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValues, Use
from xdsl.ir.core import _unknown_loc
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import OptionalDef

_xdsl_clone = Operation.clone
_OP_CREATE = Operation.create.__func__
_OP_CLONE_WR = Operation.clone_without_regions
_POST_INITS = (Operation.__post_init__, IRDLOperation.__post_init__)

# per op class: None (clone it with its own methods) or (property defaults, attribute
# defaults) that IRDLOperation.__post_init__ fills in where missing
_clone_plan: dict[type, tuple | None] = {}
_new = object.__new__


def _plan(cls: type):
    plan = None
    if (cls.clone is fast_clone and cls.clone_without_regions is _OP_CLONE_WR
            and getattr(cls.create, "__func__", None) is _OP_CREATE and cls.__post_init__ in _POST_INITS
            and getattr(cls, "operands", None) is Operation.operands):
        if cls.__post_init__ is IRDLOperation.__post_init__:
            op_def = cls.get_irdl_definition()
            props = tuple((n, d.default_value) for n, d in op_def.properties.items()
                          if not isinstance(d, OptionalDef) and d.default_value is not None)
            attrs = tuple((n, d.default_value) for n, d in op_def.attributes.items()
                          if not isinstance(d, OptionalDef) and d.default_value is not None)
            plan = (props, attrs, True)
        else:
            plan = ((), (), False)
        if not cls.name or not isinstance(cls.name, str):  # Operation.__post_init__'s assertions
            plan = None
    _clone_plan[cls] = plan
    return plan


_names: dict[str, str | None] = {}  # name hint -> what IRWithName's setter makes of it


def _valid_name(name: str | None, cls: type) -> str | None:
    if name is None:
        return None
    got = _names.get(name)
    if got is None:
        got = cls.extract_valid_name(name)  # raises on an invalid name, as the setter does
        if len(_names) > 100_000:
            _names.clear()
        _names[name] = got
    return got


def _clone_op(op: Operation, vm: dict, bm: dict, names: bool, pairs: list) -> Operation:
    """`op.clone(vm, bm, clone_name_hints=names, clone_operands=False)`; appends (old, new)
    for `op` and every op inside it, in walk order, to `pairs`."""
    cls = type(op)
    plan = _clone_plan.get(cls, False)
    if plan is False:
        plan = _plan(cls)
    if plan is None:
        new = op.clone(vm, bm, clone_name_hints=names, clone_operands=False)
        pairs.extend(zip(op.walk(), new.walk()))
        return new
    props_default, attrs_default, _ = plan
    new = cls.__new__(cls)
    d = new.__dict__
    # Operation.__init__, field by field (clone_without_regions passes no operands)
    d["_operands"] = SSAValues(())
    d["_operand_uses"] = ()
    old_results = op.results
    if old_results:
        results = []
        for i, r in enumerate(old_results):  # OpResult(r.type, new, i): its dataclass __init__ sets these
            nr = _new(OpResult)
            rd = nr.__dict__
            rd["_type"] = r._type
            rd["op"] = new
            rd["index"] = i
            results.append(nr)
        d["results"] = SSAValues(results)
    else:
        d["results"] = SSAValues(())
    d["properties"] = properties = dict(op.properties)
    d["attributes"] = attributes = dict(op.attributes)
    d["location"] = op.location
    succ = op._successors
    if succ:
        new.successors = [bm[s] if s in bm else s for s in succ]
    else:
        d["_successors"] = ()
        d["_successor_uses"] = ()
    old_regions = op.regions
    if old_regions:
        regions = []
        for _ in old_regions:  # Region(): no fields until it is attached and given blocks
            r = _new(Region)
            r.parent = new
            regions.append(r)
        d["regions"] = regions = tuple(regions)
    else:
        d["regions"] = regions = ()
    for n, v in props_default:
        if n not in properties:
            properties[n] = v
    for n, v in attrs_default:
        if n not in attributes:
            attributes[n] = v
    # clone_without_regions: map the results, copy their names
    if names:
        for old_r, new_r in zip(old_results, d["results"]):
            vm[old_r] = new_r
            new_r.__dict__["_name"] = _valid_name(old_r._name, type(new_r))
    else:
        for old_r, new_r in zip(old_results, d["results"]):
            vm[old_r] = new_r
    pairs.append((op, new))
    # Region.clone_into for each region
    for region, dest in zip(old_regions, regions):
        # Region.clone_into(dest, 0, ...): the blocks (Block(), then Region.add_block), then
        # their arguments, then their ops
        old_blocks = []
        b = region._first_block
        while b is not None:
            old_blocks.append(b)
            b = b._next_block
        new_blocks = []
        prev = None
        for b in old_blocks:
            nb = _new(Block)
            nd = nb.__dict__
            nd["_args"] = ()
            nd["_first_op"] = None
            nd["_last_op"] = None
            bm[b] = nb
            nb.parent = dest
            if prev is None:
                dest._first_block = nb
            else:
                nb._prev_block = prev
                prev._next_block = nb
            prev = nb
            new_blocks.append(nb)
        if prev is not None:
            dest._last_block = prev
        for b, nb in zip(old_blocks, new_blocks):
            if b._args:
                args = []
                for i, a in enumerate(b._args):
                    na = BlockArgument(a._type, nb, i, _unknown_loc() if a.location is None else a.location)
                    args.append(na)
                    vm[a] = na
                    if names:
                        na.__dict__["_name"] = _valid_name(a._name, BlockArgument)
                nb._args = tuple(args)
            child = b._first_op
            last = None
            while child is not None:
                nc = _clone_op(child, vm, bm, names, pairs)
                # Block.add_op
                if nc.parent:
                    raise ValueError("Can't add to a block an operation already attached to a block.")
                nc.parent = nb
                if last is None:
                    nb._first_op = nc
                else:
                    nc._prev_op = last
                    nc._next_op = None
                    last._next_op = nc
                nb._last_op = nc
                last = nc
                child = child._next_op
    return new


def fast_clone(self, value_mapper=None, block_mapper=None, *, clone_name_hints: bool = True,
               clone_operands: bool = True):
    """xDSL's `Operation.clone`, in one pass (see the module docstring)."""
    if value_mapper is None:
        value_mapper = {}
    if block_mapper is None:
        block_mapper = {}
    pairs: list = []
    new = _clone_op(self, value_mapper, block_mapper, clone_name_hints, pairs)
    if clone_operands:
        get = value_mapper.get
        for old, nw in pairs:
            ops = old._operands
            if nw._operand_uses:  # (an op cloned by its own methods may have operands already)
                nw.operands = tuple(get(o, o) for o in ops)
            elif ops:
                # the `operands` setter on an op without operands: each value gets a Use in
                # front of its use list, operand by operand
                vals = tuple(get(o, o) for o in ops)
                uses = []
                for i, v in enumerate(vals):
                    u = Use(nw, i)
                    first = v.first_use
                    u._next_use = first
                    u._prev_use = None
                    if first is not None:
                        first._prev_use = u
                    v.first_use = u
                    uses.append(u)
                nw._operands = SSAValues(vals)
                nw._operand_uses = tuple(uses)
    return new


fast_clone.__doc__ = _xdsl_clone.__doc__
