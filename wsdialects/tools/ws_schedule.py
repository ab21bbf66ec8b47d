"""ws-schedule: optimal software pipelining + warp assignment of a dependence graph.

Reads a graph JSON file (or a tile kernel ``.mlir`` file, whose loop body is
turned into a graph with the ``--arch`` machine model) and prints the schedule
as JSON.  Bad input gives ``FILE: error: ...`` (``FILE:line:col:`` for JSON
syntax errors) and exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ws-schedule", description=__doc__.split("\n\n")[0])
    p.add_argument("graph", help="dependence graph JSON (or a tile kernel .mlir)")
    p.add_argument("--solver", default="cpsat", choices=["cpsat", "z3"], help="constraint solver (default cpsat)")
    p.add_argument("--arch", default="h100", choices=["h100", "b200"],
                   help="machine model used to build graphs from .mlir input (JSON graphs carry their own units)")
    p.add_argument("--normalize", type=int, metavar="U", default=None,
                   help="rescale cycle counts with the §5.2 integer program so they sum to at most U "
                        "(default: off for JSON, 300 for .mlir, the paper's U)")
    p.add_argument("--time-limit", type=float, default=120.0, metavar="S", help="overall solver time limit")
    p.add_argument("--dump-graph", action="store_true", help="print the (normalized) graph JSON instead of solving")
    p.add_argument("--svg-graph", metavar="F", help="write the dependence graph coloured by warp as SVG")
    p.add_argument("--svg-gantt", metavar="F", help="write the pipelined schedule as an SVG Gantt chart")
    p.add_argument("-o", "--output", metavar="OUT", help="write the JSON here instead of stdout")
    return p


def _load(path: str, arch: str, normalize: int | None):
    from wsdialects.schedule.graph import load_graph
    from wsdialects.schedule.normalize import normalize_graph

    if path.endswith(".mlir"):
        from wsdialects.schedule.from_ir import graph_from_file

        graph = graph_from_file(path, arch)
        return normalize_graph(graph, 300 if normalize is None else normalize)
    graph = load_graph(path)
    return graph if normalize is None else normalize_graph(graph, normalize)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from wsdialects.schedule import GraphError, SolverTimeout
    from wsdialects.schedule.joint import twill

    def fail(msg: str, line: int | None = None, col: int | None = None) -> int:
        where = args.graph if line is None else f"{args.graph}:{line}:{col}"
        print(f"{where}: error: {msg}", file=sys.stderr)
        return 1

    try:
        graph = _load(args.graph, args.arch, args.normalize)
        if args.dump_graph:
            text = json.dumps(graph.to_dict(), indent=2)
        else:
            schedule = twill(graph, solver=args.solver, time_limit=args.time_limit)
            text = json.dumps(schedule.to_json_dict(), indent=2)
            from wsdialects.schedule import render

            if args.svg_graph:
                render.write_svg(args.svg_graph, render.graph_svg(graph, schedule))
            if args.svg_gantt:
                render.write_svg(args.svg_gantt, render.gantt_svg(graph, schedule))
        if args.output:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        else:
            print(text)
        return 0
    except GraphError as exc:
        return fail(exc.message, exc.line, exc.col)
    except SolverTimeout as exc:
        return fail(f"solver gave up: {exc}")
    except (OSError, ValueError) as exc:
        return fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - the contract is: never a traceback
        return fail(f"internal error: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
