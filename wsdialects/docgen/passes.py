"""The pass reference (`docs/passes.md`): every pass of `wsdialects.passes.PIPELINE`,
its options with their defaults (the pass class's fields), what it does (its module
and class docstrings) and an example made by running it, shown as what the pass changed
(`wsdialects/docgen/listing.py`: a diff against its input, or its output with the lines it
left alone folded away; long repeated types written once as aliases).

The inputs live in `docs/examples/passes/*.mlir`; each `// docs:` line of a file is one
example, `// docs: PIPE [after PREP] [as SAME]`: the input after the pipeline PREP is
"before", after PIPE too is "after". The first pass of PIPE is the pass it illustrates. A
pass made of others (`ws-specialize`, `ws-hopper`) says `as SAME`: PIPE must give exactly the
IR that the pipeline SAME gives, and the page says so instead of showing the IR again.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from wsdialects.diagnostics import collect_notes, parse_text, verify
from wsdialects.docgen.examples import DocError
from wsdialects.docgen.listing import changed_view, fold_aliases, print_ir, unwrap
from wsdialects.passes import PIPELINE, available_passes

EXAMPLES = Path("docs") / "examples" / "passes"
_DOCS_LINE = re.compile(r"^//\s*docs:\s*(?P<run>.+?)(?:\s+after\s+(?P<prep>\S.*?))?"
                        r"(?:\s+as\s+(?P<same>\S.*?))?\s*$")
# a diff prints a rewritten line twice (`-` and `+`): where that makes it this much longer
# than the output alone, the page shows the output alone
_DIFF_LIMIT = 1.3


@dataclass
class PassExample:
    file: Path  # relative to the repository root
    run: str
    prep: str
    same: str = ""

    @property
    def pass_name(self) -> str:
        return re.split(r"[{,]", self.run, maxsplit=1)[0].strip()

    @property
    def spec(self) -> str:
        return f"{self.prep},{self.run}" if self.prep else self.run


def find_examples(root: Path) -> dict[str, PassExample]:
    """Pass name -> its example, from the `// docs:` lines under docs/examples/passes."""
    found: dict[str, PassExample] = {}
    for f in sorted((root / EXAMPLES).glob("*.mlir")):
        for line in f.read_text().splitlines():
            m = _DOCS_LINE.match(line.strip())
            if m:
                ex = PassExample(f.relative_to(root), m["run"].strip(), (m["prep"] or "").strip(),
                                 (m["same"] or "").strip())
                if ex.pass_name in found:
                    raise DocError(f"{f}: a second example for {ex.pass_name}")
                found[ex.pass_name] = ex
    return found


def run_pipeline(module: ModuleOp, spec: str, file: str) -> None:
    """Run `spec` on `module` in place, verifying after every pass (as ws-opt does)."""
    if spec:
        PassPipeline.parse_spec(available_passes(), spec, lambda _p, m, _n: verify(m, file)).apply(None, module)
        verify(module, file)


@dataclass
class Ran:
    """An example run: the IR before and after its pipeline (printed as ws-opt prints it,
    without the `builtin.module` wrapper) and the remarks and warnings its pipeline gave."""

    before: str
    after: str
    notes: list[str] = field(default_factory=list)


def before_after(root: Path, ex: PassExample) -> Ran:
    """The example's IR before and after its pipeline (really run); with `as SAME`, the
    pipeline SAME run on the same input must give the same IR."""
    text = (root / ex.file).read_text()
    module = parse_text(text, str(ex.file))
    with collect_notes():  # the preparation's remarks are another example's business
        run_pipeline(module, ex.prep, str(ex.file))
    before = unwrap(print_ir(module))
    with collect_notes() as notes:
        run_pipeline(module, ex.run, str(ex.file))
    ran = Ran(before, unwrap(print_ir(module)), [_note(n) for n in notes])
    if ex.same:
        other = parse_text(text, str(ex.file))
        with collect_notes():
            run_pipeline(other, ex.prep, str(ex.file))
            run_pipeline(other, ex.same, str(ex.file))
        if unwrap(print_ir(other)) != ran.after:
            raise DocError(f"{ex.file}: `{ex.run}` does not give the same IR as `{ex.same}` (its `// docs:` line "
                           "says `as`): run both with ws-opt and diff them")
    return ran


def _note(note: tuple[str, tuple[str, int, int] | None, str]) -> str:
    severity, loc, message = note
    return (f"{loc[0]}:{loc[1]}:{loc[2]}: " if loc else "") + f"{severity}: {message}"


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


def pass_section(name: str, cls: type, ex: PassExample | None, ran: Ran | None = None,
                 outputs: dict[str, str] | None = None, root: Path = Path(".")) -> list[str]:
    """The pass's section; `ran` is its example run (run here if None). `outputs` maps the
    output IR of each other pass's example to that pass's name: an `as SAME` example whose IR
    is one of them links to it."""
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
    out += [module_doc, "", "### Example", ""]
    return out + example_lines(ex, ran or before_after(root, ex), outputs or {})


def example_lines(ex: PassExample, ran: Ran, outputs: dict[str, str]) -> list[str]:
    """The example's text: what the pass changed, from `ran`."""
    link = f"[{ex.file.name}]({ex.file.relative_to('docs').as_posix()})"
    what = f"`{ex.run}` on {link}" + (f" after `{ex.prep}`" if ex.prep else "")
    if ex.same:
        other = outputs.get(ran.after)
        where = f": the output of [`{other}`](#{other})'s example" if other and other != ex.pass_name else ""
        out = [f"{what} gives exactly the IR that `{ex.same}` gives{where}.", ""]
    elif ran.before == ran.after:
        out = [f"{what} leaves the IR as it is.", ""]
    else:
        folded = fold_aliases([ran.before, ran.after], str(ex.file))
        diff = changed_view(*folded.texts)
        alone = changed_view(*folded.texts, deletions=False)
        if len("\n".join(diff)) <= _DIFF_LIMIT * len("\n".join(alone)):
            shown, how = diff, "a diff against its input"
        else:
            shown, how = alone, "what it wrote (`+`)"
        aliases = [" " + a for a in _used(folded.aliases, shown)]
        out = [f"{what}, {how}:", "", "```diff", *aliases, *shown, "```", ""]
    if ran.notes:
        out += ["It says:", "", "```text", *ran.notes, "```", ""]
    return out


def _used(aliases: list[str], lines: list[str]) -> list[str]:
    """The alias definitions that `lines` (or a definition kept) use."""
    text = "\n".join(lines)
    kept: list[str] = []
    for definition in reversed(aliases):  # a definition uses only aliases defined before it
        name = definition.split(" = ", 1)[0]
        if re.search(re.escape(name) + r"(?![\w$])", text + "\n" + "\n".join(kept)):
            kept.insert(0, definition)
    return kept


def passes_page(root: Path) -> str:
    """docs/passes.md."""
    from wsdialects.docgen.dialects import GENERATED

    examples = find_examples(root)
    out = [GENERATED, "# Passes", "",
           "Every pass `ws-opt -p` knows, in pipeline order (`wsdialects/passes.py`). Options are",
           "written MLIR's way, `-p 'ws-distribute{depth=2}'`, several separated by spaces",
           "(`ws-specialize{depth=2 mma-depth=1}`); passes are separated by commas. Each example",
           "below is the pass really run on a small kernel kept in `docs/examples/passes/`, shown as",
           "what it changed: a diff against its input, or where it rewrites most lines, its output",
           "with the lines it wrote marked `+`. `// ...` lines stand for lines it left as they were",
           "(or that repeat lines shown above with other value names), and a long type repeated in a",
           "listing is written once as an alias (`!desc = !tile.desc<...>`), as MLIR's printer does.",
           "`ws-opt docs/examples/passes/FILE -p 'PREP,PASS'` prints the whole IR.", ""]
    out += [f"- [`{n}`](#{n}): " + " ".join(inspect.cleandoc(pass_class(t).__doc__ or "").split("\n\n")[0].split())
            for n, t in PIPELINE] + [""]
    ran = {name: before_after(root, ex) for name, ex in examples.items()}
    outputs: dict[str, str] = {}
    for name, _ in PIPELINE:
        if name in ran and not examples[name].same:
            outputs.setdefault(ran[name].after, name)
    for name, target in PIPELINE:
        ex = examples.pop(name, None)
        out += pass_section(name, pass_class(target), ex, ran.get(name), outputs, root)
    if examples:
        raise DocError(f"examples for passes that are not in PIPELINE: {sorted(examples)}")
    return "\n".join(out).rstrip() + "\n"
