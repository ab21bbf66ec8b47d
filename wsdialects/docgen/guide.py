"""Running the code blocks of a hand-written guide (docs/writing-a-kernel.md), so that
none of them can be wrong. test/python/test_docs.py runs every block, in order:

- ```mlir: its `// RUN: ws-opt %s ARGS` lines run ws-opt on the block (exit 0 expected;
  `// RUN: not ws-opt ...`: exit 1), and its `// CHECK: text` lines must appear, in
  order, in what they print. A block opened with ```mlir file=PATH must equal the file
  PATH, and %s is that file.
- ```python: executed, all blocks of a guide in one namespace; a block whose first line
  starts with `# needs:` is only compiled, unless all it needs is Triton and Triton is
  installed (`# needs: Triton`; Triton compiles to TTIR without a GPU). Each block's text is
  registered in `linecache` under its `guide.md:LINE` name, so that `@triton.jit` (which reads
  a function's source) works on functions the guide defines.
- ```sh: every line is a `ws-opt` command (or a `#` comment), run with exit 0 expected.

Blocks of any other language are refused: a block the tests do not run could be wrong.
Commands and Python run in `workdir`, where the repository's folders can be reached
under their own names (the test links them into a temporary folder).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import linecache
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

_FENCE = re.compile(r"^```(\S*)(.*)$")


class GuideError(Exception):
    """A block of the guide failed; the message names the guide and the line."""


@dataclass
class Block:
    lang: str
    info: str  # the rest of the opening fence, e.g. `file=docs/examples/kernels/k.mlir`
    text: str
    line: int  # of the opening fence, 1-based

    def file(self) -> str | None:
        m = re.search(r"\bfile=(\S+)", self.info)
        return m.group(1) if m else None


def code_blocks(markdown: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order."""
    blocks, cur, lines = [], None, []
    for n, line in enumerate(markdown.splitlines(), 1):
        m = _FENCE.match(line.strip())
        if cur is None and m:
            cur, lines = Block(m.group(1), m.group(2).strip(), "", n), []
        elif cur is not None and line.strip() == "```":
            cur.text = "\n".join(lines) + "\n"
            blocks.append(cur)
            cur = None
        elif cur is not None:
            lines.append(line)
    if cur is not None:
        raise GuideError(f"line {cur.line}: code block never closed")
    return blocks


def ws_opt(argv: list[str]) -> tuple[int, str]:
    """Run ws-opt in this process: (exit code, stdout + stderr)."""
    from wsdialects.tools.ws_opt import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0
    return code or 0, out.getvalue()


class GuideRunner:
    """Runs the blocks of one guide in `workdir` (see the module docstring)."""

    def __init__(self, guide: Path, workdir: Path, run_all: bool = False):
        self.guide, self.workdir, self.run_all = guide, workdir, run_all
        self.namespace: dict = {"__name__": "__guide__"}

    def fail(self, block: Block, msg: str) -> GuideError:
        return GuideError(f"{self.guide.name}:{block.line}: ```{block.lang} block: {msg}")

    def run(self, block: Block) -> None:
        cwd = os.getcwd()
        os.chdir(self.workdir)
        try:
            {"mlir": self.run_mlir, "python": self.run_python, "sh": self.run_sh}.get(
                block.lang, self.refuse)(block)
        finally:
            os.chdir(cwd)

    def refuse(self, block: Block) -> None:
        raise self.fail(block, "the tests run only mlir, python and sh blocks; give the block one of these")

    def run_mlir(self, block: Block) -> None:
        path = block.file()
        if path is not None:
            if Path(path).read_text() != block.text:
                raise self.fail(block, f"differs from {path}; copy the file into the guide")
        else:
            path = f"block-{block.line}.mlir"
            Path(path).write_text(block.text)
        runs = re.findall(r"//\s*RUN:\s*(.+)", block.text)
        checks = re.findall(r"//\s*CHECK:\s*(.+)", block.text)
        if not runs:
            raise self.fail(block, "has no `// RUN: ws-opt %s ...` line")
        output = ""
        for run in runs:
            argv = shlex.split(run.replace("%s", path))
            expect = 0
            if argv[0] == "not":
                argv, expect = argv[1:], 1
            if argv[0] != "ws-opt":
                raise self.fail(block, f"RUN line '{run}' is not a ws-opt command")
            code, out = ws_opt(argv[1:])
            if code != expect:
                raise self.fail(block, f"'{run}' exited {code}, expected {expect}:\n{out[-2000:]}")
            output += out
        at = 0
        for check in checks:
            i = output.find(check.strip(), at)
            if i < 0:
                raise self.fail(block, f"CHECK '{check.strip()}' not found in the output:\n{output[-2000:]}")
            at = i + len(check.strip())

    def run_python(self, block: Block) -> None:
        name = f"{self.guide.name}:{block.line}"
        code = compile(block.text, name, "exec")
        needs = _needs(block.text)
        if needs and not self.run_all and not (needs == {"triton"} and importlib.util.find_spec("triton")):
            return  # needs a GPU (or Triton, not installed): compiled only
        linecache.cache[name] = (len(block.text), None, block.text.splitlines(True), name)
        exec(code, self.namespace)  # noqa: S102 - the guide's own example code

    def run_sh(self, block: Block) -> None:
        for line in block.text.splitlines():
            if not line.strip() or line.strip().startswith("#"):
                continue
            argv = shlex.split(line)
            if argv[0] != "ws-opt" or any(a in ("|", ">", "&&", ";") for a in argv):
                raise self.fail(block, f"'{line}': only plain ws-opt commands are run by the tests")
            code, out = ws_opt(argv[1:])
            if code != 0:
                raise self.fail(block, f"'{line}' exited {code}:\n{out[-2000:]}")


def _needs(text: str) -> set[str]:
    """What a python block's `# needs: ...` first line asks for, as lower-case words
    ("triton", "gpu", ...); empty for a block that needs nothing."""
    first = text.lstrip().split("\n", 1)[0]
    if not first.startswith("# needs:"):
        return set()
    words = re.findall(r"[A-Za-z0-9_-]+", first.split("(", 1)[0][len("# needs:"):].lower())
    return {w for w in words if w not in ("and", "a", "an", "the")}


def run_guide(guide: Path, workdir: Path, run_all: bool = False) -> int:
    """Run every block of `guide` in order (`run_all`: the `# needs:` blocks too, on a
    machine that has what they need); returns how many ran. Raises GuideError."""
    runner = GuideRunner(guide, workdir, run_all)
    blocks = code_blocks(guide.read_text())
    for b in blocks:
        runner.run(b)
    return len(blocks)


if __name__ == "__main__":  # on a GPU machine: python -m wsdialects.docgen.guide --all docs/writing-a-kernel.md
    import sys
    import tempfile

    args = sys.argv[1:]
    run_all = "--all" in args
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("docs", "examples", "test"):
            os.symlink(root / name, Path(tmp) / name)
        for g in [a for a in args if a != "--all"]:
            print(f"{g}: {run_guide(Path(g).resolve(), Path(tmp), run_all)} blocks ran")
