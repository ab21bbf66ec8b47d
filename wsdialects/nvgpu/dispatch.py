"""`nvgpu` register budgets and warp-group dispatch: `nvgpu.setmaxnreg`, `nvgpu.wg.branch`,
`nvgpu.wg.lead_warp`, `nvgpu.wg.dispatch`."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Block, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, region_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from wsdialects.nvgpu.types import REG_MAX, REG_MIN, REGFILE, SM_THREADS, entry_regs, register_pool
from wsdialects.syntax import BodyThenAttrs, parse_region_then_attrs, print_region_then_attrs


# ----------------------------------------------------------------------------- registers, dispatch

@irdl_op_definition
class SetMaxNRegOp(BodyThenAttrs):
    """Every warp of the executing warp groups moves its register budget down (`dec`) or up
    (`inc`) to `regs` per thread, a multiple of 8 in [24, 256]
    (setmaxnreg.{dec,inc}.sync.aligned.u32). It must be the first op of its
    `nvgpu.wg.branch`.

    Example:

        nvgpu.wg.dispatch threads 128 {
          nvgpu.wg.branch warps 0 to 4 "consumer" {
            nvgpu.setmaxnreg dec 240
          }
        }
    """

    name = "nvgpu.setmaxnreg"
    action = prop_def(StringAttr)
    regs = prop_def(IntegerAttr)

    def __init__(self, action: str, regs: int):
        super().__init__(properties={"action": StringAttr(action), "regs": IntegerAttr(regs, 32)})

    def verify_(self) -> None:
        if self.action.data not in ("inc", "dec"):
            raise VerifyException(f"setmaxnreg action must be inc or dec, got '{self.action.data}'")
        r = self.regs.value.data
        if r % 8 or not REG_MIN <= r <= REG_MAX:
            raise VerifyException(f"setmaxnreg needs a multiple of 8 in [{REG_MIN}, {REG_MAX}], got {r}")

    @classmethod
    def parse_body(cls, parser: Parser):
        pos = parser.pos
        action = parser.parse_optional_identifier()
        if action not in ("inc", "dec"):
            parser.raise_error("expected 'inc' or 'dec'", pos, parser.pos)
        return cls(action, parser.parse_integer(allow_boolean=False))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.action.data} {self.regs.value.data}")


@irdl_op_definition
class BranchOp(IRDLOperation):
    """Warps [first, first + warps) of the CTA run the body: whole warp groups, directly
    inside an `nvgpu.wg.dispatch`, with a role name.

    Example:

        nvgpu.wg.dispatch threads 384 {
          nvgpu.wg.branch warps 0 to 4 "producer" {
            nvgpu.setmaxnreg dec 40
          }
          nvgpu.wg.branch warps 4 to 12 "consumer" {
            nvgpu.setmaxnreg inc 232
          }
        }
    """

    name = "nvgpu.wg.branch"
    first = prop_def(IntegerAttr)
    warps = prop_def(IntegerAttr)
    role = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, first: int, warps: int, role: str, body: Region | None = None):
        super().__init__(properties={"first": IntegerAttr(first, 32), "warps": IntegerAttr(warps, 32),
                                     "role": StringAttr(role)}, regions=[body or Region(Block())])

    @property
    def num_warps(self) -> int:
        return self.warps.value.data

    @property
    def first_warp(self) -> int:
        return self.first.value.data

    @property
    def regs(self) -> int | None:
        ops = list(self.body.block.ops) if self.body.blocks else []
        return ops[0].regs.value.data if ops and isinstance(ops[0], SetMaxNRegOp) else None

    def verify_(self) -> None:
        f, n = self.first_warp, self.num_warps
        if f % 4 or n % 4 or n <= 0:
            raise VerifyException(f"a branch is whole warp groups: first warp {f} and warp count {n} must be "
                                  "multiples of 4")
        if not isinstance(self.parent_op(), DispatchOp):
            raise VerifyException("nvgpu.wg.branch must be directly inside nvgpu.wg.dispatch")
        for o in self.body.walk():
            if isinstance(o, SetMaxNRegOp) and o is not next(iter(self.body.block.ops)):
                raise VerifyException("nvgpu.setmaxnreg must be the first op of its branch")

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_keyword("warps")
        first = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("to")
        end = parser.parse_integer(allow_boolean=False)
        role = parser.parse_optional_str_literal()
        if role is None:
            role = parser.parse_identifier()
        return parse_region_then_attrs(parser, lambda body: cls(first, end - first, role, body))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" warps {self.first_warp} to {self.first_warp + self.num_warps} ")
        printer.print_string_literal(self.role.data)
        printer.print_string(" ")
        print_region_then_attrs(printer, self, self.body)


@irdl_op_definition
class LeadWarpOp(IRDLOperation):
    """Only the first warp of the enclosing `nvgpu.wg.branch` runs the body; the branch's
    other warps skip it (and idle to the kernel's end). `ws-lead-warp` puts a producer's
    work here when it is one elected thread's TMA copies and barrier operations, so three
    warps of the producer group neither issue nor spin.

    Example:

        nvgpu.wg.dispatch threads 256 {
          nvgpu.wg.branch warps 0 to 4 "producer" {
            nvgpu.setmaxnreg dec 40
            nvgpu.wg.lead_warp {
              %pid = tile.program_id 0 : i32
            }
          }
          nvgpu.wg.branch warps 4 to 8 "consumer" {
            nvgpu.setmaxnreg inc 232
          }
        }
    """

    name = "nvgpu.wg.lead_warp"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, body: Region | None = None):
        super().__init__(regions=[body or Region(Block())])

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), BranchOp):
            raise VerifyException("nvgpu.wg.lead_warp must be directly inside nvgpu.wg.branch")

    @classmethod
    def parse(cls, parser: Parser):
        return parse_region_then_attrs(parser, cls)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_region_then_attrs(printer, self, self.body)


def executing_warps(op) -> int | None:
    """Warps that execute `op`: one inside an `nvgpu.wg.lead_warp`, else those of the innermost
    `warp_group.partition` or `nvgpu.wg.branch` around it; None outside any."""
    cur = op.parent_op()
    while cur is not None:
        if cur.name == "nvgpu.wg.lead_warp":
            return 1
        if cur.name == "warp_group.partition":
            return cur.warps
        if cur.name == "nvgpu.wg.branch":
            return cur.num_warps
        cur = cur.parent_op()
    return None


@irdl_op_definition
class DispatchOp(IRDLOperation):
    """Warp-group dispatch: the CTA's `threads` threads (whole warp groups, at most 1024)
    split into branches by warp index, all running at the same time; the branches cover
    the warps in order and their register budgets must fit the registers the CTA holds from
    launch (`entry_regs` a thread: 64512 for 384 threads, of the file's 65536, less when
    `ctas_per_sm` CTAs share an SM: ws-occupancy); setmaxnreg only moves registers between
    the branches, and a `.inc` the CTA cannot supply waits forever.

    Example:

        nvgpu.wg.dispatch threads 256 {
          nvgpu.wg.branch warps 0 to 4 "producer" {
          }
          nvgpu.wg.branch warps 4 to 8 "consumer" {
          }
        }
    """

    name = "nvgpu.wg.dispatch"
    threads = prop_def(IntegerAttr)
    ctas_per_sm = opt_prop_def(IntegerAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, threads: int, branches: list[BranchOp] | None = None, body: Region | None = None,
                 ctas_per_sm: int = 1):
        props = {"threads": IntegerAttr(threads, 32)}
        if ctas_per_sm != 1:
            props["ctas_per_sm"] = IntegerAttr(ctas_per_sm, 32)
        super().__init__(properties=props, regions=[body or Region(Block(branches or []))])

    @property
    def num_threads(self) -> int:
        return self.threads.value.data

    @property
    def num_ctas_per_sm(self) -> int:
        return self.ctas_per_sm.value.data if self.ctas_per_sm is not None else 1

    @property
    def branches(self) -> list[BranchOp]:
        return [o for o in self.body.block.ops if isinstance(o, BranchOp)]

    def entry_regs(self) -> int:
        """Registers per thread at launch (the cap `nvvm.maxntid` gives ptxas)."""
        return entry_regs(self.num_threads, self.num_ctas_per_sm)

    @property
    def register_pool(self) -> int:
        """The registers the CTA holds from launch to exit, which its branches' budgets share
        (setmaxnreg moves registers between them, never in from the rest of the file)."""
        return register_pool(self.num_threads, self.num_ctas_per_sm)

    def verify_(self) -> None:
        n = self.num_threads
        if n <= 0 or n % 128 or n > 1024:
            raise VerifyException(f"a dispatch runs whole warp groups, at most 1024 threads: got {n}")
        c = self.num_ctas_per_sm
        if c < 1 or c * n > SM_THREADS:
            raise VerifyException(f"{c} CTAs of {n} threads per SM: an SM holds at most {SM_THREADS} threads "
                                  "(and at least one CTA)")
        ops = list(self.body.block.ops)
        if any(not isinstance(o, BranchOp) for o in ops):
            raise VerifyException("nvgpu.wg.dispatch holds only nvgpu.wg.branch ops")
        nxt, budget = 0, 0
        for b in self.branches:
            if b.first_warp != nxt:
                raise VerifyException(f"branches must cover the warps in order without gaps: expected a branch at "
                                      f"warp {nxt}, got {b.first_warp}")
            nxt += b.num_warps
            budget += (b.regs or self.entry_regs()) * 32 * b.num_warps
        if nxt * 32 != n:
            raise VerifyException(f"branches cover {nxt * 32} threads, the dispatch has {n}")
        if budget > self.register_pool:
            share = f", {c} CTAs sharing the {REGFILE}" if c > 1 else ""
            raise VerifyException(f"register budgets need {budget} registers, the CTA holds {self.register_pool} "
                                  f"({self.entry_regs()} a thread from launch{share}; a setmaxnreg.inc beyond "
                                  "them would wait forever)")

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_keyword("threads")
        n = parser.parse_integer(allow_boolean=False)
        c = 1
        if parser.parse_optional_keyword("ctas_per_sm") is not None:
            c = parser.parse_integer(allow_boolean=False)
        return parse_region_then_attrs(parser, lambda body: cls(n, body=body, ctas_per_sm=c))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" threads {self.num_threads} ")
        if self.ctas_per_sm is not None:
            printer.print_string(f"ctas_per_sm {self.num_ctas_per_sm} ")
        print_region_then_attrs(printer, self, self.body)
