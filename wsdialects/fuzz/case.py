"""One fuzz case: how it is drawn from a seed, how it runs, how it is judged.

A case is drawn from ``(mode, seed, index)`` alone (a ``random.Random`` seeded
with that string), so any case of a run can be re-made by itself.  It runs in
a child process (see ``pool.py``): the mutators make its input, the compiler
(``ws-opt``'s ``main``, or ``ws-schedule``'s for a JSON graph) runs on it in
process, and the outcome is one of:

| outcome | meaning | bad? |
|---|---|---|
| `ok` | exit 0 (semantic modes: same results before and after) | no |
| `error` | exit 1 with a located diagnostic `FILE:LINE:COL: error: ...` | no |
| `unlocated` | exit 1, no diagnostic names a line | yes |
| `internal` | exit 2, "internal error", a traceback, or the compiler process died | yes |
| `timeout` | the compile ran past the per-case limit | yes |
| `mismatch` | exit 0, but the output computes something else, faults, or deadlocks where the input did not | yes |
| `bad-output` | exit 0, but the printed IR does not parse again | yes |
| `fuzzer-error` | the fuzzer itself failed on this case (a mutator, the input builder) | yes |
| `skipped` | compiled fine; the comparison ran out of time | no |
"""

from __future__ import annotations

import io
import random
import re
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field

from . import mutate_graph, mutate_ir, mutate_text
from .corpus import Seed, interpretable

OUTCOMES = ["ok", "error", "skipped", "unlocated", "internal", "timeout", "mismatch", "bad-output", "fuzzer-error"]
BAD = {"unlocated", "internal", "timeout", "mismatch", "bad-output", "fuzzer-error"}
MODES = ("syntax", "semantic", "schedule")

LOCATED = re.compile(r"^\S[^\n]*?:\d+:\d+: error: ", re.M)
# Errors about the whole input, which have no line to name (FILE: error: ...).
WHOLE_FILE = re.compile(r"^\S+: error: solver gave up: ", re.M)


@dataclass
class Case:
    """What to run: which seed, through which pipeline, after which mutators."""

    index: int
    mode: str
    seed: str  # the seed's name
    kind: str  # "mlir" or "json"
    pipeline: list[str]
    mutators: list[str]
    rng_key: str  # seeds the mutators' random choices

    def command(self, path: str) -> str:
        tool = "ws-schedule" if self.kind == "json" else "ws-opt"
        args = " ".join(f"'{a}'" if any(c in a for c in "{} ") else a for a in self.pipeline)
        return f"{tool} {path} {args}"


@dataclass
class Result:
    outcome: str
    message: str = ""  # the first diagnostic, or what went wrong
    exit: int | None = None
    seconds: float = 0.0
    compared: bool = False  # semantic: interpreted before and after
    details: dict = field(default_factory=dict)


# ---------------------------------------------------------------- drawing cases

TEXT_WEIGHTS = {**{name: 1.0 for name in mutate_text.MUTATORS}, "raw_bytes": 0.6, "splice": 0.6}
IR_WEIGHTS = {"reshape": 1.0, "reshape_one": 0.6, "num_warps": 0.8, "drop_kernel_attr": 0.3, "schedule_attr": 0.5}


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    names = sorted(weights)
    return rng.choices(names, [weights[n] for n in names])[0]


def draw(mode: str, seed: int, index: int, kernels: list[Seed], graphs: list[Seed],
         pipes: list[list[str]]) -> Case:
    """Case ``index`` of a run: a function of its arguments only."""
    key = f"wsdialects.fuzz:{mode}:{seed}:{index}"
    rng = random.Random(key)
    if mode == "schedule" and graphs and rng.random() < 0.25:
        g = rng.choice(graphs)
        names = [rng.choice(sorted(mutate_graph.MUTATORS)) for _ in range(rng.randint(1, 2))]
        args = ["--time-limit", "5"] + rng.choice([[], [], ["--solver", "z3"], ["--normalize", "300"]])
        return Case(index, mode, g.name, "json", args, names, key)
    k = rng.choice(kernels)
    pipe = rng.choice(pipes)
    if mode == "syntax":
        n = rng.choice([1, 1, 1, 2, 3])
        names = [_pick(rng, TEXT_WEIGHTS) if rng.random() < 0.7 else _pick(rng, IR_WEIGHTS) for _ in range(n)]
    elif mode == "semantic":
        names = rng.choice([[], ["reshape"], ["reshape"], ["warps_valid"], ["reshape", "warps_valid"],
                            ["reshape", "reshape"], ["number"], [_pick(rng, TEXT_WEIGHTS)]])
    else:
        first = "schedule_attr" if k.scheduled and rng.random() < 0.5 else "random_schedule"
        names = [first] + rng.choice([[], [], ["schedule_attr"], ["reshape"], ["warps_valid"]])
        if names[-1] in ("reshape", "warps_valid"):
            names = names[::-1]  # resize first, then schedule what is there
    return Case(index, mode, k.name, "mlir", pipe, names, key)


def make_input(case: Case, kernels: dict[str, Seed], graphs: dict[str, Seed]) -> bytes:
    """Apply the case's mutators to its seed."""
    rng = random.Random(case.rng_key + ":mutate")
    if case.kind == "json":
        return mutate_graph.mutate(graphs[case.seed].text, rng, case.mutators).encode()
    text: str | bytes = kernels[case.seed].text
    donors = sorted(kernels)
    for name in case.mutators:
        if isinstance(text, bytes):  # after raw_bytes the text is no longer UTF-8; keep to bytes
            text = text + b"\n" if name != "truncate" else text[: rng.randrange(len(text) + 1)]
            continue
        if name == "raw_bytes":
            text = mutate_text.raw_bytes(text, rng)
        elif name == "splice":
            text = mutate_text.splice(text, rng, kernels[rng.choice(donors)].text)
        elif name in mutate_text.MUTATORS:
            text = mutate_text.MUTATORS[name](text, rng)
        else:
            text = mutate_ir.MUTATORS[name](text, rng)
    return text if isinstance(text, bytes) else text.encode()


# ---------------------------------------------------------------- judging

def classify(code: int | None, err: str) -> tuple[str, str]:
    """(outcome, message) of a compile from its exit status and diagnostics."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    first_error = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
    if "Traceback (most recent call last)" in err:
        return "internal", next((ln for ln in reversed(lines) if not ln.startswith(" ")), first_error)
    if code not in (0, 1) or "internal error" in err:
        return "internal", next((ln for ln in lines if "internal error" in ln), first_error or f"exit {code}")
    if code == 1:
        m = LOCATED.search(err) or WHOLE_FILE.search(err)
        if m is None:
            return "unlocated", first_error
        return "error", err[m.start():].split("\n", 1)[0]
    return "ok", ""


def run_tool(case: Case, path: str, out_path: str) -> tuple[int | None, str]:
    """The compiler on ``path``, in this process: (exit status, stderr text)."""
    out, err = io.StringIO(), io.StringIO()
    if case.kind == "json":
        from wsdialects.tools.ws_schedule import main
        argv = [path, *case.pipeline, "-o", out_path]
    else:
        from wsdialects.tools.ws_opt import main
        argv = [path, *case.pipeline, "-o", out_path]
    code: int | None
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # noqa: BLE001 - an exception out of main is a defect of the tool
            err.write("Traceback (most recent call last):\n" + traceback.format_exc())
            code = None
    return code, err.getvalue()


def compare(case: Case, data: bytes, output: str, rng_key: str, name: str = "input.mlir") -> Result | None:
    """Semantic check: the input and the compiled output interpreted on the
    same random inputs.  None when the input cannot be compared (it does not
    parse or run by itself: then it is only a syntax case).  `name`: the input's
    file name (the one the compiler read it under: `parse_text` then gives a copy
    of the module it parsed there, without parsing it again)."""
    import numpy as np

    import wsdialects
    from wsdialects.transforms.partition import kernels

    from .inputs import differences, make_inputs, racy_run, run

    try:
        before = wsdialects.parse(data.decode("utf-8"), name)
        found = kernels(before)
        if not found:
            return None
        kernel = found[0]
        name = kernel.sym_name.data
        grid, args = make_inputs(kernel, np.random.default_rng(list(rng_key.encode())))
        want, race = racy_run(before, name, grid, args)
    except Exception:  # noqa: BLE001 - a kernel that faults on its own is not compared
        return None
    if race is not None:  # the input's own result depends on an unfixed order
        return None
    try:
        after = wsdialects.parse(output, "output.mlir")
    except Exception as e:  # noqa: BLE001
        return Result("bad-output", f"the output does not parse: {str(e).splitlines()[0][:300]}")
    for seed in (None, random.Random(rng_key).randrange(1 << 30)):
        try:
            got = run(after, name, grid, args, seed=seed)
        except wsdialects.Deadlock as e:
            return Result("mismatch", f"deadlock after the pipeline, not before (interleaving {seed}): "
                                      f"{str(e).splitlines()[0][:300]}", compared=True)
        except Exception as e:  # noqa: BLE001 - faults where the input did not
            return Result("mismatch", f"the output faults where the input did not (interleaving {seed}): "
                                      f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}",
                          compared=True)
        diff = differences(want, got)
        if diff is not None:
            return Result("mismatch", f"{diff} (interleaving {seed}; grid {grid})", compared=True)
    return Result("ok", compared=True)


def execute(case: Case, data: bytes, workdir: str, report) -> Result:
    """Run the case on its input (already made) and judge it; ``report(phase)``
    tells the parent which phase runs, so a time-out is blamed right."""
    import os

    ext = "json" if case.kind == "json" else "mlir"
    path = os.path.join(workdir, f"case-{case.index}.{ext}")
    out_path = os.path.join(workdir, f"case-{case.index}.out")
    with open(path, "wb") as f:
        f.write(data)
    report("compile")
    start = time.monotonic()
    code, err = run_tool(case, path, out_path)
    outcome, message = classify(code, err)
    result = Result(outcome, message, code, time.monotonic() - start)
    if outcome != "ok" or case.kind == "json" or "-t" in case.pipeline:
        return result
    try:
        with open(out_path, encoding="utf-8") as f:
            output = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return Result("bad-output", f"no readable output: {e}", code, result.seconds)
    if case.mode == "syntax" or not interpretable(case.pipeline):
        import wsdialects

        try:
            wsdialects.parse(output, "output.mlir")
        except Exception as e:  # noqa: BLE001
            return Result("bad-output", f"the output does not parse: {str(e).splitlines()[0][:300]}", code,
                          result.seconds)
        return result
    report("semantic")
    judged = compare(case, data, output, case.rng_key, path)
    if judged is None:
        return result
    judged.exit, judged.seconds = code, result.seconds
    return judged

