"""The package's shape, checked: no import cycle among the lowering modules nor among the
dialect definitions (imports inside functions count: a lazy import is still a dependency),
dialects split by op family, and no module above ~600 lines."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "wsdialects"
MAX_LINES = 600
# modules allowed above MAX_LINES (path under wsdialects/ -> why); none today
OVER_LIMIT: dict[str, str] = {}
# the modules defining the dialects (and the context registering them)
DIALECT_MODULES = ["wsdialects.tile", "wsdialects.arith", "wsdialects.aref.dialect", "wsdialects.warp_group",
                   "wsdialects.mma", "wsdialects.nvgpu", "wsdialects.nvvm", "wsdialects.layout",
                   "wsdialects.context"]


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every wsdialects module `path` imports, at any depth of its code."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("wsdialects"):
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("wsdialects")}
    return out


def graph(root: Path) -> dict[str, set[str]]:
    mods = {module_name(p): p for p in root.rglob("*.py")}
    edges = {}
    for name, p in mods.items():
        deps = set()
        for imp in imports_of(p):
            # `from a.b import c` depends on a.b (and a.b.c when c is a module); a package
            # import runs its __init__
            while imp and imp not in mods:
                imp = imp.rpartition(".")[0]
            if imp and imp != name:
                deps.add(imp)
                # importing a.b.c runs the __init__ of package a.b first (unless the importer
                # lives in a.b, which is then already loading)
                pkg = imp.rpartition(".")[0]
                while pkg:
                    if pkg in mods and pkg != name and not name.startswith(pkg + "."):
                        deps.add(pkg)
                    pkg = pkg.rpartition(".")[0]
        edges[name] = deps
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (c := visit(m)):
                return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state and (c := visit(n)):
            return c
    return None


def test_no_import_cycle_in_the_lowering():
    edges = graph(PKG / "lower")
    lower = {n: {m for m in d if m.startswith("wsdialects.lower")} for n, d in edges.items()}
    assert find_cycle(lower) is None, " -> ".join(find_cycle(lower))


def test_the_cycle_check_can_fail():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    # a cycle among the dialects is seen: were tile's types to import the nvgpu package
    edges = graph(PKG)
    edges["wsdialects.tile.types"].add("wsdialects.nvgpu")
    assert find_cycle(reachable(edges, DIALECT_MODULES)) is not None
    # but a package importing its own submodules is no loop
    assert "wsdialects.tile" not in graph(PKG)["wsdialects.tile"]


def test_emitter_is_split_by_concern():
    names = {p.name for p in (PKG / "lower" / "llvm").glob("*.py")}
    assert {"frame.py", "elementwise.py", "memory.py", "wgmma.py", "control.py", "types.py"} <= names
    # the old entry point only re-exports
    assert len((PKG / "lower" / "to_llvm.py").read_text().splitlines()) < 60


def reachable(edges: dict[str, set[str]], roots) -> dict[str, set[str]]:
    """The part of `edges` that importing `roots` loads."""
    seen, todo = set(), list(roots)
    while todo:
        if (n := todo.pop()) not in seen:
            seen.add(n)
            todo += edges.get(n, ())
    return {n: edges.get(n, set()) & seen for n in seen}


def test_no_import_cycle_in_the_dialects():
    edges = reachable(graph(PKG), DIALECT_MODULES)
    assert set(DIALECT_MODULES) <= set(edges)
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges))


def test_dialects_are_split_by_op_family():
    import wsdialects.nvgpu
    import wsdialects.tile

    families = {"tile": {"types.py", "common.py", "program.py", "shape.py", "memory.py", "compute.py", "descriptor.py",
                         "descriptor_array.py", "atomic.py", "regroup.py"},
                "nvgpu": {"types.py", "common.py", "barriers.py", "memory.py", "wgmma.py", "dispatch.py"}}
    for name, modules in families.items():
        assert not (PKG / f"{name}.py").exists()
        assert modules | {"__init__.py"} == {p.name for p in (PKG / name).glob("*.py")}
    # the package re-exports every op and type: `from wsdialects.tile import X` keeps working
    for pkg, dialect in ((wsdialects.tile, wsdialects.tile.Tile), (wsdialects.nvgpu, wsdialects.nvgpu.Nvgpu)):
        for d in (*dialect.operations, *dialect.attributes):
            assert getattr(pkg, d.__name__) is d and d.__name__ in pkg.__all__
            assert d.__module__.startswith(pkg.__name__ + ".")


def test_no_module_above_the_size_limit():
    sizes = {p.relative_to(PKG).as_posix(): len(p.read_text().splitlines()) for p in PKG.rglob("*.py")}
    big = {m: n for m, n in sizes.items() if n > MAX_LINES and m not in OVER_LIMIT}
    assert not big, f"modules over {MAX_LINES} lines: {big}"
    stale = [m for m in OVER_LIMIT if sizes.get(m, 0) <= MAX_LINES]
    assert not stale, f"no longer over {MAX_LINES} lines, drop from OVER_LIMIT: {stale}"


def test_the_graph_sees_package_inits():
    # lower_layouts imports llvm.types, which runs wsdialects/lower/llvm/__init__.py: were
    # that __init__ to import the emitter (which imports lower_layouts), it is a loop
    edges = graph(PKG / "lower")
    edges["wsdialects.lower.llvm"].add("wsdialects.lower.llvm.kernel")
    lower = {n: {m for m in d if m.startswith("wsdialects.lower")} for n, d in edges.items()}
    assert find_cycle(lower) is not None
