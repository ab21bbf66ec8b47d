"""Verification: OpDef.verify's constraint part remembered per key, IsolatedFromAbove per
block, Operation.verify without the module print, one walk (see the package docstring)."""

from __future__ import annotations

from xdsl.ir import BlockArgument, Operation, OpResult
from xdsl.ir.core import ErasedSSAValue
from xdsl.irdl.operations import AttrSizedSegments, OpDef
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

_xdsl_verify = Operation.verify
_xdsl_opdef_verify = OpDef.verify
_xdsl_isolated_verify = IsolatedFromAbove.verify

_ok: dict[tuple, OpDef] = {}  # constraint keys that passed -> the OpDef they passed for
_ok_ids: dict[tuple, tuple] = {}  # the same, by the keys' objects' ids -> (OpDef, the objects: kept alive)
_OK_LIMIT = 100_000
_defs: dict[int, tuple] = {}  # id(op_def) -> (op_def, attribute names, property names, a copy without traits)
_END = object()  # ends a variable-length part of a key


def _def_info(op_def: OpDef) -> tuple:
    import copy

    names = list(op_def.attributes)
    for o in op_def.options:  # segment sizes kept in an attribute
        if isinstance(o, AttrSizedSegments) and not o.as_property and o.attribute_name not in names:
            names.append(o.attribute_name)
    bare = copy.copy(op_def)
    bare.traits = ()  # OpDef.verify without its last step
    info = (op_def, tuple(names), tuple(op_def.properties), bare)
    _defs[id(op_def)] = info
    return info


def _constraint_key(names: tuple, props: tuple, op: Operation) -> tuple:
    """What OpDef.verify's constraint part reads of `op`, flat: operand types, result types,
    each region's block count and entry argument types, the successor count, the number of
    properties and the defined ones (an extra property makes the count larger than the
    defined ones present), the attributes the definition reads."""
    key = [v._type for v in op._operands]
    key.append(_END)
    key.extend([r._type for r in op.results])
    key.append(_END)
    for r in op.regions:
        b = r._first_block
        if b is None:
            key.append(0)
        else:
            key.append(len(r.blocks))
            key.extend([a._type for a in b._args])
        key.append(_END)
    key.append(len(op._successors))
    p = op.properties
    key.append(len(p))
    if props:
        key.extend([p.get(n) for n in props])
    if names:
        a = op.attributes
        key.extend([a.get(n) for n in names])
    return tuple(key)


def opdef_verify(self: OpDef, op: Operation) -> None:
    """xDSL's `OpDef.verify`, its constraint part skipped where it passed before for the
    same key (see the module docstring): looked up by the ids of the key's objects first (no
    hashing of attributes), then by the objects' values."""
    info = _defs.get(id(self))
    if info is None or info[0] is not self:
        info = _def_info(self)
    key = _constraint_key(info[1], info[2], op)
    ids = (id(self), *map(id, key))
    if ids not in _ok_ids:
        try:
            hit = _ok.get((id(self), key)) is self
        except TypeError:  # an unhashable (so perhaps mutable) attribute: never remembered
            _xdsl_opdef_verify(info[3], op)
        else:
            if not hit:
                _xdsl_opdef_verify(info[3], op)
                if len(_ok) >= _OK_LIMIT:
                    _ok.clear()
                _ok[(id(self), key)] = self
            if len(_ok_ids) >= _OK_LIMIT:
                _ok_ids.clear()
            _ok_ids[ids] = (self, key)
    for trait in self.traits:
        trait.verify(op)

_op_kinds: dict[type, tuple[bool, bool, bool]] = {}  # class -> (xDSL's Operation.verify, IsTerminator, NoTerminator)


def _op_kind(cls: type) -> tuple[bool, bool, bool]:
    k = _op_kinds.get(cls)
    if k is None:
        k = _op_kinds[cls] = (cls.verify is _xdsl_verify, bool(cls.has_trait(IsTerminator)),
                              bool(cls.has_trait(NoTerminator)))
    return k


class _Fallback(Exception):
    pass


def _verify_op(op: Operation, default: bool, terminator: bool) -> None:
    for v in op._operands:
        t = type(v)
        if t is not OpResult and t is not BlockArgument and isinstance(v, ErasedSSAValue):
            raise _Fallback
    block = op.parent
    region = None if block is None else block.parent
    if region is not None and block._last_op is op:
        n = len(region.blocks)
        if n == 1:
            parent = region.parent
            if parent is not None and not _op_kind(type(parent))[2] and not terminator:
                raise _Fallback
        elif n > 1 and not terminator:
            raise _Fallback
    op.verify_()


def verify_op(op: Operation) -> None:
    """`op.verify(verify_nested_ops=False)`, without xDSL's printing of the whole module on the
    way to an exception: where anything fails, xDSL's `Operation.verify` runs again and raises
    what it raises."""
    default, terminator, _ = _op_kind(type(op))
    if not default or op._successors:
        op.verify(verify_nested_ops=False)
        return
    try:
        _verify_op(op, default, terminator)
    except Exception:
        op.verify(verify_nested_ops=False)


def walk_orders(root: Operation) -> tuple[list[Operation], list[Operation]]:
    """(root.walk(), root.walk(region_first=True)) as lists."""
    pre: list[Operation] = []
    post: list[Operation] = []

    def visit(op: Operation) -> None:
        pre.append(op)
        for r in op.regions:
            b = r._first_block
            while b is not None:
                o = b._first_op
                while o is not None:
                    if o.regions:
                        visit(o)
                    else:
                        pre.append(o)
                        post.append(o)
                    o = o._next_op
                b = b._next_block
        post.append(op)

    visit(root)
    return pre, post




_isolated: dict[type, bool] = {}  # op class -> has the IsolatedFromAbove trait


def isolated_from_above_verify(self: IsolatedFromAbove, op: Operation) -> None:
    """xDSL's `IsolatedFromAbove.verify`: the same walk (regions last-in first-out, not into
    isolated ops), the same error at the same op; whether a block lies inside `op` is found
    once per block instead of walking up from every operand (`op.is_ancestor`)."""
    inside: dict[int, bool] = {}

    def within(block) -> bool:  # op.is_ancestor(block)
        r = inside.get(id(block))
        if r is None:
            region = block.parent
            p = None if region is None else region.parent
            if p is None:
                r = False
            elif p is op:
                r = True
            else:
                pb = p.parent
                r = pb is not None and within(pb)
            inside[id(block)] = r
        return r

    regions = list(op.regions)
    while regions:
        region = regions.pop()
        block = region._first_block
        while block is not None:
            child = block._first_op
            while child is not None:
                for v in child._operands:
                    t = type(v)
                    if t is OpResult:
                        owner = v.op
                        ok = owner is not op and owner.parent is not None and within(owner.parent)
                    elif t is BlockArgument:
                        ok = within(v.block)
                    else:
                        owner = v.owner
                        ok = op.is_ancestor(owner) and owner is not op
                    if not ok:
                        raise VerifyException(
                            f"Operation using value defined out of its IsolatedFromAbove parent: {child}")
                cls = type(child)
                iso = _isolated.get(cls)
                if iso is None:
                    iso = _isolated[cls] = bool(child.has_trait(IsolatedFromAbove))
                if not iso:
                    regions += child.regions
                child = child._next_op
            block = block._next_block
