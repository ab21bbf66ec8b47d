"""The loop dependence graph: the input of modulo scheduling.

Nodes are tile-level operations, each with a resource reservation table (how
many instances of each functional unit it occupies on each cycle after it
issues); edges ``(u, v, delay, distance)`` say that ``v`` of iteration
``i + distance`` issues at least ``delay`` cycles after ``u`` of iteration
``i``.  This module holds the data model and the JSON reader/validator; the
format is documented in ``wsdialects/schedule/README.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class GraphError(ValueError):
    """A dependence graph that is malformed or cannot be scheduled at any II.

    ``line``/``col`` are set when the error is a JSON syntax error."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass
class Op:
    """One node: a tile-level operation and its reservation table."""

    name: str
    uses: dict[str, list[int]] = field(default_factory=dict)
    latency: int | None = None  # None: the reservation length
    regs: int = 0
    smem: int = 0
    variable_latency: bool = False
    spill_cost: int = 0  # extra delay when a consumer sits on another warp
    kind: str | None = None  # informational (e.g. the IR op name)

    @property
    def length(self) -> int:
        """Number of cycles covered by the reservation table."""
        return max((len(row) for row in self.uses.values()), default=0)

    @property
    def cycles(self) -> int:
        """The op's latency in cycles (``cycles(v)`` in the paper)."""
        return self.length if self.latency is None else self.latency


@dataclass
class Edge:
    """A dependence ``src -> dst`` with a cycle delay and an iteration distance."""

    src: str
    dst: str
    delay: int
    distance: int = 0
    blocking: bool = False


@dataclass
class Warps:
    """How many warp (groups) may run fixed-latency ops, and each one's register budget."""

    count: int = 1
    reg_limit: int | None = None
    # A value carried to the next iteration is used on the warp that computes
    # it (no loop-carried cross-warp transfers: what ws-distribute can build).
    local_recurrences: bool = False
    # FA3's ping-pong: each compute warp stands for a team of this many warp
    # groups that run the same schedule on their own rows of the tile, member m
    # offset by m * (II // pingpong) cycles; every member occupies the units.
    pingpong: int = 1


@dataclass
class Graph:
    """A loop dependence graph plus the machine capacities it is scheduled against."""

    units: dict[str, int]
    ops: list[Op]
    edges: list[Edge]
    warps: Warps | None = None
    smem_capacity: int | None = None
    streaming_depth: int = 2  # §5.3: pipeline depth of streaming variable-latency ops
    name: str | None = None

    def __post_init__(self) -> None:
        self.index = {op.name: i for i, op in enumerate(self.ops)}

    def op(self, name: str) -> Op:
        return self.ops[self.index[name]]

    def preds(self, name: str) -> list[Edge]:
        return [e for e in self.edges if e.dst == name]

    def succs(self, name: str) -> list[Edge]:
        return [e for e in self.edges if e.src == name]

    def replicas(self, name: str) -> int:
        """How many copies of the op occupy the units per iteration: the members of
        a ping-pong team for a fixed-latency op, else 1."""
        team = self.warps.pingpong if self.warps is not None else 1
        return 1 if self.op(name).variable_latency else team

    def member_offsets(self, name: str, ii: int) -> list[int]:
        """Cycle offsets of the op's copies within a schedule of this II."""
        n = self.replicas(name)
        return [m * (ii // n) for m in range(n)]

    def is_streaming(self, name: str) -> bool:
        """§5.3: a variable-latency op with no incoming dependence streams ahead
        of the pipeline on its own warp; it is scheduled with zero latency."""
        return self.op(name).variable_latency and not self.preds(name)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"units": dict(self.units), "ops": [], "edges": []}
        if self.name:
            d["name"] = self.name
        for op in self.ops:
            o: dict[str, Any] = {"name": op.name, "uses": {k: list(v) for k, v in op.uses.items()}}
            if op.latency is not None:
                o["latency"] = op.latency
            for key in ("regs", "smem", "spill_cost"):
                if getattr(op, key):
                    o[key] = getattr(op, key)
            if op.variable_latency:
                o["variable_latency"] = True
            if op.kind:
                o["kind"] = op.kind
            d["ops"].append(o)
        for e in self.edges:
            ed: dict[str, Any] = {"from": e.src, "to": e.dst, "delay": e.delay, "distance": e.distance}
            if e.blocking:
                ed["blocking"] = True
            d["edges"].append(ed)
        if self.warps is not None:
            w: dict[str, Any] = {"count": self.warps.count}
            if self.warps.reg_limit is not None:
                w["reg_limit"] = self.warps.reg_limit
            if self.warps.local_recurrences:
                w["local_recurrences"] = True
            if self.warps.pingpong > 1:
                w["pingpong"] = self.warps.pingpong
            d["warps"] = w
        if self.smem_capacity is not None:
            d["smem_capacity"] = self.smem_capacity
        d["streaming_depth"] = self.streaming_depth
        return d


# --------------------------------------------------------------------------
# Reading and validating


_TOP_KEYS = {"units", "ops", "edges", "warps", "smem_capacity", "streaming_depth", "name", "comment"}
_OP_KEYS = {"name", "uses", "latency", "regs", "smem", "variable_latency", "spill_cost", "kind", "comment"}
_EDGE_KEYS = {"from", "to", "delay", "distance", "blocking", "comment"}
_WARP_KEYS = {"count", "reg_limit", "local_recurrences", "pingpong"}


def _int(value: Any, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphError(f"{what} must be an integer, got {json.dumps(value)}")
    if value < minimum:
        raise GraphError(f"{what} must be >= {minimum}, got {value}")
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise GraphError(f"{what} must be true or false, got {json.dumps(value)}")
    return value


def _obj(value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise GraphError(f"{what} must be an object")
    return value


def _keys(d: dict, allowed: set[str], what: str) -> None:
    for k in d:
        if k not in allowed:
            raise GraphError(f"unknown key '{k}' in {what}")


def graph_from_dict(data: Any) -> Graph:
    """Validate a decoded JSON document and build a :class:`Graph`."""
    data = _obj(data, "the graph")
    _keys(data, _TOP_KEYS, "the graph")
    for required in ("units", "ops"):
        if required not in data:
            raise GraphError(f"missing required key '{required}'")
    units = {}
    for u, cap in _obj(data["units"], "'units'").items():
        units[u] = _int(cap, f"capacity of unit '{u}'", 1)
    if not isinstance(data["ops"], list) or not data["ops"]:
        raise GraphError("'ops' must be a non-empty list")
    ops: list[Op] = []
    seen: set[str] = set()
    for i, raw in enumerate(data["ops"]):
        raw = _obj(raw, f"ops[{i}]")
        _keys(raw, _OP_KEYS, f"ops[{i}]")
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise GraphError(f"ops[{i}] needs a non-empty string 'name'")
        if name in seen:
            raise GraphError(f"duplicate op name '{name}'")
        seen.add(name)
        uses: dict[str, list[int]] = {}
        for unit, row in _obj(raw.get("uses", {}), f"'uses' of op '{name}'").items():
            if unit not in units:
                raise GraphError(f"op '{name}' uses unknown unit '{unit}'")
            if not isinstance(row, list):
                raise GraphError(f"'uses' of op '{name}' on unit '{unit}' must be a list of integers")
            vals = [_int(x, f"use of unit '{unit}' by op '{name}'") for x in row]
            for c, x in enumerate(vals):
                if x > units[unit]:
                    raise GraphError(
                        f"op '{name}' uses {x} of unit '{unit}' at cycle {c} but its capacity is {units[unit]}")
            uses[unit] = vals
        op = Op(
            name=name,
            uses=uses,
            latency=None if raw.get("latency") is None else _int(raw["latency"], f"latency of op '{name}'"),
            regs=_int(raw.get("regs", 0), f"regs of op '{name}'"),
            smem=_int(raw.get("smem", 0), f"smem of op '{name}'"),
            variable_latency=_bool(raw.get("variable_latency", False), f"variable_latency of op '{name}'"),
            spill_cost=_int(raw.get("spill_cost", 0), f"spill_cost of op '{name}'"),
            kind=raw.get("kind") if isinstance(raw.get("kind"), str) else None,
        )
        ops.append(op)
    edges: list[Edge] = []
    raw_edges = data.get("edges", [])
    if not isinstance(raw_edges, list):
        raise GraphError("'edges' must be a list")
    for i, raw in enumerate(raw_edges):
        raw = _obj(raw, f"edges[{i}]")
        _keys(raw, _EDGE_KEYS, f"edges[{i}]")
        for end in ("from", "to"):
            if end not in raw:
                raise GraphError(f"edges[{i}] is missing '{end}'")
            if raw[end] not in seen:
                raise GraphError(f"edges[{i}] refers to unknown op '{raw[end]}'")
        if "delay" not in raw:
            raise GraphError(f"edges[{i}] ({raw['from']} -> {raw['to']}) is missing 'delay'")
        edges.append(Edge(
            src=raw["from"], dst=raw["to"],
            delay=_int(raw["delay"], f"delay of edges[{i}] ({raw['from']} -> {raw['to']})"),
            distance=_int(raw.get("distance", 0), f"distance of edges[{i}] ({raw['from']} -> {raw['to']})"),
            blocking=_bool(raw.get("blocking", False), f"blocking of edges[{i}]"),
        ))
    warps = None
    if "warps" in data:
        w = _obj(data["warps"], "'warps'")
        _keys(w, _WARP_KEYS, "'warps'")
        warps = Warps(
            count=_int(w.get("count", 1), "warps.count", 1),
            reg_limit=None if w.get("reg_limit") is None else _int(w["reg_limit"], "warps.reg_limit"),
            local_recurrences=_bool(w.get("local_recurrences", False), "warps.local_recurrences"),
            pingpong=_int(w.get("pingpong", 1), "warps.pingpong", 1),
        )
    graph = Graph(
        units=units, ops=ops, edges=edges, warps=warps,
        smem_capacity=None if data.get("smem_capacity") is None else _int(data["smem_capacity"], "smem_capacity"),
        streaming_depth=_int(data.get("streaming_depth", 2), "streaming_depth", 1),
        name=data.get("name") if isinstance(data.get("name"), str) else None,
    )
    _check_zero_distance_cycles(graph)
    return graph


def _check_zero_distance_cycles(graph: Graph) -> None:
    """A cycle whose distances sum to zero and delays to more than zero cannot
    be scheduled at any II (an op would have to follow itself)."""
    n = len(graph.ops)
    neg_inf = float("-inf")
    dist = [[neg_inf] * n for _ in range(n)]
    for e in graph.edges:
        if e.distance == 0:
            a, b = graph.index[e.src], graph.index[e.dst]
            dist[a][b] = max(dist[a][b], e.delay)
    for k in range(n):
        dk = dist[k]
        for i in range(n):
            dik = dist[i][k]
            if dik == neg_inf:
                continue
            di = dist[i]
            for j in range(n):
                if dk[j] != neg_inf and dik + dk[j] > di[j]:
                    di[j] = dik + dk[j]
    for i in range(n):
        if dist[i][i] > 0:
            raise GraphError(
                f"dependence cycle through op '{graph.ops[i].name}' has iteration distance 0 "
                f"and positive delay; no schedule exists")


def strip_line_comments(text: str) -> str:
    """Blank out whole lines starting with ``//`` (lit RUN/CHECK lines), keeping
    line numbers, so one ``.json`` file can be both a graph and a lit test."""
    return "\n".join("" if line.lstrip().startswith("//") else line for line in text.split("\n"))


def graph_from_json(text: str) -> Graph:
    """Parse JSON text; syntax errors become :class:`GraphError` with line:col."""
    try:
        data = json.loads(strip_line_comments(text))
    except json.JSONDecodeError as exc:
        raise GraphError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    return graph_from_dict(data)


def load_graph(path: str) -> Graph:
    """Read and validate a graph JSON file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise GraphError(f"cannot read file: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise GraphError("file is not UTF-8 text") from None
    return graph_from_json(text)
