"""Control flow of the LLVM emitter: `scf.for` as a loop with one phi per scalar and per
register of each carried tile (accumulator fragments and row / column slices), `scf.if` as
two branches joined by phis."""

from __future__ import annotations


from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Block, Operation

from wsdialects.lower.llvm.types import Smem, bits_of, elem_of, llty, shape_of


class ControlFlow:
    """Loops and branches. A mixin of `Kernel` (kernel.py), over its emitter state."""

    def lower_if(self, o: Operation) -> None:
        """Both branches, then a phi per result at the join (like lower_for's loop-carried
        values): scalars one phi, tiles one per fragment register."""
        for r in o.results:
            try:
                llty(elem_of(r.type))
            except TypeError:
                self.fail(o, f"scf.if: a result of type {r.type} cannot be lowered")
        cond = self.scalar(o.operands[0])
        then_l, else_l, join = self.newlabel("if_then"), self.newlabel("if_else"), self.newlabel("if_join")
        self.emit(f"br i1 {cond}, label %{then_l}, label %{else_l}")
        incoming = []  # (block, one register list per result) of each branch
        for lab, region in ((then_l, o.regions[0]), (else_l, o.regions[1] if len(o.regions) > 1 else None)):
            self.label(lab)
            self.memo.append({})
            ys = []
            if region is not None and region.blocks:
                for bo in region.blocks[0].ops:
                    if bo.name == "scf.yield":
                        ys = [self.frag_of(y, o) if isinstance(y.type, TensorType) else [self.scalar(y)]
                              for y in bo.operands]
                    else:
                        self.lower_op(bo)
            self.memo.pop()
            incoming.append((self.block, ys))
            self.emit(f"br label %{join}")
        self.label(join)
        (b0, ys0), (b1, ys1) = incoming
        for i, r in enumerate(o.results):
            ty = llty(elem_of(r.type))
            regs = [self.op(f"phi {ty} [{x}, %{b0}], [{y}, %{b1}]", "phi") for x, y in zip(ys0[i], ys1[i])]
            self.vals[r] = self.make_frag(r.type, regs, o) if isinstance(r.type, TensorType) else regs[0]

    # ---- scf.for
    def packs_bytes(self, t: TensorType, init) -> bool:
        """A loop-carried 8-bit register tile (an fp8 P carried to the next iteration's P·V)
        travels four elements to a 32-bit register: one register each, it would take four
        times the registers."""
        return bits_of(elem_of(t)) == 8 and not isinstance(self.vals.get(init), Smem) and \
            len(shape_of(t)) == 2 and shape_of(t)[1] % 8 == 0

    def pack_bytes(self, regs: list[str]) -> list[str]:
        out = []
        for i in range(0, len(regs), 4):
            w = self.op(f"zext i8 {regs[i]} to i32")
            for k in range(1, min(4, len(regs) - i)):
                b = self.op(f"zext i8 {regs[i + k]} to i32")
                w = self.op(f"or i32 {w}, {self.op(f'shl i32 {b}, {8 * k}')}")
            out.append(w)
        return out

    def unpack_bytes(self, words: list[str]) -> list[str]:
        return [self.op(f"trunc i32 {self.op(f'lshr i32 {w}, {8 * k}') if k else w} to i8")
                for w in words for k in range(4)]

    def lower_for(self, o: Operation) -> None:
        lb, ub, step = (self.scalar(x) for x in o.operands[:3])
        inits = list(o.operands[3:])
        body: Block = o.body.blocks[0]
        iv = body.args[0]
        T = llty(iv.type)
        carried = []  # (arg, kind, init list)
        for a, init in zip(body.args[1:], inits):
            if isinstance(a.type, TensorType) and self.packs_bytes(a.type, init):
                carried.append((a, "bytes", self.pack_bytes(self.frag_of(init, o))))
            elif isinstance(a.type, TensorType):
                carried.append((a, "frag", self.frag_of(init, o)))
            else:
                carried.append((a, "scalar", [self.scalar(init)]))
        pre = self.block
        hdr, bod, ext = self.newlabel("for_hdr"), self.newlabel("for_body"), self.newlabel("for_exit")
        self.emit(f"br label %{hdr}")
        self.label(hdr)
        ivn = self.tmp("iv")
        phi_at = len(self.lines)
        self.lines.append(None)  # placeholder for the iv phi
        phis = []
        for a, kind, init in carried:
            names = [self.tmp("c") for _ in init]
            idxs = []
            for nm in names:
                idxs.append(len(self.lines))
                self.lines.append(None)
            phis.append((names, idxs))
            if kind != "bytes":
                self.vals[a] = self.make_frag(a.type, names, o) if kind == "frag" else names[0]
        for (a, kind, _), (names, _) in zip(carried, phis):  # after every phi of the header
            if kind == "bytes":
                self.vals[a] = self.make_frag(a.type, self.unpack_bytes(names), o)
        cond = self.op(f"icmp slt {T} {ivn}, {ub}")
        self.emit(f"br i1 {cond}, label %{bod}, label %{ext}")
        self.label(bod)
        self.vals[iv] = ivn
        self.memo.append({})
        yielded = None
        for bo in body.ops:
            if bo.name == "scf.yield":
                yielded = list(bo.operands)
                break
            self.lower_op(bo)
        ynames = []
        for (a, kind, init), y in zip(carried, yielded or []):
            if kind == "bytes":
                ynames.append(self.pack_bytes(self.frag_of(y, o)))
            else:
                ynames.append(self.frag_of(y, o) if kind == "frag" else [self.scalar(y)])
        nxt = self.op(f"add {T} {ivn}, {step}")
        latch = self.block
        self.emit(f"br label %{hdr}")
        self.memo.pop()
        self.lines[phi_at] = f"  {ivn} = phi {T} [{lb}, %{pre}], [{nxt}, %{latch}]"
        for (a, kind, init), (names, idxs), ys in zip(carried, phis, ynames):
            ty = {"frag": llty(elem_of(a.type)), "bytes": "i32"}.get(kind) or llty(a.type)
            for nm, li, i0, y in zip(names, idxs, init, ys):
                self.lines[li] = f"  {nm} = phi {ty} [{i0}, %{pre}], [{y}, %{latch}]"
        self.label(ext)
        for r, (a, kind, init) in zip(o.results, carried):
            self.vals[r] = self.vals[a]
