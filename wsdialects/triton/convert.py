"""TTIR (`tt` ops, as `parser.py` reads them) to the `tile` dialect.

The import rebuilds each `tt.func` as a `func.func` kernel op by op, mapping every value
to its converted value(s): `!tt.ptr<T>` becomes `!tile.ptr<T>`, `!tt.tensordesc<BxCxT>`
becomes `!tile.desc<tensor<BxCxT>>`, `arith` / `math` / `scf` ops are rebuilt unchanged
over the converted values, and each `tt` op becomes its `tile` counterpart:

    tt.get_program_id x : i32                     tile.program_id 0 : i32
    tt.load %p, %m, %o : tensor<64x!tt.ptr<f16>>  tile.load %p, %m, %o : tensor<64x!tile.ptr<f16>> -> ...
    "tt.reduce"(%x) <{axis = 1}> ({ arith.maxnumf })   tile.reduce max %x, 1 : ...
    tt.fp_to_fp %x : tensor<64xf32> -> tensor<64xf8E4M3FN>   arith.truncf ...
    tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m   tile.atomic_add %p, %v, %m
    tt.descriptor_reduce add, %d[%i, %j], %v       tile.desc_store add %d[%i, %j], %v

The kernel keeps Triton's signature: a host descriptor argument stays followed by the shape
(i32) and stride (i64) scalars Triton's launcher passes; argument attributes such as
`tt.divisibility` stay on their arguments.

Block pointers (`tt.make_tensor_ptr`, `tt.advance`; Triton 3.4-3.8) become pointer tiles, as
Triton 3.6+ itself rewrites them: a block pointer is carried as its base pointer, shape,
strides and offsets (scalars, through loops too), `tt.advance` adds to the offsets, and a load
or store through one addresses `base + sum_d (offset_d + range_d) * stride_d` with the mask
`0 <= offset_d + range_d < shape_d` on the `boundaryCheck` dims (padding zero or NaN as
`other`). Pointer tiles, unlike `tile.make_desc`, take any strides and go through every pass
(ws-tma pointer-to-TMA conversion included) that pointer loads do.

Every op gets the user's Python location (`locations.py`), or, with none, the enclosing op's;
anything the import cannot express is a `WsError` at that location naming the op.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith as xa
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float32Type,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from wsdialects.arith import CmpiOp, ExtFOp, TruncFOp
from wsdialects.diagnostics import WsError
from wsdialects.tile import (
    KERNEL_ATTR,
    NUM_WARPS_ATTR,
    AddPtrOp,
    AtomicAddOp,
    BroadcastOp,
    DescLoadOp,
    DESC_REDUCE_KINDS,
    DescStoreOp,
    DescType,
    DotOp,
    ExpandDimsOp,
    JoinOp,
    LoadOp,
    MakeDescOp,
    MakeRangeOp,
    NumProgramsOp,
    ProgramIdOp,
    PtrType,
    ReduceOp,
    ReshapeOp,
    SplatOp,
    SplitOp,
    StoreOp,
    TransOp,
)
from wsdialects.triton.dialect import unsupported_message
from wsdialects.triton.types import TTPtrType, TTTensorDescType

FLOAT_WIDTH = {"f8E4M3FN": 8, "f8E5M2": 8, "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
# tt.reduce combiners the tile dialect has a kind for: the combiner op's name -> tile.reduce kind
COMBINERS = {"arith.maxnumf": "max", "arith.maximumf": "max", "arith.maxsi": "max",
             "arith.minnumf": "min", "arith.minimumf": "min", "arith.minsi": "min",
             "arith.addf": "sum", "arith.addi": "sum"}
ATOMIC_ADDS = ("fadd", "add")


def _int(attr) -> int:
    return attr.value.data


class _Importer:
    def __init__(self, filename: str, python_locs: set):
        self.file, self.python_locs = filename, python_locs
        self.values: dict[SSAValue, list[SSAValue]] = {}

    # --- errors and locations --------------------------------------------------------

    def error(self, loc: Attribute, message: str) -> WsError:
        return WsError(message, loc.filename.data, loc.line.data, loc.column.data)

    def loc_of(self, op: Operation, outer: Attribute) -> Attribute:
        return op.location if op.location in self.python_locs else outer

    # --- types -----------------------------------------------------------------------

    def types(self, t: Attribute, loc) -> list[Attribute]:
        """The converted type(s) of a value of type `t` (a block pointer is several values)."""
        if isinstance(t, TTPtrType):
            if t.address_space.data != 1:
                raise self.error(loc, f"pointers to address space {t.address_space.data} are not supported "
                                      "(only global memory, address space 1)")
            if t.is_block_pointer:
                r = len(t.pointee.get_shape())
                return [PtrType(t.pointee.element_type)] + [i64] * (2 * r) + [i32] * r
            return [PtrType(t.pointee)]
        if isinstance(t, TensorType) and isinstance(t.element_type, TTPtrType):
            (p,) = self.types(t.element_type, loc)
            return [TensorType(p, t.get_shape())]
        if isinstance(t, TTTensorDescType):  # an integer block prints signed (si32): its values are i32
            b = t.block
            e = b.element_type
            shape = list(b.get_shape())
            if len(shape) == 3 and shape[0] == 1:  # [1, B, C] over a 3-D tensor: the 2-D block its
                shape = shape[1:]                  # loads give (Triton folds the reshape into them)
            return [DescType(TensorType(IntegerType(e.width) if isinstance(e, IntegerType) else e, shape))]
        if isinstance(t, IntegerType) and t.signedness.data.name != "SIGNLESS":
            raise self.error(loc, f"signed or unsigned integer type {t} is not supported")
        return [t]

    def one_type(self, t: Attribute, loc) -> Attribute:
        ts = self.types(t, loc)
        if len(ts) != 1:
            raise self.error(loc, f"a block pointer ({t}) cannot be used here")
        return ts[0]

    # --- values ----------------------------------------------------------------------

    def get(self, v: SSAValue) -> list[SSAValue]:
        return self.values[v]

    def one(self, v: SSAValue) -> SSAValue:
        return self.values[v][0]

    def bind(self, old: SSAValue, new: list[SSAValue]) -> None:
        self.values[old] = list(new)
        if len(new) == 1 and old.name_hint and not new[0].name_hint:
            new[0].name_hint = old.name_hint

    # --- functions and regions -----------------------------------------------------------

    def function(self, f: Operation, num_warps: int) -> func.FuncOp:
        loc = f.location
        name = f.properties["sym_name"].data
        ftype: FunctionType = f.properties["function_type"]
        if ftype.outputs.data:
            raise self.error(loc, f"tt.func @{name} returns values; a kernel returns nothing "
                                  "(a non-inlined Triton function cannot be imported)")
        arg_attrs = f.properties.get("arg_attrs")
        inputs, new_attrs = [], []
        for i, t in enumerate(ftype.inputs.data):
            ts = self.types(t, loc)
            if len(ts) != 1:
                raise self.error(loc, f"argument {i} of @{name} is a block pointer, which no launcher passes")
            inputs += ts
            new_attrs.append(arg_attrs.data[i] if arg_attrs is not None else DictionaryAttr({}))
        region = Region(self.block(f.body.block, loc))
        kernel = func.FuncOp(name, (inputs, []), region, arg_attrs=ArrayAttr(new_attrs))
        kernel.location = loc
        kernel.attributes[KERNEL_ATTR] = UnitAttr()
        kernel.attributes[NUM_WARPS_ATTR] = IntegerAttr(num_warps, 32)
        return kernel

    def block(self, old: Block, outer) -> Block:
        types = [t for a in old.args for t in self.types(a.type, outer)]
        new = Block(arg_types=types)
        it = iter(new.args)
        for a in old.args:
            self.bind(a, [next(it) for _ in self.types(a.type, outer)])
        for op in old.ops:
            loc = self.loc_of(op, outer)
            for n in self.op(op, loc):
                n.location = loc
                new.add_op(n)
        return new

    # --- ops ---------------------------------------------------------------------------

    def op(self, op: Operation, loc) -> list[Operation]:
        name = op.name
        if name.startswith("tt."):
            handler = getattr(self, "tt_" + name[3:].replace(".", "_"), None)
            if handler is None:
                raise self.error(loc, unsupported_message(name))
            return handler(op, loc)
        if name.startswith(("arith.", "math.", "scf.")):
            return [self.generic(op, loc)]
        raise self.error(loc, unsupported_message(name))

    def generic(self, op: Operation, loc) -> Operation:
        """`op` rebuilt over the converted values (a block pointer expands to its parts)."""
        operands = [v for o in op.operands for v in self.get(o)]
        result_types = [t for r in op.results for t in self.types(r.type, loc)]
        regions = [Region([self.block(b, loc) for b in r.blocks]) for r in op.regions]
        new = type(op).create(operands=operands, result_types=result_types, properties=dict(op.properties),
                              attributes=dict(op.attributes), regions=regions)
        it = iter(new.results)
        for r in op.results:
            self.bind(r, [next(it) for _ in self.types(r.type, loc)])
        return new

    def emit(self, op: Operation, new: Operation | list[Operation]) -> list[Operation]:
        """`new` (or the list, whose last op gives the results) replaces `op`."""
        ops = new if isinstance(new, list) else [new]
        for r, n in zip(op.results, ops[-1].results):
            self.bind(r, [n])
        return ops

    def tt_return(self, op, loc):
        if op.operands:
            raise self.error(loc, "a kernel returns nothing; tt.return with values cannot be imported")
        return [func.ReturnOp()]

    def tt_get_program_id(self, op, loc):
        return self.emit(op, ProgramIdOp(_int(op.attr("axis"))))

    def tt_get_num_programs(self, op, loc):
        return self.emit(op, NumProgramsOp(_int(op.attr("axis"))))

    def tt_make_range(self, op, loc):
        return self.emit(op, MakeRangeOp(_int(op.attr("start")), _int(op.attr("end"))))

    def _unary(self, cls, op, loc, **props):
        return self.emit(op, cls(self.one(op.args[0]), self.one_type(op.outs[0].type, loc), **props))

    def tt_splat(self, op, loc):
        return self._unary(SplatOp, op, loc)

    def tt_broadcast(self, op, loc):
        return self._unary(BroadcastOp, op, loc)

    def tt_expand_dims(self, op, loc):
        return self._unary(ExpandDimsOp, op, loc, axis=_int(op.attr("axis")))

    def tt_trans(self, op, loc):
        order = op.attr("order")
        return self._unary(TransOp, op, loc, order=DenseArrayBase.from_list(i32, list(order.get_values())))

    def tt_reshape(self, op, loc):
        return self._unary(ReshapeOp, op, loc)

    def tt_join(self, op, loc):
        return self.emit(op, JoinOp(self.one(op.args[0]), self.one(op.args[1])))

    def tt_split(self, op, loc):
        return self.emit(op, SplitOp(self.one(op.args[0])))

    def tt_addptr(self, op, loc):
        return self.emit(op, AddPtrOp(self.one(op.args[0]), self.one(op.args[1])))

    def tt_dot(self, op, loc):
        a, b, c = (self.one(v) for v in op.args)
        # fp8 dots accumulate as wgmma does, which is what Triton's default maxNumImpreciseAcc (2^30)
        # asks for; a smaller value asks for extra f32 promotion we do not do, so say so.
        limit = op.attr("maxNumImpreciseAcc")
        fp8 = FLOAT_WIDTH.get(str(getattr(op.args[0].type, "element_type", None))) == 8
        if fp8 and limit is not None and _int(limit) < 1 << 30:
            raise self.error(loc, f"tl.dot with max_num_imprecise_acc = {_int(limit)} is not supported (fp8 dots "
                                  "accumulate as wgmma does: Triton's default, 2^30)")
        return self.emit(op, DotOp(a, b, c))

    def tt_fp_to_fp(self, op, loc):
        src, dst = op.args[0].type, op.outs[0].type
        ws, wd = (FLOAT_WIDTH.get(str(getattr(t, "element_type", t))) for t in (src, dst))
        rounding = op.attr("rounding")
        if ws is None or wd is None or ws == wd:
            raise self.error(loc, f"tt.fp_to_fp from {src} to {dst} is not supported")
        if wd < ws and rounding is not None and rounding.data != "rtne":
            raise self.error(loc, f"tt.fp_to_fp with rounding = {rounding.data} is not supported "
                                  "(arith.truncf rounds to nearest even)")
        cls = ExtFOp if wd > ws else TruncFOp
        return self.emit(op, cls.create(operands=[self.one(op.args[0])], result_types=[dst]))

    def tt_load(self, op, loc):
        pt = op.args[0].type
        if isinstance(pt, TTPtrType) and pt.is_block_pointer:
            return self._block_access(op, loc, store=False)
        vals = [self.one(v) for v in op.args]
        new = LoadOp.create(operands=vals, result_types=[op.outs[0].type])
        return self.emit(op, new)

    def tt_store(self, op, loc):
        pt = op.args[0].type
        if isinstance(pt, TTPtrType) and pt.is_block_pointer:
            return self._block_access(op, loc, store=True)
        return [StoreOp(*(self.one(v) for v in op.args))]

    def tt_atomic_rmw(self, op, loc):
        kind = op.attr("atomic_rmw_op").data
        if kind not in ATOMIC_ADDS:
            raise self.error(loc, f"tt.atomic_rmw {kind} is not supported (only fadd and add)")
        if op.attr("scope").data == "sys":  # tile.atomic_add is ordered at gpu scope (acq_rel)
            raise self.error(loc, "tt.atomic_rmw with scope 'sys' is not supported (only 'gpu' and 'cta', which "
                                  "tile.atomic_add's gpu scope covers)")
        vals = [self.one(v) for v in op.args]
        return self.emit(op, AtomicAddOp(*vals))

    def tt_reduce(self, op, loc):
        if len(op.args) != 1 or len(op.outs) != 1:
            raise self.error(loc, f"tt.reduce of {len(op.args)} operands (e.g. argmax) is not supported; "
                                  "only one-operand max, min and sum")
        kind = self._combiner(op, loc)
        return self.emit(op, ReduceOp(self.one(op.args[0]), op.outs[0].type, axis=_int(op.attr("axis")), kind=kind))

    def _combiner(self, op, loc) -> str:
        body = op.regs[0].blocks[0] if op.regs and op.regs[0].blocks else None
        ops = list(body.ops) if body is not None else []
        what = ", ".join(o.name for o in ops[:-1]) or "nothing"
        if len(ops) == 2 and ops[0].name in COMBINERS and ops[1].name == "tt.reduce.return":
            comb, ret = ops
            if set(comb.operands) == set(body.args) and len(body.args) == 2 and list(ret.operands) == [comb.results[0]]:
                return COMBINERS[comb.name]
        raise self.error(loc, f"tt.reduce with a combiner of {what} is not supported; "
                              "only max (arith.maxnumf, maximumf, maxsi), min and sum (arith.addf, addi)")

    def tt_make_tensor_descriptor(self, op, loc):
        rank = _int(op.attr("ranks").data[0])
        vals = [self.one(v) for v in op.args]
        dt = self.one_type(op.outs[0].type, loc)
        return self.emit(op, MakeDescOp(vals[0], vals[1:1 + rank], vals[1 + rank:], dt))

    def tt_descriptor_load(self, op, loc):
        d, *idx = (self.one(v) for v in op.args)
        load = DescLoadOp(d, idx)
        want = self.one_type(op.outs[0].type, loc)
        if len(want.get_shape()) == len(load.result.type.get_shape()) + 1:  # the [1, B, C] block unfolded
            return self.emit(op, [load, ExpandDimsOp(load.result, want, 0)])
        return self.emit(op, load)

    def tt_descriptor_store(self, op, loc):
        d, *idx, v = (self.one(v) for v in op.args)
        ops = []
        block = d.type.block
        if len(v.type.get_shape()) == len(block.get_shape()) + 1:  # a [1, B, C] value through the 2-D block
            ops.append(ReshapeOp(v, TensorType(v.type.element_type, block.get_shape())))
            v = ops[-1].result
        return ops + [DescStoreOp(d, idx, v)]

    def tt_descriptor_reduce(self, op, loc):
        kind = op.attr("kind").data
        elem = op.args[0].type.block.element_type
        have = DESC_REDUCE_KINDS.get(kind)
        if have is None:
            raise self.error(loc, f"tt.descriptor_reduce {kind} is not supported (only "
                                  f"{', '.join(DESC_REDUCE_KINDS)}: desc.atomic_add, atomic_min, atomic_max)")
        if kind != "add" and isinstance(elem, IntegerType) and elem.signedness.data.name == "UNSIGNED":
            raise self.error(loc, f"tt.descriptor_reduce {kind} of unsigned {elem} is not supported "
                                  "(min and max compare signed i32)")
        d, *idx, v = (self.one(v) for v in op.args)
        et = str(d.type.block.element_type)
        if et not in have:
            raise self.error(loc, f"tt.descriptor_reduce {kind} of {et} is not supported (only {', '.join(have)})")
        return [DescStoreOp(d, idx, v, reduce=kind)]

    # --- block pointers ------------------------------------------------------------------

    def tt_make_tensor_ptr(self, op, loc):
        self.bind(op.outs[0], [self.one(v) for v in op.args])  # base, shape..., strides..., offsets...
        return []

    def tt_advance(self, op, loc):
        parts = self.get(op.args[0])
        r = len(op.args) - 1
        out, offs = [], parts[1 + 2 * r:]
        for o, d in zip(offs, op.args[1:]):
            add = xa.AddiOp(o, self.one(d))
            out.append(add)
        self.bind(op.outs[0], parts[: 1 + 2 * r] + [a.result for a in out])
        return out

    def _block_access(self, op, loc, store: bool):
        pt: TTPtrType = op.args[0].type
        block = pt.pointee
        shape = tuple(block.get_shape())
        r = len(shape)
        parts = self.get(op.args[0])
        base, sizes, strides, offs = parts[0], parts[1:1 + r], parts[1 + r:1 + 2 * r], parts[1 + 2 * r:]
        check = op.attr("boundaryCheck")
        checked = list(check.get_values()) if check is not None else []
        ops: list[Operation] = []

        def add(o: Operation) -> SSAValue:
            ops.append(o)
            return o.results[0]

        total, mask = None, None
        for d in range(r):  # in i32, as Triton 3.6+ addresses the pointer tiles it makes of block pointers
            n = shape[d]
            idx = add(xa.AddiOp(add(SplatOp(offs[d], TensorType(i32, [n]))), add(MakeRangeOp(0, n))))

            def spread(v: SSAValue, et) -> SSAValue:  # a 1-D tile along dim d, broadcast to the block
                for ax in range(r):
                    if ax != d:
                        v = add(ExpandDimsOp(v, None, axis=ax))
                if r > 1:
                    v = add(BroadcastOp(v, TensorType(et, shape)))
                return v

            stride = add(xa.TruncIOp(strides[d], i32))
            term = spread(add(xa.MuliOp(idx, add(SplatOp(stride, TensorType(i32, [n]))))), i32)
            total = term if total is None else add(xa.AddiOp(total, term))
            if d in checked:
                zero = add(xa.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(i32, [n]), [0])))
                lo = add(CmpiOp(idx, zero, 5))  # sge
                size = add(xa.TruncIOp(sizes[d], i32))
                hi = add(CmpiOp(idx, add(SplatOp(size, TensorType(i32, [n]))), 2))  # slt
                inb = spread(add(xa.AndIOp(lo, hi)), i1)
                mask = inb if mask is None else add(xa.AndIOp(mask, inb))
        ptrs = add(AddPtrOp(add(SplatOp(base, TensorType(base.type, shape))), total))
        if store:
            value = self.one(op.args[1])
            ops.append(StoreOp(ptrs, value, mask))
            return ops
        other = None
        if mask is not None:
            padding = op.attr("padding")
            pad = _int(padding) if padding is not None else 1
            if pad not in (1, 2):
                raise self.error(loc, f"block-pointer padding {pad} is not supported (1: zero, 2: NaN)")
            et = block.element_type
            if pad == 2 and not isinstance(et, Float32Type) and str(et) not in FLOAT_WIDTH:
                raise self.error(loc, f"NaN padding of a {et} block")
            value = math.nan if pad == 2 else (0.0 if str(et) in FLOAT_WIDTH else 0)
            other = add(xa.ConstantOp(DenseIntOrFPElementsAttr.from_list(block, [value])))
        ops.append(LoadOp(ptrs, mask, other))
        for r_, n in zip(op.results, ops[-1].results):
            self.bind(r_, [n])
        return ops


def convert(tt_module: ModuleOp, filename: str, python_locs: set, num_warps: int | None) -> ModuleOp:
    """The tile-dialect module of a parsed TTIR module (not yet verified)."""
    attrs = tt_module.attributes
    warps = attrs.get("ttg.num-warps")
    if warps is not None:
        num_warps = _int(warps)
    importer = _Importer(filename, python_locs)
    funcs = []
    for op in tt_module.ops:
        loc = op.location
        if op.name != "tt.func":
            raise importer.error(loc, f"'{op.name}' at the top of a TTIR module is not supported "
                                      "(expected tt.func)") if hasattr(loc, "filename") else WsError(
                f"'{op.name}' at the top of a TTIR module is not supported", filename)
        funcs.append(importer.function(op, 4 if num_warps is None else num_warps))
    module = ModuleOp(funcs)
    module.location = tt_module.location
    return module


__all__ = ["COMBINERS", "convert"]
