"""What `ws-opt` and `ws-schedule` share: flags, input and output files, exit codes.

Conventions (both tools):

- exit status 0 on success, 1 for any user error (bad usage, bad input, an output that
  cannot be written), 2 only for a compiler defect (`PROG: internal error: ...`;
  `WS_OPT_TRACEBACK=1` shows where);
- a diagnostic names the closest location there is, once: `FILE:LINE:COL: error: ...`,
  `FILE: error: ...`, or `PROG: error: ...` for usage;
- `-o`/`--output-file` (and the older `--output`) write the result instead of stdout,
  `--version` prints the package version, `-` reads standard input;
- an unknown flag, pass, option or choice is answered in the user's spelling with the
  closest known one: `unknown pass 'ws-specialise' (did you mean 'ws-specialize'?)`.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import traceback
from collections.abc import Callable, Iterable

from wsdialects.diagnostics import WsError


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the known word closest to `word`, or ''."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def version_string(prog: str) -> str:
    """`PROG (wsdialects) X.Y.Z`, the installed package's version."""
    try:
        from importlib.metadata import version

        return f"{prog} (wsdialects) {version('wsdialects')}"
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return f"{prog} (wsdialects)"


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help text wrapped between words only (never inside `ws-partition` or a flag)."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False)


class ArgParser(argparse.ArgumentParser):
    """argparse with the tools' conventions: a usage error is `PROG: error: ...` with exit
    1 (argparse would exit 2, the status of a compiler defect), an unknown flag gets a
    suggestion, and flags are never abbreviated (`--out` is not `--output-file`)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(**kwargs)

    def parse_args(self, args=None, namespace=None):
        ns, extra = self.parse_known_args(args, namespace)
        if extra:
            flags = [s for a in self._actions for s in a.option_strings]
            first = extra[0]
            hint = did_you_mean(first.split("=", 1)[0], flags) if first.startswith("-") else ""
            what = "unknown flag" if first.startswith("-") else "unexpected argument"
            self.error(f"{what} '{first}'{hint}")
        return ns

    def _check_value(self, action, value):  # argparse's hook for `choices`
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            raise argparse.ArgumentError(action, f"invalid choice '{value}'{did_you_mean(str(value), choices)}; "
                                                 f"choose from {', '.join(choices)}")

    def error(self, message: str):
        raise WsError(f"{message}; see {self.prog} --help", self.prog)


def add_common_flags(p: argparse.ArgumentParser, prog: str) -> None:
    """`-o/--output-file/--output` and `--version`, spelled alike in both tools."""
    p.add_argument("-o", "--output-file", "--output", dest="output_file", metavar="OUT",
                   help="write the result here instead of stdout (--output is an older spelling)")
    p.add_argument("--version", action="version", version=version_string(prog),
                   help="print the wsdialects version and exit")


def read_input(path: str) -> tuple[str, str]:
    """(text, name) of the input file (`-`: standard input, named `<stdin>`). UTF-8 only
    (a byte-order mark is dropped); another byte, or a file that cannot be read, is a
    located user error."""
    if path == "-":
        data, name = sys.stdin.buffer.read(), "<stdin>"
    else:
        name = path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise WsError(f"cannot read input: {e.strerror}", path) from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), name
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise WsError(f"input is not UTF-8 text (byte 0x{data[e.start]:02x})", name, line, col) from None


def write_output(path: str | None, text: str) -> None:
    """`text` to `path` (None: stdout); a file that cannot be written is a user error."""
    if path is None:
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise WsError(f"cannot write output: {e.strerror}", path) from None


def run_tool(prog: str, body: Callable[[], int]) -> int:
    """Run a tool's `body` under the exit-status conventions; returns the status."""
    try:
        return body()
    except WsError as e:
        print(e, file=sys.stderr)
        return getattr(e, "exit_code", 1)  # 2: a located internal compiler error (ws-verify-sync)
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a compiler defect, not bad input
        print(f"{prog}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        if os.environ.get("WS_OPT_TRACEBACK"):
            traceback.print_exc()
        else:
            print(f"{prog}: set WS_OPT_TRACEBACK=1 to see where", file=sys.stderr)
        return 2
