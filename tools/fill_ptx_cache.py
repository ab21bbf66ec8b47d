"""Fill WSDIALECTS_PTX_CACHE with the PTX of every kernel a GPU run compiles, on a machine
whose llvmlite has the sm_90a NVPTX back end (the GPU machine's may not).

The compiles are read from the sources: each `wsdialects.compile(...)` call in test/gpu/*.py
(with the values of the `pytest.mark.parametrize` names it uses), plus the bench variants
given on the command line (GEMM variants first; `--attention=V;V` the variants of
bench/attention.py, for every kernel it runs). Usage:
    WSDIALECTS_PTX_CACHE=.ptxcache python tools/fill_ptx_cache.py ['ws-hopper;ws-hopper{persistent=true}'] \
        [--attention='ws-hopper;ws-hopper{cooperative=2}'] [--attention-kernel-dir=bench/kernels/bn160 ...]
"""

from __future__ import annotations

import ast
import itertools
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402

NAMES = {"ROOT": ROOT, "KERN": ROOT / "test" / "Inputs" / "kernels"}


def _eval(node, env):
    return eval(compile(ast.Expression(node), "<gpu test>", "eval"), {"Path": Path}, env)  # noqa: S307


def compiles_in(path: Path):
    tree = ast.parse(path.read_text())
    names = dict(NAMES)
    marks = {}  # NAME = pytest.mark.parametrize(...) at module level, used as @NAME
    for st in tree.body:  # module constants the parametrizations name (VARIANTS = [...])
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            if isinstance(st.value, ast.Call) and ast.unparse(st.value.func).endswith("parametrize"):
                marks[st.targets[0].id] = st.value
                continue
            try:
                names[st.targets[0].id] = _eval(st.value, names)
            except Exception:  # noqa: BLE001 - a value only known at run time
                pass
    top = ast.Module([st for st in tree.body if not isinstance(st, ast.FunctionDef)], [])  # a script's calls
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] + [top]:
        params: list[tuple[list[str], list]] = []
        for d in getattr(fn, "decorator_list", []):
            d = marks.get(d.id, d) if isinstance(d, ast.Name) else d
            if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("parametrize"):
                pnames = [s.strip() for s in _eval(d.args[0], names).split(",")]
                params.append((pnames, _eval(d.args[1], names)))
        combos = itertools.product(*[vals for _, vals in params]) if params else [()]
        calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and ast.unparse(c.func) == "wsdialects.compile"]
        for combo in combos:
            env = dict(names)
            for (pnames, _), val in zip(params, combo):
                vals = val if len(pnames) > 1 else (val,)
                env.update(zip(pnames, vals))
            for c in calls:
                try:
                    args = [_eval(a, env) for a in c.args]
                    kw = {}
                    for k in c.keywords:
                        if k.arg is None:
                            kw.update(_eval(k.value, env))
                        else:
                            kw[k.arg] = _eval(k.value, env)
                except Exception:  # noqa: BLE001 - a value only known at run time
                    continue
                yield args, kw


def main() -> None:
    if not os.environ.get("WSDIALECTS_PTX_CACHE"):
        sys.exit("set WSDIALECTS_PTX_CACHE")
    jobs = []
    for f in sorted((ROOT / "test" / "gpu").glob("*.py")):
        jobs += list(compiles_in(f))
    argv = [a for a in sys.argv[1:] if not a.startswith("--attention")]
    attn = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--attention=")]
    # --attention-kernel-dir=DIR (repeatable): also the bench's kernels of DIR (attention.py --kernel-dir)
    kdirs = [Path(a.split("=", 1)[1]).resolve() for a in sys.argv[1:] if a.startswith("--attention-kernel-dir=")]
    seen = set()
    for args, kw in jobs:
        key = repr((args, sorted(kw.items())))
        if key in seen:
            continue
        seen.add(key)
        wsdialects.compile(*args, **kw)
        print("compiled", Path(str(args[0])).name, kw)
    sys.path.insert(0, str(ROOT / "bench"))
    from gemm_variants import compile_variant  # the bench's own compile of a GEMM variant

    for v in (argv[0].split(";") if argv else []):
        if not v:
            continue  # an empty list of GEMM variants (only --attention=...)
        compile_variant(v)
        print("compiled gemm", v)
    if attn:
        from attention import compile_all

        for kdir in [None] + kdirs:
            extra = {} if kdir is None else {"kdir": kdir}
            compile_all([v for v in attn[0].split(";") if v], [128, 64], ["fp16", "bf16"], [False, True], **extra)
            print("compiled the attention bench kernels", "" if kdir is None else f"of {kdir}")


if __name__ == "__main__":
    main()
