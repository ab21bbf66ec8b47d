"""`python -m wsdialects.fuzz`: run a fuzz campaign and write its report.

    python -m wsdialects.fuzz --mode semantic --seed 3 --cases 500 --jobs 2 --out fuzz-out
    python -m wsdialects.fuzz --mode syntax --seed 7 --start 10000 --count 10000 --jobs 16 --out shard-b
    python -m wsdialects.fuzz merge shard-a/outcomes.md shard-b/outcomes.md -o all.md
    python -m wsdialects.fuzz --mode syntax --seed 7 --case 9198      # replay one case, print its input
    python -m wsdialects.fuzz --resume shard-b/outcomes.md --jobs 16 --out shard-b2   # finish a stopped run

``--out DIR`` keeps ``DIR/outcomes.md`` up to date as the run goes (every
``--flush-seconds`` and ``--flush-cases``, and on SIGTERM / Ctrl-C), so a run
stopped by a time limit leaves a valid table saying "partial: K of N cases";
``--resume TABLE`` runs the cases that table has not done and writes the whole
(its mode, seed and cases; the same pipelines and seed kernels, or it refuses).
Case N of a seed is the same case whatever ``--start`` / ``--count``: shards
of a run, merged, are the run (``merge`` checks they are disjoint and drawn
alike: same mode, seed, pipelines and seed kernels).

Exit status: 0 when no case was bad, 1 when some were (the table says which,
``--out`` keeps their reproducers), 2 for bad usage; 130/143 when interrupted.
"""

from __future__ import annotations

import argparse
import signal
import sys

from . import BAD, MODES, fuzz, plan
from .report import Tally, Writer, merge, ranges, read, render, save, table


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m wsdialects.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=MODES, default="syntax", help="what to mutate and check (default syntax)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed: case N of a seed is always the same")
    p.add_argument("--count", "--cases", dest="cases", type=int, default=200, help="number of cases (default 200)")
    p.add_argument("--start", "--first", dest="first", type=int, default=0,
                   help="index of the first case (a shard of a longer run: --start S --count N)")
    p.add_argument("--case", type=int, metavar="N",
                   help="replay case N alone: print its command, outcome and input (the mutated bytes)")
    p.add_argument("--resume", metavar="TABLE",
                   help="run the cases a stopped run's outcomes.md has not done (its mode, seed and cases) "
                        "and write the whole table to --out")
    p.add_argument("--no-solver", action="store_true",
                   help="draw the cases as on a machine without OR-Tools (no ws-schedule pipelines)")
    p.add_argument("--jobs", "-j", type=int, default=1, help="cases run at once (default 1)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per case to make and compile it")
    p.add_argument("--semantic-timeout", type=float, default=60.0, help="seconds per case to compare results")
    p.add_argument("--memory-mb", type=int, default=4096, help="address-space limit of each case's process")
    p.add_argument("--corpus", action="append", default=[], metavar="DIR",
                   help="more seed kernels (.mlir) and graphs (.json); repeatable")
    p.add_argument("--out", metavar="DIR", help="write DIR/outcomes.md and DIR/repro/<outcome>/case-N.*")
    p.add_argument("--flush-seconds", type=float, default=30.0, help="rewrite DIR/outcomes.md this often (30)")
    p.add_argument("--flush-cases", type=int, default=1000, help="... and after this many cases (1000)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["merge"]:
        return merge_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.case is not None:
        args.first, args.cases = args.case, 1
    prior = None
    if args.resume:
        try:
            prior = read(args.resume)
        except (OSError, ValueError, KeyError) as e:
            print(f"wsdialects.fuzz: error: --resume: {e}", file=sys.stderr)
            return 2
        args.mode, args.seed = prior.mode, prior.seed
    if args.cases < 1 or args.jobs < 1 or args.timeout <= 0 or args.semantic_timeout <= 0 or args.first < 0:
        print("wsdialects.fuzz: error: --count, --jobs and the time-outs must be positive, --start not negative",
              file=sys.stderr)
        return 2
    try:
        drawn_from = plan(args.mode, args.corpus, False if args.no_solver else None)
    except ValueError as e:
        print(f"wsdialects.fuzz: error: {e}", file=sys.stderr)
        return 2
    indices = None
    if prior is None:
        tally = Tally(args.mode, args.seed, ranges(range(args.first, args.first + args.cases)),
                      drawn_from.pipeline_names, drawn_from.corpus)
    else:
        for key, there, here in (("pipelines", prior.pipelines, drawn_from.pipeline_names),
                                 ("seed kernels", prior.corpus, drawn_from.corpus)):
            if there != here:
                print(f"wsdialects.fuzz: error: --resume: {args.resume} was drawn from other {key} than this "
                      "checkout and machine draw from (another commit, or OR-Tools installed on one: --no-solver)",
                      file=sys.stderr)
                return 2
        tally, done = prior, set(prior.done)
        indices = [i for a, b in prior.cases for i in range(a, b + 1) if i not in done]
    total = args.cases if indices is None else len(indices)
    command = "python -m wsdialects.fuzz " + " ".join(argv)
    writer = Writer(args.out, tally, command, args.jobs, args.flush_seconds, args.flush_cases) if args.out else None

    def sink(case, data, result):
        if writer is not None:
            writer.add(case, data, result)
        else:
            tally.add(case, result)

    def progress(n, case, result):
        if not args.quiet and (n % 25 == 0 or n == total or result.outcome in BAD):
            mark = f"  case {case.index}: {result.outcome}: {result.message[:100]}" if result.outcome in BAD else ""
            print(f"[{n}/{total}]{mark}", file=sys.stderr, flush=True)

    stopped: list[int] = []  # the signal that stops the run (a time limit's SIGTERM, Ctrl-C)
    old = {s: signal.signal(s, lambda signum, frame: stopped.append(signum)) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        run = fuzz(args.mode, args.seed, args.cases, args.jobs, args.timeout, args.semantic_timeout,
                   args.corpus, args.first, args.memory_mb, progress=progress, sink=sink, drawn_from=drawn_from,
                   stop=lambda: bool(stopped), indices=indices)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if writer is not None:
        print(f"wrote {writer.flush()}" + (f" (partial: {len(tally.done)} of {tally.total} cases)"
                                           if len(tally.done) < tally.total else ""), file=sys.stderr)
    if stopped:
        print(f"stopped by signal {stopped[0]} after {len(tally.done)} of {tally.total} cases", file=sys.stderr)
        return 128 + stopped[0]
    if args.case is not None:
        _replay(run.results[0])
    print(table(run.results))
    return 1 if run.bad or any(tally.counts[o] for o in BAD) else 0


def _replay(found) -> None:
    case, data, result = found
    ext = "json" if case.kind == "json" else "mlir"
    print(f"case {case.index} ({case.mode}): seed {case.seed}, mutators {', '.join(case.mutators) or '-'}\n"
          f"command: {case.command(f'case-{case.index}.{ext}')}\noutcome: {result.outcome}"
          f"{': ' + result.message if result.message else ''}\n"
          f"--- input ({'not made' if data is None else f'{len(data)} bytes'}) ---", flush=True)
    if data is not None:
        sys.stdout.buffer.write(data if data.endswith(b"\n") else data + b"\n")
        sys.stdout.flush()
    print("--- end of input ---\n")


def merge_main(argv: list[str]) -> int:
    """`python -m wsdialects.fuzz merge A.md B.md ... -o ALL.md`: one table of shards."""
    p = argparse.ArgumentParser(prog="python -m wsdialects.fuzz merge",
                                description="Sum the outcome tables of shards of one run into one table.")
    p.add_argument("tables", nargs="+", help="outcomes.md files written by --out")
    p.add_argument("-o", "--output", help="write the merged table here (default: standard output)")
    args = p.parse_args(argv)
    try:
        merged = merge([read(t) for t in args.tables], args.tables)
    except (OSError, ValueError, KeyError) as e:
        print(f"wsdialects.fuzz merge: error: {e}", file=sys.stderr)
        return 2
    text = render(merged)
    if args.output:
        save(args.output, text)
        print(f"wrote {args.output}: {len(merged.done)} of {merged.total} cases", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 1 if any(merged.counts[o] for o in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
