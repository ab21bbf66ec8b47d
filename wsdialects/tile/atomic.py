"""`tile.atomic_add`: an atomic read-add-write through a pointer or a tile of pointers
(Triton's `tl.atomic_add`, TTIR's `tt.atomic_rmw fadd` / `add`).

Each masked-on lane adds its value to the element it points at, atomically with respect
to every other program, and gets the element's value from before its add; lanes that
point at one element are applied one after another in an unspecified order. Masked-off
lanes neither write nor read (their result is 0). The op is ordered as Triton's default,
acq_rel at gpu scope: the program's memory accesses before it happen before its adds, and
its adds before the accesses after it (the importer reads `tt.atomic_rmw`'s sem and scope
but keeps neither; acq_rel/gpu is at least as strong as every sem and the cta scope).

On Hopper (`ws-hopper -t ptx`) each element is added once, by the thread that holds it in
the tile's layout, with `red.relaxed.gpu.global.add` (`atom` where the result is read)
between two `fence.acq_rel.gpu`; tiles in the accumulator fragment or a row slice of it,
and scalars whose result is not read, are lowered (wsdialects/lower/llvm/memory.py). An f32
fragment whose result is not read adds a thread's two adjacent columns with one
`red.global.add.v2.f32` where the pointers step one element per column and their alignment
is proven (`tt.divisibility` of the base and the row stride, wsdialects/lower/alignment.py);
else one element at a time. A tile added into a descriptor's tensor is better written as a
reducing TMA store, `tile.desc_store add` (one bulk reduction per tile).

    %old = tile.atomic_add %ptrs, %v, %mask : tensor<64x!tile.ptr<f32>>, tensor<64xf32> -> tensor<64xf32>
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float16Type, Float32Type, IntegerType, TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import READS, WRITES, _is_ptr_like, _parse_operand_list, _parse_type_of
from wsdialects.tile.memory import _check_mask, _mask_type_for
from wsdialects.tile.types import element_type, shape_of


def _pointee_like(ptr_type):
    pointee = element_type(ptr_type).pointee
    return TensorType(pointee, shape_of(ptr_type)) if isinstance(ptr_type, TensorType) else pointee


@irdl_op_definition
class AtomicAddOp(BodyThenAttrs):
    """Atomic `*ptr += value` per masked-on lane, giving the values from before the adds: operands
    `ptrs, value [, mask]`, element type f32, f16 or i32 (Triton's `tl.atomic_add`). Ordered as
    Triton's default, acq_rel at gpu scope. On Hopper each element is added once, by the thread
    that holds it, with `red` (`atom` where the result is read) between two `fence.acq_rel.gpu`;
    f32 pairs whose 8-byte alignment the IR proves with one `red.global.add.v2.f32`.

    Example:

        %old = tile.atomic_add %p, %v : !tile.ptr<f32>, f32 -> f32
    """

    name = "tile.atomic_add"
    ptr = operand_def()
    value = operand_def()
    rest = var_operand_def()  # [mask]
    result = result_def()
    traits = traits_def(READS, WRITES)

    def __init__(self, ptr: SSAValue, value: SSAValue, mask: SSAValue | None = None):
        super().__init__(operands=[ptr, value, [mask] if mask is not None else []],
                         result_types=[_pointee_like(ptr.type)])

    @property
    def mask(self) -> SSAValue | None:
        return self.rest[0] if self.rest else None

    def verify_(self) -> None:
        pt = self.ptr.type
        if not _is_ptr_like(pt):
            raise VerifyException(f"atomic_add expects a pointer or tile of pointers, got {pt}")
        want = _pointee_like(pt)
        et = element_type(want)
        if not (isinstance(et, Float32Type | Float16Type) or et == IntegerType(32)):
            raise VerifyException(f"atomic_add supports f32, f16 and i32 elements, got {et}")
        if plain(self.value.type) != plain(want):
            raise VerifyException(f"atomic_add value must be {want} to match {pt}, got {self.value.type}")
        if plain(self.result.type) != plain(want):
            raise VerifyException(f"atomic_add result must be {want}, got {self.result.type}")
        if len(self.rest) > 1:
            raise VerifyException(f"atomic_add takes ptrs, value [, mask], got {2 + len(self.rest)} operands")
        if self.mask is not None:
            _check_mask(self.mask, pt)

    @classmethod
    def parse_body(cls, parser: Parser):
        ops = _parse_operand_list(parser, 2, 3, "tile.atomic_add takes ptrs, value [, mask]")
        parser.parse_punctuation(":")
        pt = _parse_type_of(parser, _is_ptr_like, "a pointer or a tile of pointers")
        parser.parse_punctuation(",")
        vt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        vals = parser.resolve_operands(ops, [pt, vt, _mask_type_for(pt)][: len(ops)], parser.pos)
        return cls.create(operands=vals, result_types=[rt])

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.value, *self.rest], printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([self.ptr.type, self.value.type], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
