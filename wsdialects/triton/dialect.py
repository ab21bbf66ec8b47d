"""The `tt` dialect (Triton's TTIR) as Triton 3.4-3.9 print it, for reading only.

Each op parses Triton's custom form (`tt.get_program_id x : i32`, `tt.dot %a, %b, %c,
inputPrecision = tf32 : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>`,
`"tt.reduce"(%x) <{axis = 1 : i32}> ({...})`, ...) into an op holding its operands,
results, region and Triton's attributes (inline keywords such as `rounding = rtne` or
`fadd, acq_rel, gpu` land in the op's attribute dictionary under Triton's names); the ops
print in generic form. Nothing here checks Triton's typing rules beyond what parsing needs:
the import (`convert.py`) reads these ops once and replaces each by `tile` ops, whose
verifiers then judge the result.

    %pid = tt.get_program_id x : i32
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %p = tt.addptr %base, %off : tensor<128x!tt.ptr<f16>>, tensor<128xi32>
    %v = tt.load %p, %mask, %other : tensor<128x!tt.ptr<f16>>
    %d = tt.make_tensor_descriptor %ptr, [%m, %c64], [%c64_i64, %c1_i64] : <f16>, <128x64xf16>
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, FunctionType, IntegerAttr, StringAttr, TensorType, i1, i32, i64
from xdsl.dialects.utils import parse_func_op_like
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import IsTerminator

from wsdialects.triton.types import TTPtrType, TTTensorDescType


def pointee_of(t: Attribute) -> Attribute:
    """What a load through `t` (a pointer, a tile of pointers or a block pointer) gives."""
    if isinstance(t, TensorType) and isinstance(t.element_type, TTPtrType):
        return TensorType(t.element_type.pointee, t.get_shape())
    if isinstance(t, TTPtrType):
        return t.pointee
    return t


def mask_type_of(t: Attribute) -> Attribute:
    return TensorType(i1, t.get_shape()) if isinstance(t, TensorType) else i1


class TTOp(IRDLOperation):
    """A `tt` op as read: operands, results, regions; Triton's attributes in `attributes`."""

    args = var_operand_def()
    outs = var_result_def()
    regs = var_region_def()

    def attr(self, name: str) -> Attribute | None:
        found = self.attributes.get(name)
        return found if found is not None else self.properties.get(name)

    @classmethod
    def build(cls, parser: Parser, operands, types, results, attrs=None):
        vals = parser.resolve_operands(operands, types, parser.pos) if operands else []
        op = cls.create(operands=vals, result_types=list(results))
        if attrs:
            op.attributes.update(attrs)
        return op


def _operand_list(parser: Parser, delim=Parser.Delimiter.NONE):
    return parser.parse_comma_separated_list(delim, parser.parse_unresolved_operand)


def _attr_dict(parser: Parser) -> dict[str, Attribute]:
    return dict(parser.parse_optional_attr_dict())


def _arrow(parser: Parser) -> tuple[Attribute, Attribute]:
    parser.parse_punctuation(":")
    a = parser.parse_type()
    parser.parse_punctuation("->")
    return a, parser.parse_type()


def _unqualified(parser: Parser, kind) -> Attribute:
    """A `tt` type printed without its `!tt.name` (`<f16>` for `!tt.ptr<f16>`), or qualified."""
    if parser._current_token.text == "<":
        return kind.new(kind.parse_parameters(parser))
    return parser.parse_type()


def _define(name: str, parse_fn, doc: str, traits=()):
    cls = type(name.replace(".", "_"), (TTOp,), {
        "name": name, "__doc__": doc, "parse": classmethod(parse_fn),
        "traits": traits_def(*traits)})
    return irdl_op_definition(cls)


# --- one operand, `: T -> U` -------------------------------------------------------

def _unary(keywords: tuple[str, ...] = ()):
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        attrs: dict[str, Attribute] = {}
        for kw in keywords:  # `tt.reshape %x allow_reorder efficient_layout : ...`
            if parser.parse_optional_keyword(kw):
                attrs[kw] = StringAttr(kw)
        attrs.update(_attr_dict(parser))
        if parser.parse_optional_punctuation(","):  # tt.fp_to_fp's `, rounding = rtne`
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            attrs[key] = StringAttr(parser.parse_identifier())
        st, rt = _arrow(parser)
        return cls.build(parser, [src], [st], [rt], attrs)
    return parse


_UNARY = {"tt.splat": (), "tt.broadcast": (), "tt.expand_dims": (), "tt.trans": (),
          "tt.reshape": ("allow_reorder", "efficient_layout"), "tt.fp_to_fp": (), "tt.bitcast": (),
          "tt.int_to_ptr": (), "tt.ptr_to_int": ()}


def _axis_op(cls, parser: Parser):
    pos = parser.pos
    if parser._current_token.text == "{":  # older `{axis = 0 : i32}`
        attrs = _attr_dict(parser)
    else:
        axis = parser.parse_identifier()
        if axis not in ("x", "y", "z"):
            parser.raise_error(f"expected axis x, y or z, got '{axis}'", pos, parser.pos)
        attrs = {"axis": IntegerAttr("xyz".index(axis), 32)}
    attrs.update(_attr_dict(parser))
    parser.parse_punctuation(":")
    return cls.build(parser, [], [], [parser.parse_type()], attrs)


def _make_range(cls, parser: Parser):
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    return cls.build(parser, [], [], [parser.parse_type()], attrs)


def _addptr(cls, parser: Parser):
    ops = _operand_list(parser)
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    pt = parser.parse_type()
    parser.parse_punctuation(",")
    ot = parser.parse_type()
    return cls.build(parser, ops, [pt, ot][: len(ops)], [pt], attrs)


def _load(cls, parser: Parser):
    ops = _operand_list(parser)
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    pt = parser.parse_type()
    rt = pointee_of(pt)
    return cls.build(parser, ops, [pt, mask_type_of(pt), rt][: len(ops)], [rt], attrs)


def _store(cls, parser: Parser):
    ops = _operand_list(parser)
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    pt = parser.parse_type()
    return cls.build(parser, ops, [pt, pointee_of(pt), mask_type_of(pt)][: len(ops)], [], attrs)


def _atomic_rmw(cls, parser: Parser):
    kind = parser.parse_identifier()
    parser.parse_punctuation(",")
    sem = parser.parse_identifier()
    parser.parse_punctuation(",")
    scope = parser.parse_identifier()
    parser.parse_punctuation(",")
    ops = _operand_list(parser)
    attrs = {"atomic_rmw_op": StringAttr(kind), "sem": StringAttr(sem), "scope": StringAttr(scope)}
    attrs.update(_attr_dict(parser))
    parser.parse_punctuation(":")
    ft = parser.parse_function_type()
    return cls.build(parser, ops, list(ft.inputs.data), list(ft.outputs.data), attrs)


def _dot(cls, parser: Parser):
    ops = [parser.parse_unresolved_operand()]
    for _ in range(2):
        parser.parse_punctuation(",")
        ops.append(parser.parse_unresolved_operand())
    attrs: dict[str, Attribute] = {}
    if parser.parse_optional_punctuation(","):
        parser.parse_keyword("inputPrecision")
        parser.parse_punctuation("=")
        attrs["inputPrecision"] = StringAttr(parser.parse_identifier())
    attrs.update(_attr_dict(parser))
    parser.parse_punctuation(":")
    at = parser.parse_type()
    parser.parse_punctuation("*")
    bt = parser.parse_type()
    parser.parse_punctuation("->")
    dt = parser.parse_type()
    return cls.build(parser, ops, [at, bt, dt][: len(ops)], [dt], attrs)


def _join(cls, parser: Parser):
    ops = _operand_list(parser)
    attrs = _attr_dict(parser)
    st, rt = _arrow(parser)
    return cls.build(parser, ops, [st] * len(ops), [rt], attrs)


def _split(cls, parser: Parser):
    src = parser.parse_unresolved_operand()
    attrs = _attr_dict(parser)
    st, rt = _arrow(parser)
    return cls.build(parser, [src], [st], [rt, rt], attrs)


def _return(cls, parser: Parser):
    attrs = _attr_dict(parser)
    ops = []
    if parser._current_token.text.startswith("%"):
        ops = _operand_list(parser)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        return cls.build(parser, ops, types, [], attrs)
    return cls.build(parser, [], [], [], attrs)


def _make_tensor_descriptor(cls, parser: Parser):
    base = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    shape = _operand_list(parser, parser.Delimiter.SQUARE)
    parser.parse_punctuation(",")
    strides = _operand_list(parser, parser.Delimiter.SQUARE)
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    bt = _unqualified(parser, TTPtrType)
    parser.parse_punctuation(",")
    dt = _unqualified(parser, TTTensorDescType)
    attrs["ranks"] = ArrayAttr([IntegerAttr(len(shape), 32), IntegerAttr(len(strides), 32)])
    return cls.build(parser, [base, *shape, *strides], [bt] + [i32] * len(shape) + [i64] * len(strides),
                     [dt], attrs)


def _descriptor_load(cls, parser: Parser):
    d = parser.parse_unresolved_operand()
    idx = _operand_list(parser, parser.Delimiter.SQUARE)
    attrs = _attr_dict(parser)
    dt, rt = _arrow(parser)
    return cls.build(parser, [d, *idx], [dt] + [i32] * len(idx), [rt], attrs)


def _descriptor_store(cls, parser: Parser):
    d = parser.parse_unresolved_operand()
    idx = _operand_list(parser, parser.Delimiter.SQUARE)
    parser.parse_punctuation(",")
    v = parser.parse_unresolved_operand()
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    dt = parser.parse_type()
    parser.parse_punctuation(",")
    vt = parser.parse_type()
    return cls.build(parser, [d, *idx, v], [dt] + [i32] * len(idx) + [vt], [], attrs)


def _descriptor_reduce(cls, parser: Parser):
    kind = parser.parse_identifier()
    parser.parse_punctuation(",")
    d = parser.parse_unresolved_operand()
    idx = _operand_list(parser, parser.Delimiter.SQUARE)
    parser.parse_punctuation(",")
    v = parser.parse_unresolved_operand()
    attrs = {"kind": StringAttr(kind)}
    attrs.update(_attr_dict(parser))
    parser.parse_punctuation(":")
    dt = parser.parse_type()
    parser.parse_punctuation(",")
    vt = parser.parse_type()
    return cls.build(parser, [d, *idx, v], [dt] + [i32] * len(idx) + [vt], [], attrs)


def _make_tensor_ptr(cls, parser: Parser):
    base = parser.parse_unresolved_operand()
    lists = []
    for _ in range(3):
        parser.parse_punctuation(",")
        lists.append(_operand_list(parser, parser.Delimiter.SQUARE))
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    rt = _unqualified(parser, TTPtrType)
    if not (isinstance(rt, TTPtrType) and rt.is_block_pointer):
        parser.raise_error(f"tt.make_tensor_ptr gives a pointer to a tensor, not {rt}")
    shape, strides, offsets = lists
    attrs["rank"] = IntegerAttr(len(shape), 32)
    types = [TTPtrType.new((rt.pointee.element_type, rt.address_space))] + [i64] * (len(shape) + len(strides))
    return cls.build(parser, [base, *shape, *strides, *offsets], types + [i32] * len(offsets), [rt], attrs)


def _advance(cls, parser: Parser):
    p = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    offs = _operand_list(parser, parser.Delimiter.SQUARE)
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    rt = _unqualified(parser, TTPtrType)
    return cls.build(parser, [p, *offs], [rt] + [i32] * len(offs), [rt], attrs)


def _reduce_return(cls, parser: Parser):
    ops = _operand_list(parser)
    attrs = _attr_dict(parser)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    return cls.build(parser, ops, types, [], attrs)


@irdl_op_definition
class TTFuncOp(IRDLOperation):
    """`tt.func [public|private] @name(%arg: T {attrs} loc(...), ...) [-> (...)] attributes {...} {...}`:
    a Triton function (func.func's syntax under Triton's name)."""

    name = "tt.func"
    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr)
    res_attrs = opt_prop_def(ArrayAttr)
    body = region_def()

    @classmethod
    def parse(cls, parser: Parser) -> TTFuncOp:
        visibility = parser.parse_optional_visibility_keyword()
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility"))
        props: dict[str, Attribute] = {"sym_name": StringAttr(name),
                                       "function_type": FunctionType.from_lists(inputs, outputs)}
        if visibility is not None:
            props["sym_visibility"] = visibility
        if arg_attrs is not None:
            props["arg_attrs"] = arg_attrs
        if res_attrs is not None:
            props["res_attrs"] = res_attrs
        op = cls.create(properties=props, regions=[region])
        if extra is not None:
            op.attributes |= extra.data
        return op


@irdl_op_definition
class TTReduceOp(TTOp):
    """`"tt.reduce"(%x) <{axis = 1 : i32}> ({ ^bb0(%a: f32, %b: f32): ... tt.reduce.return %r : f32 })
    : (tensor<128x64xf32>) -> tensor<128xf32>`: a reduction along `axis` whose combiner is the region."""

    name = "tt.reduce"
    axis = opt_prop_def(IntegerAttr)


# What a Triton user writes to get each TTIR op the import does not read, for its error message.
PYTHON_NAMES = {
    "tt.print": "tl.device_print", "tt.assert": "tl.device_assert",
    "tt.elementwise_inline_asm": "tl.inline_asm_elementwise", "tt.histogram": "tl.histogram",
    "tt.scan": "tl.cumsum / tl.cumprod / tl.associative_scan", "tt.gather": "tl.gather",
    "tt.cat": "tl.cat", "tt.clampf": "tl.clamp", "tt.precise_sqrt": "tl.sqrt_rn",
    "tt.precise_divf": "tl.div_rn", "tt.mulhiui": "tl.umulhi", "tt.atomic_cas": "tl.atomic_cas",
    "tt.extern_elementwise": "a libdevice function", "tt.call": "a @triton.jit(noinline=True) call",
    "tt.dot_scaled": "tl.dot_scaled", "tt.descriptor_gather": "desc.gather",
    "tt.descriptor_scatter": "desc.scatter",
    "tt.bitcast": "x.to(dtype, bitcast=True)", "tt.int_to_ptr": "an integer cast to a pointer",
    "tt.ptr_to_int": "a pointer cast to an integer",
}


def unsupported_message(name: str) -> str:
    """The import's error for an op it cannot read or express, naming the op (and the Triton
    call that makes it, where known)."""
    python = PYTHON_NAMES.get(name)
    return f"'{name}'{f' ({python})' if python else ''} is not supported by the Triton import"


_OPS: dict[str, tuple] = {
    "tt.get_program_id": (_axis_op, "This program's index along an axis (x, y, z)."),
    "tt.get_num_programs": (_axis_op, "The grid size along an axis (x, y, z)."),
    "tt.make_range": (_make_range, "[start, end) as a 1-D i32 tensor."),
    "tt.addptr": (_addptr, "Pointer plus offset, elementwise."),
    "tt.load": (_load, "Masked gather (pointer tiles) or block load (block pointers)."),
    "tt.store": (_store, "Masked scatter (pointer tiles) or block store (block pointers)."),
    "tt.atomic_rmw": (_atomic_rmw, "Atomic read-modify-write (`fadd, acq_rel, gpu, %p, %v, %m`)."),
    "tt.dot": (_dot, "a * b + c on the tensor cores."),
    "tt.join": (_join, "Two tensors joined along a new minor dim of size 2."),
    "tt.split": (_split, "A tensor whose minor dim is 2, split into two."),
    "tt.make_tensor_descriptor": (_make_tensor_descriptor, "A device-side TMA descriptor."),
    "tt.descriptor_load": (_descriptor_load, "A TMA load of a block."),
    "tt.descriptor_store": (_descriptor_store, "A TMA store of a block."),
    "tt.descriptor_reduce": (_descriptor_reduce, "A TMA reduction into a block (`add, %d[%i, %j], %v`)."),
    "tt.make_tensor_ptr": (_make_tensor_ptr, "A block pointer (Triton <= 3.8)."),
    "tt.advance": (_advance, "A block pointer moved by offsets."),
    "tt.reduce.return": (_reduce_return, "The combiner region's result."),
    "tt.return": (_return, "Return from a tt.func."),
}

TT_OPS: dict[str, type[TTOp]] = {
    name: _define(name, fn, doc, (IsTerminator(),) if name.endswith("return") else ())
    for name, (fn, doc) in _OPS.items()
}
TT_OPS.update({name: _define(name, _unary(kws), "One operand, `: T -> U`.") for name, kws in _UNARY.items()})
TT_OPS["tt.reduce"] = TTReduceOp

TT = Dialect("tt", [TTFuncOp, *TT_OPS.values()], [TTPtrType, TTTensorDescType])
