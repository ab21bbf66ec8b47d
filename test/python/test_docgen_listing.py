"""The pass reference's listings (wsdialects/docgen/listing.py, passes.py): aliases that must
give back the same IR, the changed region of an output, copies folded only where the lines
really are the same ops renamed, and `as` examples that must really agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from wsdialects.docgen.examples import DocError
from wsdialects.diagnostics import parse_text
from wsdialects.docgen.listing import _check_same_ir, changed_view, fold_aliases, fold_copies, print_ir, unwrap
from wsdialects.docgen.passes import PassExample, before_after

KERNEL = """func.func @f(%a: !tile.desc<tensor<64x64xf16>>, %b: !tile.desc<tensor<64x64xf16>>, %i: i32) {
  %x = tile.desc_load %a[%i, %i] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %y = tile.desc_load %b[%i, %i] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
  func.return
}
"""


def test_a_repeated_type_becomes_one_alias_that_parses_back():
    folded = fold_aliases([KERNEL], "k.mlir")
    assert folded.aliases == ["!desc = !tile.desc<tensor<64x64xf16>>"]
    assert "!tile.desc" not in folded.texts[0] and folded.texts[0].count("!desc") == 4


def test_a_spelling_used_once_stays_written_out():
    once = KERNEL.replace("%b: !tile.desc<tensor<64x64xf16>>", "%b: i32").replace(
        "  %y = tile.desc_load %b[%i, %i] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>\n", "")
    assert fold_aliases([once], "k.mlir").aliases == []


def test_a_folding_that_changes_the_ir_is_refused():
    args = "func.func @f(%a: !tile.desc<tensor<64x64xf16>>, %b: !tile.desc<tensor<64x64xf16>>) {\n  func.return\n}\n"
    original = unwrap(print_ir(parse_text(args, "k.mlir")))
    _check_same_ir(original, "!desc = !tile.desc<tensor<64x64xf16>>\n" + original.replace(
        "!tile.desc<tensor<64x64xf16>>", "!desc"), "k.mlir")
    wrong = "!desc = !tile.desc<tensor<64x64xf32>>\n" + original.replace("!tile.desc<tensor<64x64xf16>>", "!desc")
    with pytest.raises(DocError, match="not the IR it was folded from"):
        _check_same_ir(original, wrong, "k.mlir")
    with pytest.raises(DocError, match="does not parse"):  # a wrong folding that no longer verifies
        _check_same_ir(KERNEL, "!desc = !tile.desc<tensor<64x64xf32>>\n" + KERNEL.replace(
            "!tile.desc<tensor<64x64xf16>>", "!desc"), "k.mlir")


def test_unchanged_lines_fold_and_reindented_lines_count_as_unchanged():
    before = "a\nb\nc\nd\ne\nf\n"
    after = "a\nb\nc\nd\nwrap {\n  e\n}\nf\n"
    assert changed_view(before, after) == [" // ... 3 unchanged lines", " d", "+wrap {", "   e", "+}", " f"]
    diff = changed_view("x\ny\n", "x\nz\n")
    assert diff == [" x", "-y", "+z"]
    assert changed_view("x\ny\n", "x\nz\n", deletions=False) == [" x", "+z"]
    assert changed_view("x\ny\nz\nw\n", "x\nw\n", deletions=False) == [" x", "-// ... 2 lines removed", " w"]


def test_a_renamed_copy_folds_and_a_different_one_does_not():
    first = ["+%a = arith.addi %x, %y : i32", "+%b = arith.muli %a, %a : i32",
             "+%c = arith.subi %b, %x : i32", "+%d = arith.divsi %c, %y : i32"]
    renamed = [ln.replace("%a", "%a_1").replace("%b", "%b_1").replace("%c", "%c_1").replace("%d", "%d_1")
               for ln in first]
    folded = fold_copies([*first, " }", *renamed])
    assert folded[-1].endswith("// ... 4 lines: the 4 from `%a = arith.addi` above, values renamed")
    assert len(folded) == 6
    # %a and %b both renamed to %q: not one consistent renaming
    clash = [ln.replace("%a", "%q").replace("%b", "%q") for ln in first]
    assert fold_copies([*first, " }", *clash]) == [*first, " }", *clash]


def test_an_as_example_must_give_the_same_ir():
    gemm = Path("docs/examples/passes/gemm.mlir")
    ok = PassExample(gemm, "ws-specialize{depth=2 mma-depth=1}", "",
                     "ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1}")
    before_after(REPO, ok)
    wrong = PassExample(gemm, "ws-specialize{depth=2 mma-depth=1}", "", "ws-partition,ws-distribute{depth=2}")
    with pytest.raises(DocError, match="does not give the same IR"):
        before_after(REPO, wrong)
