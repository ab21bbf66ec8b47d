"""The outcome table of a fuzz run (markdown), written as the run goes, and a
reproducer per bad case.

    # wsdialects.fuzz: mode syntax, seed 7, cases 0..9999
    partial: 4210 of 10000 cases
    ...
    | outcome | cases |
    |---|---|
    | ok | 812 |
    | error (located) | 1170 |
    ...
    <!-- wsdialects.fuzz {"mode": "syntax", "seed": 7, "cases": [[0, 9999]], "done": [[0, 4209]], ...} -->

`Writer` rewrites ``outcomes.md`` every ~30 s (and every N cases), so a run
killed by a time limit leaves a valid table of the cases done so far. The
comment on the last line holds what the table was made from (counts per
pipeline and outcome, the bad cases, which cases ran, the pipelines and a
digest of the seed kernels); `merge` sums the tables of shards (``--start S
--count N`` runs of one seed) into one, after checking that they are disjoint
and drawn alike. Each bad case is written as ``repro/<outcome>/case-<index>.<mlir|json>``
(the exact input bytes) and ``case-<index>.txt`` (the command, the seed, the
mutators and the message) as soon as it is found.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from .case import BAD, OUTCOMES, Case, Result

LABELS = {"error": "error (located)", "unlocated": "unlocated error", "internal": "internal error",
          "bad-output": "output does not re-parse", "skipped": "skipped (comparison ran out of time)"}
MARK = "<!-- wsdialects.fuzz "
Results = list[tuple[Case, bytes | None, Result]]


def _pipeline_name(case: Case) -> str:
    return ("ws-schedule " if case.kind == "json" else "") + " ".join(case.pipeline)


def ranges(indices) -> list[list[int]]:
    """Sorted integers as inclusive ranges: [0, 1, 2, 5] -> [[0, 2], [5, 5]]."""
    out: list[list[int]] = []
    for i in sorted(indices):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def _size(rs: list[list[int]]) -> int:
    return sum(b - a + 1 for a, b in rs)


def _spell(rs: list[list[int]]) -> str:
    return ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in rs) or "none"


def digest(texts) -> str:
    """A short digest of the seed inputs (shards drawn from other seeds are other cases)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()[:16]


@dataclass
class Tally:
    """What a table is made from: which cases it covers and how they came out."""

    mode: str
    seed: int
    cases: list[list[int]]  # the case indices asked for, inclusive ranges
    pipelines: list[str] = field(default_factory=list)  # every pipeline the cases are drawn from
    corpus: str = ""  # digest of the seed kernels and graphs
    done: list[int] = field(default_factory=list)
    per: dict[str, Counter] = field(default_factory=dict)  # pipeline -> outcome -> cases
    compared: int = 0
    bad: list[list] = field(default_factory=list)  # [outcome, index, markdown row]
    runs: list[str] = field(default_factory=list)  # markdown lines: each command, its seconds and jobs

    def add(self, case: Case, result: Result) -> None:
        self.done.append(case.index)
        self.per.setdefault(_pipeline_name(case), Counter())[result.outcome] += 1
        self.compared += bool(result.compared)
        if result.outcome in BAD:
            msg = result.message.replace("|", "\\|").replace("\n", " ")[:200]
            self.bad.append([result.outcome, case.index,
                             f"| {case.index} | {result.outcome} | {case.seed} | {', '.join(case.mutators) or '-'} | "
                             f"`{_pipeline_name(case)}` | {msg} |"])

    @property
    def counts(self) -> Counter:
        return sum(self.per.values(), Counter())

    @property
    def total(self) -> int:
        return _size(self.cases)

    def state(self) -> dict:
        return {"mode": self.mode, "seed": self.seed, "cases": self.cases, "done": ranges(self.done),
                "pipelines": self.pipelines, "corpus": self.corpus, "compared": self.compared,
                "per": {k: {o: v[o] for o in OUTCOMES if v[o]} for k, v in sorted(self.per.items())},
                "bad": sorted(self.bad), "runs": self.runs}

    @classmethod
    def from_state(cls, s: dict) -> Tally:
        done = [i for a, b in s["done"] for i in range(a, b + 1)]
        return cls(s["mode"], s["seed"], s["cases"], s["pipelines"], s["corpus"], done,
                   {k: Counter(v) for k, v in s["per"].items()}, s["compared"], s["bad"], s["runs"])


def render(t: Tally) -> str:
    """The markdown report: the header, the totals, outcomes per pipeline, the bad cases,
    and (in a comment) the state `merge` reads back."""
    counts = t.counts
    lines = [f"# wsdialects.fuzz: mode {t.mode}, seed {t.seed}, cases {_spell(t.cases)}", ""]
    if len(t.done) < t.total:
        lines += [f"partial: {len(t.done)} of {t.total} cases (the run stopped or is still running; "
                  f"done: {_spell(ranges(t.done))})", ""]
    lines += t.runs + ([""] if t.runs else [])
    lines += ["| outcome | cases |", "|---|---|"]
    for o in OUTCOMES:
        bold = "**" if o in BAD and counts[o] else ""
        lines.append(f"| {bold}{LABELS.get(o, o)}{bold} | {bold}{counts[o]}{bold} |")
    lines.append(f"| total | {len(t.done)} |")
    lines += ["", f"Interpreted before and after the pipeline and compared: {t.compared} cases.", ""]
    shown = [o for o in OUTCOMES if counts[o]]
    lines += ["| pipeline | " + " | ".join(shown) + " |", "|---|" + "---|" * len(shown)]
    for name in sorted(t.per):
        lines.append(f"| `{name}` | " + " | ".join(str(t.per[name][o]) for o in shown) + " |")
    if t.bad:
        lines += ["", "## Bad cases", "", "| case | outcome | seed kernel | mutators | pipeline | message |",
                  "|---|---|---|---|---|---|"]
        lines += [row for _, _, row in sorted(t.bad, key=lambda b: (b[0], b[1]))]
    state = json.dumps(t.state(), separators=(",", ":")).replace("-->", "--\\u003e")
    return "\n".join(lines) + f"\n\n{MARK}{state} -->\n"


def table(results: Results) -> str:
    """The markdown table of finished results (no header)."""
    t = Tally("", 0, ranges(c.index for c, _, _ in results))
    for c, _, r in results:
        t.add(c, r)
    text = render(t)
    return text[text.index("| outcome"):text.index(MARK)].rstrip() + "\n"


def read(path: str) -> Tally:
    """The state of a table written by `render`."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(re.escape(MARK) + r"(\{.*\}) -->", text)
    if m is None:
        raise ValueError(f"{path}: not a wsdialects.fuzz table (no state comment; written before 2026-11-25c?)")
    return Tally.from_state(json.loads(m.group(1)))


def merge(tallies: list[Tally], names: list[str]) -> Tally:
    """One table of shards of one run: same mode, seed, pipelines and seed kernels,
    disjoint case ranges. Raises ValueError naming the shards that do not fit."""
    first = tallies[0]
    for t, name in zip(tallies[1:], names[1:]):
        for key in ("mode", "seed", "pipelines", "corpus"):
            if getattr(t, key) != getattr(first, key):
                raise ValueError(f"{name} and {names[0]} differ in {key}: "
                                 f"{getattr(t, key)!r} against {getattr(first, key)!r}")
    owned = [((a, b), n) for t, n in zip(tallies, names) for a, b in t.cases]
    for i, ((a, b), name) in enumerate(owned):
        for (lo, hi), other in owned[i + 1:]:
            if lo <= b and a <= hi:
                raise ValueError(f"{other} and {name} overlap: both have cases {max(a, lo)}..{min(b, hi)}")
    out = Tally(first.mode, first.seed, ranges(i for t in tallies for a, b in t.cases for i in range(a, b + 1)),
                first.pipelines, first.corpus)
    for t in tallies:
        out.done += t.done
        for k, v in t.per.items():
            out.per.setdefault(k, Counter()).update(v)
        out.compared += t.compared
        out.bad += t.bad
        out.runs += t.runs
    return out


def write_repro(out_dir: str, case: Case, data: bytes | None, r: Result) -> None:
    """``repro/<outcome>/case-N.<ext>`` (the input) and ``case-N.txt`` (how to run it)."""
    folder = os.path.join(out_dir, "repro", r.outcome)
    os.makedirs(folder, exist_ok=True)
    ext = "json" if case.kind == "json" else "mlir"
    name = f"case-{case.index}.{ext}"
    if data is not None:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    with open(os.path.join(folder, f"case-{case.index}.txt"), "w", encoding="utf-8") as f:
        f.write(f"outcome: {r.outcome}\nmessage: {r.message}\ncommand: {case.command(name)}\n"
                f"mode: {case.mode}\nseed kernel: {case.seed}\nmutators: {', '.join(case.mutators)}\n"
                f"exit: {r.exit}\nseconds: {r.seconds:.2f}\n")
        if "traceback" in r.details:
            f.write("\n" + r.details["traceback"])
        if data is None:
            f.write("(the input was not made: the fuzzer failed before)\n")


def save(path: str, text: str) -> None:
    """Replace ``path`` by ``text`` at once (a reader never sees half a table)."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


class Writer:
    """Keeps ``out_dir/outcomes.md`` up to date while a run goes: a reproducer as each
    bad case is found, the table every ``every_s`` seconds or ``every_n`` cases and at
    `close`. ``command`` is the run's command line (shown with its seconds and jobs)."""

    def __init__(self, out_dir: str, tally: Tally, command: str = "", jobs: int = 1,
                 every_s: float = 30.0, every_n: int = 1000):
        self.out_dir, self.tally, self.command, self.jobs = out_dir, tally, command, jobs
        self.every_s, self.every_n = every_s, every_n
        self.path = os.path.join(out_dir, "outcomes.md")
        self.start = self.last = time.monotonic()
        self.since = 0
        os.makedirs(out_dir, exist_ok=True)
        self.flush()

    def add(self, case: Case, data: bytes | None, result: Result) -> None:
        self.tally.add(case, result)
        if result.outcome in BAD:
            write_repro(self.out_dir, case, data, result)
        self.since += 1
        if self.since >= self.every_n or time.monotonic() - self.last >= self.every_s:
            self.flush()

    def flush(self) -> str:
        run = f"`{self.command}` ({time.monotonic() - self.start:.0f} s, {self.jobs} jobs)" if self.command else ""
        t = self.tally
        save(self.path, render(Tally(t.mode, t.seed, t.cases, t.pipelines, t.corpus, t.done, t.per, t.compared,
                                     t.bad, t.runs + ([run] if run else []))))
        self.last, self.since = time.monotonic(), 0
        return self.path


def write(out_dir: str, header: str, results: Results) -> str:
    """Write ``outcomes.md`` (``header``, then the table) and the reproducers of
    finished results; returns the table's path."""
    os.makedirs(out_dir, exist_ok=True)
    for case, data, r in results:
        if r.outcome in BAD:
            write_repro(out_dir, case, data, r)
    path = os.path.join(out_dir, "outcomes.md")
    save(path, header + "\n\n" + table(results))
    return path
