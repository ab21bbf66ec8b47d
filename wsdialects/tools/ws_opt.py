"""`ws-opt`: parse a tile kernel, run wsdialects passes, print the result.

    ws-opt FILE [-p PIPE | --pass-pipeline='builtin.module(PIPE)'] [-t mlir|llvm|ptx] [-o OUT]
           [--print-op-generic]

Bad input (syntax, types, verifier, unknown pass or option) prints
`FILE:LINE:COL: error: ...` (or the closest location there is) and exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from wsdialects.diagnostics import WsError, parse_text, verify
from wsdialects.passes import available_passes

TARGETS = ("mlir", "llvm", "ptx")


class _ArgParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would print usage and exit 2
        raise WsError(f"{message} (see ws-opt --help)", "ws-opt")


def _arg_parser() -> argparse.ArgumentParser:
    p = _ArgParser(prog="ws-opt", description="wsdialects optimizer driver")
    p.add_argument("file", nargs="?", default="-", help="input .mlir file ('-' for stdin)")
    p.add_argument("-p", "--passes", default="", help="comma-separated passes, e.g. 'ws-partition,ws-distribute{depth=3}'; available: " + ", ".join(available_passes()))
    p.add_argument("--pass-pipeline", default=None, help="MLIR style: 'builtin.module(PIPE)'")
    p.add_argument("-t", "--target", default="mlir", help=f"output: {', '.join(TARGETS)}")
    p.add_argument("-o", "--output-file", default=None)
    p.add_argument("--print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--print-debuginfo", action="store_true", help="print op locations")
    return p


def _pipeline_spec(args: argparse.Namespace) -> str:
    if args.pass_pipeline is None:
        return args.passes
    if args.passes:
        raise WsError("give either -p or --pass-pipeline, not both", "ws-opt")
    spec = args.pass_pipeline.strip()
    if spec.startswith("builtin.module(") and spec.endswith(")"):
        return spec[len("builtin.module(") : -1]
    raise WsError(f"--pass-pipeline must be 'builtin.module(...)', got '{spec}'", "ws-opt")


def build_pipeline(spec: str, file: str) -> PassPipeline:
    """A PassPipeline from `a,b{opt=1}`, verifying the module after every pass."""

    def after_each(prev, module, nxt):
        if prev is not None:
            verify(module, file)

    try:
        return PassPipeline.parse_spec(available_passes(), spec, after_each)
    except ValueError as e:
        if "Unrecognized passes" in str(e):
            raise WsError(str(e).replace("Unrecognized passes", "unknown pass"), "ws-opt") from None
        raise WsError(f"bad pass option in '{spec}': {e}", "ws-opt") from None
    except Exception as e:
        raise WsError(f"bad pass option: {e}", "ws-opt") from None
    except BaseException as e:  # xDSL's ArgSpecParseError derives from BaseException
        lines = [ln.strip() for ln in str(e).splitlines()[1:] if ln.strip() and set(ln.strip()) != {"^"}]
        raise WsError(f"bad pass pipeline '{spec}': {lines[-1] if lines else e}", "ws-opt") from None


def emit(module: ModuleOp, target: str, generic: bool = False, debuginfo: bool = False) -> str:
    out = StringIO()
    if target == "mlir":
        Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
        out.write("\n")
    elif target in ("llvm", "ptx"):
        from wsdialects.lower.to_llvm import lower_module  # stages 9-11: LLVM IR text, PTX

        text = lower_module(module).llvm_ir
        if target == "ptx":
            from wsdialects.lower.ptx import llvm_to_ptx

            text = llvm_to_ptx(text, module=module)  # ptxas's spill report, where installed
        out.write(text)
    else:
        raise WsError(f"unknown target '{target}' (available: {', '.join(TARGETS)})", "ws-opt")
    return out.getvalue()


def _decode(data: bytes, file: str) -> str:
    """The input as text: UTF-8 (a byte-order mark is dropped); other bytes are a located error."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise WsError(f"input is not UTF-8 text (byte 0x{data[e.start]:02x})", file, line, col) from None


def run(argv: list[str] | None = None) -> int:
    args = _arg_parser().parse_args(argv)
    file = args.file
    if args.target not in TARGETS:
        raise WsError(f"unknown target '{args.target}' (available: {', '.join(TARGETS)})", "ws-opt")
    pipeline = build_pipeline(_pipeline_spec(args), file)
    if file == "-":
        data, file = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            with open(file, "rb") as f:
                data = f.read()
        except OSError as e:
            raise WsError(f"cannot read input: {e.strerror}", file) from None
    text = _decode(data, file)
    module = parse_text(text, file)
    try:
        pipeline.apply(None, module)  # our passes take no context
    except WsError:
        raise
    except (VerifyException, DiagnosticException) as e:
        raise WsError(str(e).splitlines()[0], file) from None
    try:
        result = emit(module, args.target, args.print_op_generic, args.print_debuginfo)
    except WsError as e:
        if e.file == "<input>" and not e.line:  # about the whole module: the start of the file
            e.file, e.line, e.col = file, 1, 1
        raise
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8") as f:
                f.write(result)
        except OSError as e:
            raise WsError(f"cannot write output: {e.strerror}", args.output_file) from None
    else:
        sys.stdout.write(result)
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        code = run(argv)
    except WsError as e:
        print(e, file=sys.stderr)
        code = getattr(e, "exit_code", 1)  # 2: a located internal compiler error (ws-verify-sync)
    except SystemExit as e:  # --help
        code = e.code if isinstance(e.code, int) else 0
    except Exception as e:  # an internal compiler error, not bad input
        print(f"ws-opt: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        if os.environ.get("WS_OPT_TRACEBACK"):
            traceback.print_exc()
        else:
            print("ws-opt: set WS_OPT_TRACEBACK=1 to see where", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
