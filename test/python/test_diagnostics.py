"""Bad input gives one located diagnostic and exit status 1, never a traceback.

`ws-opt` runs as a subprocess (as users and CI run it) on one bad input and one
bad option, stdin, a missing and an empty file; the other bad inputs (every
dialect) and options run through the same entry point in this process
(`ws_opt.main`, what the console script calls: the same output and exit status,
without an interpreter start and its imports per case); the Python API (`parse_text`, `verify`) raises `WsError` with the
same location. The warp_group check that values cross partitions only through
arefs cannot be written as text (the other partition's values are not in scope
there), so it is exercised on IR built in Python.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from wsdialects.diagnostics import WsError, parse_text, verify
from wsdialects.warp_group import PartitionOp, RegionOp


def _ws_opt() -> str:
    path = shutil.which("ws-opt", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if path is None:
        pytest.skip("ws-opt not installed")
    return path


def run_ws_opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "WS_OPT_TRACEBACK"}
    return subprocess.run([_ws_opt(), *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)


def ws_opt_here(capsys, monkeypatch, *args: str) -> subprocess.CompletedProcess:
    """`ws-opt ARGS` in this process: `ws_opt.main` (the console script is `sys.exit(main())`),
    its exit status, stdout and stderr, as `run_ws_opt` gives them."""
    from wsdialects.tools import ws_opt

    monkeypatch.delenv("WS_OPT_TRACEBACK", raising=False)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        ws_opt.main(list(args))
    out = capsys.readouterr()
    code = exit_.value.code
    return subprocess.CompletedProcess(["ws-opt", *args], code if isinstance(code, int) else 0 if code is None else 1,
                                       out.out, out.err)


def fn(args: str, body: str) -> str:
    return f"func.func @f({args}) {{\n  {body}\n  func.return\n}}\n"


# (id, text, "line:col: error: message start")
CASES = [
    ("syntax", "func.func @f(%n: i32) {\n  %x = arith.addi %n, %n :\n  func.return\n}\n", "3:3: error: type expected"),
    ("unknown-op", fn("", '"foo.bar"() : () -> ()'), "2:3: error: Operation foo.bar is not registered"),
    ("unknown-type", "func.func @f(%p: !tile.pointer<f16>) {\n  func.return\n}\n", "1:18: error: 'tile.pointer' is not registered"),
    ("undefined-value", fn("%n: i32", "%x = arith.addi %n, %m : i32"), "2:23: error: use of undefined value '%m'"),
    ("program-id-axis", fn("", "%p = tile.program_id 5 : i32"), "2:3: error: 'tile.program_id' axis must be 0, 1 or 2, got 5"),
    ("make-range", fn("", "%r = tile.make_range 8 to 8 : tensor<0xi32>"), "2:3: error: 'tile.make_range' range [8, 8) must be non-empty"),
    ("trans-order", fn("%x: tensor<4x8xf16>", "%t = tile.trans %x [1, 1] : tensor<4x8xf16> -> tensor<8x8xf16>"),
     "2:3: error: 'tile.trans' order [1, 1] is not a permutation of the 2 dims"),
    ("dot-k", fn("%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>",
                 "%d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x64xf16> -> tensor<64x64xf32>"),
     "2:3: error: 'tile.dot' dot reduction dims differ: a is 64x32, b is 16x64"),
    ("reduce-kind", fn("%x: tensor<64xf32>", "%r = tile.reduce mean %x, 0 : tensor<64xf32> -> f32"),
     "2:3: error: 'tile.reduce' reduce kind must be one of sum, max, min, got 'mean'"),
    ("desc-indices", fn("%d: !tile.desc<tensor<64x64xf16>>, %i: i32",
                        "%a = tile.desc_load %d[%i] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>"),
     "2:3: error: 'tile.desc_load' !tile.desc<tensor<64x64xf16>> takes 2 indices (or 3 for a 2-D block of a 3-D tensor: a leading index, then the block's), got 1"),
    ("desc-load-not-desc", fn("%p: !tile.ptr<f16>, %i: i32", "%a = tile.desc_load %p[%i, %i] : !tile.ptr<f16> -> tensor<4x4xf16>"),
     "2:36: error: expected a !tile.desc type, got !tile.ptr<f16>"),
    ("load-mask", fn("%p: tensor<8x!tile.ptr<f32>>, %m: tensor<4xi1>",
                     '%v = "tile.load"(%p, %m) : (tensor<8x!tile.ptr<f32>>, tensor<4xi1>) -> tensor<8xf32>'),
     "2:3: error: 'tile.load' mask must be tensor<8xi1>"),
    ("cmpi-shape", fn("%a: tensor<4xi32>", '%m = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<2xi1>'),
     "2:3: error: 'arith.cmpi' result must be tensor<4xi1>"),
    ("ring-depth", fn("", "%r = aref.create : !aref.ring<tensor<4xf32>, depth = 0>"), "2:22: error: aref ring depth must be >= 1, got 0"),
    ("put-payload", fn("%k: i32, %v: tensor<4xf16>",
                       '%r = aref.create : !aref.ring<tensor<4xf32>, depth = 1>\n  '
                       '"aref.put"(%r, %k, %v) : (!aref.ring<tensor<4xf32>, depth = 1>, i32, tensor<4xf16>) -> ()'),
     "3:3: error: 'aref.put' put values (tensor<4xf16>) do not match the ring payload (tensor<4xf32>)"),
    ("get-not-ring", fn("%k: i32, %v: tensor<4xf32>", "%x = aref.get %v[%k] : tensor<4xf32>"),
     "2:26: error: expected an !aref.ring type, got tensor<4xf32>"),
    ("partition-warps", fn("", "warp_group.region {\n    warp_group.partition 0 warps 2 {\n    }\n  }"),
     "3:5: error: 'warp_group.partition' partition 0: num_warps must be a positive multiple of 4"),
    ("use-before-def", "func.func @f() {\n  %a = arith.addi %b, %b : i32\n  %b = arith.constant 1 : i32\n  func.return\n}\n",
     "2:3: error: 'arith.addi' operand #0 does not dominate this use"),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_ws_opt_reports_bad_input_with_location(tmp_path, text, expected, capsys, monkeypatch):
    f = tmp_path / "bad.mlir"
    f.write_text(text)
    if text == CASES[0][1]:
        r = run_ws_opt(str(f))  # the installed tool, as a process
    else:
        r = ws_opt_here(capsys, monkeypatch, str(f))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"{f}:{expected}"), lines[0]


@pytest.mark.parametrize("text, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parse_text_raises_located_ws_error(text, expected):
    with pytest.raises(WsError) as e:
        parse_text(text, "bad.mlir")
    line, col = (int(x) for x in expected.split(":")[:2])
    assert (e.value.file, e.value.line, e.value.col) == ("bad.mlir", line, col)
    assert str(e.value).startswith(f"bad.mlir:{expected}")


def test_stdin_is_named_stdin():
    r = run_ws_opt(stdin=fn("", "%p = tile.program_id 7 : i32"))
    assert r.returncode == 1
    assert r.stderr.startswith("<stdin>:2:3: error: 'tile.program_id' axis must be 0, 1 or 2, got 7")


@pytest.mark.parametrize(
    "args, expected",
    [
        (["-p", "no-such-pass"], "ws-opt: error: unknown pass"),
        (["-p", "ws-partition{bogus=1}"], "ws-opt: error: ws-partition has no option 'bogus'"),
        (["-p", "ws-partition{"], "ws-opt: error: bad pass pipeline 'ws-partition{'"),
        (["--pass-pipeline", "ws-partition"], "ws-opt: error: --pass-pipeline must be 'builtin.module(...)'"),
        (["-t", "no-such-target"], "ws-opt: error: unknown target 'no-such-target'"),
        (["--no-such-flag"], "ws-opt: error: unknown flag '--no-such-flag'"),
    ],
    ids=["unknown-pass", "bad-option", "bad-pipeline", "pass-pipeline-syntax", "unknown-target", "unknown-flag"],
)
def test_ws_opt_reports_bad_options(tmp_path, args, expected, capsys, monkeypatch):
    f = tmp_path / "ok.mlir"
    f.write_text(fn("", "%p = tile.program_id 0 : i32"))
    if args == ["-p", "no-such-pass"]:
        r = run_ws_opt(str(f), *args)  # the installed tool, as a process
    else:
        r = ws_opt_here(capsys, monkeypatch, str(f), *args)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(expected), r.stderr


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.mlir"
    r = run_ws_opt(str(missing))
    assert r.returncode == 1
    assert r.stderr.strip() == f"{missing}: error: cannot read input: No such file or directory"


def test_empty_file_is_an_empty_module(tmp_path):
    f = tmp_path / "empty.mlir"
    f.write_text("")
    r = run_ws_opt(str(f))
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == "builtin.module {\n}\n"


# --- warp_group: values cross partitions only through arefs ------------------------

TWO_PARTITIONS = """\
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 producer warps 4 {
      %x = arith.addi %n, %n : i32
    }
    warp_group.partition 1 consumer warps 4 {
      %y = arith.muli %n, %n : i32
    }
  }
  func.return
}
"""


def _partition_ops(module):
    func = next(iter(module.body.block.ops))
    region = next(op for op in func.body.block.ops if isinstance(op, RegionOp))
    p0, p1 = region.partitions
    return region, next(iter(p0.body.block.ops)), next(iter(p1.body.block.ops))


def test_value_crossing_partitions_is_rejected():
    module = parse_text(TWO_PARTITIONS, "wg.mlir")
    region, x, y = _partition_ops(module)
    y.operands[0] = x.results[0]  # partition 1 now reads partition 0's %x directly
    with pytest.raises(WsError) as e:
        verify(module, "wg.mlir")
    assert str(e.value) == (
        "wg.mlir:2:3: error: 'warp_group.region' value defined in partition 0 is used by arith.muli "
        "in partition 1; values cross partitions only through arefs"
    )


def test_values_from_outside_the_region_are_shared():
    module = parse_text(TWO_PARTITIONS, "wg.mlir")
    verify(module, "wg.mlir")  # %n, defined before the region, is visible to both


def test_partition_built_in_python_prints_and_reparses():
    # an empty partition built in Python prints `{}`-like text that must re-parse
    from io import StringIO

    from xdsl.dialects.builtin import ModuleOp
    from xdsl.printer import Printer

    module = ModuleOp([RegionOp([PartitionOp(0, 4), PartitionOp(1, 8, regs=232, role="consumer")])])
    out = StringIO()
    Printer(stream=out).print_op(module)
    text = out.getvalue()
    again = StringIO()
    Printer(stream=again).print_op(parse_text(text, "built.mlir"))
    assert again.getvalue() == text


@pytest.mark.parametrize("role", ["producer", "warps", "tma loads", "a-b", '"q"'])
def test_partition_role_round_trips(role):
    from io import StringIO

    from xdsl.dialects.builtin import ModuleOp
    from xdsl.printer import Printer

    module = ModuleOp([RegionOp([PartitionOp(0, 4, role=role)])])
    out = StringIO()
    Printer(stream=out).print_op(module)
    reparsed = parse_text(out.getvalue(), "role.mlir")
    region = next(iter(reparsed.body.block.ops))
    assert region.partitions[0].role_name == role
