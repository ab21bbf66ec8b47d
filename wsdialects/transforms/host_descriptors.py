"""`ws-host-descriptors`: descriptors a kernel makes itself (`tile.make_desc`, Triton's
`tl.make_tensor_descriptor`) become kernel arguments the launch builds.

Triton's attention tutorial makes its TMA descriptors on the device, from pointer arguments and
shapes computed from scalar arguments (`y_dim = Z * H * N_CTX`, strides `[HEAD_DIM, 1]`). The
Hopper lowering builds no descriptor on the device, but a descriptor whose base is a pointer
argument and whose sizes and strides are `+ - *` of scalar arguments and constants is the same for
every program of a launch: the runtime can build it once, at launch, as it builds a host
descriptor. The pass makes each such op a trailing `!tile.desc` argument and records how to build
it on the kernel (`ws.host_descs`, read by the GPU runtime and the interpreter alike), so the
kernel is then the host-descriptor kernel every later pass takes:

    func.func @attn(%Q: !tile.ptr<f16>, ..., %Z: i32, %H: i32) {
      %y = arith.muli %Z, %H : i32
      %n = arith.muli %y, %c128 : i32
      %q_desc = tile.make_desc %Q, [%n, %c32], [%c32_i64, %c1_i64]
          : !tile.ptr<f16> -> !tile.desc<tensor<64x32xf16>>
      %q = tile.desc_load %q_desc[%row, %c0] : ...
      ==>
    func.func @attn(%Q: !tile.ptr<f16>, ..., %Z: i32, %H: i32, %q_desc: !tile.desc<tensor<64x32xf16>>)
        attributes {ws.host_descs = [{ptr = 0 : i32, desc = 7 : i32, shape = [[[128, 5, 6]], [[32]]],
                                      strides = [[[32]], [[1]]], stored = 0 : i32}]} {
      %q = tile.desc_load %q_desc[%row, %c0] : ...

The contract names argument indices: the descriptor argument `desc` covers the tensor of sizes
`shape` and element strides `strides` (outermost first; each a polynomial of arguments, a list of
monomials `[coefficient, argument, ...]`, as in `ws.tma_loads`; here Z * H * 128 rows of 32)
starting at pointer argument `ptr`, which the launch takes as a contiguous array. At launch the
runtime (and the interpreter) checks that the tensor lies inside the array, then builds the
descriptor over it where TMA can take it (16-byte aligned base and outer strides). Where it
cannot, it builds it over an aligned copy (rows padded to 16 bytes) if the kernel only reads that
argument (`stored = 0`), as `ws-tma-load` does; a kernel that writes through it (`stored = 1`: a
store through a copy would be lost) gets a clear error naming the argument and what TMA needs.

An op stays as it is, with a remark saying why, where the descriptor is not one per launch: made
inside a loop or branch, or with a size or stride that depends on a program id or on anything
but `+ - *` of arguments and constants; or where TMA cannot describe it at all: a base that is
not a pointer argument, an innermost stride other than 1 (the lowering then reports the op).
A descriptor converted is a remark too unless `remarks=false` (ws-specialize and ws-hopper,
which run this pass first, keep only the remarks of ops left).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.tile import MakeDescOp, NumProgramsOp, ProgramIdOp
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.tma_affine import Analysis, Left, constant
from wsdialects.transforms.tma_common import HOST_DESCS_ATTR, add_kernel_arg, erase_dead, poly_attr, written_arguments


def _grid_dependent(v: SSAValue) -> str | None:
    """'a program id' / 'the number of programs' where `v` is computed from one, else None."""
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if x in seen or not isinstance(x.owner, Operation):
            continue
        seen.add(x)
        if isinstance(x.owner, ProgramIdOp):
            return "a program id"
        if isinstance(x.owner, NumProgramsOp):
            return "the number of programs"
        stack += list(x.owner.operands)
    return None


def match(op: MakeDescOp, an: Analysis, kernel: func.FuncOp) -> dict:
    """The contract entry of a descriptor the launch can build (see the module), else Left."""
    if op.parent_block() is not kernel.body.block:
        cur, loop = op.parent_op(), False
        while cur is not None and cur is not kernel:
            loop = loop or isinstance(cur, (scf.ForOp, scf.WhileOp))
            cur = cur.parent_op()
        raise Left("it is made inside a loop (a descriptor per iteration, not one per launch)" if loop else
                   "it is made inside a branch (only a kernel's top-level descriptors are built at launch)")
    base = op.base
    if not (isinstance(base, BlockArgument) and base.block is kernel.body.block):
        raise Left("its base is not a pointer argument of the kernel (a pointer computed on the device)")
    inner = constant(op.strides[-1])
    if inner != 1:
        what = inner if isinstance(inner, int) else "not a constant"
        raise Left(f"its innermost stride is {what}, not 1 (TMA moves rows of contiguous elements)")
    polys = {}
    for what, vals in (("size", op.shape), ("stride", op.strides)):
        polys[what] = []
        for d, v in enumerate(vals):
            p = an.scalar(v)
            if not an.of_arguments(p):
                grid = _grid_dependent(v)
                why = f"depends on {grid}" if grid else "is not + - * of the kernel's arguments and constants"
                raise Left(f"its {what} {d} {why} (a descriptor the launch builds is one per launch)")
            polys[what].append(p)
    return {"ptr": base.index, "shape": polys["size"], "strides": polys["stride"]}


@dataclass(frozen=True)
class HostDescriptorsPass(ModulePass):
    """Descriptors a kernel makes from pointer arguments and scalar arithmetic of its arguments
    (`tile.make_desc`) become `!tile.desc` arguments the launch builds (`ws.host_descs`)."""

    name = "ws-host-descriptors"
    remarks: bool = True

    def apply(self, ctx, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if HOST_DESCS_ATTR not in kernel.attributes:  # else converted already
                self.convert(kernel)

    def convert(self, kernel: func.FuncOp) -> None:
        an = Analysis(kernel)
        written = written_arguments(kernel)  # before the descriptors stand in for their pointers
        made: dict[tuple, BlockArgument] = {}
        entries: list[DictionaryAttr] = []
        for md in [o for o in kernel.body.walk() if isinstance(o, MakeDescOp)]:
            try:
                m = match(md, an, kernel)
            except Left as why:
                remark(md, f"ws-host-descriptors: left on the device: {why}")
                continue
            ptr = kernel.body.block.args[m["ptr"]]
            key = (m["ptr"], str([sorted(p.items()) for p in m["shape"] + m["strides"]]), str(md.result.type))
            if key not in made:
                name = md.result.name_hint or f"{ptr.name_hint or f'arg{ptr.index}'}_desc"
                desc = made[key] = add_kernel_arg(kernel, md.result.type, name)
                entries.append(DictionaryAttr({
                    "ptr": IntegerAttr(m["ptr"], 32), "desc": IntegerAttr(desc.index, 32),
                    "shape": ArrayAttr([poly_attr(p, an.atoms) for p in m["shape"]]),
                    "strides": ArrayAttr([poly_attr(p, an.atoms) for p in m["strides"]]),
                    "stored": IntegerAttr(int(m["ptr"] in written), 32)}))
            if self.remarks:
                remark(md, f"ws-host-descriptors: built at launch over argument {m['ptr']} "
                           f"({ptr.name_hint or m['ptr']}) as argument {made[key].index}")
            md.result.replace_all_uses_with(made[key])
            inputs = list(md.operands)
            md.detach()
            md.erase()
            erase_dead(inputs)
        if entries:
            kernel.attributes[HOST_DESCS_ATTR] = ArrayAttr(entries)
        elif self.remarks:
            remark(kernel, "ws-host-descriptors: no tile.make_desc built at launch")
