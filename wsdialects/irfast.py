"""Faster equivalents of xDSL 0.74 routines that the compiler and the test suite run all the
time, installed once by `install()` (`wsdialects.diagnostics` calls it on import):

- `Operation.clone`: the same copy, built in one pass. xDSL's clones every op through
  `create` (keyword arguments, its operands set twice), builds each region through
  `Region.clone_into` and then walks both trees with nested generators to set the operands
  (about 20 us an op). Here: the same objects with the same fields, set in the same order
  (so the same use lists: each value's uses in the order xDSL's clone leaves them), in about
  a third of the time. Ops of a class with its own `clone`, `clone_without_regions`, `create`
  or `__post_init__` are cloned by their own methods, as xDSL does.
- `OpDef.verify` (an IRDL op's operand / result / region / successor / property / attribute
  constraints, then its traits): the constraint part of an op is a function of the op's
  definition, its operand and result types, its regions' block counts and entry argument
  types, its successor count, its properties and the attributes the definition names, all
  immutable and hashable; once that part passed for one such key, it passes for every op with
  the key, and is not checked again. Only passes are remembered (a failure is checked, and
  reported, by xDSL every time); the traits (which may read anything, e.g.
  IsolatedFromAbove walks the body) run every time.
- `IsolatedFromAbove.verify` (func.func, builtin.module: every operand inside is defined
  inside): whether a block lies inside the op is found once per block, not by walking up
  from every operand.
- `verify_op(op)`: `op.verify(verify_nested_ops=False)` without xDSL's error path, which
  prints the whole module into the exception's notes: where anything fails, xDSL's own
  `Operation.verify` runs again and raises what it raises.

- printing: `BasePrinter.print_string` writes text without a newline with the stream's
  `write` (xDSL calls `print(text, end="", file=stream)`, about a third of a module's
  printing); `Printer.print_bytes_literal` prints a string literal as one string (xDSL: one
  `print_string` per byte); `DenseIntOrFPElementsAttr.print_without_type` prints a splat
  constant (every element the same bytes, not a NaN) from its first element (xDSL unpacks
  every element twice: `dense<0.0> : tensor<128x256xf32>` is 2 x 32768 floats). The same
  characters, the same line and column.

`test/python/test_irfast.py` compares each with xDSL's routine on the bundled kernels (the
clone field by field, use lists included; the printed text, line and column).
"""

from __future__ import annotations

import re
import sys

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValues, Use
from xdsl.ir.core import ErasedSSAValue, _unknown_loc
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import AttrSizedSegments, OpDef, OptionalDef
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.base_printer import BasePrinter

_xdsl_clone = Operation.clone
_xdsl_verify = Operation.verify
_xdsl_opdef_verify = OpDef.verify
_xdsl_isolated_verify = IsolatedFromAbove.verify
_OP_CREATE = Operation.create.__func__
_OP_CLONE_WR = Operation.clone_without_regions
_POST_INITS = (Operation.__post_init__, IRDLOperation.__post_init__)

# --- clone -------------------------------------------------------------------------------

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
    d["results"] = SSAValues(OpResult(r._type, new, i) for i, r in enumerate(op.results))
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
        for old_r, new_r in zip(op.results, d["results"]):
            vm[old_r] = new_r
            new_r.__dict__["_name"] = _valid_name(old_r._name, type(new_r))
    else:
        for old_r, new_r in zip(op.results, d["results"]):
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



# --- verification --------------------------------------------------------------------------

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


# --- printing ------------------------------------------------------------------------------

_xdsl_print_string = BasePrinter.print_string
_xdsl_print_bytes_literal = Printer.print_bytes_literal
_xdsl_dense_print = DenseIntOrFPElementsAttr.print_without_type


def print_string(self, text: str, *, indent: int | None = None) -> None:
    """xDSL's `BasePrinter.print_string`; text without a newline is written with the
    stream's `write` instead of `print(text, end="", file=stream)` (the same characters)."""
    if "\n" in text:
        _xdsl_print_string(self, text, indent=indent)
        return
    self._current_column += len(text)
    stream = self.stream
    if stream is None:
        stream = sys.stdout
        if stream is None:  # as print() does
            return
    stream.write(text)


_PLAIN_BYTES = re.compile(rb"[\x20\x21\x23-\x5b\x5d-\x7e]*")


def print_bytes_literal(self, bytestring: bytes) -> None:
    """xDSL's `Printer.print_bytes_literal` (a quoted string, `\\` for a backslash, `\\XX`
    for a quote or a byte outside 0x20-0x7E), printed as one string instead of one per byte."""
    if _PLAIN_BYTES.fullmatch(bytestring):
        self.print_string('"' + bytestring.decode("ascii") + '"')
        return
    out = ['"']
    for byte in bytestring:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 > byte or byte > 0x7E or byte == 0x22:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    out.append('"')
    self.print_string("".join(out))


def dense_print_without_type(self, printer) -> None:
    """xDSL's `DenseIntOrFPElementsAttr.print_without_type` for a splat (every element the same
    bytes, not a NaN): the one element, unpacked alone, instead of unpacking every element
    twice (`get_values`, `is_splat`); anything else is xDSL's."""
    raw = self.data.data
    n = len(self)
    if n:
        size = len(raw) // n
        if len(raw) == n * size and raw == raw[:size] * n:
            first = self.get_element_type().unpack(raw[:size], 1)[0]
            if type(first) is int or (type(first) is float and first == first):
                printer.print_string("dense")
                with printer.in_angle_brackets():
                    self._print_one_elem(first, printer)
                return
    _xdsl_dense_print(self, printer)


_installed = False


def install() -> None:
    """Put the fast routines in xDSL's place (once; see the module docstring)."""
    global _installed
    if _installed:
        return
    _installed = True
    Operation.clone = fast_clone
    OpDef.verify = opdef_verify
    IsolatedFromAbove.verify = isolated_from_above_verify
    BasePrinter.print_string = print_string
    Printer.print_bytes_literal = print_bytes_literal
    DenseIntOrFPElementsAttr.print_without_type = dense_print_without_type
