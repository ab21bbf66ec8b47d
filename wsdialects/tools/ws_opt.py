"""`ws-opt`: parse a tile kernel (or import Triton's TTIR: wsdialects/triton), run wsdialects passes,
print the result (mlir-opt's conventions).

    ws-opt FILE [-p PIPE | --pass-pipeline='builtin.module(PIPE)'] [-t mlir|llvm|ptx] [-o OUT]
           [--split-input-file] [--verify-diagnostics] [--mlir-print-ir-after-all]
           [--mlir-print-ir-before-all] [--mlir-print-ir-after-failure] [--mlir-timing]
           [--print-op-generic] [--print-debuginfo] [--version]

Bad input (syntax, types, verifier, unknown pass or option) prints
`FILE:LINE:COL: error: ...` (or the closest location there is) and exits 1; exit 2 is
only for a compiler defect (wsdialects/tools/driver_common.py has the conventions).
"""

from __future__ import annotations

import argparse
import re
import sys
import time

from xdsl.passes import PassPipeline

from wsdialects import irfast
from wsdialects.diagnostics import WsError, collect_notes
from wsdialects.tools.driver_common import ArgParser, add_common_flags, read_input, run_tool, write_output
from wsdialects.tools.instrument import Instrumentation, PassObserver, Timing
from wsdialects.tools.pipeline_spec import build_pipeline, parse_pipeline
from wsdialects.tools.targets import TARGETS, check_target, emit, print_mlir
from wsdialects.triton import parse_source

__all__ = ["TARGETS", "build_pipeline", "emit", "main", "run"]

PROG = "ws-opt"
SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^[ \t]*// -----[ \t]*$")


def _arg_parser(with_passes: bool = True) -> argparse.ArgumentParser:
    """The flags; `with_passes`: the pass list as the help's epilog (imports every pass)."""
    from wsdialects.tools.pipeline_spec import pass_help

    p = ArgParser(prog=PROG, description="wsdialects optimizer driver: parse, run passes, print (mlir-opt's flags).",
                  epilog=pass_help() if with_passes else None)
    p.add_argument("file", nargs="?", default="-", help="input .mlir file ('-' or nothing: standard input)")
    p.add_argument("-p", "--passes", default="", metavar="PIPE",
                   help="comma-separated passes with options, e.g. 'ws-partition,ws-distribute{depth=3}'")
    # (a metavar without parentheses: CPython's argparse before 3.11.4 drops them when it wraps the usage)
    p.add_argument("--pass-pipeline", default=None, metavar="PIPELINE",
                   help="MLIR's spelling of -p: --pass-pipeline='builtin.module(PIPE)'")
    p.add_argument("-t", "--target", default="mlir", metavar="TARGET",
                   help=f"output: {', '.join(TARGETS)} (llvm and ptx lower the output of ws-hopper; default mlir)")
    add_common_flags(p, PROG)
    p.add_argument("--split-input-file", action="store_true",
                   help=f"split the input at '{SPLIT_MARKER}' lines and process each part by itself; "
                        f"outputs are joined with '{SPLIT_MARKER}'")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check the diagnostics against the input's expected-error/-warning/-remark/-note "
                        "comments (MLIR's syntax) instead of printing them; exit 0 when they match")
    p.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass (stderr)")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    p.add_argument("--mlir-print-ir-after-failure", action="store_true",
                   help="print the IR as the failing pass left it (stderr)")
    p.add_argument("--mlir-timing", action="store_true", help="print each pass's wall time (stderr)")
    p.add_argument("--print-op-generic", "--mlir-print-op-generic", action="store_true",
                   help="print ops in generic form")
    p.add_argument("--print-debuginfo", "--mlir-print-debuginfo", action="store_true", help="print op locations")
    return p


def _pipeline_spec(args: argparse.Namespace) -> str:
    if args.pass_pipeline is None:
        return args.passes
    if args.passes:
        raise WsError("give either -p or --pass-pipeline, not both", PROG)
    spec = args.pass_pipeline.strip()
    if spec.startswith("builtin.module(") and spec.endswith(")"):
        return spec[len("builtin.module(") : -1]
    raise WsError(f"--pass-pipeline must be 'builtin.module(...)', got '{spec}'", PROG)


def _chunks(text: str, split: bool) -> list[str]:
    """The parts of the input; each keeps its lines' numbers (earlier lines left blank)."""
    if not split:
        return [text]
    lines = text.split("\n")
    out, start = [], 0
    for n, line in enumerate(lines + [SPLIT_MARKER]):
        if _SPLIT_LINE.match(line):
            out.append("\n" * start + "\n".join(lines[start:n]))
            start = n + 1
    return out


class _Run:
    """One ws-opt invocation: the passes, the flags, the input's name."""

    def __init__(self, args: argparse.Namespace):
        self.args, self.file = args, "<stdin>"
        self.timing = Timing() if args.mlir_timing else None
        self.instr = Instrumentation(args.mlir_print_ir_before_all, args.mlir_print_ir_after_all,
                                     args.mlir_print_ir_after_failure, self.timing,
                                     lambda m: print_mlir(m, args.print_op_generic, args.print_debuginfo))
        self.passes = parse_pipeline(_pipeline_spec(args))

    def _timed(self, row: str, fn, *a):
        t0 = time.perf_counter()
        try:
            return fn(*a)
        finally:
            if self.timing is not None:
                self.timing.add(row, time.perf_counter() - t0)

    def process(self, text: str) -> str:
        """Parse, run the passes and emit one input (one part with --split-input-file)."""
        module = self._timed("Parser", parse_source, text, self.file)  # TTIR is imported
        observer = PassObserver(self.file, self.instr)
        try:
            PassPipeline(tuple(self.passes), observer).apply(None, module)  # our passes take no context
        except WsError:
            observer.failed(module)
            raise
        except Exception as e:
            from xdsl.utils.exceptions import DiagnosticException, VerifyException

            observer.failed(module)
            if isinstance(e, (VerifyException, DiagnosticException)):
                raise WsError(str(e).splitlines()[0], self.file) from None
            raise
        a = self.args
        return self._timed("Output", emit, module, a.target, a.print_op_generic, a.print_debuginfo, self.file,
                           tuple(p.name for p in self.passes))

    def verified(self, text: str) -> tuple[str | None, bool]:
        """`process` under --verify-diagnostics: (output or None, whether the diagnostics matched)."""
        from wsdialects.tools.verify_diagnostics import Diagnostic, check, expectations

        expected = expectations(text, self.file)
        produced, out = [], None
        with collect_notes() as notes:
            try:
                out = self.process(text)
            except WsError as e:
                if getattr(e, "exit_code", 1) != 1:
                    raise  # a compiler defect is never an expected diagnostic
                here = e.file == self.file and e.line
                produced.append(Diagnostic("error", e.line if here else 0, e.col if here else 0, e.message))
        for sev, loc, msg in notes:
            here = loc is not None and loc[0] == self.file
            produced.insert(0, Diagnostic(sev, loc[1] if here else 0, loc[2] if here else 0, msg))
        problems = check(self.file, expected, produced)
        for p in problems:
            print(p, file=sys.stderr)
        return out, not problems


def run(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _arg_parser(with_passes=any(a in ("-h", "--help") for a in argv)).parse_args(argv)
    check_target(args.target)
    r = _Run(args)  # usage errors (passes, options) before the input is read
    text, r.file = read_input(args.file)
    outputs, ok = [], True
    for chunk in _chunks(text, args.split_input_file):
        if args.verify_diagnostics:
            out, good = r.verified(chunk)
            ok &= good
        else:
            try:
                out = r.process(chunk)
            except WsError as e:
                if not args.split_input_file or getattr(e, "exit_code", 1) != 1:
                    raise
                print(e, file=sys.stderr)  # the other parts still run, as mlir-opt does
                out, ok = None, False
        if out is not None:
            outputs.append(out)
    write_output(args.output_file, f"{SPLIT_MARKER}\n".join(outputs))
    if r.timing is not None:
        sys.stderr.write(r.timing.report())
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """The `ws-opt` console script: xDSL's hot routines sped up for this process (a program's
    choice, wsdialects.irfast; `WSDIALECTS_XDSL_FAST=0` keeps xDSL's), then `run`."""
    irfast.install()
    sys.exit(run_tool(PROG, lambda: run(argv)))


if __name__ == "__main__":
    main()
