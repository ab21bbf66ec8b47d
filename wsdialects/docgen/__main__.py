"""`python -m wsdialects.docgen --out docs [--check]`: write (or check) the generated docs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wsdialects.docgen import ROOT, generate
from wsdialects.docgen.examples import DocError
from wsdialects.diagnostics import WsError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wsdialects.docgen", description=__doc__)
    p.add_argument("--out", default=str(ROOT / "docs"), help="the docs folder (default: the repository's docs/)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file differs")
    args = p.parse_args(argv)
    try:
        pages = generate()
    except (DocError, WsError) as e:
        print(f"docgen: error: {e}", file=sys.stderr)
        return 1
    out = Path(args.out)
    stale = [rel for rel, text in pages.items()
             if not (out / rel).is_file() or (out / rel).read_text(encoding="utf-8") != text]
    if args.check:
        for rel in stale:
            print(f"docgen: {out / rel} is out of date (run python -m wsdialects.docgen --out {args.out})",
                  file=sys.stderr)
        return 1 if stale else 0
    for rel in stale:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(pages[rel], encoding="utf-8")
        print(f"docgen: wrote {out / rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
