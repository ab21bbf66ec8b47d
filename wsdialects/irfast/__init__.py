"""Faster equivalents of xDSL 0.74 routines that the compiler and the test suite run all the
time: an explicit opt-in, never a side effect of importing wsdialects.

`install()` puts them in place of methods of xDSL's own classes (listed below), so that in
that process every xDSL op and attribute goes through them, a host compiler's own included
(ops of a class with its own `clone`, `create` or `__post_init__` keep theirs); `uninstall()`
puts xDSL's back. Nothing in wsdialects calls `install()` but its own entry points: the
`ws-opt` and `ws-schedule` console scripts (`main()`), and the test suite (test/conftest.py).
`import wsdialects`, parsing, the passes, the interpreter and `wsdialects.compile` leave
xDSL's classes as xDSL ships them (test/python/test_library.py checks it), and give the same
IR and the same printed text either way: the routines below are equivalents, not fixes.

    from wsdialects import irfast
    irfast.install()      # this process: xDSL's clone, walks, verifier, printer sped up
    irfast.uninstall()    # xDSL's routines again

`WSDIALECTS_XDSL_FAST=0` in the environment makes `install()` do nothing, so `ws-opt`,
`ws-schedule` and the test suite run on stock xDSL (same results, slower): a way to rule the
fast routines out when something looks wrong. The parser's lexer (`irfast.lexer.WsLexer`),
`verify_op` and `walk_orders` are plain functions and classes that `wsdialects.diagnostics`
calls directly; they patch nothing and are used whether or not `install()` ran.

The replaced methods:

- `Operation.clone`: the same copy, built in one pass. xDSL's clones every op through
  `create` (keyword arguments, its operands set twice), builds each region through
  `Region.clone_into` and then walks both trees with nested generators to set the operands
  (about 20 us an op). Here: the same objects with the same fields, set in the same order
  (so the same use lists: each value's uses in the order xDSL's clone leaves them), in about
  a third of the time. Ops of a class with its own `clone`, `clone_without_regions`, `create`
  or `__post_init__` are cloned by their own methods, as xDSL does.
- `OpDef.verify` (an IRDL op's operand / result / region / successor / property / attribute
  constraints, then its traits): the constraint part of an op is a function of the op's
  definition, its operand and result types, its regions' block counts and entry argument
  types, its successor count, its properties and the attributes the definition names, all
  immutable and hashable; once that part passed for one such key, it passes for every op with
  the key, and is not checked again. Only passes are remembered (a failure is checked, and
  reported, by xDSL every time); the traits (which may read anything, e.g.
  IsolatedFromAbove walks the body) run every time.
- `IsolatedFromAbove.verify` (func.func, builtin.module: every operand inside is defined
  inside): whether a block lies inside the op is found once per block, not by walking up
  from every operand.
- `Operation.walk` / `Region.walk` / `Block.walk`: one generator per walk instead of one per
  op, region and block on the way down; the same iterators made and advanced at the same
  moments (a walk that changes the IR as it goes sees the same ops).
- `Attribute.__post_init__` and `irdl_build_arg_list` (every attribute and op built): their
  ABC isinstance checks (`Data | ParametrizedAttribute`, `Sequence`) once per class.
- printing: `BasePrinter.print_string` writes text without a newline with the stream's
  `write` (xDSL calls `print(text, end="", file=stream)`, about a third of a module's
  printing); `Printer.print_bytes_literal` prints a string literal as one string (xDSL: one
  `print_string` per byte); `DenseIntOrFPElementsAttr.print_without_type` prints a splat
  constant (every element the same bytes, not a NaN) from its first element (xDSL unpacks
  every element twice: `dense<0.0> : tensor<128x256xf32>` is 2 x 32768 floats). The same
  characters, the same line and column. `DenseIntOrFPElementsAttr.is_splat` likewise.

Called directly by the parser and verifier (never installed into xDSL):

- `verify_op(op)`: `op.verify(verify_nested_ops=False)` without xDSL's error path, which
  prints the whole module into the exception's notes: where anything fails, xDSL's own
  `Operation.verify` runs again and raises what it raises.
- `walk_orders(op)`: `op.walk()` and `op.walk(region_first=True)` as two lists, in one walk.

`test/python/test_irfast.py` compares each with xDSL's routine on the bundled kernels (the
clone field by field, use lists included; the printed text, line and column).
"""

from __future__ import annotations

import os

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import operations as _irdl_operations
from xdsl.irdl.operations import OpDef
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.base_printer import BasePrinter

# the fast routines, and xDSL's originals (test_irfast compares them)
from wsdialects.irfast.build import _xdsl_attribute_post_init, _xdsl_build_arg_list, attribute_post_init, build_arg_list
from wsdialects.irfast.clone import _xdsl_clone, fast_clone
from wsdialects.irfast.printing import (_xdsl_dense_is_splat, _xdsl_dense_print, _xdsl_print_bytes_literal,
                                        _xdsl_print_string, dense_is_splat, dense_print_without_type,
                                        print_bytes_literal, print_string)
from wsdialects.irfast.walk import block_walk, operation_walk, region_walk
from wsdialects.irfast.verify import (_constraint_key, _defs, _ok, _ok_ids, _xdsl_isolated_verify, _xdsl_opdef_verify,
                                      _xdsl_verify, isolated_from_above_verify, opdef_verify, verify_op, walk_orders)

__all__ = ["install", "uninstall", "installed", "fast_clone", "opdef_verify", "isolated_from_above_verify",
           "verify_op", "walk_orders", "attribute_post_init", "build_arg_list", "print_string", "print_bytes_literal",
           "dense_is_splat", "dense_print_without_type", "operation_walk", "region_walk", "block_walk"]
_xdsl_walks = (Operation.walk, Region.walk, Block.walk)

ENV = "WSDIALECTS_XDSL_FAST"  # "0": install() leaves xDSL's routines in place

# (owner, attribute, the fast routine): what install() replaces
_PATCHES = (
    (Operation, "clone", fast_clone),
    (Operation, "walk", operation_walk),
    (Region, "walk", region_walk),
    (Block, "walk", block_walk),
    (OpDef, "verify", opdef_verify),
    (IsolatedFromAbove, "verify", isolated_from_above_verify),
    (BasePrinter, "print_string", print_string),
    (Printer, "print_bytes_literal", print_bytes_literal),
    (DenseIntOrFPElementsAttr, "print_without_type", dense_print_without_type),
    (DenseIntOrFPElementsAttr, "is_splat", dense_is_splat),
    (Attribute, "__post_init__", attribute_post_init),
    (_irdl_operations, "irdl_build_arg_list", build_arg_list),
)
_ABSENT = object()  # an attribute inherited, not defined by the owner itself
# xDSL's own, as found when this module was first imported (before any install())
_ORIGINALS = tuple((owner, name, owner.__dict__.get(name, _ABSENT)) for owner, name, _ in _PATCHES)

_installed = False


def install() -> bool:
    """Put the fast routines in place of xDSL's (see the module docstring), once per process;
    does nothing where the environment says `WSDIALECTS_XDSL_FAST=0`. Whether they are in
    place afterwards. For programs, not libraries: it changes xDSL for the whole process."""
    global _installed
    if not _installed and os.environ.get(ENV, "1").strip() != "0":
        for owner, name, fast in _PATCHES:
            setattr(owner, name, fast)
        _installed = True
    return _installed


def uninstall() -> None:
    """Put xDSL's own routines back (undoes `install()`)."""
    global _installed
    for owner, name, original in _ORIGINALS:
        if original is _ABSENT:
            if name in owner.__dict__:
                delattr(owner, name)
        else:
            setattr(owner, name, original)
    _installed = False


def installed() -> bool:
    """Whether `install()` has put the fast routines in place (and `uninstall()` not removed them)."""
    return _installed
