"""What the fuzzer starts from: seed kernels, dependence graphs and pipelines.

Seeds are the bundled kernels (``examples/kernels``, ``test/Inputs/kernels``
and its ``scheduled/`` copies, which carry ``ws.*`` schedule attributes) and
the scheduler's JSON graphs (``test/schedule/lit``), found beside the package
in a checkout; ``--corpus DIR`` adds (or, without a checkout, provides) more.
A pipeline is the ``ws-opt`` arguments after the input file:

    ["-p", "ws-hopper{cooperative=2}", "-t", "llvm"]
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED_DIRS = [REPO / "examples" / "kernels", REPO / "test" / "Inputs" / "kernels",
             REPO / "test" / "Inputs" / "kernels" / "scheduled"]
GRAPH_DIRS = [REPO / "test" / "schedule" / "lit"]


@dataclass(frozen=True)
class Seed:
    """One seed input: its file name (for reports) and its text."""

    name: str
    text: str

    @property
    def scheduled(self) -> bool:
        """Carries a ws-schedule result (ws.stage / ws.order / ws.warp)."""
        return "ws.warp" in self.text


def has_solver() -> bool:
    """OR-Tools is installed: the ws-schedule pipelines can run."""
    return importlib.util.find_spec("ortools") is not None


def _read_dir(d: Path, suffix: str) -> list[Seed]:
    out = []
    for p in sorted(d.glob(f"*{suffix}")):
        try:
            out.append(Seed(f"{d.name}/{p.name}", p.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def seed_kernels(extra: list[str] = ()) -> list[Seed]:
    """The bundled .mlir kernels (those that parse), plus ``extra`` folders or files."""
    import wsdialects

    found: list[Seed] = []
    for d in [*SEED_DIRS, *map(Path, extra)]:
        if d.is_file():
            found.append(Seed(d.name, d.read_text(encoding="utf-8")))
        elif d.is_dir():
            found += _read_dir(d, ".mlir")
    good = []
    for s in found:  # a seed must be valid input: the mutations make it invalid
        try:
            wsdialects.parse(s.text, s.name)
        except Exception:  # noqa: BLE001 - an invalid seed is skipped, not fatal
            continue
        good.append(s)
    return good


def seed_graphs(extra: list[str] = ()) -> list[Seed]:
    """The scheduler's JSON graphs (those that are valid)."""
    from wsdialects.schedule.graph import GraphError, graph_from_json

    out = []
    for d in [*GRAPH_DIRS, *map(Path, extra)]:
        for s in (_read_dir(d, ".json") if d.is_dir() else []):
            try:
                graph_from_json(s.text)
            except GraphError:
                continue
            out.append(s)
    return out


def _schedule(spec: str) -> str:
    return f"ws-schedule{{arch=h100 time-limit=2}},{spec}"


def pipelines(mode: str, solver: bool | None = None) -> list[list[str]]:
    """The ws-opt pipelines of a mode (with the ws-schedule ones if ``solver``, by
    default when OR-Tools is installed: the cases drawn depend on it).  ``semantic`` and ``schedule`` keep to
    pipelines whose output the interpreter runs (ws-specialize, and the lowering
    up to ws-lower-warp-groups); ``syntax`` also lowers to the end and to LLVM IR."""
    interpretable = [
        "ws-specialize",
        "ws-specialize{depth=1 mma-depth=0}",
        "ws-specialize{depth=2 mma-depth=1 cooperative=2}",
        "ws-specialize{cooperative=2 pingpong=true}",
        "ws-specialize{persistent=true programs=3}",
        "ws-specialize{persistent=true ctas-per-sm=2}",  # ws-occupancy, 264 programs by default
        "ws-tma-store,ws-specialize{persistent=true programs=3}",  # the TMA-store contract in the interpreter
        # each group of a ping-pong team stores its own rows (a descriptor argument's box retyped)
        "ws-tma-store,ws-specialize{cooperative=2 pingpong=true team-stores=split persistent=true programs=3}",
        "ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups",
        "ws-partition,ws-distribute{depth=2}",
        # a TMA store staged in a released ring slot (the interpreter writes the slot)
        "ws-specialize{depth=2 mma-depth=1 cooperative=2 pingpong=true},ws-stage-in-slot,ws-lower-aref,"
        "ws-lower-warp-groups",
    ]
    out = [["-p", p] for p in interpretable]
    if mode == "schedule":  # the mutants carry the schedule: no ws-schedule (it would replace it)
        return out + [["-p", "ws-hopper"], ["-p", "ws-hopper{cooperative=2}"]]
    if mode == "syntax":
        out += [["-p", p] for p in ("ws-hopper", "ws-hopper{cooperative=2}", "ws-hopper{cooperative=2 pingpong=true}",
                                    "ws-hopper{persistent=true}", "ws-hopper{ctas-per-sm=2}")]
        out += [["-p", "ws-hopper", "-t", "llvm"], ["-p", "ws-hopper{cooperative=2}", "-t", "llvm"]]
    if has_solver() if solver is None else solver:
        out += [["-p", _schedule("ws-specialize")], ["-p", _schedule("ws-specialize{cooperative=2}")]]
        if mode == "syntax":
            out += [["-p", _schedule("ws-hopper")]]
    return out


def interpretable(pipeline: list[str]) -> bool:
    """The pipeline's output can be interpreted (MLIR, not lowered past warp groups)."""
    text = " ".join(pipeline)
    return "-t" not in pipeline and "ws-hopper" not in text
