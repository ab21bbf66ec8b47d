"""The package's shape, checked: no import cycle among the lowering modules (imports inside
functions count: a lazy import is still a dependency), and no module above ~600 lines."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "wsdialects"
MAX_LINES = 600
SPLIT_PENDING = {"tile.py", "nvgpu.py"}  # dialect files over the limit: their split is pending


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
                    if pkg in mods and not name.startswith(pkg + "."):
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


def test_emitter_is_split_by_concern():
    names = {p.name for p in (PKG / "lower" / "llvm").glob("*.py")}
    assert {"frame.py", "elementwise.py", "memory.py", "wgmma.py", "control.py", "types.py"} <= names
    # the old entry point only re-exports
    assert len((PKG / "lower" / "to_llvm.py").read_text().splitlines()) < 60


def test_no_module_above_the_size_limit():
    big = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py")
           if (n := len(p.read_text().splitlines())) > MAX_LINES and p.name not in SPLIT_PENDING}
    assert not big, f"modules over {MAX_LINES} lines: {big}"


def test_the_graph_sees_package_inits():
    # lower_layouts imports llvm.types, which runs wsdialects/lower/llvm/__init__.py: were
    # that __init__ to import the emitter (which imports lower_layouts), it is a loop
    edges = graph(PKG / "lower")
    edges["wsdialects.lower.llvm"].add("wsdialects.lower.llvm.kernel")
    lower = {n: {m for m in d if m.startswith("wsdialects.lower")} for n, d in edges.items()}
    assert find_cycle(lower) is not None
