"""Messages that say what to change where xDSL's generic ones land on a newcomer's common
mistake (the parser and `diagnostics.verify` use them; the tile-dialect verifiers say it
themselves):

- an untyped constant is i64 (f64 for `1.0`), so its first typed use fails in the parser with
  "operand is used with type i32, but has been previously used or defined with type i64";
  here, at that use: `%c1 is i64: `arith.constant 1` has no type ...; write `arith.constant 1 : i32``;
- a block that does not end with its terminator reads "Operation tile.store terminates block in
  single-block region but is not a terminator"; here: "the block of @k must end with
  func.return (it ends with this tile.store)".

    %c1 = arith.constant 1            // i64: write `arith.constant 1 : i32`
    %m = arith.addi %n, %c1 : i32     // error here, naming %c1's constant
"""

from __future__ import annotations

import re

_CONSTANT = re.compile(r"arith\.constant\s+(?P<value>[^\s{]+)")
_COMMENT = re.compile(r"//[^\n]*")


def untyped_constant(op_text: str) -> str | None:
    """The literal of an `arith.constant` written without a type (`%c = arith.constant 1`), else
    None (`: i32`, `dense<...> : tensor<...>`, `true` / `false`, which are i1)."""
    text = _COMMENT.sub("", op_text)
    m = _CONSTANT.search(text)
    if m is None or ":" in text[m.end():] or m.group("value") in ("true", "false"):
        return None
    return m.group("value")


def untyped_constant_use(name: str, defined: object, used: object, literal: str) -> str:
    """The parser's message for `%name`, an untyped constant `literal` of type `defined`, used as
    `used`."""
    scalar = re.fullmatch(r"i\d+|index|f16|bf16|f32|f64", str(used)) is not None
    fix = (f"; write `arith.constant {literal} : {used}` to use it as {used}" if scalar else
           f"; give the constant the type it is used with (`arith.constant {literal} : i32`)")
    return (f"%{name} is {defined} but used as {used}: `arith.constant {literal}` has no type, and an "
            f"untyped constant is {defined}{fix}")


# The terminator a block of each op must end with, and what it carries.
_TERMINATORS = {"func.func": ("func.return", ""),
                "scf.for": ("scf.yield", " (the next values of its iter_args, if any)"),
                "scf.if": ("scf.yield", " (the values of its results, if any)"),
                "scf.while": ("scf.condition", "")}


def missing_terminator(op, message: str) -> str | None:
    """For xDSL's "... terminates block in single-block region but is not a terminator" at `op`,
    the last op of a block whose terminator is missing: what the block must end with, or None."""
    if "terminates block" not in message or "is not a terminator" not in message:
        return None
    parent = op.parent_op()
    if parent is None or parent.name not in _TERMINATORS:
        return None
    want, carries = _TERMINATORS[parent.name]
    sym = parent.properties.get("sym_name") or parent.attributes.get("sym_name")
    owner = f"@{sym.data}" if sym is not None else f"the enclosing {parent.name}"
    return f"the block of {owner} must end with {want}{carries}; it ends with this {op.name}"
