"""wsdialects as a library: importing it and using its public API (parse, the passes through
xDSL's PassPipeline, the interpreter, compile to PTX) leaves every xDSL class and module as
xDSL ships it; `wsdialects.irfast.install()` (the opt-in of our console scripts and test
suite) changes no result, and `irfast.uninstall()` puts xDSL's routines back.

Each check runs in a fresh Python process (this one has the fast routines installed by
test/conftest.py), with WSDIALECTS_XDSL_FAST unset."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernel_cache import compile_kernel

REPO = Path(__file__).resolve().parents[2]
GEMM = REPO / "examples" / "kernels" / "gemm.mlir"

# Run as `python -c PROBE MODE KERNEL`: snapshots every xDSL module's globals and every xDSL
# class's attributes, uses wsdialects (MODE "fast": with irfast.install() first), prints the
# passes' output, then the xDSL attributes that are not the snapshot's objects (in "fast" mode
# twice: while the routines are installed, and after irfast.uninstall()).
PROBE = r'''
import importlib, sys
for m in ("xdsl.ir", "xdsl.irdl", "xdsl.irdl.operations", "xdsl.printer", "xdsl.parser", "xdsl.traits",
          "xdsl.context", "xdsl.passes", "xdsl.pattern_rewriter", "xdsl.rewriter", "xdsl.builder",
          "xdsl.utils.base_printer", "xdsl.utils.mlir_lexer", "xdsl.dialects.builtin", "xdsl.dialects.func",
          "xdsl.dialects.scf", "xdsl.dialects.arith", "xdsl.dialects.math"):
    importlib.import_module(m)
MISSING = object()
snapshot = {}  # (owner, name) -> the object it held
for mod in [m for n, m in list(sys.modules.items()) if n == "xdsl" or n.startswith("xdsl.")]:
    for name, value in list(vars(mod).items()):
        snapshot[(mod, name)] = value
        if isinstance(value, type) and value.__module__ == mod.__name__:
            for attr, v in list(vars(value).items()):
                snapshot[(value, attr)] = v
classes = {owner: set(vars(owner)) for owner, _ in snapshot if isinstance(owner, type)}

mode, kernel = sys.argv[1], sys.argv[2]
import numpy as np
import wsdialects
from wsdialects import irfast
from xdsl.context import Context
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

if mode == "fast":
    assert irfast.install() and irfast.installed()
    from xdsl.ir import Operation
    assert Operation.clone is irfast.fast_clone

module = wsdialects.parse_file(kernel)
ctx = Context()
wsdialects.register_dialects(ctx)
for spec in ("ws-specialize", "ws-hopper"):
    m = module.clone()
    PassPipeline.parse_spec(wsdialects.available_passes(), spec).apply(ctx, m)
    m.verify()
    print(f"// ---- {spec}")
    Printer(stream=sys.stdout).print_op(m)
    print()

# the interpreter: one 128 x 256 tile of C = A @ B^T
rng = np.random.default_rng(0)
a = rng.standard_normal((128, 64)).astype(np.float16)
b = rng.standard_normal((256, 64)).astype(np.float16)
c = np.zeros((128, 256), np.float16)
wsdialects.interpret(module, "matmul", 1, [a, b, c.reshape(-1), 128, 256, 64, 256])
want = (a.astype(np.float32) @ b.astype(np.float32).T).astype(np.float16)
assert np.allclose(c.astype(np.float32), want.astype(np.float32), rtol=1e-2, atol=1e-2)

compiled = wsdialects.compile(kernel, pipeline="ws-hopper")
print("// ---- ptx", len(compiled.ptx), ".entry matmul" in compiled.ptx)

def changed():
    out = sorted(f"{getattr(o, '__name__', o)}.{n}" for (o, n), v in snapshot.items()
                 if vars(o).get(n, MISSING) is not v)
    # (`__slotnames__`: copyreg's cache, written into any class that copy.copy copies)
    return out + sorted(f"{o.__name__}.{n} (added)" for o, names in classes.items()
                        for n in set(vars(o)) - names - {"__slotnames__"})

if mode == "fast":
    print("// ---- xDSL changed while installed:", changed())
    irfast.uninstall()
    assert not irfast.installed()
print("// ---- xDSL changed:", changed())
'''


def _probe(mode: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "WSDIALECTS_XDSL_FAST"}
    r = subprocess.run([sys.executable, "-c", PROBE, mode, str(GEMM)], capture_output=True, text=True,
                       timeout=300, cwd=REPO, env=env)
    assert r.returncode == 0, r.stderr[-4000:]
    return r.stdout.split("// ---- ")


@pytest.fixture(scope="module")
def probes() -> dict[str, list[str]]:
    return {mode: _probe(mode) for mode in ("plain", "fast")}


def test_import_and_public_api_leave_xdsl_untouched(probes):
    assert probes["plain"][-1].strip() == "xDSL changed: []"


def test_uninstall_puts_xdsls_routines_back(probes):
    assert probes["fast"][-1].strip() == "xDSL changed: []"


def _output(sections: list[str]) -> list[str]:
    """The probe's output less its reports of what changed in xDSL."""
    return [s for s in sections if not s.startswith("xDSL changed")]


def test_the_opt_in_changes_no_output(probes):
    plain, fast = _output(probes["plain"]), _output(probes["fast"])
    assert [p.split("\n", 1)[0].split(" ")[0] for p in plain[1:]] == ["ws-specialize", "ws-hopper", "ptx"]
    assert plain[3].split()[2] == "True"  # the PTX has the kernel's entry
    assert "warp_group" in plain[1] and "nvgpu" in plain[2]  # the passes did their work
    assert plain == fast


def test_the_probe_sees_a_patch(probes):
    """The probe's snapshot catches a method replaced on an xDSL class (so the tests above
    can fail): here irfast.install() before uninstall()."""
    (installed,) = [s for s in probes["fast"] if s.startswith("xDSL changed while installed:")]
    assert "Operation.clone" in installed and "OpDef.verify" in installed and "irdl_build_arg_list" in installed


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "WSDIALECTS_XDSL_FAST"}


def test_the_embedding_guide_runs():
    """docs/embedding.md's host script (its code blocks, in order, as one script; the guide
    runner's extraction) runs in a fresh process: registers our dialects and passes in its own
    Context and pipeline, runs ws-hopper, and finds xDSL's routines untouched."""
    from wsdialects.docgen.guide import code_blocks

    blocks = code_blocks((REPO / "docs" / "embedding.md").read_text())
    assert len(blocks) >= 4 and all(b.lang == "python" for b in blocks)  # a block of another kind would not run
    script = "\n".join(b.text for b in blocks)
    assert "xdsl_routines" in script.split("import wsdialects")[0]  # captured before the import
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=REPO,
                       env=_clean_env())
    assert r.returncode == 0, r.stderr[-4000:]


def _ops(text: str) -> list[str]:
    return re.findall(r"^\s*(?:%[^=]*= )?\"?([a-z_]+\.[a-z_.]+)", text, re.M)


def test_stock_xdsl_opt_runs_our_passes():
    """The `xdsl.universe` entry point (pyproject.toml): the stock xdsl-opt parses a tile
    kernel and runs ws-specialize, giving the ops ws-opt gives (`ws-opt -p ws-specialize`'s
    module, as test/kernel_cache.py makes it in this process)."""
    from importlib.metadata import entry_points

    xdsl_opt = shutil.which("xdsl-opt", path=str(Path(sys.executable).parent)) or shutil.which("xdsl-opt")
    if xdsl_opt is None:
        pytest.skip("xdsl-opt is not installed")
    if "wsdialects" not in {e.name for e in entry_points(group="xdsl.universe")}:
        pytest.skip("wsdialects was installed before its xdsl.universe entry point: pip install -e .")
    kernel = str(REPO / "examples" / "kernels" / "attention.mlir")
    r = subprocess.run([xdsl_opt, "-p", "ws-specialize", kernel], capture_output=True, text=True, timeout=300,
                       cwd=REPO, env=_clean_env())
    assert r.returncode == 0, r.stderr[-4000:]
    ours = str(compile_kernel(kernel, "ws-specialize", shared=True))
    assert "warp_group.partition" in _ops(r.stdout)
    assert _ops(r.stdout) == _ops(ours)
