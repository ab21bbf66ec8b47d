"""The `warp_group` dialect: concurrently running partitions of one CTA.

`warp_group.region` holds one `warp_group.partition` per role. All partitions run
at the same time; values flow between them only through arefs (rings created
outside the region). Values defined before the region (kernel arguments,
uniform scalars) are visible to every partition.

    warp_group.region {
      warp_group.partition 0 producer warps 4 regs 40 {
        ... aref.put %r[%k], %a ...
      }
      warp_group.partition 1 consumer warps 8 regs 232 {
        ... %a = aref.get %r[%k] ... aref.consumed %r[%k] ...
      }
    }

The groups of a cooperative team (`ws-cooperative`) may take turns (`ws-pingpong`,
FlashAttention-3's ping-pong): `turn_wait g of G` blocks until the team's turn comes to
group g, `turn_pass g of G` hands it to group (g + 1) mod G; the last group holds the
turn first and passes it to group 0.
"""

from __future__ import annotations

import re
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType
from xdsl.ir import Block, Dialect, Operation, OpResult, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.syntax import parse_region_then_attrs, print_region_then_attrs

REG_MIN, REG_MAX = 24, 256  # setmaxnreg range, multiples of 8


@irdl_op_definition
class PartitionOp(IRDLOperation):
    """One partition of a `warp_group.region`: `num_warps` warps (whole warp groups: a
    positive multiple of 4) run the body, with an optional per-thread register budget
    (`regs`, a multiple of 8 in [24, 256]) and a role name. It must sit directly in a
    `warp_group.region`.

    Example:

        warp_group.region {
          warp_group.partition 0 producer warps 4 regs 40 {
          }
          warp_group.partition 1 consumer warps 8 regs 232 {
          }
        }
    """

    name = "warp_group.partition"
    id = prop_def(IntegerAttr)
    num_warps = prop_def(IntegerAttr)
    regs = opt_prop_def(IntegerAttr)
    role = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, pid: int, num_warps: int, body: Region | None = None,
                 regs: int | None = None, role: str | None = None):
        props: dict = {"id": IntegerAttr(pid, 32), "num_warps": IntegerAttr(num_warps, 32)}
        if regs is not None:
            props["regs"] = IntegerAttr(regs, 32)
        if role is not None:
            props["role"] = StringAttr(role)
        super().__init__(properties=props, regions=[body or Region(Block())])

    @property
    def pid(self) -> int:
        return self.id.value.data

    @property
    def warps(self) -> int:
        return self.num_warps.value.data

    @property
    def role_name(self) -> str:
        return self.role.data if self.role is not None else f"partition{self.pid}"

    def verify_(self) -> None:
        if self.warps <= 0 or self.warps % 4:
            raise VerifyException(
                f"partition {self.pid}: num_warps must be a positive multiple of 4 (whole warp groups), got {self.warps}"
            )
        if self.regs is not None:
            r = self.regs.value.data
            if not REG_MIN <= r <= REG_MAX or r % 8:
                raise VerifyException(
                    f"partition {self.pid}: register budget must be a multiple of 8 in [{REG_MIN}, {REG_MAX}], got {r}"
                )
        if not isinstance(self.parent_op(), RegionOp):
            raise VerifyException("warp_group.partition must be directly inside warp_group.region")

    @classmethod
    def parse(cls, parser: Parser):
        pid = parser.parse_integer(allow_boolean=False)
        role = parser.parse_optional_str_literal()  # a role that is no bare identifier
        if role is not None:
            parser.parse_keyword("warps")
        elif (ident := parser.parse_optional_identifier()) is not None and ident != "warps":
            role = ident
            parser.parse_keyword("warps")
        elif ident is None:
            parser.parse_keyword("warps")
        warps = parser.parse_integer(allow_boolean=False)
        regs = None
        if parser.parse_optional_keyword("regs") is not None:
            regs = parser.parse_integer(allow_boolean=False)
        return parse_region_then_attrs(parser, lambda body: cls(pid, warps, body, regs, role))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pid}")
        if self.role is not None:
            printer.print_string(" ")
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", self.role.data) and self.role.data != "warps":
                printer.print_string(self.role.data)
            else:
                printer.print_string_literal(self.role.data)
        printer.print_string(f" warps {self.warps}")
        if self.regs is not None:
            printer.print_string(f" regs {self.regs.value.data}")
        printer.print_string(" ")
        print_region_then_attrs(printer, self, self.body)


def enclosing_partition(op: Operation) -> PartitionOp | None:
    """The innermost `warp_group.partition` holding `op`, if any."""
    cur = op.parent_op()
    while cur is not None and not isinstance(cur, PartitionOp):
        cur = cur.parent_op()
    return cur


def _partition_of(op: Operation, container: "RegionOp") -> PartitionOp | None:
    """The partition of `container` that (transitively) holds `op`, if any."""
    cur: Operation | None = op
    while cur is not None:
        parent = cur.parent_op()
        if parent is container:
            return cur if isinstance(cur, PartitionOp) else None
        cur = parent
    return None


class _PartitionOf:
    """`_partition_of(op, container)` for many ops of one container: the answer for an op's
    parent op is found once (the ops of a block share it)."""

    def __init__(self, container: "RegionOp"):
        self.container, self.memo = container, {}

    def __call__(self, op: Operation) -> PartitionOp | None:
        parent = op.parent_op()
        if parent is self.container:
            return op if isinstance(op, PartitionOp) else None
        if parent is None:
            return None
        got = self.memo.get(id(parent), self)
        if got is self:
            got = self.memo[id(parent)] = self(parent)
        return got


def _value_owner(v: SSAValue) -> Operation | None:
    if type(v) is OpResult:
        return v.op
    owner = v.owner
    if isinstance(owner, Block):
        return owner.parent_op()
    return owner


@irdl_op_definition
class RegionOp(IRDLOperation):
    """The partitions of a warp-specialized CTA, all running at the same time. It holds only
    `warp_group.partition` ops with distinct ids; a value defined in one partition may not
    be used in another (values cross partitions only through arefs).

    Example:

        warp_group.region {
          warp_group.partition 0 producer warps 4 {
          }
          warp_group.partition 1 consumer warps 4 {
          }
        }
    """

    name = "warp_group.region"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, partitions: list[PartitionOp] | None = None):
        super().__init__(regions=[Region(Block(partitions or []))])

    @property
    def partitions(self) -> list[PartitionOp]:
        return [op for op in self.body.block.ops if isinstance(op, PartitionOp)]

    @property
    def total_warps(self) -> int:
        return sum(p.warps for p in self.partitions)

    def verify_(self) -> None:
        ids = set()
        for op in self.body.block.ops:
            if not isinstance(op, PartitionOp):
                raise VerifyException(f"warp_group.region may only hold partitions, found {op.name}")
            if op.pid in ids:
                raise VerifyException(f"duplicate partition id {op.pid}")
            ids.add(op.pid)
        if not ids:
            raise VerifyException("warp_group.region needs at least one partition")
        partition_of = _PartitionOf(self)
        for part in self.partitions:
            for inner in part.body.walk():
                for operand in inner.operands:
                    owner = _value_owner(operand)
                    if owner is None:
                        continue
                    src = partition_of(owner) if owner is not part else part
                    if owner is self:
                        src = None
                    if src is not None and src is not part:
                        raise VerifyException(
                            f"value defined in partition {src.pid} is used by {inner.name} in partition "
                            f"{part.pid}; values cross partitions only through arefs"
                        )

    @classmethod
    def parse(cls, parser: Parser):
        def from_body(body: Region):
            op = cls()
            op.body.detach_block(0).erase()
            body.move_blocks(op.body)
            return op

        return parse_region_then_attrs(parser, from_body)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_region_then_attrs(printer, self, self.body)


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """All warps of the enclosing partition meet here (a named barrier over the partition's
    threads, `bar.sync id, n`); it must be inside a `warp_group.partition`.

    Example:

        warp_group.region {
          warp_group.partition 0 consumer warps 8 {
            warp_group.barrier
          }
        }
    """

    name = "warp_group.barrier"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        cur = self.parent_op()
        while cur is not None and not isinstance(cur, PartitionOp):
            cur = cur.parent_op()
        if cur is None:
            raise VerifyException("warp_group.barrier must be inside a warp_group.partition")


class _SplitOp(IRDLOperation):
    """Common form of `share` / `gather`: `%r = warp_group.OP %x, g of G along a : T -> R`."""

    group = prop_def(IntegerAttr)
    groups = prop_def(IntegerAttr)
    axis = prop_def(IntegerAttr)
    src = operand_def(TensorType)
    result = result_def(TensorType)

    GATHERS: ClassVar[bool] = False  # share: the result is one slice; gather: all slices together

    @classmethod
    def result_size(cls, size: int, groups: int) -> int:
        return size * groups if cls.GATHERS else size // groups

    def __init__(self, src: SSAValue, group: int, groups: int, axis: int, result_type: TensorType | None = None):
        shape = list(src.type.get_shape())
        shape[axis] = self.result_size(shape[axis], groups)
        super().__init__(
            operands=[src],
            result_types=[result_type if result_type is not None else TensorType(src.type.element_type, shape)],
            properties={"group": IntegerAttr(group, 32), "groups": IntegerAttr(groups, 32),
                        "axis": IntegerAttr(axis, 32)},
        )


    def verify_(self) -> None:
        g, n, a = self.group.value.data, self.groups.value.data, self.axis.value.data
        shape = list(self.src.type.get_shape())
        if not 0 <= g < n:
            raise VerifyException(f"group {g} out of range for {n} groups")
        if not 0 <= a < len(shape):
            raise VerifyException(f"axis {a} out of range for a rank-{len(shape)} tile")
        if not self.GATHERS and shape[a] % n:
            raise VerifyException(f"dim {a} of size {shape[a]} does not split into {n} groups")
        shape[a] = self.result_size(shape[a], n)
        want = TensorType(self.src.type.element_type, shape)
        if plain(self.result.type) != want:
            raise VerifyException(f"{self.name.split('.')[1]} of {self.src.type} gives {want}, "
                                  f"not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        g = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("of")
        n = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("along")
        a = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return cls(parser.resolve_operand(src, st), g, n, a, rt if isinstance(rt, TensorType) else None)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string(f", {self.group.value.data} of {self.groups.value.data} along {self.axis.value.data} : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ShareOp(_SplitOp):
    """Group `group` of `groups` cooperating warp groups takes its share of a tile they all
    read (an aref slot): the `group`-th of `groups` equal slices along `axis`.

    Example:

        %a0 = warp_group.share %a, 0 of 2 along 0 : tensor<128x64xf16> -> tensor<64x64xf16>
    """

    name = "warp_group.share"


@irdl_op_definition
class GatherOp(_SplitOp):
    """The inverse of `share`: each of `groups` cooperating warp groups provides its slice
    (group g: the g-th along `axis`) and receives the whole tile once all groups have
    arrived, e.g. for one group to store it with TMA.

    Example:

        %o = warp_group.gather %o0, 0 of 2 along 0 : tensor<64x128xf16> -> tensor<128x128xf16>
    """

    name = "warp_group.gather"
    GATHERS: ClassVar[bool] = True



class _TurnOp(IRDLOperation):
    """Common form of `turn_wait` / `turn_pass`: `warp_group.OP g of G`."""

    group = prop_def(IntegerAttr)
    groups = prop_def(IntegerAttr)

    def __init__(self, group: int, groups: int):
        super().__init__(properties={"group": IntegerAttr(group, 32), "groups": IntegerAttr(groups, 32)})

    @property
    def g(self) -> int:
        return self.group.value.data

    @property
    def n(self) -> int:
        return self.groups.value.data

    def verify_(self) -> None:
        if self.n < 2:
            raise VerifyException(f"a turn is taken among at least 2 groups, got {self.n}")
        if not 0 <= self.g < self.n:
            raise VerifyException(f"group {self.g} out of range for {self.n} groups")
        cur = self.parent_op()
        while cur is not None and not isinstance(cur, PartitionOp):
            cur = cur.parent_op()
        if cur is None:
            raise VerifyException(f"{self.name} must be inside a warp_group.partition")

    @classmethod
    def parse(cls, parser: Parser):
        g = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("of")
        n = parser.parse_integer(allow_boolean=False)
        op = cls(g, n)
        attrs = parser.parse_optional_attr_dict()
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.g} of {self.n}")
        if self.attributes:
            printer.print_op_attributes(self.attributes)


@irdl_op_definition
class TurnWaitOp(_TurnOp):
    """Group g of a cooperative team of G waits until the team's turn has come to it (passed
    by group g - 1; the first turn of group 0 by group G - 1). Lowered to a named barrier
    (`bar.sync`); it must be inside a `warp_group.partition`.

    Example:

        warp_group.region {
          warp_group.partition 1 consumer0 warps 4 {
            warp_group.turn_wait 0 of 2
            warp_group.turn_pass 0 of 2
          }
        }
    """

    name = "warp_group.turn_wait"


@irdl_op_definition
class TurnPassOp(_TurnOp):
    """Group g of a cooperative team of G hands the turn to group (g + 1) mod G without
    waiting. Lowered to a named barrier arrival (`bar.arrive`); it must be inside a
    `warp_group.partition`.

    Example:

        warp_group.region {
          warp_group.partition 2 consumer1 warps 4 {
            warp_group.turn_pass 1 of 2
          }
        }
    """

    name = "warp_group.turn_pass"


WarpGroup = Dialect("warp_group", [RegionOp, PartitionOp, BarrierOp, ShareOp, GatherOp, TurnWaitOp, TurnPassOp],
                    [])
