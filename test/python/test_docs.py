"""The documentation in docs/ is built from the code and its examples run.

- the generated reference (docs/dialects/*.md, docs/passes.md) equals what
  `python -m wsdialects.docgen` writes now: it cannot drift from the definitions;
- every op, type and attribute of the project's dialects has a docstring with an
  `Example:` that parses and verifies with ws-opt's parser (free values become
  arguments), and every pass has a docstring and a before / after example;
- every code block of docs/writing-a-kernel.md runs (wsdialects/docgen/guide.py).
"""

from __future__ import annotations

import importlib
import importlib.util
import os

import pytest
from xdsl.ir import Operation

from conftest import REPO
from wsdialects.docgen import generate
from wsdialects.docgen.dialects import DIALECTS, attr_section, defined_in, op_section, project_ops
from wsdialects.docgen.examples import DocError, parse_op_example
from wsdialects.docgen.guide import GuideError, GuideRunner, code_blocks, run_guide

DOCS = REPO / "docs"


def _dialect_members():
    for name, module_name, attr in DIALECTS:
        module = importlib.import_module(module_name)
        dialect = getattr(module, attr)
        for op in project_ops(name, module, dialect):
            yield pytest.param(op, id=op.name)
        for a in dialect.attributes:
            if defined_in(a, module):
                yield pytest.param(a, id=a.name)


@pytest.mark.parametrize("member", list(_dialect_members()))
def test_every_op_type_and_attribute_documents_itself(member):
    # a missing docstring, a missing Example: or an example that does not parse and
    # verify raises DocError
    section = op_section(member) if issubclass(member, Operation) else attr_section(member)
    assert section[0].startswith("### ")


def test_generated_docs_are_up_to_date():
    pytest.importorskip("ortools")  # docs/passes.md runs ws-schedule
    pages = generate()
    stale = [rel for rel, text in pages.items()
             if not (DOCS / rel).is_file() or (DOCS / rel).read_text(encoding="utf-8") != text]
    assert not stale, f"out of date: {stale}; run python -m wsdialects.docgen --out docs and commit"


def test_an_op_without_an_example_is_refused():
    from wsdialects.tile import ProgramIdOp

    class NoExample(ProgramIdOp):
        """A program id, documented without an example."""

    with pytest.raises(DocError, match="no 'Example:'"):
        op_section(NoExample)

    class NoDoc(ProgramIdOp):
        pass

    with pytest.raises(DocError, match="no docstring"):
        op_section(NoDoc)


def test_a_wrong_example_is_refused():
    # wrong result type for the range: the verifier's message comes back
    with pytest.raises(DocError, match=r"result must be tensor<128xi32>"):
        parse_op_example("%r = tile.make_range 0 to 128 : tensor<64xi32>", "test")
    with pytest.raises(DocError, match="not valid IR"):
        parse_op_example("%r = tile.no_such_op %x : i32", "test")


def test_example_free_values_become_arguments():
    ex = parse_op_example("%t = tile.splat %x : i32 -> tensor<128xi32>", "test")
    func = next(iter(ex.module.ops))
    assert [str(t) for t in func.function_type.inputs] == ["i32"]
    assert [o.name for o in ex.ops] == ["tile.splat"]


@pytest.fixture
def workdir(tmp_path):
    for name in ("docs", "examples", "test"):
        os.symlink(REPO / name, tmp_path / name)
    return tmp_path


def test_writing_a_kernel_runs(workdir):
    n = run_guide(DOCS / "writing-a-kernel.md", workdir)
    assert n >= 8


def test_the_guide_runner_catches_wrong_blocks(workdir, tmp_path):
    guide = tmp_path / "g.md"
    runner = GuideRunner(guide, workdir)
    wrong = code_blocks("```mlir\n// RUN: ws-opt %s\nfunc.func @f() {\n  %x = tile.program_id 7 : i32\n"
                        "  func.return\n}\n```\n")[0]
    with pytest.raises(GuideError, match="exited 1, expected 0"):
        runner.run(wrong)
    unchecked = code_blocks("```mlir\nfunc.func @f() {\n  func.return\n}\n```\n")[0]
    with pytest.raises(GuideError, match="no `// RUN"):
        runner.run(unchecked)
    with pytest.raises(GuideError, match="only mlir, python and sh"):
        runner.run(code_blocks("```text\nhello\n```\n")[0])
    with pytest.raises(AssertionError):
        runner.run(code_blocks("```python\nassert 1 == 2\n```\n")[0])
    with pytest.raises(SyntaxError):  # a GPU-only block is still compiled
        runner.run(code_blocks("```python\n# needs: a GPU\ndef broken(:\n```\n")[0])
    with pytest.raises(GuideError, match="CHECK 'no such message' not found"):
        runner.run(code_blocks("```mlir\n// RUN: ws-opt %s\n// CHECK: no such message\n```\n")[0])


def test_the_guide_runs_triton_only_blocks_where_triton_is_installed(workdir, tmp_path):
    """A `# needs: Triton` block runs when Triton is installed (it needs no GPU), and a
    `@triton.jit` function it defines can be compiled (its source is found through linecache);
    a block that also needs a GPU is only compiled."""
    runner = GuideRunner(tmp_path / "g.md", workdir)
    runner.run(code_blocks("```python\n# needs: Triton and a GPU\nassert False\n```\n")[0])
    triton_only = code_blocks("```python\n# needs: Triton\nran = True\n```\n")[0]
    runner.run(triton_only)
    if importlib.util.find_spec("triton") is None:
        assert "ran" not in runner.namespace
        return
    assert runner.namespace["ran"] is True
    runner.run(code_blocks(
        "```python\n# needs: Triton\nimport triton\nimport triton.language as tl\nimport wsdialects\n\n\n"
        "@triton.jit\ndef double(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)\n\n\n"
        "m = wsdialects.from_triton(double, signature={'x_ptr': '*fp32', 'n': 'i32'}, constexprs={'BLOCK': 64})\n"
        "```\n")[0])
    assert "tile.store" in str(runner.namespace["m"])
