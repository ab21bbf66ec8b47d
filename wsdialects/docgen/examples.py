"""Docstrings of ops, types and attributes: their meaning and their IR example.

Every op, type and attribute of the project's dialects documents itself in its
docstring, in this shape (the `Example:` line is literal):

    class DotOp(...):
        \"\"\"acc + a·b with fp32 accumulation (a tensor-core matmul).

        Example:

            %d = tile.dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        \"\"\"

An op example is IR in the custom syntax. SSA values it uses without defining them
(`%a`, `%b`, `%acc` above) take the types the example gives them: `parse_op_example`
makes them the arguments of a wrapper function, then parses and verifies the whole
with the parser `ws-opt` uses, so a wrong example is an error, never a silent pass.
An example that is itself a `func.func` or a `builtin.module` is parsed as it is.
A type or attribute example is the type or attribute alone (`!tile.ptr<f16>`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from wsdialects.diagnostics import WsError, WsParser, parse_text

EXAMPLE_MARKER = "Example:"


class DocError(Exception):
    """A docstring that does not follow the convention, or an example that is not valid IR."""


@dataclass
class Doc:
    """A parsed docstring: `text` (the meaning, Markdown) and `example` (IR, or None)."""

    text: str
    example: str | None


def parse_doc(obj: type) -> Doc:
    """Split the docstring of `obj` at its `Example:` line (see the module docstring)."""
    raw = obj.__dict__.get("__doc__")
    if not raw or not raw.strip():
        raise DocError(f"{_where(obj)} has no docstring")
    lines = inspect.cleandoc(raw).splitlines()
    if EXAMPLE_MARKER not in [ln.strip() for ln in lines]:
        return Doc("\n".join(lines).strip(), None)
    i = [ln.strip() for ln in lines].index(EXAMPLE_MARKER)
    example = inspect.cleandoc("\n".join(lines[i + 1 :]))
    return Doc("\n".join(lines[:i]).strip(), example or None)


def _where(obj: type) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def _free_values(text: str) -> dict[str, Attribute]:
    """The SSA values `text` uses without defining them, with the types its uses give them."""
    from wsdialects.context import make_context

    parser = WsParser(make_context(), text, "<example>")
    try:
        parser.parse_module()
    except ParseError as e:
        if not parser.forward_ssa_references or "undefined value" not in e.msg and "not defined" not in e.msg:
            raise
    free: dict[str, Attribute] = {}
    for name, refs in parser.forward_ssa_references.items():
        if set(refs) != {0}:
            raise DocError(f"free value %{name} is used with a result index (%{name}#N); define it instead")
        free[name] = refs[0].type
    return free


@dataclass
class ParsedExample:
    """An op example, parsed and verified: the module holding it and its own top-level ops."""

    module: ModuleOp
    ops: list[Operation]


def parse_op_example(text: str, where: str) -> ParsedExample:
    """Parse and verify an op example (free values become function arguments)."""
    stripped = text.lstrip()
    try:
        if stripped.startswith(("func.func", "builtin.module")):
            module = parse_text(text, where)
            return ParsedExample(module, list(module.ops))
        free = _free_values(text)
        args = ", ".join(f"%{n}: {t}" for n, t in free.items())
        body = "\n".join("  " + ln for ln in text.splitlines())
        module = parse_text(f"func.func @example({args}) {{\n{body}\n  func.return\n}}\n", where)
    except (WsError, ParseError, DocError) as e:
        raise DocError(f"{where}: the example is not valid IR: {e}") from None
    func = next(iter(module.ops))
    return ParsedExample(module, list(func.body.block.ops)[:-1])


def parse_attr_example(text: str, where: str) -> Attribute:
    """Parse (and so verify) a type or attribute example such as `!tile.ptr<f16>`."""
    from wsdialects.context import make_context

    parser = WsParser(make_context(), text, where)
    try:
        attr = parser.parse_attribute()
        if parser.pos < len(text.rstrip()):
            parser.raise_error("unexpected text after the type or attribute")
    except Exception as e:  # noqa: BLE001 - any failure is a wrong example
        msg = e.msg if isinstance(e, ParseError) else str(e).splitlines()[0]
        raise DocError(f"{where}: the example is not a valid type or attribute: {msg}") from None
    return attr


def generic_form(example: ParsedExample) -> str:
    """The example's ops printed in MLIR's generic form."""
    out = StringIO()
    printer = Printer(stream=out, print_generic_format=True)
    for op in example.ops:
        printer.print_op(op)
        out.write("\n")
    return out.getvalue().rstrip() + "\n"
