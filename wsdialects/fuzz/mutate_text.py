"""Textual mutation operators: edits to the characters of a kernel that know
nothing of MLIR beyond its tokens.  Each takes the text and a ``random.Random``
and returns the mutated text (bytes for :func:`raw_bytes`, which may break
UTF-8):

    %acc2 = tile.dot %a, %bt, %acc : ...   --number-->   %acc2 = tile.dot %a, %bt, %acc : ... tensor<128x4294967296xf32>
"""

from __future__ import annotations

import random
import re

# SSA names, symbols, attribute aliases, numbers, strings, identifiers, punctuation
TOKEN = re.compile(r'%[\w.$-]+(?::\d+|#\d+)?|@[\w.$-]+|#[\w.$-]+|!?[\w.]+|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?'
                   r"|->|[{}()\[\]<>,:=*?+-]")
INTEGER = re.compile(r"(?<![\w.%#@])-?\d+(?![\w.])")
INTERESTING = [0, 1, -1, 2, 3, 4, 7, 8, 12, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 96, 127, 128, 129, 192, 255,
               256, 257, 384, 512, 1024, 4096, 65536, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30,
               -(2**31), -(2**63)]
TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "f8E4M3FN", "f8E5M2", "index"]
OPS = ["arith.addf", "arith.mulf", "arith.subf", "arith.divf", "arith.maximumf", "arith.addi", "arith.muli",
       "arith.truncf", "arith.extf", "math.exp2", "tile.dot", "tile.trans", "tile.reduce", "tile.splat",
       "tile.broadcast", "tile.expand_dims", "tile.desc_load", "tile.desc_store", "tile.load", "tile.store",
       "scf.yield", "scf.for", "func.return", "arith.constant", "arith.select", "arith.cmpi"]
ATTR_VALUES = ['"x"', "unit", "0 : i32", "-1 : i32", "3 : i32", "2.5 : f32", "true", "[]", "{}", "array<i32: 1, 0>",
               "dense<1> : tensor<2xi32>", "4294967296 : i64", "@sym", "#ws"]


def _tokens(text: str) -> list[re.Match]:
    return list(TOKEN.finditer(text))


def delete_token(text: str, rng: random.Random) -> str:
    toks = _tokens(text)
    if not toks:
        return text
    m = rng.choice(toks)
    return text[: m.start()] + text[m.end():]


def duplicate_token(text: str, rng: random.Random) -> str:
    toks = _tokens(text)
    if not toks:
        return text + text
    m = rng.choice(toks)
    return text[: m.end()] + " " + m.group() + text[m.end():]


def swap_tokens(text: str, rng: random.Random) -> str:
    toks = _tokens(text)
    if len(toks) < 2:
        return text
    a, b = sorted(rng.sample(toks, 2), key=lambda m: m.start())
    return text[: a.start()] + b.group() + text[a.end(): b.start()] + a.group() + text[b.end():]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def delete_line(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def duplicate_line(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def swap_lines(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    if len(lines) < 2:
        return text
    i, j = rng.sample(range(len(lines)), 2)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def number(text: str, rng: random.Random) -> str:
    """An integer literal becomes an interesting value, or a neighbour, double or half."""
    nums = list(INTEGER.finditer(text))
    if not nums:
        return text
    m = rng.choice(nums)
    v = int(m.group())
    new = rng.choice([rng.choice(INTERESTING), v + 1, v - 1, v * 2, v // 2, -v])
    return text[: m.start()] + str(new) + text[m.end():]


def attribute(text: str, rng: random.Random) -> str:
    """An entry of an attribute dictionary (`{k = v, ...}` or `<{...}>`) is
    dropped, renamed or given a value of another kind."""
    entries = list(re.finditer(r"([\w.]+) = ([^,{}<>]+?|\"[^\"]*\"|array<[^>]*>)(?=[,}])", text))
    if not entries:
        return text
    m = rng.choice(entries)
    choice = rng.randrange(3)
    if choice == 0:
        new = ""
    elif choice == 1:
        new = f"{m.group(1)}_x = {m.group(2)}"
    else:
        new = f"{m.group(1)} = {rng.choice(ATTR_VALUES)}"
    return text[: m.start()] + new + text[m.end():]


def change_type(text: str, rng: random.Random) -> str:
    found = list(re.finditer(r"\b(" + "|".join(TYPES) + r")\b", text))
    if not found:
        return text
    m = rng.choice(found)
    return text[: m.start()] + rng.choice(TYPES) + text[m.end():]


def change_op(text: str, rng: random.Random) -> str:
    found = list(re.finditer(r"\b(" + "|".join(re.escape(o) for o in OPS) + r")\b", text))
    if not found:
        return text
    m = rng.choice(found)
    return text[: m.start()] + rng.choice(OPS) + text[m.end():]


def truncate(text: str, rng: random.Random) -> str:
    return text[: rng.randrange(len(text) + 1)]


def raw_bytes(text: str, rng: random.Random) -> bytes:
    """Bytes the lexer must survive: not UTF-8, a BOM, NUL, an unterminated
    string (xDSL 0.74's lexer backtracks exponentially on one), deep nesting,
    a very long name."""
    data = text.encode()
    pos = rng.randrange(len(data) + 1)
    insert = rng.choice([b"\xff", b"\xfe\xff", b"\xc3", b"\x00", b"\xef\xbb\xbf", b'"' + b"x" * rng.randint(1, 60),
                         b"(" * 200, b"%" + b"a" * 5000, b"\x1b[31m", b"\r", b"\t", "\u2028".encode(), b"\\"])
    if rng.random() < 0.2:
        pos = 0
    return data[:pos] + insert + data[pos:]


def splice(text: str, rng: random.Random, other: str) -> str:
    """A line of another seed kernel inserted at a random line."""
    lines, donor = _lines(text), _lines(other)
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(donor))
    return "\n".join(lines)


MUTATORS = {
    "delete_token": delete_token, "duplicate_token": duplicate_token, "swap_tokens": swap_tokens,
    "delete_line": delete_line, "duplicate_line": duplicate_line, "swap_lines": swap_lines,
    "number": number, "attribute": attribute, "change_type": change_type, "change_op": change_op,
    "truncate": truncate,
}
