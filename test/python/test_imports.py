"""No import circle inside wsdialects/ (issue 37 item 5).

The graph: one node per module of the package; an edge A -> B for every `import` or
`from ... import` statement of A that names B (`from wsdialects.x import name` names
`wsdialects.x.name` where that is a module, else `wsdialects.x`), read with `ast` from the
source, whether the statement is at module level or inside a function or class. Statements
under `if TYPE_CHECKING:` are left out (they never run). A package's parent is not an edge by
itself: Python initializes `wsdialects.tile` before `wsdialects.tile.compute` whatever
either imports.

Two checks:
- the module-level imports (what runs when a module is imported) form a DAG;
- all imports, the lazy ones inside functions included, form a DAG too: a lazy import is
  still a dependency (it only moves when the import runs), so a circle through one is a
  circle of the design, which is fixed by moving the shared piece to the module it belongs
  to, not by making an import lazy. `KNOWN` names the circles not yet fixed, each with why;
  the test fails when another circle appears and when a known one is gone (remove it then).

A failure names each circle as `a -> b -> c -> a`, with the file and line of each import.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "wsdialects"

# Circles through lazy imports not yet broken: the modules they may run through (a circle among
# some of them is known), and why. None today.
KNOWN: dict[frozenset[str], str] = {}


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        mods[".".join(parts)] = (path, is_pkg)
    return mods


def _is_type_checking(node: ast.AST) -> bool:
    t = node.test if isinstance(node, ast.If) else None
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def import_graph(lazy: bool) -> dict[str, dict[str, int]]:
    """module -> {imported module: line of the first such import}; `lazy`: imports inside
    functions too (else module level, class bodies and module-level if/try blocks only)."""
    mods = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {}
    for mod, (path, is_pkg) in mods.items():
        edges: dict[str, int] = {}

        def add(target: str | None, line: int) -> None:
            if target and target != mod:
                edges.setdefault(target, line)

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if _is_type_checking(child):
                    for c in child.orelse:
                        visit_stmt(c)
                    continue
                visit_stmt(child)

        def visit_stmt(child: ast.AST) -> None:
            if not lazy and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return
            if isinstance(child, ast.Import):
                for a in child.names:
                    if a.name == "wsdialects" or a.name.startswith("wsdialects."):
                        add(resolve(a.name), child.lineno)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                if source == "wsdialects" or source.startswith("wsdialects."):
                    for a in child.names:
                        full = f"{source}.{a.name}"
                        add(full if full in mods else resolve(source), child.lineno)
            visit(child)

        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        graph[mod] = edges
    return graph


def components(graph: dict[str, dict[str, int]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iteratively): each is the set of modules of one or more circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(comp)
    return comps


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle (a list of modules, the first repeated at the end) per strongly connected
    component of more than one module."""
    out = []
    for comp in components(graph):  # a shortest circle through the component's first module (breadth first)
        start = min(comp)
        prev = {start: None}
        queue = [start]
        found = None
        while queue and found is None:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    found = v
                    break
                if w in comp and w not in prev:
                    prev[w] = v
                    queue.append(w)
        path = [start]
        v = found
        while v is not None and v != start:
            path.insert(1, v)
            v = prev[v]
        out.append(path + [start])
    return out


def _describe(circle: list[str], graph: dict[str, dict[str, int]]) -> str:
    mods = _modules()
    steps = [f"{a} ({mods[a][0].relative_to(PACKAGE.parent)}:{graph[a][b]})" for a, b in zip(circle, circle[1:])]
    return " -> ".join(steps) + f" -> {circle[-1]}"


def test_module_level_imports_form_a_dag():
    graph = import_graph(lazy=False)
    found = cycles(graph)
    assert not found, "import circles at module level:\n" + "\n".join(_describe(c, graph) for c in found)


def test_all_imports_form_a_dag_but_the_known_circles():
    graph = import_graph(lazy=True)
    found = cycles(graph)
    comps = [frozenset(c) for c in components(graph)]
    new = [c for c, comp in zip(found, comps) if not any(comp <= k for k in KNOWN)]
    assert not new, "import circles (lazy imports included):\n" + "\n".join(_describe(c, graph) for c in new)
    gone = [sorted(k) for k in KNOWN if not any(comp <= k for comp in comps)]
    assert not gone, f"no longer circles (remove them from KNOWN): {gone}"


def test_the_graph_sees_lazy_and_module_level_imports():
    """The checks above can fail: known edges of both kinds are in the graph, and a circle
    is found and named."""
    eager, lazy = import_graph(lazy=False), import_graph(lazy=True)
    assert "wsdialects.reporting" in eager["wsdialects.diagnostics"]  # module level
    assert "wsdialects.context" not in eager["wsdialects.diagnostics"]  # inside parse_text
    assert "wsdialects.context" in lazy["wsdialects.diagnostics"]
    assert "wsdialects.tile" in eager["wsdialects.attributes"]
    toy = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4}, "d": {}}
    assert cycles(toy) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_the_compile_dispatcher_is_imported_by_the_package_only():
    """wsdialects.runtime (`compile` / `autotune`: MLIR, configs= or a @triton.jit function)
    imports the tuner and the Triton launcher; they compile with wsdialects.runtime.compiler,
    so no module but the package's lazy names imports the dispatcher back."""
    graph = import_graph(lazy=True)
    importers = sorted(m for m, deps in graph.items() if "wsdialects.runtime" in deps)
    assert importers == ["wsdialects"], importers
    for m in ("wsdialects.runtime.tuner", "wsdialects.triton.launch"):
        assert "wsdialects.runtime.compiler" in graph[m]
    assert "wsdialects.tools.ws_opt" not in graph["wsdialects.runtime.compiler"]  # not the console script
