"""ws-schedule: optimal software pipelining + warp assignment of a dependence graph.

Reads a graph JSON file (or a tile kernel ``.mlir`` file, whose loop body is
turned into a graph with the ``--arch`` machine model; ``-`` reads standard
input) and prints the schedule as JSON.

Conventions shared with ws-opt: exit status 0 on success, 1 for any user error
(bad usage, bad input, no schedule, time limit), 2 only for a compiler defect
(``ws-schedule: internal error: ...``; ``WS_OPT_TRACEBACK=1`` shows where).
Diagnostics name the closest location there is, once:
``graph.json:12:20: error: edges[3] refers to unknown op 'Q'``,
``k.mlir:19:5: error: ...``, ``ws-schedule: error: ...`` for usage.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from wsdialects.tools.driver_common import ArgParser, add_common_flags, read_input, run_tool, write_output

PROG = "ws-schedule"


def _parser() -> argparse.ArgumentParser:
    p = ArgParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("graph", help="dependence graph JSON (or a tile kernel .mlir; '-' for stdin)")
    p.add_argument("--solver", default="cpsat", choices=["cpsat", "z3"], help="constraint solver (default cpsat)")
    p.add_argument("--arch", default="h100", choices=["h100", "b200"],
                   help="machine model used to build graphs from .mlir input (JSON graphs carry their own units)")
    p.add_argument("--normalize", type=int, metavar="U", default=None,
                   help="rescale cycle counts with the §5.2 integer program so they sum to at most U "
                        "(default: off for JSON; for .mlir the machine's, 300 on h100 (the paper's U), 24 on b200)")
    p.add_argument("--time-limit", type=float, default=120.0, metavar="S",
                   help="time limit in seconds for the whole search, solver included (default 120)")
    p.add_argument("--dump-graph", action="store_true", help="print the (normalized) graph JSON instead of solving")
    p.add_argument("--svg-graph", metavar="F", help="write the dependence graph coloured by warp as SVG")
    p.add_argument("--svg-gantt", metavar="F", help="write the pipelined schedule as an SVG Gantt chart")
    add_common_flags(p, PROG)
    return p


def _load(path: str, name: str, arch: str, normalize: int | None, time_limit: float):
    """The graph of a JSON or .mlir input, normalized as asked, and the JSON
    text (None for .mlir) to locate later errors in."""
    import wsdialects
    from wsdialects.schedule.graph import graph_from_json, strip_line_comments
    from wsdialects.schedule.normalize import normalize_graph

    text, _ = read_input(path)
    is_mlir = path.endswith(".mlir") or (path == "-" and not strip_line_comments(text).lstrip().startswith("{"))
    if is_mlir:
        from wsdialects.schedule.from_ir import graph_from_module
        from wsdialects.schedule.machine import load_machine

        graph = graph_from_module(wsdialects.parse(text, name), arch)
        bound = load_machine(arch).normalize if normalize is None else normalize  # h100: 300, the paper's
        return normalize_graph(graph, bound, time_limit=time_limit / 4), None
    graph = graph_from_json(text)
    if normalize is not None:  # keeps the order of ops and edges: paths still locate
        graph = normalize_graph(graph, normalize, time_limit=time_limit / 4)
    return graph, text


def run(args: argparse.Namespace) -> int:
    """Solve (or dump) the graph of ``args``; raises on user errors."""
    import time

    from wsdialects.diagnostics import WsError
    from wsdialects.schedule.bounds import MAX_NORMALIZE_BOUND
    from wsdialects.schedule.graph import GraphError
    from wsdialects.schedule.joint import twill

    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        raise WsError(f"--time-limit must be a positive number of seconds, got {args.time_limit}", PROG)
    if args.normalize is not None and not 1 <= args.normalize <= MAX_NORMALIZE_BOUND:
        raise WsError(f"--normalize must be from 1 to {MAX_NORMALIZE_BOUND}, got {args.normalize}", PROG)
    name = "<stdin>" if args.graph == "-" else args.graph
    start = time.monotonic()
    graph, json_text = _load(args.graph, name, args.arch, args.normalize, args.time_limit)
    if args.dump_graph:
        text = json.dumps(graph.to_dict(), indent=2)
    else:
        left = max(0.01, args.time_limit - (time.monotonic() - start))
        try:
            schedule = twill(graph, solver=args.solver, time_limit=left)
        except GraphError as exc:  # about a member of a JSON graph: located there
            if exc.path is not None and exc.line is None and json_text is not None:
                from wsdialects.schedule.graph import strip_line_comments
                from wsdialects.schedule.jsonpos import locate

                exc.line, exc.col = locate(strip_line_comments(json_text), exc.path) or (None, None)
            raise
        text = json.dumps(schedule.to_json_dict(), indent=2)
        from wsdialects.schedule import render

        if args.svg_graph:
            write_output(args.svg_graph, render.graph_svg(graph, schedule))
        if args.svg_gantt:
            write_output(args.svg_gantt, render.gantt_svg(graph, schedule))
    write_output(args.output_file, text + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The exit status (driver_common's conventions, shared with ws-opt). Like ws-opt's `main`,
    speeds up xDSL's hot routines for this process (wsdialects.irfast)."""
    from wsdialects import irfast
    from wsdialects.diagnostics import WsError
    from wsdialects.schedule import GraphError, SolverTimeout

    irfast.install()

    def body() -> int:
        args = _parser().parse_args(argv)
        name = "<stdin>" if args.graph == "-" else args.graph
        try:
            return run(args)
        except GraphError as exc:  # located in the input (or the file it names) once
            file = exc.file or name
            raise WsError(exc.message, file, exc.line or 0, exc.col or 0) from None
        except SolverTimeout as exc:
            raise WsError(f"solver gave up: {exc} (--time-limit)", name) from None

    return run_tool(PROG, body)


if __name__ == "__main__":
    sys.exit(main())
