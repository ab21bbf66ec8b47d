"""wsdialects.irfast's routines give what xDSL 0.74's give, on our kernels: the fast
`Operation.clone` builds the same objects with the same fields (use lists included), the
remembered `OpDef.verify` passes and fails where xDSL's does, `verify_op` raises what
`Operation.verify` raises, `walk_orders` lists `walk()`'s orders."""

from __future__ import annotations

import os

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, Use
from xdsl.irdl.operations import OpDef
from xdsl.utils.exceptions import VerifyException

from wsdialects import irfast
from wsdialects.diagnostics import parse_text

from conftest import REPO

# ops of every dialect: warp_group regions, nvgpu / aref / tile ops, scf loops, a kernel
FILES = ["test/dialects/warp_group/ops.mlir", "test/dialects/nvgpu/ops.mlir", "test/dialects/aref/ops.mlir",
         "test/dialects/tile/ops.mlir", "examples/kernels/gemm.mlir"]


def _modules():
    return [parse_text((REPO / f).read_text(), f) for f in FILES]


def _xdsl_clone(op: Operation, *a, **k) -> Operation:
    Operation.clone = irfast._xdsl_clone
    try:
        return op.clone(*a, **k)
    finally:
        Operation.clone = irfast.fast_clone


def same_graph(a, b) -> int:
    """Walk two object graphs side by side: the same classes, the same fields in the same
    order, the same plain values, the same attribute objects, IR objects in one-to-one
    correspondence (use lists included). Returns the number of objects compared."""
    seen: dict[int, object] = {}
    todo: list = []

    def val(x, y, path: str) -> None:
        if isinstance(x, (Operation, Block, Region, SSAValue, Use)):
            assert type(x) is type(y), f"{path}: {type(x).__name__} / {type(y).__name__}"
            if id(x) in seen:
                assert seen[id(x)] is y, f"{path}: not the corresponding object"
                return
            seen[id(x)] = y
            todo.append((x, y, path))
        elif isinstance(x, (tuple, list)):
            assert type(x) is type(y) and len(x) == len(y), path
            for i, (p, q) in enumerate(zip(x, y)):
                val(p, q, f"{path}[{i}]")
        elif isinstance(x, dict):
            assert type(x) is type(y) and list(x) == list(y), path
            for k in x:
                val(x[k], y[k], f"{path}.{k}")
        elif isinstance(x, Attribute):
            assert x is y, f"{path}: {x} / {y}"
        else:
            assert type(x) is type(y) and x == y, f"{path}: {x!r} / {y!r}"

    val(a, b, "root")
    n = 0
    while todo:
        x, y, path = todo.pop()
        n += 1
        assert list(vars(x)) == list(vars(y)), f"{path} ({type(x).__name__}): {list(vars(x))} / {list(vars(y))}"
        for k, v in vars(x).items():
            val(v, vars(y)[k], f"{path}.{k}")
    return n


def test_clone_is_xdsls_clone_field_by_field():
    for m in _modules():
        assert same_graph(_xdsl_clone(m), m.clone()) > 20
        assert same_graph(_xdsl_clone(m, clone_name_hints=False), m.clone(clone_name_hints=False)) > 20


def test_clone_of_an_inner_op_with_mappers():
    """An op cloned inside its module (its operands from outside: their use lists grow), with
    the caller's mappers, without operands, without names: as xDSL's clone does."""
    for m in _modules():
        twin = _xdsl_clone(m)  # the same module, sharing its attributes
        inner = [o for o in m.walk() if o.regions and o is not m and o.parent_op() is not m]
        twin_inner = [o for o in twin.walk() if o.regions and o is not twin and o.parent_op() is not twin]
        assert len(inner) == len(twin_inner)
        for o, t in list(zip(inner, twin_inner))[:3]:
            for kw in ({}, {"clone_operands": False}, {"clone_name_hints": False}):
                vm, bm, tvm, tbm = {}, {}, {}, {}
                got = (o.clone(vm, bm, **kw), vm, bm)
                want = (_xdsl_clone(t, tvm, tbm, **kw), tvm, tbm)
                same_graph((twin, want[0], list(want[1].items()), list(want[2].items())),
                           (m, got[0], list(got[1].items()), list(got[2].items())))


def test_walk_orders_are_walks():
    for m in _modules():
        pre, post = irfast.walk_orders(m)
        assert pre == list(m.walk()) and post == list(m.walk(region_first=True))


@pytest.mark.skipif(os.environ.get(irfast.ENV, "1").strip() == "0", reason="WSDIALECTS_XDSL_FAST=0: not installed")
def test_remembered_constraints_fail_where_xdsl_fails():
    """A key that passed is not checked again; an op with another key is, and fails with
    xDSL's message."""
    i32, i64 = IntegerType(32), IntegerType(64)
    block = Block(arg_types=[i32, i32, i64])
    a, b, c = block.args
    good = arith.AddiOp(a, b)
    block.add_op(good)
    good.verify_()  # passes, remembered
    op_def = good.get_irdl_definition()
    info = irfast._defs[id(op_def)]
    key = irfast._constraint_key(info[1], info[2], good)
    assert irfast._ok.get((id(op_def), key)) is op_def
    assert irfast._ok_ids[(id(op_def), *map(id, key))] == (op_def, key)
    bad = arith.AddiOp.create(operands=[a, c], result_types=[i32])  # operand types differ
    block.add_op(bad)
    with pytest.raises(VerifyException) as ours:
        bad.verify_()
    with pytest.raises(VerifyException) as stock:
        irfast._xdsl_opdef_verify(bad.get_irdl_definition(), bad)
    assert str(ours.value) == str(stock.value)
    bad_twice = arith.AddiOp.create(operands=[a, c], result_types=[i32])
    block.add_op(bad_twice)
    with pytest.raises(VerifyException):  # a failure is never remembered
        bad_twice.verify_()


def test_every_op_passes_or_fails_as_with_xdsl():
    for m in _modules():
        for op in m.walk():
            op_def = op.get_irdl_definition() if hasattr(op, "get_irdl_definition") else None
            if not isinstance(op_def, OpDef):
                continue
            irfast._xdsl_opdef_verify(op_def, op)  # stock: passes
            irfast.opdef_verify(op_def, op)  # ours: passes (and again from the memo)
            irfast.opdef_verify(op_def, op)


def test_verify_op_raises_what_operation_verify_raises():
    """The terminator rule, an op's own verifier, an erased operand: the same exception."""
    m = parse_text((REPO / "examples/kernels/gemm.mlir").read_text(), "gemm.mlir")
    func = next(iter(m.body.block.ops))
    ret = func.body.block.last_op
    const = next(o for o in func.body.block.ops if isinstance(o, arith.ConstantOp))
    cases = []
    moved = const.clone()  # a non-terminator at the end of a func body
    func.body.block.add_op(moved)
    cases.append(moved)
    wrong = arith.ConstantOp.create(properties=dict(const.properties), result_types=[IntegerType(7)])
    func.body.block.insert_op_before(wrong, ret)
    cases.append(wrong)
    for op in cases:
        with pytest.raises(Exception) as stock:
            irfast._xdsl_verify(op, verify_nested_ops=False)
        with pytest.raises(Exception) as ours:
            irfast.verify_op(op)
        assert type(ours.value) is type(stock.value) and str(ours.value) == str(stock.value)
    assert isinstance(m, ModuleOp)


LEXER_EDGES = ["#-}", "{-#", "0xi32", "0x1F", "1.5e", "1.5e+3", "128x64xf16", "%12abc", "%-x", "#-x", "!tile.desc-x",
               "// c", "/ /", '@"s"', "@_a.b$", "é", "1e5", "0.", ".", "...", "-> -", "^bb0", "%", "\u2028",
               "x//y\n z", "-1.0", "0x", "00x1", "'", "%a#b!c^d", "\t\n\r\v\f x", '"a\\"b" "\\0g"', "dense<0xFF>"]


def _tokens(lexer_cls, text: str) -> list:
    from xdsl.utils.exceptions import ParseError
    from xdsl.utils.lexer import Input
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    lexer, out = lexer_cls(Input(text, "f")), []
    while True:
        try:
            tok = lexer.lex()
        except ParseError as e:
            return out + [("error", e.span.start, e.span.end, e.msg, lexer.pos)]
        out.append((tok.kind, type(tok.span), vars(tok.span), lexer.pos))
        if tok.kind == MLIRTokenKind.EOF:
            return out


def test_lexer_fast_path_gives_xdsls_tokens():
    """WsLexer.lex's one-regex path: the same tokens (kind, span fields, position after) as
    xDSL's MLIRLexer.lex, on our files and on the tokens it hands to xDSL's lexer."""
    from xdsl.utils.mlir_lexer import MLIRLexer

    from wsdialects.diagnostics import WsLexer

    class Stock(WsLexer):
        lex = MLIRLexer.lex

    texts = [(REPO / f).read_text() for f in FILES] + LEXER_EDGES
    for text in texts:
        assert _tokens(WsLexer, text) == _tokens(Stock, text)


def _printed(op_or_attr, generic: bool = False, stock: bool = False) -> str:
    from io import StringIO

    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
    from xdsl.printer import Printer
    from xdsl.utils.base_printer import BasePrinter

    patched = (BasePrinter.print_string, Printer.print_bytes_literal, DenseIntOrFPElementsAttr.print_without_type)
    if stock:
        BasePrinter.print_string = irfast._xdsl_print_string
        Printer.print_bytes_literal = irfast._xdsl_print_bytes_literal
        DenseIntOrFPElementsAttr.print_without_type = irfast._xdsl_dense_print
    try:
        out = StringIO()
        p = Printer(stream=out, print_generic_format=generic, print_debuginfo=generic)
        if isinstance(op_or_attr, Operation):
            p.print_op(op_or_attr)
        else:
            p.print_attribute(op_or_attr)
        return out.getvalue() + f"|{p._current_line}:{p._current_column}"
    finally:
        BasePrinter.print_string, Printer.print_bytes_literal, DenseIntOrFPElementsAttr.print_without_type = patched


def test_printing_is_xdsls_printing():
    """The printer's fast paths (a string without newlines written at once, a string literal
    at once, a splat constant from its first element): xDSL's text and column, on our files
    and on constants whose elements are equal but not the same bytes, NaNs, -0.0, integers."""
    import math

    from xdsl.dialects.builtin import (DenseIntOrFPElementsAttr, Float16Type, Float32Type, IntegerType, StringAttr,
                                       TensorType, i1)

    for m in _modules():
        for generic in (False, True):
            assert _printed(m, generic) == _printed(m, generic, stock=True)
    f32, f16, i8 = Float32Type(), Float16Type(), IntegerType(8)
    attrs = [DenseIntOrFPElementsAttr.from_list(TensorType(t, shape), values) for t, shape, values in [
        (f32, [2, 3], [0.0] * 6), (f32, [4], [0.0, -0.0, 0.0, 0.0]), (f32, [3], [math.nan] * 3),
        (f32, [200], [math.inf] * 200), (f16, [2, 2], [1.5] * 4), (f16, [2], [1.5, 2.5]), (i8, [8], [-3] * 8),
        (i8, [0], []), (i1, [4], [1] * 4), (f32, [101], [float(i) for i in range(101)]),
        (IntegerType(32), [], [7])]]
    attrs += [StringAttr(s) for s in ["plain", 'q"uote', "back\\slash", "new\nline", "tab\t", "é", ""]]
    for a in attrs:
        assert _printed(a) == _printed(a, stock=True)
        if isinstance(a, DenseIntOrFPElementsAttr) and len(a):
            assert a.is_splat() == irfast._xdsl_dense_is_splat(a)


def test_isolated_from_above_is_xdsls():
    """func.func's IsolatedFromAbove check: passes on our files, and a value from outside
    the function fails with xDSL's message at the same op."""
    from xdsl.traits import IsolatedFromAbove

    trait = IsolatedFromAbove()
    for m in _modules():
        for op in m.walk():
            if op.has_trait(IsolatedFromAbove):
                irfast._xdsl_isolated_verify(trait, op)
                irfast.isolated_from_above_verify(trait, op)
    m = parse_text((REPO / "examples/kernels/gemm.mlir").read_text(), "gemm.mlir")
    func = next(iter(m.body.block.ops))
    outside = next(o for o in func.body.block.ops if isinstance(o, arith.ConstantOp)).clone()
    m.body.block.insert_op_before(outside, func)
    loop = next(o for o in func.walk() if o.name == "scf.for")
    user = next(o for o in loop.body.block.ops if o.operands)
    user.operands = [outside.results[0], *user.operands[1:]]
    with pytest.raises(VerifyException) as stock:
        irfast._xdsl_isolated_verify(trait, func)
    with pytest.raises(VerifyException) as ours:
        irfast.isolated_from_above_verify(trait, func)
    assert str(ours.value) == str(stock.value)


def test_op_and_attribute_building_is_xdsls():
    """irdl_build_arg_list lays out operands, results, regions as xDSL's does (and fails with
    its messages); Attribute.__post_init__ still refuses an attribute of neither kind."""
    from xdsl.dialects.builtin import i32
    from xdsl.irdl import AnyAttr, OptOperandDef, VarOperandDef
    from xdsl.irdl.operations import VarIRConstruct

    block = Block(arg_types=[i32, i32])
    a, b = block.args
    defs = arith.AddiOp.get_irdl_definition().operands
    var_defs = [("xs", VarOperandDef(AnyAttr())), ("opt", OptOperandDef(AnyAttr())), *defs]
    for arg_defs, args in [(defs, [a, b]), (defs, [[a], (b,)]), (defs, [a]), (defs, [None, b]), (defs, [[a, b], b]),
                           (var_defs, [[a, b], None, a, b]), (var_defs, [(), [a], a, b]),
                           (var_defs, [a, [a, b], a, b]), (var_defs, [a, a, a, b])]:
        for construct in (VarIRConstruct.OPERAND, VarIRConstruct.RESULT):
            outcomes = []
            for fn in (irfast._xdsl_build_arg_list, irfast.build_arg_list):
                try:
                    outcomes.append(fn(construct, args, arg_defs, "prefix: "))
                except ValueError as e:
                    outcomes.append(str(e))
            assert outcomes[0] == outcomes[1]

    from xdsl.ir import Attribute

    class Neither(Attribute):
        name = "test.neither"

    with pytest.raises(TypeError, match="Data or ParametrizedAttribute"):
        Neither()


def test_dense_literal_types_are_checked_as_xdsl_checks_them():
    """WsParser builds the dense literal type constraint once; the same literals are
    accepted and the same ones refused, with xDSL's message at the same place."""
    from xdsl.parser.attribute_parser import AttrParser
    from xdsl.utils.exceptions import ParseError

    from wsdialects import diagnostics
    from wsdialects.context import make_context

    class Stock(diagnostics.WsParser):
        _parse_dense_literal_type = AttrParser._parse_dense_literal_type

    def outcome(cls, text):
        diagnostics._attr_memo.clear()
        try:
            module = cls(make_context(), text, "d.mlir").parse_module()
        except ParseError as e:
            return (e.span.start, e.span.end, e.msg)
        return str(next(iter(module.body.block.ops)).attributes["v"])

    for t in ["tensor<4xf32>", "tensor<2x2xi8>", "memref<4xf32>", "vector<4xf32>", "tensor<?xf32>", "!tile.ptr<f16>",
              "i32", "tensor<4xindex>", "tensor<1xcomplex<f32>>", "tensor<0xf16>"]:
        for v in ["1.0", "1", "[1, 2, 3, 4]", ""]:
            text = f"func.func @f() attributes {{v = dense<{v}> : {t}}} {{\n  func.return\n}}\n"
            assert outcome(diagnostics.WsParser, text) == outcome(Stock, text), text


class _XdslWalks:
    """xDSL's walks in place of ours, for the block."""

    def __enter__(self):
        self.ours = (Operation.walk, Region.walk, Block.walk)
        Operation.walk, Region.walk, Block.walk = irfast._xdsl_walks

    def __exit__(self, *exc):
        Operation.walk, Region.walk, Block.walk = self.ours


def _walk_and_change(module, reverse: bool, region_first: bool, policy: int) -> list:
    """Walk `module`, changing it at some steps (erase the op, insert before / after it,
    erase the next op, move the op to its block's end, erase its parent, detach its first
    region); the ops seen."""
    from xdsl.dialects.builtin import StringAttr, i32

    seen = []
    for step, op in enumerate(module.walk(reverse=reverse, region_first=region_first)):
        seen.append(op.attributes["t"].data if "t" in op.attributes else op.name)
        if op is module or (step % 3 != policy % 3 and policy < 7):
            continue
        block = op.parent
        action = 6 if policy == 7 else (step // 3 + policy) % 7
        if action == 6 and op.regions:
            op.detach_region(0)
        if block is None:
            continue
        new = arith.ConstantOp.from_int_and_width(step, i32)
        new.attributes["t"] = StringAttr(f"new{step}")
        if action == 0:
            block.erase_op(op, safe_erase=False)
        elif action == 1:
            block.insert_op_after(new, op)
        elif action == 2:
            block.insert_op_before(new, op)
        elif action == 3 and op.next_op is not None:
            block.erase_op(op.next_op, safe_erase=False)
        elif action == 4:
            op.detach()
            block.add_op(op)
        elif action == 5 and block.parent_op() is not None and block.parent_op() is not module:
            parent = block.parent_op()
            parent.parent.erase_op(parent, safe_erase=False)
    return seen


def test_walks_are_xdsls_walks_even_as_the_ir_changes():
    from xdsl.dialects.builtin import StringAttr

    m = parse_text((REPO / "examples/kernels/flash_attention.mlir").read_text(), "fa.mlir")
    for i, op in enumerate(m.walk()):
        op.attributes["t"] = StringAttr(str(i))
    for reverse in (False, True):
        for region_first in (False, True):
            assert [o.attributes["t"] for o in m.walk(reverse=reverse, region_first=region_first)] == \
                [o.attributes["t"] for o in irfast._xdsl_walks[0](m, reverse=reverse, region_first=region_first)]
            for policy in range(8):
                ours, theirs = m.clone(), m.clone()
                got = _walk_and_change(ours, reverse, region_first, policy)
                with _XdslWalks():
                    want = _walk_and_change(theirs, reverse, region_first, policy)
                assert got == want, (reverse, region_first, policy)
    region = m.body.block.first_op.regions[0]
    assert list(region.walk()) == list(irfast._xdsl_walks[1](region))
    assert list(region.block.walk(reverse=True)) == list(irfast._xdsl_walks[2](region.block, reverse=True))


@pytest.mark.skipif(os.environ.get(irfast.ENV, "1").strip() == "0", reason="WSDIALECTS_XDSL_FAST=0: not installed")
def test_xdsl_fast_0_keeps_xdsls_routines_and_the_output(capsys, monkeypatch):
    """`WSDIALECTS_XDSL_FAST=0` (for a host compiler that wants xDSL untouched): wsdialects
    installs nothing into xDSL's classes, and `ws-opt` prints the same IR and remarks as with
    the fast routines (ws-opt's entry point in this process, where they are installed)."""
    import os
    import subprocess
    import sys

    from test_diagnostics import ws_opt_here

    code = ("import sys\n"
            "from xdsl.ir import Operation\n"
            "from xdsl.irdl.operations import OpDef\n"
            "xdsl = (Operation.clone, Operation.walk, OpDef.verify)\n"
            "from wsdialects.tools import ws_opt\n"
            "assert (Operation.clone, Operation.walk, OpDef.verify) == xdsl, 'installed'\n"
            "sys.exit(ws_opt.main(sys.argv[1:]))\n")
    kernel = str(REPO / "examples" / "kernels" / "gemm.mlir")
    args = [kernel, "-p", "ws-specialize{cooperative=2}"]
    plain = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, WSDIALECTS_XDSL_FAST="0"))
    assert plain.returncode == 0, plain.stderr
    fast = ws_opt_here(capsys, monkeypatch, *args)
    assert fast.returncode == 0, fast.stderr
    assert (plain.stdout, plain.stderr) == (fast.stdout, fast.stderr)
    assert irfast._installed and Operation.clone is irfast.fast_clone  # (this process: installed)
