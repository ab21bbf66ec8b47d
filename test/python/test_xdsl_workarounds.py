"""Each xDSL 0.74 defect that wsdialects works around is real, and the
workaround works.

For every case, "stock" is xDSL alone (a Context with builtin, func and xDSL's
own `arith`), "ours" is `wsdialects.diagnostics.parse_text` (our context:
the tensor-aware `arith`, MLIR's reading of hexadecimal float literals, located
diagnostics). If a stock test starts failing after an xDSL upgrade, the defect
is fixed upstream and the workaround can go.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith as StockArith
from xdsl.dialects.builtin import Builtin, DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from wsdialects.diagnostics import WsError, parse_text


def stock_parse(text: str):
    ctx = Context()
    for d in (Builtin, Func, StockArith):
        ctx.load_dialect(d)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def body_ops(module):
    func = next(iter(module.body.block.ops))
    return list(func.body.block.ops)


def fn(args: str, body: str) -> str:
    return f"func.func @f({args}) {{\n  {body}\n  func.return\n}}\n"


CMPI_GENERIC = fn(
    "%a: tensor<4xi32>, %b: tensor<4xi32>",
    '%m = "arith.cmpi"(%a, %b) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>',
)
CMPF_GENERIC = fn(
    "%a: tensor<4xf32>, %b: tensor<4xf32>",
    '%m = "arith.cmpf"(%a, %b) <{predicate = 4 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>',
)
CMPI_CUSTOM = fn("%a: tensor<4xi32>, %b: tensor<4xi32>", "%m = arith.cmpi slt, %a, %b : tensor<4xi32>")
SELECT_CUSTOM = fn(
    "%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>",
    "%s = arith.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>",
)
SELECT_GENERIC = fn(
    "%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>",
    '%s = "arith.select"(%c, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
)
SITOFP_CUSTOM = fn("%i: tensor<4xi32>", "%f = arith.sitofp %i : tensor<4xi32> to tensor<4xf32>")
SITOFP_GENERIC = fn("%i: tensor<4xi32>", '%f = "arith.sitofp"(%i) : (tensor<4xi32>) -> tensor<4xf32>')
FPTOSI_GENERIC = fn("%f: tensor<4xf32>", '%i = "arith.fptosi"(%f) : (tensor<4xf32>) -> tensor<4xi32>')
NEG_INF = fn("", "%c = arith.constant dense<0xFF800000> : tensor<2xf32>")

I1 = IntegerType(1)


# --- arith.cmpi / arith.cmpf on tensors ---------------------------------------


@pytest.mark.parametrize("text", [CMPI_GENERIC, CMPF_GENERIC], ids=["cmpi", "cmpf"])
def test_stock_rejects_tensor_compare_result(text):
    with pytest.raises(VerifyException, match="result"):
        stock_parse(text)


def test_stock_gives_custom_cmpi_on_tensors_a_scalar_result():
    # the custom form parses, but the result is one i1 instead of a tensor of i1
    (cmp,) = body_ops(stock_parse(CMPI_CUSTOM))[:1]
    assert cmp.results[0].type == I1


@pytest.mark.parametrize("text", [CMPI_GENERIC, CMPF_GENERIC, CMPI_CUSTOM], ids=["cmpi", "cmpf", "cmpi-custom"])
def test_ours_accepts_tensor_compare(text):
    cmp = body_ops(parse_text(text))[0]
    assert cmp.results[0].type == TensorType(I1, [4])


# --- arith.select with a tensor condition ---------------------------------------


def test_stock_rejects_select_with_tensor_condition():
    with pytest.raises(ParseError):
        stock_parse(SELECT_CUSTOM)
    with pytest.raises(VerifyException, match="cond"):
        stock_parse(SELECT_GENERIC)


@pytest.mark.parametrize("text", [SELECT_CUSTOM, SELECT_GENERIC], ids=["custom", "generic"])
def test_ours_accepts_select_with_tensor_condition(text):
    sel = body_ops(parse_text(text))[0]
    assert sel.operands[0].type == TensorType(I1, [4])
    assert str(sel.results[0].type) == "tensor<4xf32>"


# --- int <-> float casts on tensors ---------------------------------------------


@pytest.mark.parametrize("text", [SITOFP_CUSTOM, SITOFP_GENERIC, FPTOSI_GENERIC], ids=["sitofp", "sitofp-generic", "fptosi"])
def test_stock_rejects_tensor_int_float_casts(text):
    with pytest.raises(VerifyException):
        stock_parse(text)


@pytest.mark.parametrize("text", [SITOFP_CUSTOM, SITOFP_GENERIC, FPTOSI_GENERIC], ids=["sitofp", "sitofp-generic", "fptosi"])
def test_ours_accepts_tensor_int_float_casts(text):
    cast = body_ops(parse_text(text))[0]
    assert isinstance(cast.results[0].type, TensorType)
    assert cast.results[0].type.get_shape() == (4,)


# --- float widening / narrowing ---------------------------------------------------

EXTF_NARROWER = fn("%a: tensor<4xf32>", "%h = arith.extf %a : tensor<4xf32> to tensor<4xf16>")
TRUNCF_WIDER = fn("%a: f16", "%f = arith.truncf %a : f16 to f32")
EXTF_SHAPE = fn("%a: tensor<4xf16>", "%f = arith.extf %a : tensor<4xf16> to tensor<8xf32>")
FLOAT_RESIZE = [EXTF_NARROWER, TRUNCF_WIDER, EXTF_SHAPE]
FLOAT_RESIZE_IDS = ["extf-narrower", "truncf-wider", "extf-shape"]


@pytest.mark.parametrize("text", FLOAT_RESIZE, ids=FLOAT_RESIZE_IDS)
def test_stock_accepts_bad_float_resize(text):
    stock_parse(text)  # verifies: the LLVM emitter would then write an invalid fpext / fptrunc


@pytest.mark.parametrize("text", FLOAT_RESIZE, ids=FLOAT_RESIZE_IDS)
def test_ours_rejects_bad_float_resize(text):
    with pytest.raises(WsError, match=r":2:3: error: 'arith\.(extf|truncf)' "):
        parse_text(text, "f.mlir")


def test_ours_accepts_float_resize():
    ops = body_ops(parse_text(fn("%a: tensor<4xf8E4M3FN>", "%f = arith.extf %a : tensor<4xf8E4M3FN> to tensor<4xf32>\n"
                                 "  %h = arith.truncf %f : tensor<4xf32> to tensor<4xbf16>")))
    assert [str(o.results[0].type) for o in ops[:2]] == ["tensor<4xf32>", "tensor<4xbf16>"]


# --- scf.if yields -----------------------------------------------------------------

IF_NO_ELSE = fn("%c: i1, %x: f32", "%t = scf.if %c -> (f32) {\n    scf.yield %x : f32\n  }")
IF_NO_YIELD = fn("%c: i1, %x: f32", "%t = scf.if %c -> (f32) {\n  } else {\n    scf.yield %x : f32\n  }")
IF_YIELD_TYPE = fn("%c: i1, %x: f32, %i: i32",
                   "%t = scf.if %c -> (f32) {\n    scf.yield %i : i32\n  } else {\n    scf.yield %x : f32\n  }")
BAD_IFS = [IF_NO_ELSE, IF_NO_YIELD, IF_YIELD_TYPE]
BAD_IF_IDS = ["no-else", "no-yield", "yield-type"]


@pytest.mark.parametrize("text", BAD_IFS, ids=BAD_IF_IDS)
def test_stock_accepts_bad_scf_if(text):
    from xdsl.dialects.scf import Scf

    ctx = Context()
    for d in (Builtin, Func, StockArith, Scf):
        ctx.load_dialect(d)
    Parser(ctx, text).parse_module().verify()  # ws-cooperative and the emitter then index past the yield


@pytest.mark.parametrize("text", BAD_IFS, ids=BAD_IF_IDS)
def test_ours_rejects_bad_scf_if(text):
    with pytest.raises(WsError, match=r"f\.mlir:2:3: error: 'scf\.if' (an scf\.if with results|the (then|else) branch)"):
        parse_text(text, "f.mlir")


# --- scf.for steps ----------------------------------------------------------------

FOR_STEP = fn("%n: i32", "%c0 = arith.constant 0 : i32\n  %s = arith.constant STEP : i32\n"
                         "  scf.for %i = %c0 to %n step %s : i32 {\n  }")


@pytest.mark.parametrize("step", [0, -1])
def test_stock_accepts_scf_for_step_not_positive(step):
    from xdsl.dialects.scf import Scf

    ctx = Context()
    for d in (Builtin, Func, StockArith, Scf):
        ctx.load_dialect(d)
    Parser(ctx, FOR_STEP.replace('STEP', str(step))).parse_module().verify()  # a loop that never ends


@pytest.mark.parametrize("step", [0, -1])
def test_ours_rejects_scf_for_step_not_positive(step):
    with pytest.raises(WsError, match=rf"f\.mlir:4:3: error: 'scf\.for' constant step operand must be positive, "
                                      rf"got {step}$"):
        parse_text(FOR_STEP.replace('STEP', str(step)), "f.mlir")


def test_ours_accepts_scf_for_step_positive():
    assert body_ops(parse_text(FOR_STEP.replace('STEP', '2')))[2].name == "scf.for"


# --- hexadecimal float literals ---------------------------------------------------


def _values(module) -> list[float]:
    attr = body_ops(module)[0].value
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    return list(attr.get_values())


def test_stock_reads_hex_float_as_a_large_number():
    values = _values(stock_parse(NEG_INF))
    assert values == [4286578688.0, 4286578688.0]  # 0xFF800000 as an integer


def test_ours_reads_hex_float_as_bits():
    values = _values(parse_text(NEG_INF))
    assert all(v == -math.inf for v in values)


@pytest.mark.parametrize(
    "literal, type_, expected",
    [
        ("0x7F800000", "f32", math.inf),
        ("0x3F800000", "f32", 1.0),
        ("0xFC00", "f16", -math.inf),
        ("0x3C00", "f16", 1.0),
        ("0xFF80", "bf16", -math.inf),
        ("0x3F80", "bf16", 1.0),
        ("0xFFF0000000000000", "f64", -math.inf),
    ],
)
def test_ours_reads_hex_bits_of_every_float_width(literal, type_, expected):
    text = fn("", f"%c = arith.constant dense<{literal}> : tensor<2x{type_}>")
    assert _values(parse_text(text)) == [expected, expected]


def test_ours_keeps_hex_integers_integers():
    text = fn("", "%c = arith.constant dense<0xFF> : tensor<2xi32>")
    assert _values(parse_text(text)) == [255, 255]


def test_ours_rejects_hex_float_wider_than_its_type():
    text = fn("", "%c = arith.constant dense<0xFF800000> : tensor<2xf16>")
    with pytest.raises(WsError, match="too wide for f16"):
        parse_text(text, "t.mlir")


def test_hex_nan_stays_nan():
    text = fn("", "%c = arith.constant dense<0x7FC00000> : tensor<1xf32>")
    (v,) = _values(parse_text(text))
    assert np.isnan(v)


# --- use before definition (xDSL 0.74 checks no dominance) -------------------------

USE_BEFORE_DEF = "func.func @f() {\n  %a = arith.addi %b, %b : i32\n  %b = arith.constant 1 : i32\n  func.return\n}\n"


def test_stock_accepts_use_before_def():
    stock_parse(USE_BEFORE_DEF)


def test_ours_rejects_use_before_def():
    with pytest.raises(WsError) as e:
        parse_text(USE_BEFORE_DEF, "t.mlir")
    assert str(e.value) == "t.mlir:2:3: error: 'arith.addi' operand #0 does not dominate this use"


# --- a symbol defined twice: xDSL 0.74 says so on the module, with no op named -------

REDEFINED = "func.func @f() {\n  func.return\n}\nfunc.func private @f()\n"


def test_stock_reports_redefinition_on_the_module():
    with pytest.raises(VerifyException, match='Redefinition of symbol "f"') as e:
        stock_parse(REDEFINED)
    assert "func.func" not in str(e.value).splitlines()[0]


def test_ours_reports_redefinition_at_the_second_definition():
    with pytest.raises(WsError) as e:
        parse_text(REDEFINED, "t.mlir")
    assert str(e.value) == "t.mlir:4:1: error: 'func.func' redefinition of symbol \"f\" (first defined at line 1)"


# --- stock xdsl-opt ends in a traceback ----------------------------------------------

SYNTAX_ERROR = "func.func @f() {\n  %x = arith.addi 1\n}\n"
VERIFY_ERROR = fn(
    "%a: tensor<4xi32>",
    '%m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi1>',
)


def _tool(name: str) -> str:
    path = shutil.which(name, path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if path is None:
        pytest.skip(f"{name} not installed")
    return path


@pytest.mark.parametrize("text", [SYNTAX_ERROR, VERIFY_ERROR], ids=["syntax", "verifier"])
def test_stock_xdsl_opt_prints_a_traceback(tmp_path, text):
    f = tmp_path / "bad.mlir"
    f.write_text(text)
    r = subprocess.run([_tool("xdsl-opt"), str(f)], capture_output=True, text=True)
    assert r.returncode != 0
    assert "Traceback (most recent call last)" in r.stderr


@pytest.mark.parametrize(
    "text, expected",
    [
        (SYNTAX_ERROR, "bad.mlir:2:19: error: "),
        (VERIFY_ERROR, "bad.mlir:2:3: error: 'arith.cmpi' result must be tensor<4xi1> for operands of type tensor<4xi32>, got tensor<8xi1>"),
    ],
    ids=["syntax", "verifier"],
)
def test_ws_opt_prints_one_located_line(tmp_path, text, expected):
    f = tmp_path / "bad.mlir"
    f.write_text(text)
    r = subprocess.run([_tool("ws-opt"), str(f)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(f.parent) + "/" + expected)


# ---- an unterminated string literal: exponential backtracking in xDSL 0.74's lexer

UNTERMINATED = 'func.func @f() attributes {sym = "' + "x" * 40 + "\n"


def test_stock_lexer_backtracks_exponentially_on_an_unterminated_string():
    # 40 characters take hours in the stock lexer: a child forked from this process (xDSL
    # already imported: no interpreter start to wait for) is still lexing 0.5 s after it began
    # (ours reports the error in about a millisecond: the test below)
    import signal
    import time

    ready, tell = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: lex, and exit 0 if that ever ends (1 if it raised)
        code = 1
        try:
            os.close(ready)
            os.write(tell, b"go")
            stock_parse(UNTERMINATED)
            code = 0
        finally:
            os._exit(code)
    os.close(tell)
    try:
        assert os.read(ready, 2) == b"go"
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            assert not done, f"the stock lexer finished (exit status {os.waitstatus_to_exitcode(status)})"
            time.sleep(0.02)
    finally:
        os.close(ready)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def test_ours_reports_an_unterminated_string_at_once():
    import time

    start = time.monotonic()
    with pytest.raises(WsError, match="1:34: error: End of file reached before closing string literal"):
        parse_text(UNTERMINATED, "k.mlir")
    assert time.monotonic() - start < 1.0


def test_ours_lexes_string_literals_like_stock():
    from xdsl.utils.mlir_lexer import MLIRLexer

    from wsdialects.diagnostics import WsLexer

    for text in ['"plain"', '"esc \\" \\n \\t \\\\ \\41"', '""', '"a\\zz"', '"a\nb"', '"\\4"']:
        ours, stock = WsLexer._unescaped_characters_regex.match(text), MLIRLexer._unescaped_characters_regex.match(text)
        assert (ours and ours.group()) == (stock and stock.group()), text
