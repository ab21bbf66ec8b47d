"""The command-line reference (`docs/tools.md`): `ws-opt --help` and `ws-schedule --help`
as the tools print them (at 100 columns), and the conventions and flags described by
the driver modules' own docstrings (wsdialects/tools/)."""

from __future__ import annotations

import argparse
import inspect


def _help(parser: argparse.ArgumentParser) -> str:
    """The parser's --help text at a fixed width (the generated page cannot depend on a terminal)."""
    from wsdialects.tools import driver_common

    parser.formatter_class = lambda prog: driver_common._HelpFormatter(prog, width=100)
    text = parser.format_help().rstrip()
    return text.replace(f"{parser.prog} (wsdialects) ", f"{parser.prog} (wsdialects) VERSION ")


def _doc(module) -> str:
    """A module docstring, its first line as the section's lead."""
    return inspect.cleandoc(module.__doc__ or "")


def tools_page() -> str:
    from wsdialects.docgen.dialects import GENERATED
    from wsdialects.tools import driver_common, instrument, targets, verify_diagnostics, ws_opt, ws_schedule
    from wsdialects.tools.pipeline_spec import pass_help

    opt = ws_opt._arg_parser(with_passes=False)
    opt.epilog = pass_help(width=100)
    out = [GENERATED, "# Command-line tools", "",
           "`ws-opt` runs passes on `.mlir` files with `mlir-opt`'s flags; `ws-schedule` solves a",
           "dependence graph (JSON or a kernel's main loop) for a modulo schedule. Both are",
           "installed as console scripts by `pip install -e .`.", "",
           "## Conventions shared by both tools", "", _doc(driver_common), "",
           "## ws-opt", "", "```", _help(opt), "```", "",
           "### --verify-diagnostics and --split-input-file", "", _doc(verify_diagnostics), "",
           "### Between the passes: verification, IR dumps, timing", "", _doc(instrument), "",
           "### Targets", "", _doc(targets), "",
           "## ws-schedule", "", "```", _help(ws_schedule._parser()), "```", ""]
    return "\n".join(out).rstrip() + "\n"
