"""IR-level mutation operators: changes that know the kernel's structure, so
that many mutants stay valid and reach deep into the pipeline.

- :func:`reshape` resizes one tile dimension everywhere it occurs (types,
  the `arith.constant` tile sizes, `make_range` bounds): `128` -> `192`;
- :func:`reshape_one` changes one dimension of one type (a verifier's case);
- :func:`num_warps` sets `tile.num_warps` to an interesting or ill-typed value;
- :func:`random_schedule` writes a random `ws.stage` / `ws.order` / `ws.warp`
  on the main loop and `ws.schedule` on the loop, either consistent with the
  dependences (stages and orders follow def-use) or arbitrary;
- :func:`schedule_attr` changes one schedule attribute of a scheduled kernel.
"""

from __future__ import annotations

import random
import re

TILE_SIZES = [1, 8, 16, 32, 48, 64, 96, 128, 192, 256, 512, 100, 7]
WARPS = ["0", "1", "2", "3", "4", "5", "8", "12", "16", "32", "-4", "1024", "2147483648", '"eight"', "4.0 : f32",
         "true", "array<i32: 4>", "unit"]
_DIMS = re.compile(r"(?<=tensor<)((?:\d+x)+)")


def _dims(text: str) -> list[int]:
    return [int(d) for m in _DIMS.finditer(text) for d in m.group(1).split("x") if d]


def reshape(text: str, rng: random.Random) -> str:
    """Every tile dimension equal to d (in tensor types, tile-size constants and
    `make_range` bounds) becomes d'."""
    dims = sorted({d for d in _dims(text) if d > 1})
    if not dims:
        return text
    d = rng.choice(dims)
    new = rng.choice([s for s in TILE_SIZES if s != d])

    def sub_dims(m: re.Match) -> str:
        return "".join(f"{new if int(x) == d else x}x" for x in m.group(1).split("x") if x)

    text = _DIMS.sub(sub_dims, text)
    text = re.sub(rf"(\bto ){d}\b", rf"\g<1>{new}", text)
    if rng.random() < 0.8:  # the constants that name the tile size (%Bm, %c128)
        text = re.sub(rf"(arith\.constant ){d}( : i(?:32|64))", rf"\g<1>{new}\2", text)
    return text


def reshape_one(text: str, rng: random.Random) -> str:
    found = list(_DIMS.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    parts = [p for p in m.group(1).split("x") if p]
    parts[rng.randrange(len(parts))] = str(rng.choice(TILE_SIZES))
    return text[: m.start()] + "".join(f"{p}x" for p in parts) + text[m.end():]


def _set_warps(text: str, value: str) -> str:
    if "tile.num_warps" in text:
        return re.sub(r"tile\.num_warps = [^,}]+", f"tile.num_warps = {value}", text, count=1)
    return text.replace("tile.kernel", f"tile.kernel, tile.num_warps = {value}", 1)


def num_warps(text: str, rng: random.Random) -> str:
    value = rng.choice(WARPS)
    return _set_warps(text, value if ":" in value or not re.fullmatch(r"-?\d+", value) else f"{value} : i32")


def warps_valid(text: str, rng: random.Random) -> str:
    """`tile.num_warps` set to another value the compiler supports (4 to 16)."""
    return _set_warps(text, f"{rng.choice([4, 8, 12, 16])} : i32")


def drop_kernel_attr(text: str, rng: random.Random) -> str:
    """The kernel marker or the warp count goes away."""
    return re.sub(r"tile\.kernel,?\s*" if rng.random() < 0.5 else r",?\s*tile\.num_warps = [^,}]+", "", text, count=1)


# ---------------------------------------------------------------- schedules

def _loop_nodes(module):
    """(kernel, main loop, its schedulable ops in program order) of each kernel."""
    from wsdialects.schedule.machine import load_machine
    from wsdialects.transforms.partition import kernels, main_loop

    machine = load_machine("h100")
    out = []
    for k in kernels(module):
        loop = main_loop(k)
        if loop is None:
            continue
        nodes = [op for op in loop.body.block.ops
                 if not machine.is_view(op.name) and op.name != "scf.yield"
                 and (any("tensor" in str(r.type) for r in op.results) or op.name in ("tile.desc_store", "tile.store"))]
        out.append((k, loop, nodes))
    return out


def random_schedule(text: str, rng: random.Random) -> str:
    """A random ws-schedule result on each kernel's main loop; half of them
    respect the dependences (a def's stage and order come before its users')."""
    import wsdialects
    from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, i32

    from wsdialects.tools.ws_opt import emit

    try:
        module = wsdialects.parse(text)
    except wsdialects.WsError:  # an earlier mutation made it invalid: it stays so
        return text
    consistent = rng.random() < 0.5
    for kernel, loop, nodes in _loop_nodes(module):
        nw = kernel.attributes.get("tile.num_warps")
        groups = max(1, nw.value.data // 4) if isinstance(nw, IntegerAttr) and nw.value.data > 0 else 1
        warps = rng.choice([1, groups, groups, 2, 3])
        stage: dict = {}
        for op in nodes:
            base = max((stage.get(o.owner, 0) for o in op.operands if hasattr(o.owner, "name")), default=0)
            stage[op] = base + (rng.random() < 0.3) if consistent else rng.randrange(3)
        order = list(range(len(nodes)))
        if consistent:
            order.sort(key=lambda i: (stage[nodes[i]], i))
        else:
            rng.shuffle(order)
        for rank, i in enumerate(order):
            op = nodes[i]
            op.attributes["ws.stage"] = IntegerAttr(stage[op], i32)
            op.attributes["ws.order"] = IntegerAttr(rank, i32)
            warp = warps if op.name == "tile.desc_load" else rng.randrange(warps)
            if rng.random() < 0.9:
                op.attributes["ws.warp"] = IntegerAttr(warp, i32)
        info = {"II": IntegerAttr(rng.randint(1, 40), i32), "L": IntegerAttr(rng.randint(1, 80), i32),
                "warps": IntegerAttr(warps, i32), "solver": StringAttr("fuzz"), "vl_warp": IntegerAttr(warps, i32)}
        if rng.random() < 0.25:
            info["cooperative"] = IntegerAttr(2, i32)
        loop.attributes["ws.schedule"] = DictionaryAttr(info)
    return emit(module, "mlir")


SCHEDULE_VALUES = ["0 : i32", "1 : i32", "2 : i32", "3 : i32", "-1 : i32", "7 : i32", "100 : i32", "2147483647 : i32",
                   '"w"', "1.0 : f32", "true", "0 : i64"]


def schedule_attr(text: str, rng: random.Random) -> str:
    """One ws.stage / ws.order / ws.warp (or a ws.schedule field) gets another
    value, is dropped, or is added where there was none."""
    found = list(re.finditer(r"ws\.(stage|order|warp) = [^,}]+", text))
    fields = list(re.finditer(r"(?<=ws\.schedule = \{)[^}]*", text))
    roll = rng.random()
    if fields and roll < 0.25:
        m = rng.choice(fields)
        entries = [e.strip() for e in m.group().split(",") if e.strip()]
        i = rng.randrange(len(entries))
        key = entries[i].split("=")[0].strip()
        if rng.random() < 0.3:
            del entries[i]
        else:
            entries[i] = f"{key} = {rng.choice(SCHEDULE_VALUES)}"
        return text[: m.start()] + ", ".join(entries) + text[m.end():]
    if not found:
        return random_schedule(text, rng)
    m = rng.choice(found)
    if roll < 0.35:
        return text[: m.start()] + f"ws.{m.group(1)}_x = 0 : i32" + text[m.end():]
    return text[: m.start()] + f"ws.{m.group(1)} = {rng.choice(SCHEDULE_VALUES)}" + text[m.end():]


MUTATORS = {"reshape": reshape, "reshape_one": reshape_one, "num_warps": num_warps, "warps_valid": warps_valid,
            "drop_kernel_attr": drop_kernel_attr, "random_schedule": random_schedule,
            "schedule_attr": schedule_attr}
