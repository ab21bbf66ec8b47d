"""The reference documentation, generated from the code so that it cannot drift.

    python -m wsdialects.docgen --out docs          # write docs/dialects/*.md, docs/passes.md, docs/tools.md
    python -m wsdialects.docgen --out docs --check  # exit 1 if the committed files differ

- `dialects.py`: one page per dialect from the IRDL definitions and docstrings (every op,
  type and attribute needs a docstring with an `Example:`, parsed and verified);
- `passes.py`: every pass of `wsdialects.passes.PIPELINE` with its options and a
  before / after made by running it on `docs/examples/passes/*.mlir`;
- `tools.py`: `ws-opt` and `ws-schedule`: their --help and the driver modules' docstrings;
- `examples.py`: the docstring convention and the parsing of examples;
- `guide.py`: the code blocks of the hand-written guides, run by test/python/test_docs.py.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def generate(root: Path = ROOT) -> dict[str, str]:
    """Relative path under docs/ -> content of every generated page."""
    from wsdialects.docgen.dialects import DIALECTS, coverage_section, dialect_page
    from wsdialects.docgen.passes import passes_page
    from wsdialects.docgen.tools import tools_page

    pages = {f"dialects/{name}.md": dialect_page(name, module, attr, coverage_section() if name == "arith" else None)
             for name, module, attr in DIALECTS}
    pages["passes.md"] = passes_page(root)
    pages["tools.md"] = tools_page()
    return pages
