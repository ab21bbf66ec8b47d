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

    ``line``/``col`` locate it when known (JSON syntax errors, and errors about a
    member of a graph read from JSON text); ``path`` names that member (keys and
    indices, e.g. ``("edges", 3, "from")``) until it is located; ``file`` is set
    when the location is in another file than the one being read (a kernel)."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None,
                 path: tuple | None = None, file: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.path = path
        self.file = file

    def where(self, default_file: str) -> str:
        """``FILE:LINE:COL`` (or ``FILE``) for a diagnostic."""
        file = self.file or default_file
        return file if self.line is None else f"{file}:{self.line}:{self.col}"


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
    tmem: int = 0  # tensor-memory bytes its result holds while live (Blackwell accumulators)
    # Issued by one thread (Blackwell's tcgen05.mma): it may also go on the issuer warp.
    single_thread: bool = False

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
    # One more warp, W_st, for ops issued by a single thread (``single_thread``: a
    # tcgen05.mma): it takes those and nothing else, and holds no registers (their
    # results live in tensor memory); they may also go on a compute warp.
    issuer: bool = False


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
    tmem_capacity: int | None = None  # tensor-memory bytes (Blackwell); live `tmem` must fit

    def __post_init__(self) -> None:
        self.index = {op.name: i for i, op in enumerate(self.ops)}
        self._preds: dict[str, list[Edge]] = {op.name: [] for op in self.ops}
        self._succs: dict[str, list[Edge]] = {op.name: [] for op in self.ops}
        for e in self.edges:
            self._preds[e.dst].append(e)
            self._succs[e.src].append(e)

    def op(self, name: str) -> Op:
        return self.ops[self.index[name]]

    @property
    def memory_limited(self) -> bool:
        """Whether some capacity constrains live values: registers, shared or tensor memory."""
        return ((self.warps is not None and self.warps.reg_limit is not None) or self.smem_capacity is not None
                or self.tmem_capacity is not None)

    def preds(self, name: str) -> list[Edge]:
        return self._preds[name]

    def succs(self, name: str) -> list[Edge]:
        return self._succs[name]

    def replicas(self, name: str) -> int:
        """How many copies of the op occupy the units per iteration: the members of
        a ping-pong team for a fixed-latency op, else 1."""
        team = self.warps.pingpong if self.warps is not None else 1
        return 1 if self.op(name).variable_latency else team

    def member_offsets(self, name: str, ii: int) -> list[int]:
        """Cycle offsets of the op's copies within a schedule of this II."""
        n = self.replicas(name)
        return [m * (ii // n) for m in range(n)]

    def is_async(self, name: str) -> bool:
        """A fixed-latency op whose results are only read through a blocking wait
        (a wgmma): once issued it runs on its unit without the warp's issue slots,
        so a wait of its warp for an earlier op does not interrupt it."""
        succs = self.succs(name)
        return not self.op(name).variable_latency and bool(succs) and all(e.blocking for e in succs)

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
            for key in ("regs", "smem", "tmem", "spill_cost"):
                if getattr(op, key):
                    o[key] = getattr(op, key)
            if op.variable_latency:
                o["variable_latency"] = True
            if op.single_thread:
                o["single_thread"] = True
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
            if self.warps.issuer:
                w["issuer"] = True
            d["warps"] = w
        if self.smem_capacity is not None:
            d["smem_capacity"] = self.smem_capacity
        if self.tmem_capacity is not None:
            d["tmem_capacity"] = self.tmem_capacity
        d["streaming_depth"] = self.streaming_depth
        return d


# --------------------------------------------------------------------------
# Reading and validating


_TOP_KEYS = {"units", "ops", "edges", "warps", "smem_capacity", "tmem_capacity", "streaming_depth", "name",
             "comment"}
_OP_KEYS = {"name", "uses", "latency", "regs", "smem", "tmem", "variable_latency", "single_thread", "spill_cost",
            "kind", "comment"}
_EDGE_KEYS = {"from", "to", "delay", "distance", "blocking", "comment"}
_WARP_KEYS = {"count", "reg_limit", "local_recurrences", "pingpong", "issuer"}

# Every integer of a graph (cycles, capacities, bytes, counts) fits 31 bits: the
# solvers multiply them (delays by stages, costs by costs in §5.2), and no
# kernel's loop comes near (a 4096x4096x4096 dot is 3.4e7 cycles on h100).
MAX_VALUE = 2**31 - 1
# Graph size: a loop body of a tile kernel has tens of nodes; the checks before
# any model is built stay fast up to these.
MAX_OPS = 1000
MAX_EDGES = 20000


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, float) or value == value else "NaN"
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: Any, what: str, path: tuple, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphError(f"{what} must be an integer, got {_show(value)}", path=path)
    if value < minimum:
        raise GraphError(f"{what} must be >= {minimum}, got {_show(value)}", path=path)
    if value > MAX_VALUE:
        raise GraphError(f"{what} must be at most {MAX_VALUE} (2^31 - 1), got {_show(value)}", path=path)
    return value


def _bool(value: Any, what: str, path: tuple) -> bool:
    if not isinstance(value, bool):
        raise GraphError(f"{what} must be true or false, got {_show(value)}", path=path)
    return value


def _obj(value: Any, what: str, path: tuple) -> dict:
    if not isinstance(value, dict):
        raise GraphError(f"{what} must be an object", path=path)
    return value


def _name(value: Any, what: str, path: tuple) -> str:
    if not isinstance(value, str) or not value:
        raise GraphError(f"{what} must be a non-empty string, got {_show(value)}", path=path)
    return value


def _keys(d: dict, allowed: set[str], what: str, path: tuple) -> None:
    for k in d:
        if k not in allowed:
            raise GraphError(f"unknown key '{k}' in {what}", path=(*path, k))


def _op(raw: Any, i: int, units: dict[str, int], seen: set[str]) -> Op:
    at = ("ops", i)
    raw = _obj(raw, f"ops[{i}]", at)
    _keys(raw, _OP_KEYS, f"ops[{i}]", at)
    if "name" not in raw:
        raise GraphError(f"ops[{i}] needs a non-empty string 'name'", path=at)
    name = _name(raw["name"], f"the name of ops[{i}]", (*at, "name"))
    if name in seen:
        raise GraphError(f"duplicate op name '{name}'", path=(*at, "name"))
    uses: dict[str, list[int]] = {}
    for unit, row in _obj(raw.get("uses", {}), f"'uses' of op '{name}'", (*at, "uses")).items():
        where = (*at, "uses", unit)
        if unit not in units:
            raise GraphError(f"op '{name}' uses unknown unit '{unit}'", path=where)
        if not isinstance(row, list):
            raise GraphError(f"'uses' of op '{name}' on unit '{unit}' must be a list of integers", path=where)
        vals = [_int(x, f"use of unit '{unit}' by op '{name}'", (*where, c)) for c, x in enumerate(row)]
        for c, x in enumerate(vals):
            if x > units[unit]:
                raise GraphError(f"op '{name}' uses {x} of unit '{unit}' at cycle {c} but its capacity is "
                                 f"{units[unit]}", path=(*where, c))
        uses[unit] = vals

    def number(key: str, what: str) -> int:
        return _int(raw.get(key, 0), f"{what} of op '{name}'", (*at, key))

    return Op(
        name=name, uses=uses,
        latency=None if raw.get("latency") is None else number("latency", "latency"),
        regs=number("regs", "regs"), smem=number("smem", "smem"), tmem=number("tmem", "tmem"),
        variable_latency=_bool(raw.get("variable_latency", False), f"variable_latency of op '{name}'",
                               (*at, "variable_latency")),
        single_thread=_bool(raw.get("single_thread", False), f"single_thread of op '{name}'",
                            (*at, "single_thread")),
        spill_cost=number("spill_cost", "spill_cost"),
        kind=raw.get("kind") if isinstance(raw.get("kind"), str) else None,
    )


def _edge(raw: Any, i: int, ops: set[str]) -> Edge:
    at = ("edges", i)
    raw = _obj(raw, f"edges[{i}]", at)
    _keys(raw, _EDGE_KEYS, f"edges[{i}]", at)
    ends = []
    for end in ("from", "to"):
        if end not in raw:
            raise GraphError(f"edges[{i}] is missing '{end}'", path=at)
        if not isinstance(raw[end], str):
            raise GraphError(f"'{end}' of edges[{i}] must be an op name (a string), got {_show(raw[end])}",
                             path=(*at, end))
        if raw[end] not in ops:
            raise GraphError(f"edges[{i}] refers to unknown op '{raw[end]}'", path=(*at, end))
        ends.append(raw[end])
    what = f"edges[{i}] ({ends[0]} -> {ends[1]})"
    if "delay" not in raw:
        raise GraphError(f"{what} is missing 'delay'", path=at)
    return Edge(
        src=ends[0], dst=ends[1],
        delay=_int(raw["delay"], f"delay of {what}", (*at, "delay")),
        distance=_int(raw.get("distance", 0), f"distance of {what}", (*at, "distance")),
        blocking=_bool(raw.get("blocking", False), f"blocking of edges[{i}]", (*at, "blocking")),
    )


def graph_from_dict(data: Any) -> Graph:
    """Validate a decoded JSON document and build a :class:`Graph`.  Errors
    carry the ``path`` of the offending member."""
    data = _obj(data, "the graph", ())
    _keys(data, _TOP_KEYS, "the graph", ())
    for required in ("units", "ops"):
        if required not in data:
            raise GraphError(f"missing required key '{required}'", path=())
    units = {}
    for u, cap in _obj(data["units"], "'units'", ("units",)).items():
        units[u] = _int(cap, f"capacity of unit '{u}'", ("units", u), 1)
    if not isinstance(data["ops"], list) or not data["ops"]:
        raise GraphError("'ops' must be a non-empty list", path=("ops",))
    if len(data["ops"]) > MAX_OPS:
        raise GraphError(f"the graph has {len(data['ops'])} ops; the scheduler takes at most {MAX_OPS}",
                         path=("ops", MAX_OPS))
    ops: list[Op] = []
    seen: set[str] = set()
    for i, raw in enumerate(data["ops"]):
        ops.append(_op(raw, i, units, seen))
        seen.add(ops[-1].name)
    raw_edges = data.get("edges", [])
    if not isinstance(raw_edges, list):
        raise GraphError("'edges' must be a list", path=("edges",))
    if len(raw_edges) > MAX_EDGES:
        raise GraphError(f"the graph has {len(raw_edges)} edges; the scheduler takes at most {MAX_EDGES}",
                         path=("edges", MAX_EDGES))
    edges = [_edge(raw, i, seen) for i, raw in enumerate(raw_edges)]
    warps = None
    if "warps" in data:
        w = _obj(data["warps"], "'warps'", ("warps",))
        _keys(w, _WARP_KEYS, "'warps'", ("warps",))
        warps = Warps(
            count=_int(w.get("count", 1), "warps.count", ("warps", "count"), 1),
            reg_limit=None if w.get("reg_limit") is None else _int(w["reg_limit"], "warps.reg_limit",
                                                                   ("warps", "reg_limit")),
            local_recurrences=_bool(w.get("local_recurrences", False), "warps.local_recurrences",
                                    ("warps", "local_recurrences")),
            pingpong=_int(w.get("pingpong", 1), "warps.pingpong", ("warps", "pingpong"), 1),
            issuer=_bool(w.get("issuer", False), "warps.issuer", ("warps", "issuer")),
        )
    graph = Graph(
        units=units, ops=ops, edges=edges, warps=warps,
        smem_capacity=None if data.get("smem_capacity") is None else _int(
            data["smem_capacity"], "smem_capacity", ("smem_capacity",)),
        streaming_depth=_int(data.get("streaming_depth", 2), "streaming_depth", ("streaming_depth",), 1),
        name=data.get("name") if isinstance(data.get("name"), str) else None,
        tmem_capacity=None if data.get("tmem_capacity") is None else _int(
            data["tmem_capacity"], "tmem_capacity", ("tmem_capacity",)),
    )
    check_zero_distance_cycles(graph)
    return graph


def components(graph: Graph, edges: list[Edge]) -> list[int]:
    """The strongly connected component of each op (by index) in the subgraph
    of ``edges``, by Tarjan's algorithm without recursion: O(ops + edges)."""
    n = len(graph.ops)
    adj: list[list[int]] = [[] for _ in range(n)]
    for e in edges:
        adj[graph.index[e.src]].append(graph.index[e.dst])
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comp = [0] * n
    ncomp = 0
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if i < len(adj[v]):
                work.append((v, i + 1))
                w = adj[v][i]
                if index[w] < 0:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comp


def check_zero_distance_cycles(graph: Graph) -> None:
    """A cycle whose distances sum to zero and delays to more than zero cannot
    be scheduled at any II (an op would have to follow itself).  Delays are
    never negative, so such a cycle exists exactly when an edge of positive
    delay and distance 0 joins two ops of one strongly connected component of
    the distance-0 edges (or is a self-loop): linear time."""
    comp = components(graph, [e for e in graph.edges if e.distance == 0])
    for i, e in enumerate(graph.edges):
        if e.distance == 0 and e.delay > 0 and comp[graph.index[e.src]] == comp[graph.index[e.dst]]:
            raise GraphError(
                f"dependence cycle through op '{e.src}' has iteration distance 0 and positive delay "
                f"(edge {e.src} -> {e.dst}); no schedule exists", path=("edges", i))


def strip_line_comments(text: str) -> str:
    """Blank out whole lines starting with ``//`` (lit RUN/CHECK lines), keeping
    line numbers, so one ``.json`` file can be both a graph and a lit test."""
    return "\n".join("" if line.lstrip().startswith("//") else line for line in text.split("\n"))


def graph_from_json(text: str) -> Graph:
    """Parse JSON text; syntax errors become :class:`GraphError` with line:col,
    and so do errors about a member of the graph (located at that member)."""
    from .jsonpos import locate

    text = strip_line_comments(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GraphError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise GraphError("invalid JSON: nested too deeply", 1, 1) from None
    try:
        return graph_from_dict(data)
    except GraphError as exc:
        if exc.path is not None and exc.line is None:
            exc.line, exc.col = locate(text, exc.path) or (None, None)
        raise


def load_graph(path: str) -> Graph:
    """Read and validate a graph JSON file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise GraphError(f"cannot read file: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise GraphError(f"file is not UTF-8 text (byte {exc.start})") from None
    return graph_from_json(text)
