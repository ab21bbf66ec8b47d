"""Re-solve the solver schedules kept as IR in test/Inputs/kernels/scheduled after a change to
the machine model or the scheduler, and say which changed.

Each stored file whose first line names its command (`` `ws-opt KERNEL -p 'PIPELINE'` ``) is
compiled again with that command; a file whose body differs is reported with the loop's
`ws.schedule` before and after, and with `--write` its body is replaced (its comment lines
kept, the date in the first line set to today's). Files without such a line (hand-made
schedules) and those in KEPT are left alone.

    python tools/resolve_stored.py [--write] [NAME ...]
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "test" / "Inputs" / "kernels" / "scheduled"
COMMAND = re.compile(r"^// `ws-opt (\S+) -p '([^']+)'`")
# kept as an earlier solver's choice on purpose (their comments say why)
KEPT = {"two_dots_shared_load": "issue 12's S1 reproducer: its dots on different warp groups"}


def schedule_attr(text: str) -> str:
    m = re.search(r"ws\.schedule = (\"[^\"]*\"|#[^,}]*|\{[^}]*\})", text)
    return m.group(1) if m else "(none)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="stored files (stem) to re-solve; default all")
    ap.add_argument("--write", action="store_true", help="replace the bodies that changed")
    args = ap.parse_args()
    changed = 0
    for path in sorted(STORED.glob("*.mlir")):
        if args.names and path.stem not in args.names:
            continue
        if path.stem in KEPT:
            print(f"{path.stem}: kept ({KEPT[path.stem]})")
            continue
        text = path.read_text()
        m = COMMAND.match(text)
        if not m:
            continue
        kernel, pipeline = m.groups()
        comments = [line for line in text.splitlines() if line.startswith("//")]
        body = "\n".join(line for line in text.splitlines() if not line.startswith("//")).strip()
        run = subprocess.run([sys.executable, "-m", "wsdialects.tools.ws_opt", kernel, "-p", pipeline],
                             cwd=ROOT, capture_output=True, text=True)
        if run.returncode:
            print(f"{path.stem}: ws-opt failed\n{run.stderr}")
            changed += 1
            continue
        fresh = run.stdout.strip()
        if fresh == body:
            print(f"{path.stem}: unchanged")
            continue
        changed += 1
        print(f"{path.stem}: CHANGED\n  before {schedule_attr(body)}\n  after  {schedule_attr(fresh)}")
        if args.write:
            today = datetime.date.today().isoformat()
            comments[0] = re.sub(r"\d{4}-\d{2}-\d{2}", today, comments[0], count=1)
            path.write_text("\n".join(comments) + "\n" + fresh + "\n")
    print(f"{changed} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
