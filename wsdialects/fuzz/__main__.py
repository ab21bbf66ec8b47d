"""`python -m wsdialects.fuzz`: run a fuzz campaign and write its report.

    python -m wsdialects.fuzz --mode semantic --seed 3 --cases 500 --jobs 2 --out fuzz-out

Exit status: 0 when no case was bad, 1 when some were (the table says which,
``--out`` keeps their reproducers), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import sys

from . import BAD, MODES, fuzz
from .report import table, write


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m wsdialects.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=MODES, default="syntax", help="what to mutate and check (default syntax)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed: case N of a seed is always the same")
    p.add_argument("--cases", type=int, default=200, help="number of cases (default 200)")
    p.add_argument("--first", type=int, default=0, help="index of the first case (to re-run one: --cases 1)")
    p.add_argument("--jobs", "-j", type=int, default=1, help="cases run at once (default 1)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per case to make and compile it")
    p.add_argument("--semantic-timeout", type=float, default=60.0, help="seconds per case to compare results")
    p.add_argument("--memory-mb", type=int, default=4096, help="address-space limit of each case's process")
    p.add_argument("--corpus", action="append", default=[], metavar="DIR",
                   help="more seed kernels (.mlir) and graphs (.json); repeatable")
    p.add_argument("--out", metavar="DIR", help="write DIR/outcomes.md and DIR/repro/<outcome>/case-N.*")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.cases < 1 or args.jobs < 1 or args.timeout <= 0 or args.semantic_timeout <= 0:
        print("wsdialects.fuzz: error: --cases, --jobs and the time-outs must be positive", file=sys.stderr)
        return 2

    def progress(n, case, result):
        if not args.quiet and (n % 25 == 0 or n == args.cases or result.outcome in BAD):
            mark = f"  case {case.index}: {result.outcome}: {result.message[:100]}" if result.outcome in BAD else ""
            print(f"[{n}/{args.cases}]{mark}", file=sys.stderr, flush=True)

    try:
        run = fuzz(args.mode, args.seed, args.cases, args.jobs, args.timeout, args.semantic_timeout,
                   args.corpus, args.first, args.memory_mb, progress=progress)
    except ValueError as e:
        print(f"wsdialects.fuzz: error: {e}", file=sys.stderr)
        return 2
    command = "python -m wsdialects.fuzz " + " ".join(sys.argv[1:] if argv is None else argv)
    header = (f"# wsdialects.fuzz: mode {args.mode}, seed {args.seed}, cases {args.first}..{args.first + args.cases - 1}"
              f"\n\n`{command}` ({run.seconds:.0f} s, {args.jobs} jobs)")
    if args.out:
        print(f"wrote {write(args.out, header, run.results)}", file=sys.stderr)
    print(table(run.results))
    return 1 if run.bad else 0


if __name__ == "__main__":
    sys.exit(main())
