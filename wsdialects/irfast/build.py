"""Building ops and attributes: xDSL's routines with their ABC isinstance checks once per
class (see the package docstring)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Data, ParametrizedAttribute
from xdsl.irdl import operations as _irdl_operations
from xdsl.irdl.operations import OptionalDef, VariadicDef, get_construct_name

_xdsl_attribute_post_init = Attribute.__post_init__
_xdsl_build_arg_list = _irdl_operations.irdl_build_arg_list

_sequence_types: dict[type, bool] = {}  # class -> isinstance(x, collections.abc.Sequence)
_attribute_kinds: dict[type, bool] = {}  # attribute class -> isinstance(x, Data | ParametrizedAttribute)


def attribute_post_init(self: Attribute) -> None:
    """xDSL's `Attribute.__post_init__` (verify, then insist on a Data or ParametrizedAttribute),
    with the class check (an ABC isinstance) once per class."""
    self._verify()
    cls = type(self)
    kind = _attribute_kinds.get(cls)
    if kind is None:
        kind = isinstance(self, Data | ParametrizedAttribute)
        if kind:
            _attribute_kinds[cls] = kind
    if not kind:
        raise TypeError("Attributes should only be Data or ParametrizedAttribute")


def build_arg_list(construct, args, arg_defs, error_prefix: str = ""):
    """xDSL's `irdl_build_arg_list` (how `irdl_op_init` lays out an op's operands, results,
    regions, successors), with `isinstance(arg, Sequence)` (an ABC check) once per class."""
    if len(args) != len(arg_defs):
        raise ValueError(f"Expected {len(arg_defs)} {get_construct_name(construct)}, but got {len(args)}")
    res = []
    arg_sizes = []
    for arg_idx, ((arg_name, arg_def), arg) in enumerate(zip(arg_defs, args)):
        if arg is None:
            if not isinstance(arg_def, OptionalDef):
                raise ValueError(error_prefix + f"passed None to a non-optional {construct} {arg_idx} '{arg_name}'")
            arg_sizes.append(0)
            continue
        cls = type(arg)
        seq = _sequence_types.get(cls)
        if seq is None:
            seq = _sequence_types[cls] = isinstance(arg, Sequence)
        if seq:
            if not isinstance(arg_def, VariadicDef) and len(arg) != 1:
                raise ValueError(error_prefix + f"passed Sequence to non-variadic {construct} {arg_idx} '{arg_name}'")
            if isinstance(arg_def, OptionalDef) and len(arg) > 1:
                raise ValueError(error_prefix + f"optional {construct} {arg_idx} '{arg_name}' "
                                 "expects a list of size at most 1 or None, but "
                                 f"got a list of size {len(arg)}")
            res.extend(arg)
            arg_sizes.append(len(arg))
        else:
            res.append(arg)
            arg_sizes.append(1)
    return res, arg_sizes
