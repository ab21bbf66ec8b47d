"""What an IRDL definition says, in words: operand / result / property constraints,
traits, and the messages a verifier can give (read from its source, so they are the
real ones)."""

from __future__ import annotations

import ast
import inspect
import textwrap

from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    BaseAttr,
    EqAttrConstraint,
    OptPropertyDef,
    ParamAttrConstraint,
    RangeLengthConstraint,
    RangeOf,
    VarConstraint,
)

# builtin attribute classes by the name MLIR users know them by
_BUILTIN = {
    "TensorType": "tensor", "VectorType": "vector", "MemRefType": "memref", "IntegerType": "integer",
    "IndexType": "index", "IntegerAttr": "integer attribute", "StringAttr": "string attribute",
    "DenseArrayBase": "dense array attribute (`array<i32: ...>`)", "ArrayAttr": "array attribute",
    "FastMathFlagsAttr": "`#arith.fastmath` flags", "UnitAttr": "unit attribute", "IntAttr": "integer",
    "Layout": "a `#layout` attribute",
}
_FLOAT_CLASSES = ("BFloat16Type", "Float16Type", "Float32Type", "Float64Type")


def _base_name(cls: type) -> str:
    if cls.__name__ in _BUILTIN:
        return _BUILTIN[cls.__name__]
    if cls.__module__.startswith("wsdialects") and issubclass(cls, ParametrizedAttribute):
        sigil = "!" if issubclass(cls, TypeAttribute) else "#"
        return f"`{sigil}{cls.name}`"
    return cls.__name__


def _is_float_set(c) -> bool:
    return isinstance(c, AnyOf) and any(
        isinstance(x, BaseAttr) and x.attr.__name__ in _FLOAT_CLASSES for x in c.attr_constrs)


def constraint_text(c) -> str:
    """A constraint in words: `tensor`, `i32`, `any type`, `float, or tensor of float`."""
    if isinstance(c, RangeLengthConstraint):
        return constraint_text(c.constraint)
    if isinstance(c, RangeOf):
        return constraint_text(c.constr)
    if isinstance(c, AnyAttr):
        return "any type"
    if isinstance(c, BaseAttr):
        return _base_name(c.attr)
    if isinstance(c, EqAttrConstraint):
        return f"`{c.attr}`"
    if isinstance(c, VarConstraint):
        return f"{constraint_text(c.constraint)} (the same for every `{c.name.lstrip('_')}`)"
    if isinstance(c, ParamAttrConstraint):
        inner = [constraint_text(p) for p in c.param_constrs if not isinstance(p, AnyAttr)]
        base = _base_name(c.base_attr)
        return f"{base} of {' '.join(inner)}" if inner else base
    if type(c).__name__ == "ArrayOfConstraint":
        inner = constraint_text(c.elem_range_constraint)
        return "list of types" if inner == "any type" else f"list of {inner}"
    if _is_float_set(c):
        rest = [x for x in c.attr_constrs if not (isinstance(x, BaseAttr) and x.attr.__name__.startswith("Float")
                                                   or isinstance(x, BaseAttr) and x.attr.__name__ == "BFloat16Type")]
        return ", or ".join(["float"] + [constraint_text(x) for x in rest])
    if isinstance(c, AnyOf):
        return " or ".join(dict.fromkeys(constraint_text(x) for x in c.attr_constrs))
    return type(c).__name__


def operand_rows(defs, kind: str) -> list[tuple[str, str]]:
    """(name, type in words) per operand or result; variadic ones say so."""
    rows = []
    for name, d in defs:
        t = constraint_text(d.constr)
        if type(d).__name__.startswith("Var"):
            t = f"variadic: any number of {t}"
        elif type(d).__name__.startswith("Opt"):
            t = f"optional: {t}"
        rows.append((f"`{name}`", t))
    return rows


def property_rows(props: dict) -> list[tuple[str, str, str]]:
    """(name, type in words, default or 'required' / 'optional') per property."""
    rows = []
    for name, d in props.items():
        default = getattr(d, "default_value", None)
        if default is not None:
            note = f"default `{default}`"
        elif isinstance(d, OptPropertyDef):
            note = "optional"
        else:
            note = "required"
        rows.append((f"`{name}`", constraint_text(d.constr), note))
    return rows


def trait_names(opdef) -> list[str]:
    """The op's traits in words (memory effects spelled out)."""
    out = []
    for t in opdef.traits:
        cls = type(t)
        if cls.__name__ == "_Effects":
            kinds = sorted(e.kind.name.lower() for e in t.get_effects(None))
            out.append(f"memory effects: {', '.join(kinds)}")
        else:
            out.append(cls.__name__)
    return out


# ---- verifier messages, read from the source of verify_ / verify and the helpers they call

def _message(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                expr = ast.unparse(v.value).removeprefix("self.")
                simple = expr.replace(".", "").replace("_", "").isalnum()
                parts.append(f"<{expr}>" if simple else "<...>")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _message(node.left), _message(node.right)
        return None if a is None or b is None else a + b
    return None


def _visit(fn, messages: list[str], seen: set, depth: int) -> None:
    fn = inspect.unwrap(fn)
    if id(fn) in seen or depth > 3 or not getattr(fn, "__module__", "").startswith("wsdialects"):
        return
    seen.add(id(fn))
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return
    glb = fn.__globals__
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            name = ast.unparse(node.exc.func)
            if name.endswith("VerifyException") and node.exc.args:
                msg = _message(node.exc.args[0])
                if msg is not None and msg not in messages:
                    messages.append(msg)
        elif isinstance(node, ast.Call):
            f = node.func
            target = None
            if isinstance(f, ast.Name):
                target = glb.get(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr in ("verify_", "verify"):
                owner = glb.get(f.value.id)
                target = _own(getattr(owner, f.attr, None)) if isinstance(owner, type) else None
            if inspect.isfunction(target):
                _visit(target, messages, seen, depth + 1)


def _own(f):
    """`f`, or the project function that xDSL's generated `verify_` wraps (a closure cell)."""
    if getattr(f, "__module__", "").startswith("xdsl") and getattr(f, "__closure__", None):
        for cell in f.__closure__:
            inner = cell.cell_contents
            if inspect.isfunction(inner) and inner.__module__.startswith("wsdialects"):
                return inner
    return f


def verifier_messages(cls: type) -> list[str]:
    """The messages `cls`'s verifier (and the project helpers it calls) can raise."""
    messages: list[str] = []
    seen: set = set()
    for klass in cls.__mro__:
        for meth in ("verify_", "verify"):
            f = _own(klass.__dict__.get(meth))
            if f is not None and getattr(f, "__module__", "").startswith("wsdialects"):
                _visit(f, messages, seen, 0)
    return messages


def attr_params(cls: type[Attribute]) -> list[tuple[str, str]]:
    """(name, constraint in words) per parameter of a parametrized attribute or type."""
    d = cls.get_irdl_definition()
    return [(f"`{name}`", constraint_text(p.constr)) for name, p in d.parameters]
