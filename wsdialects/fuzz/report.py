"""The outcome table of a fuzz run (markdown) and a reproducer per bad case.

    | outcome | cases |
    |---|---|
    | ok | 812 |
    | error (located) | 1170 |
    ...

Each bad case is written as ``repro/<outcome>/case-<index>.<mlir|json>``
(the exact input bytes) and ``case-<index>.txt`` (the command, the seed, the
mutators and the message).
"""

from __future__ import annotations

import os
from collections import Counter

from .case import BAD, OUTCOMES, Case, Result

LABELS = {"error": "error (located)", "unlocated": "unlocated error", "internal": "internal error",
          "bad-output": "output does not re-parse", "skipped": "skipped (comparison ran out of time)"}


def _pipeline_name(case: Case) -> str:
    return ("ws-schedule " if case.kind == "json" else "") + " ".join(case.pipeline)


def table(results: list[tuple[Case, bytes | None, Result]]) -> str:
    """The markdown report: totals, then outcomes per pipeline, then the bad cases."""
    counts = Counter(r.outcome for _, _, r in results)
    compared = sum(1 for _, _, r in results if r.compared)
    lines = ["| outcome | cases |", "|---|---|"]
    for o in OUTCOMES:
        bold = "**" if o in BAD and counts[o] else ""
        lines.append(f"| {bold}{LABELS.get(o, o)}{bold} | {bold}{counts[o]}{bold} |")
    lines.append(f"| total | {len(results)} |")
    lines += ["", f"Interpreted before and after the pipeline and compared: {compared} cases.", ""]
    per: dict[str, Counter] = {}
    for case, _, r in results:
        per.setdefault(_pipeline_name(case), Counter())[r.outcome] += 1
    shown = [o for o in OUTCOMES if counts[o]]
    lines += ["| pipeline | " + " | ".join(shown) + " |", "|---|" + "---|" * len(shown)]
    for name in sorted(per):
        lines.append(f"| `{name}` | " + " | ".join(str(per[name][o]) for o in shown) + " |")
    bad = [(c, r) for c, _, r in results if r.outcome in BAD]
    if bad:
        lines += ["", "## Bad cases", "", "| case | outcome | seed kernel | mutators | pipeline | message |",
                  "|---|---|---|---|---|---|"]
        for c, r in sorted(bad, key=lambda x: (x[1].outcome, x[0].index)):
            msg = r.message.replace("|", "\\|").replace("\n", " ")[:200]
            lines.append(f"| {c.index} | {r.outcome} | {c.seed} | {', '.join(c.mutators) or '-'} | "
                         f"`{_pipeline_name(c)}` | {msg} |")
    return "\n".join(lines) + "\n"


def write(out_dir: str, header: str, results: list[tuple[Case, bytes | None, Result]]) -> str:
    """Write ``outcomes.md`` and the reproducers; returns the table's path."""
    os.makedirs(out_dir, exist_ok=True)
    for case, data, r in results:
        if r.outcome not in BAD:
            continue
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
    path = os.path.join(out_dir, "outcomes.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + "\n\n" + table(results))
    return path
