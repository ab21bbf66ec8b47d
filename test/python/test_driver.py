"""The command-line drivers' conventions (wsdialects/tools): ws-opt and ws-schedule share
exit codes and flag names; ws-opt's --help, --version, --verify-diagnostics matching
rules, did-you-mean answers without Python reprs; the GPU runtime names what to install.
The lit tests in test/dialects/ws-opt/ run the same tools as processes."""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from wsdialects.fuzz.__main__ import _parser as fuzz_parser
from wsdialects.passes import PIPELINE, available_passes
from wsdialects.tools import ws_opt, ws_schedule
from wsdialects.tools.pipeline_spec import describe, options_of, pass_help
from wsdialects.tools.verify_diagnostics import Diagnostic, check, expectations

REPO = Path(__file__).resolve().parents[2]
OK = "func.func @k(%n: i32) attributes {tile.kernel} {\n  %p = tile.program_id 0 : i32\n  func.return\n}\n"


def opt(argv, capsys) -> tuple[int, str, str]:
    """ws-opt in this process: (exit status, stdout, stderr)."""
    with pytest.raises(SystemExit) as e:
        ws_opt.main(argv)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.fixture
def ok_file(tmp_path):
    f = tmp_path / "ok.mlir"
    f.write_text(OK)
    return str(f)


# ----------------------------------------------------------------------------- --help

def test_help_lists_every_pass_with_its_description_and_options(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    code, out, _ = opt(["--help"], capsys)
    assert code == 0
    text = " ".join(out.split())  # descriptions may wrap, between words
    for name, _ in PIPELINE:
        cls = available_passes()[name]()
        assert f"\n  {name}\n" in out
        assert describe(cls) in text and describe(cls) != "(no description)"
        for option, _typ, default in options_of(cls):
            assert "_" not in option
            assert f"{option}={str(default).lower() if isinstance(default, bool) else default}" in text


@pytest.mark.parametrize("width", [40, 60, 100])
def test_help_never_wraps_inside_a_word(width):
    lines = pass_help(width).splitlines()
    assert not [ln for ln in lines if re.search(r"[A-Za-z]-$", ln)]
    assert all(len(ln) <= width or " " not in ln.strip() for ln in lines)


@pytest.mark.parametrize("parser", [lambda: ws_opt._arg_parser(with_passes=False), ws_schedule._parser,
                                    fuzz_parser], ids=["ws-opt", "ws-schedule", "fuzz"])
def test_usage_metavars_survive_argparse_wrapping(parser):
    """CPython's argparse before 3.11.4 splits a wrapped usage line with a regular expression
    that drops a metavar's parentheses and brackets (on Debian 12's Python 3.11.2 ws-opt's
    usage read `--pass-pipeline 'builtin.modulePIPE'`, and docs/tools.md, generated from it,
    differed by interpreter). So no metavar has them, and the usage names each one whole."""
    p = parser()
    metavars = [a.metavar for a in p._actions if isinstance(a.metavar, str)]
    assert metavars and not [m for m in metavars if re.search(r"[][()]", m)]
    usage = " ".join(p.format_usage().split())
    assert all(m in usage for m in metavars)


@pytest.mark.parametrize("main", [ws_opt.main, ws_schedule.main], ids=["ws-opt", "ws-schedule"])
def test_version_is_the_package_version(main, capsys):
    try:
        code = main(["--version"])
    except SystemExit as e:
        code = e.code
    assert code == 0
    assert capsys.readouterr().out.strip().endswith(f"(wsdialects) {version('wsdialects')}")


# ------------------------------------------------------------- shared conventions

def test_both_tools_spell_the_shared_flags_alike():
    flags = {"-o", "--output-file", "--output", "--version", "-h", "--help"}
    for parser in (ws_opt._arg_parser(with_passes=False), ws_schedule._parser()):
        assert flags <= {s for a in parser._actions for s in a.option_strings}


@pytest.mark.parametrize("argv", [["--bogus"], ["{ok}", "--split"], ["{ok}", "a", "b"], ["{ok}", "-p", "ws-x"],
                                  ["{ok}", "-t", "x"], ["{ok}", "-p", "ws-specialize{depth=x}"]])
def test_ws_opt_usage_errors_exit_1(argv, ok_file, capsys):
    code, _, err = opt([a.replace("{ok}", ok_file) for a in argv], capsys)
    assert code == 1 and err.startswith("ws-opt: error: ") and err.count("error:") == 1


@pytest.mark.parametrize("argv", [[], ["--bogus"], ["g.json", "--solver", "cp"], ["g.json", "--time-limit", "x"]])
def test_ws_schedule_usage_errors_exit_1(argv, capsys):
    assert ws_schedule.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("ws-schedule: error: ") and err.count("error:") == 1


def test_ws_opt_internal_error_exits_2_without_traceback(ok_file, capsys, monkeypatch):
    def broken(*a, **k):
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(ws_opt, "parse_source", broken)
    monkeypatch.delenv("WS_OPT_TRACEBACK", raising=False)
    code, _, err = opt([ok_file], capsys)
    assert code == 2
    assert "ws-opt: internal error: ZeroDivisionError: a defect" in err and "Traceback" not in err


@pytest.mark.parametrize("flag", ["-o", "--output-file", "--output"])
def test_ws_opt_output_flags(flag, ok_file, tmp_path, capsys):
    out = tmp_path / "out.mlir"
    assert opt([ok_file, flag, str(out)], capsys)[0] == 0
    assert "tile.program_id" in out.read_text()


@pytest.mark.parametrize("argv, says", [
    (["-p", "ws-specialise"], "unknown pass 'ws-specialise' (did you mean 'ws-specialize'?)"),
    (["-p", "ws-hopper{mma_dept=1}"], "ws-hopper has no option 'mma_dept' (did you mean 'mma-depth'?)"),
    (["-p", "ws-specialize{depht=1}"], "(did you mean 'depth'?)"),
    (["-p", "ws-specialize{depth=1,2}"], "option 'depth' of ws-specialize takes one value, an integer; got 2 values (1,2)"),
    (["-p", "ws-schedule{time-limit=soon}"], "option 'time-limit' of ws-schedule expects an integer or a number, got 'soon'"),
    (["-t", "llvn"], "unknown target 'llvn' (did you mean 'llvm'?)"),
    (["--mlir-timnig"], "unknown flag '--mlir-timnig' (did you mean '--mlir-timing'?)"),
])
def test_mistakes_are_answered_in_the_users_spelling(argv, says, ok_file, capsys):
    code, _, err = opt([ok_file, *argv], capsys)
    assert code == 1 and says in err, err
    assert not re.search(r"\[['\"]|\(['\"]|<class|\(\d+, \d+\)|mma_depth|time_limit", err), err


# ------------------------------------------------------------- --verify-diagnostics

def test_directive_lines_above_and_below_skip_other_directives():
    text = "\n".join([
        "op1",                                # 1
        "// expected-error@above {{a}}",      # 2 -> 1
        "// expected-warning@above {{b}}",    # 3 -> 1 (line 2 holds a directive)
        "// expected-remark@below {{c}}",     # 4 -> 10 (lines 5-9 hold directives, as in MLIR)
        "// expected-note@below {{d}}",       # 5 -> 10
        "op2 // expected-error {{e}}",        # 6 -> 6
        "// expected-error@-6 {{f}}",         # 7 -> 1
        "// expected-error@+2 {{g}}",         # 8 -> 10
        "// expected-error@unknown {{h}}",    # 9 -> 0
        "op3",                                # 10
        "// expected-error {{no closing",     # not a directive: no }}
        "// prose about expected-error comments is not a directive",
    ])
    got = [(e.severity, e.line, e.text) for e in expectations(text, "f.mlir")]
    assert got == [("error", 1, "a"), ("warning", 1, "b"), ("remark", 10, "c"), ("note", 10, "d"), ("error", 6, "e"),
                   ("error", 1, "f"), ("error", 10, "g"), ("error", 0, "h")]


def test_regex_directives_mix_literal_text_and_patterns():
    (e,) = expectations("x // expected-error-re {{got {{[0-9]+}} (of 3) values}}", "f.mlir")
    assert e.matches(Diagnostic("error", 1, 1, "op got 12 (of 3) values here"))
    assert not e.matches(Diagnostic("error", 1, 1, "op got 12 of 3 values"))  # ( ) are literal outside {{ }}
    assert not e.matches(Diagnostic("warning", 1, 1, "got 1 (of 3) values"))


def test_mismatches_are_located_as_mlir_opt_reports_them():
    expected = expectations("a // expected-error {{one}}\nb\n// expected-warning@unknown {{w}}", "f.mlir")
    produced = [Diagnostic("error", 1, 3, "the one here"), Diagnostic("remark", 2, 1, "extra")]
    assert check("f.mlir", expected, produced) == [
        "f.mlir:2:1: error: unexpected remark: extra",
        'f.mlir:3:4: error: expected warning "w" (at an unknown location) was not produced']
    assert check("f.mlir", expectations("a // expected-error {{one}}", "f.mlir"),
                 [Diagnostic("error", 1, 3, "the one here")]) == []


def test_a_bad_regex_is_a_located_error(tmp_path, capsys):
    f = tmp_path / "re.mlir"
    f.write_text(OK + "// expected-error-re {{x{{[}}y}}\n")
    code, _, err = opt([str(f), "--verify-diagnostics"], capsys)
    assert code == 1 and err.startswith(f"{f}:5:4: error: bad regular expression in expected-error-re")


def test_split_parts_keep_their_line_numbers(tmp_path, capsys):
    f = tmp_path / "s.mlir"
    f.write_text(OK + "// -----\n" + OK.replace("program_id 0", "program_id 4"))
    code, out, err = opt([str(f), "--split-input-file"], capsys)
    assert code == 1 and out.count("tile.program_id 0") == 1 and "// -----" not in out
    assert err.startswith(f"{f}:7:3: error: 'tile.program_id' axis must be 0, 1 or 2, got 4")
    f.write_text(OK + "// -----\n" + OK)
    code, out, _ = opt([str(f), "--split-input-file"], capsys)
    assert code == 0 and out.count("\n// -----\n") == 1 and out.count("tile.program_id 0") == 2


# ------------------------------------------------------------------ GPU runtime

@pytest.mark.parametrize("missing, package", [(("torch",), "torch"),
                                              (("cuda.bindings.driver", "cuda.cuda"), "cuda-python")])
def test_launching_without_a_runtime_package_names_what_to_install(missing, package, monkeypatch):
    from wsdialects.runtime import launch

    for name in missing:
        monkeypatch.setitem(sys.modules, name, None)  # `import name` raises ImportError
    if package == "cuda-python":  # torch may be absent here too; only cuda-python is under test
        monkeypatch.setattr(launch, "_torch", lambda: None)
    with pytest.raises(ImportError) as e:
        launch.Launcher("", None)[1]
    assert isinstance(e.value, launch.MissingDependency) and isinstance(e.value, launch.LaunchError)
    assert f"launching a kernel needs {package}" in str(e.value)
    assert "pip install" in str(e.value) and "ModuleNotFoundError" not in str(e.value)


@pytest.mark.parametrize("extras, command", [(["test"], "pip install torch"),
                                             (["test", "gpu"], "pip install 'wsdialects[gpu]'")])
def test_the_install_hint_follows_the_packages_extras(extras, command, monkeypatch):
    import importlib.metadata

    from wsdialects.runtime import launch

    class Meta:
        def get_all(self, key):
            return extras if key == "Provides-Extra" else None

    monkeypatch.setattr(importlib.metadata, "metadata", lambda name: Meta())
    assert launch.install_hint("torch") == command


def test_readme_example_shapes_are_valid_for_tma():
    """The README's NumPy example must also be valid on the GPU: the fp16 A (MxK) and B
    (NxK) rows are TMA strides, a multiple of 16 bytes (K a multiple of 8)."""
    from wsdialects.runtime.launch import tma_stride_problem

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"M, N, K = (\d+), (\d+), (\d+)", readme)
    assert m, "the README's interpreter example names M, N, K"
    _, _, k = (int(x) for x in m.groups())
    assert tma_stride_problem([k * 2]) is None, f"README example: K = {k} gives fp16 rows of {2 * k} bytes"
    assert tma_stride_problem([200]) is not None  # the check itself: K = 100 was rejected on the GPU


def test_runtime_messages_have_no_python_reprs(monkeypatch):
    import types

    from wsdialects.diagnostics import WsError
    from wsdialects.runtime import launch
    from wsdialects.runtime.compiler import pipeline_with_options

    with pytest.raises(WsError) as e:
        pipeline_with_options("ws-specialize,ws-lower-aref", {"depth": 3, "mma_depth": 1})
    assert "compile: options depth, mma_depth need a single pass name" in str(e.value)
    monkeypatch.setattr(launch, "_torch", lambda: None)
    monkeypatch.setattr(launch, "_drv", lambda: None)
    with pytest.raises(launch.LaunchError) as e:
        launch.Launcher("", types.SimpleNamespace(name="k"))[0, 2]
    assert str(e.value) == "k: grid must be 1 to 3 positive numbers, got 0, 2, 1"
