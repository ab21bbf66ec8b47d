"""WsParser parses each type / attribute text once (wsdialects/diagnostics.py): the modules
it gives are the ones xDSL's own parse gives, and an alias never leaks from one file to
another. `parse_text` keeps the modules of the latest texts: a text parsed again under the
same name is a copy of what its parse gave."""

import pytest

from conftest import REPO
from wsdialects import diagnostics
from wsdialects.diagnostics import WsError, parse_text
from wsdialects.tools.targets import print_mlir

KERNELS = sorted([*(REPO / "examples" / "kernels").glob("*.mlir"),
                  *(REPO / "test" / "Inputs" / "kernels" / "gemm_kinds" / "scheduled").glob("*.mlir")])


def _without_memo(monkeypatch):
    monkeypatch.setattr(diagnostics.WsParser, "_memoized", lambda self, memo, pattern, parse: parse())


def _parsed(text: str) -> str:
    try:
        return print_mlir(parse_text(text, "k.mlir"), debuginfo=True)
    except WsError as e:
        return f"error: {e}"


def test_memo_gives_what_xdsl_parses(monkeypatch):
    """The kernels as written and scheduled, and a lowered one (layouts, nvgpu types)."""
    from kernel_cache import compile_kernel

    lowered = print_mlir(compile_kernel(REPO / "examples" / "kernels" / "flash_attention.mlir", "ws-hopper"),
                         debuginfo=True)
    texts = [p.read_text() for p in KERNELS] + [lowered]
    assert len(texts) > 12
    with_memo = [_parsed(t) for t in texts]  # a type recurs in a file: read from the memo there
    assert diagnostics._type_memo and diagnostics._attr_memo
    _without_memo(monkeypatch)
    assert with_memo == [_parsed(t) for t in texts]


ALIASED = "!t = {}\nfunc.func @f(%x: !t) -> !t {{\n  func.return %x : !t\n}}\n"


def test_an_alias_is_not_remembered():
    assert "f16" in str(parse_text(ALIASED.format("f16")))
    assert "f32" in str(parse_text(ALIASED.format("f32")))
    with pytest.raises(WsError, match="undefined symbol alias '!t'"):
        parse_text(ALIASED.split("\n", 1)[1].format())


def test_a_remembered_text_is_only_the_whole_type():
    t = "tensor<4x8xf16>"
    first = parse_text(f"func.func @f(%x: {t}) {{\n  func.return\n}}\n")
    assert diagnostics._type_memo[t] == first.body.block.first_op.function_type.inputs.data[0]
    with pytest.raises(WsError, match=r"1:\d+: error"):  # a longer text is parsed (and rejected) by xDSL
        parse_text(f"func.func @f(%x: {t}>) {{\n  func.return\n}}\n")


def _printed(module) -> str:
    return print_mlir(module, debuginfo=True) + print_mlir(module, generic=True)


def test_a_text_parsed_again_is_a_copy_of_its_parse():
    """(test/conftest.py switches the memo off only under monkeypatch: on here.)"""
    from kernel_cache import compile_kernel

    lowered = print_mlir(compile_kernel(REPO / "examples" / "kernels" / "gemm.mlir", "ws-hopper"), debuginfo=True)
    for text in [p.read_text() for p in KERNELS[:3]] + [lowered]:
        diagnostics._parsed.clear()
        first = parse_text(text, "k.mlir")
        want = _printed(first)
        assert ("k.mlir", text) in diagnostics._parsed
        for op in list(first.body.block.ops):  # what a caller does to its module stays its own
            op.detach()
        again = parse_text(text, "k.mlir")
        assert again is not first and _printed(again) == want
        assert _printed(parse_text(text, "k.mlir")) == want
        diagnostics.parse_memo = False
        try:
            assert _printed(parse_text(text, "k.mlir")) == want  # a real parse
        finally:
            diagnostics.parse_memo = True
        other = parse_text(text, "other.mlir")  # the name is part of the key: the locations carry it
        assert "other.mlir" in print_mlir(other, debuginfo=True) and "k.mlir" not in print_mlir(other, debuginfo=True)


def test_a_text_that_does_not_parse_is_not_kept():
    diagnostics._parsed.clear()
    for _ in range(2):
        with pytest.raises(WsError, match="undefined symbol alias"):
            parse_text(ALIASED.split("\n", 1)[1].format(), "bad.mlir")
    assert not diagnostics._parsed


def test_the_memo_is_off_outside_the_suite():
    """A compile parses each text once: ws-opt and library users keep no copies."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", "import wsdialects.diagnostics as d; print(d.parse_memo)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
