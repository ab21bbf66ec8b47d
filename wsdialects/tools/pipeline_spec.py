"""Pass pipelines as users write them: `a,b{opt=1 other=true}`.

Every mistake is answered in the user's spelling (options with dashes, as written on
the command line), with the closest known name, and never with a Python repr:

    ws-opt: error: unknown pass 'ws-specialise' (did you mean 'ws-specialize'?)
    ws-opt: error: ws-specialize has no option 'mma-dept' (did you mean 'mma-depth'?); its options: depth, ...
    ws-opt: error: option 'depth' of ws-distribute expects an integer, got 'x'

`build_pipeline(spec, file)` is the pipeline as `ws-opt -p` and `wsdialects.compile` run
it: the module verified after every pass. `pass_help()` is the pass list of `ws-opt --help`:
each pass with the first paragraph of its class docstring and its options with their defaults.
"""

from __future__ import annotations

import dataclasses
import textwrap
import typing
from types import UnionType

from xdsl.passes import ModulePass, PassPipeline

from wsdialects.diagnostics import WsError
from wsdialects.passes import PIPELINE, available_passes
from wsdialects.tools.driver_common import did_you_mean
from wsdialects.tools.instrument import Instrumentation, PassObserver

_TYPE_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def _spelled(value) -> str:
    """A parsed option value as the user wrote it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _dashed(field_name: str) -> str:
    return field_name.replace("_", "-")


def options_of(cls: type[ModulePass]) -> list[tuple[str, type, object]]:
    """(dashed name, type, default) of each option of a pass class."""
    hints = typing.get_type_hints(cls)
    return [(_dashed(f.name), hints[f.name], f.default) for f in dataclasses.fields(cls)
            if f.init and f.name != "name"]


def _convert(pass_name: str, option: str, values: tuple, typ):
    """The value of one option, checked against the option's type."""
    allowed = typing.get_args(typ) if isinstance(typ, UnionType) or typing.get_origin(typ) is typing.Union else (typ,)
    # None (a default meaning "decided elsewhere", e.g. the machine's) cannot be written: not offered
    wanted = " or ".join(_TYPE_WORDS.get(t, getattr(t, "__name__", str(t))) for t in allowed if t is not type(None))
    if len(values) != 1:
        got = "no value" if not values else f"{len(values)} values ({','.join(_spelled(v) for v in values)})"
        raise WsError(f"option '{option}' of {pass_name} takes one value, {wanted}; got {got}", "ws-opt")
    v = values[0]
    for t in allowed:
        if t is bool and isinstance(v, bool):
            return v
        if t is int and isinstance(v, int) and not isinstance(v, bool):
            return v
        if t is float and isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v) if int not in allowed else v
        if t is str and not isinstance(v, bool):
            return str(v)
    raise WsError(f"option '{option}' of {pass_name} expects {wanted}, got '{_spelled(v)}'", "ws-opt")


def _syntax_error(spec: str, exc: BaseException) -> WsError:
    """xDSL's ArgSpecParseError (a BaseException with the spec and a caret) as one line."""
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    col = next((ln.rsplit(":", 1)[-1] for ln in lines if ln.startswith("pass-pipeline:")), "")
    msg = lines[-1].strip() if lines else type(exc).__name__
    msg = {"Expected argument name here": "expected an option name here",
           "Unknown token": "unexpected character"}.get(msg, msg[:1].lower() + msg[1:])
    at = f" at column {col}" if col.isdigit() else ""
    return WsError(f"bad pass pipeline '{spec}'{at}: {msg}", "ws-opt")


def parse_pipeline(spec: str) -> list[ModulePass]:
    """The passes of `spec`, each with its options checked; a WsError (exit 1) otherwise."""
    from xdsl.utils.arg_spec import parse_pipeline as parse_arg_specs
    from xdsl.utils.exceptions import ArgSpecParseError

    try:
        specs = list(parse_arg_specs(spec))
    except ArgSpecParseError as e:
        raise _syntax_error(spec, e) from None
    known = available_passes()
    passes = []
    for s in specs:
        if s.name not in known:
            raise WsError(f"unknown pass '{s.name}'{did_you_mean(s.name, known)}; ws-opt --help lists the passes",
                          "ws-opt")
        cls = known[s.name]()
        options = {name: (typ, default) for name, typ, default in options_of(cls)}
        kwargs = {}
        for key, values in s.parameters.items():
            option = _dashed(key)
            if option not in options:
                listed = f"; its options: {', '.join(options)}" if options else "; it takes no options"
                raise WsError(f"{s.name} has no option '{key}'{did_you_mean(option, options)}{listed}", "ws-opt")
            kwargs[option.replace("-", "_")] = _convert(s.name, option, values, options[option][0])
        try:
            passes.append(cls(**kwargs))
        except (TypeError, ValueError) as e:
            raise WsError(f"bad options for {s.name}: {e}", "ws-opt") from None
    return passes


def build_pipeline(spec: str, file: str, instr: Instrumentation | None = None) -> PassPipeline:
    """A PassPipeline from `a,b{opt=1}` that verifies the module after every pass (and
    warns where a pass did nothing for lack of a tile.kernel function)."""
    return PassPipeline(tuple(parse_pipeline(spec)), PassObserver(file, instr))


def describe(cls: type[ModulePass]) -> str:
    """The first paragraph of a pass class's docstring, on one line."""
    doc = textwrap.dedent(cls.__doc__ or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) if doc else "(no description)"


def pass_help(width: int | None = None) -> str:
    """Every pass in pipeline order: name, one-line description, options with defaults
    (wrapped between words to `width`, by default the terminal's, at most 100)."""
    if width is None:
        import shutil

        width = max(40, min(100, shutil.get_terminal_size().columns - 2))
    known = available_passes()
    wrap = dict(width=width, break_long_words=False, break_on_hyphens=False)
    out = textwrap.wrap("passes (-p 'a,b{option=value other=value}' or --pass-pipeline='builtin.module(a,b)'):",
                        subsequent_indent="  ", **wrap)
    for name, _target in PIPELINE:
        cls = known[name]()
        out.append(f"  {name}")
        out += textwrap.wrap(describe(cls), initial_indent=" " * 6, subsequent_indent=" " * 6, **wrap)
        opts = [f"{o}={_spelled(d)}" for o, _t, d in options_of(cls)]
        if opts:
            out += textwrap.wrap("options: " + "  ".join(opts), initial_indent=" " * 6,
                                 subsequent_indent=" " * 15, **wrap)
    return "\n".join(out)
