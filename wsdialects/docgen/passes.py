"""The pass reference (`docs/passes.md`): every pass of `wsdialects.passes.PIPELINE`,
its options with their defaults (the pass class's fields), what it does (its module
and class docstrings) and a before / after made by running it. An input that the page
already shows in full (the output of an earlier pass's example, or a file shown before) is
referred to instead of printed again.

The inputs live in `docs/examples/passes/*.mlir`; each `// docs:` line of a file is one
example, `// docs: PIPE [after PREP]`: the input after the pipeline PREP is "before",
after PIPE too is "after". The first pass of PIPE is the pass it illustrates.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import re
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

from wsdialects.diagnostics import parse_text, verify
from wsdialects.docgen.examples import DocError
from wsdialects.passes import PIPELINE, available_passes

EXAMPLES = Path("docs") / "examples" / "passes"
_DOCS_LINE = re.compile(r"^//\s*docs:\s*(?P<run>.+?)(?:\s+after\s+(?P<prep>\S.*))?\s*$")


@dataclass
class PassExample:
    file: Path  # relative to the repository root
    run: str
    prep: str

    @property
    def pass_name(self) -> str:
        return re.split(r"[{,]", self.run, maxsplit=1)[0].strip()


def find_examples(root: Path) -> dict[str, PassExample]:
    """Pass name -> its example, from the `// docs:` lines under docs/examples/passes."""
    found: dict[str, PassExample] = {}
    for f in sorted((root / EXAMPLES).glob("*.mlir")):
        for line in f.read_text().splitlines():
            m = _DOCS_LINE.match(line.strip())
            if m:
                ex = PassExample(f.relative_to(root), m["run"].strip(), (m["prep"] or "").strip())
                if ex.pass_name in found:
                    raise DocError(f"{f}: a second example for {ex.pass_name}")
                found[ex.pass_name] = ex
    return found


def run_pipeline(module: ModuleOp, spec: str, file: str) -> None:
    """Run `spec` on `module` in place, verifying after every pass (as ws-opt does)."""
    if spec:
        PassPipeline.parse_spec(available_passes(), spec, lambda _p, m, _n: verify(m, file)).apply(None, module)
        verify(module, file)


def _print(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue().rstrip() + "\n"


def before_after(root: Path, ex: PassExample) -> tuple[str, str]:
    """The example's IR before and after its pipeline (really run)."""
    module = parse_text((root / ex.file).read_text(), str(ex.file))
    run_pipeline(module, ex.prep, str(ex.file))
    before = _print(module)
    run_pipeline(module, ex.run, str(ex.file))
    return before, _print(module)


def pass_class(target: str) -> type:
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)


def options(cls: type) -> list[tuple[str, str, str]]:
    """(option as spelled in a pipeline, type, default) per field of the pass class."""
    rows = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        # a union's `|` would split the markdown table's cell: `int or float`
        rows.append((f.name.replace("_", "-"), str(f.type).replace(" | ", " or "), shown))
    return rows


def pass_section(name: str, cls: type, ex: PassExample | None, root: Path,
                 shown: dict[str, str] | None = None) -> list[str]:
    """The pass's section. `shown` maps each IR listing printed in full so far to where it is
    ("the input of `ws-x`", "the output of `ws-x`"): an input printed there is referred to, not
    printed again."""
    shown = {} if shown is None else shown
    if ex is None:
        raise DocError(f"pass {name} has no example: add a `// docs: {name} ...` line to a file in {EXAMPLES}")
    summary = inspect.cleandoc(cls.__doc__ or "")
    if not summary or summary.startswith(cls.__name__ + "("):  # the dataclass's generated docstring
        raise DocError(f"pass {name} ({cls.__module__}.{cls.__name__}) has no docstring")
    module_doc = inspect.cleandoc(inspect.getmodule(cls).__doc__ or "")
    out = [f"## `{name}`", "", summary, ""]
    opts = options(cls)
    if opts:
        out += ["| option | type | default |", "|---|---|---|"]
        out += [f"| `{o}` | {t} | `{d}` |" for o, t, d in opts] + [""]
    else:
        out += ["No options.", ""]
    out += [module_doc, ""]
    before, after = before_after(root, ex)
    link = f"[{ex.file.name}]({ex.file.relative_to('docs').as_posix()})"
    spec = f"{ex.prep},{ex.run}" if ex.prep else ex.run
    out += ["### Example", ""]
    if before in shown:
        out += [f"{link} after `{ex.prep}`: the same IR as {shown[before]} above.", ""] if ex.prep else \
               [f"{link}: the same IR as {shown[before]} above.", ""]
    else:
        out += [f"{link} after `{ex.prep}`:" if ex.prep else f"{link}:", ""]
        out += _folded(["```mlir", before.rstrip(), "```"], f"the input ({len(before.splitlines())} lines)")
        shown[before] = f"the input of [`{name}`](#{name})"
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm=""))
    run = f"`{ex.run}` (`ws-opt {ex.file.as_posix()} -p '{spec}'`)"
    if len(diff) < 0.6 * len(after.splitlines()):
        out += [f"After {run}, as a diff against the input:", "", "```diff", *diff[2:], "```", ""]
    else:
        out += [f"After {run}:", "", "```mlir", after.rstrip(), "```", ""]
        shown.setdefault(after, f"the output of [`{name}`](#{name})")
    return out


def _folded(lines: list[str], what: str) -> list[str]:
    """Long listings fold away (GitHub renders <details>)."""
    if len(lines) <= 40:
        return lines + [""]
    return ["<details><summary>" + what + "</summary>", "", *lines, "", "</details>", ""]


def passes_page(root: Path) -> str:
    """docs/passes.md."""
    from wsdialects.docgen.dialects import GENERATED

    examples = find_examples(root)
    out = [GENERATED, "# Passes", "",
           "Every pass `ws-opt -p` knows, in pipeline order (`wsdialects/passes.py`). Options are",
           "written MLIR's way, `-p 'ws-distribute{depth=2}'`, several separated by spaces",
           "(`ws-specialize{depth=2 mma-depth=1}`); passes are separated by commas. Each example",
           "below is the pass really run on a small kernel kept in `docs/examples/passes/`.", ""]
    out += [f"- [`{n}`](#{n}): " + inspect.cleandoc(pass_class(t).__doc__ or "").splitlines()[0]
            for n, t in PIPELINE] + [""]
    shown: dict[str, str] = {}
    for name, target in PIPELINE:
        out += pass_section(name, pass_class(target), examples.pop(name, None), root, shown)
    if examples:
        raise DocError(f"examples for passes that are not in PIPELINE: {sorted(examples)}")
    return "\n".join(out).rstrip() + "\n"
