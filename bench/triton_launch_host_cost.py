"""Host time of one launch of an imported @triton.jit kernel (`wsdialects.compile(fn)[grid](...)`),
measured on the CPU alone: torch and cuda-python are replaced by the test doubles of
test/python/launch_doubles.py (tensors that are only an address, a shape and strides; driver
calls that return at once), so the numbers are the Python work of wsdialects' own launch path
plus the doubles' trivial stand-ins; the counts say how often the calls that cost real time with
torch and the driver ran (views made, device switches, descriptors encoded).

    python bench/triton_launch_host_cost.py [--launches 3000] [--repeats 5]

Run it against another checkout with `PYTHONPATH=<that tree> python bench/triton_launch_host_cost.py`
(the doubles always come from this file's tree). Needs triton (the kernels are imported from it);
no GPU.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test" / "python"))


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "examples" / "triton" / f"{name}.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def _per_call_us(fn, launches: int, repeats: int) -> float:
    best = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(launches):
            fn()
        best.append((time.perf_counter() - t) / launches * 1e6)
    return min(best), statistics.median(best)


def _parts(k, grid, args, kwargs) -> list:
    """The Triton side's steps of one launch, each alone: this tree's (the launch cache) or an
    older tree's (specialize, the spec's key, expand)."""
    from wsdialects.triton import launch as tl_launch

    compiled = k.compiled_of(k.specialize(args, kwargs)[1])
    launcher = compiled.kernel(k.fn.__name__)
    if hasattr(k, "fast_key"):
        values, key = k.fast_key(args, kwargs)
        _, plan, strided = k._fast[key]
        expanded = tl_launch._expand(values, plan, k.fn.arg_names, k.fn.__name__, strided)
        steps = [("fast_key", lambda: k.fast_key(args, kwargs)),
                 ("expand", lambda: tl_launch._expand(values, plan, k.fn.arg_names, k.fn.__name__, strided))]
    else:
        bound, spec = k.specialize(args, kwargs)
        expanded = tl_launch.expand(bound, spec[0], k.fn.__name__)
        steps = [("specialize", lambda: k.specialize(args, kwargs)), ("key", lambda: k._key(spec)),
                 ("expand", lambda: tl_launch.expand(bound, spec[0], k.fn.__name__))]
    meta = k.specialize(args, kwargs)[0]  # every argument by name, constexprs included
    g = tl_launch._grid(grid, meta)
    return steps + [("grid (the caller's)", lambda: tl_launch._grid(grid, dict(meta))),
                    ("runtime launcher[grid](*expanded)", lambda: launcher[g](*expanded))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)

    import launch_doubles
    import pytest
    import triton
    from triton.tools.tensor_descriptor import TensorDescriptor

    import wsdialects
    import wsdialects.runtime.compiler as compiler

    mp = pytest.MonkeyPatch()
    info = {}
    torch, drv, counts, launches = launch_doubles.install(mp, lambda: info["k"])
    mp.setattr(compiler, "_ptx_cached", lambda llvm_ir: "")  # no PTX needed: the driver is a double
    print(f"wsdialects from {Path(wsdialects.__file__).parent}")

    M, N, K = 8192, 8192, 256
    f16 = torch.float16
    gd = _example("gemm_desc")
    x, y, z = torch.empty((M, K), f16), torch.empty((N, K), f16), torch.empty((M, N), f16)
    descs = (TensorDescriptor.from_tensor(x, [128, 64]), TensorDescriptor.from_tensor(y, [256, 64]),
             TensorDescriptor.from_tensor(z, [128, 256]))
    gp = _example("gemm_pointer")
    b = torch.empty((K, N), f16)
    cases = {
        "gemm_desc (3 descriptors, 3 ints, grid of META)": (
            gd.gemm_desc_kernel, lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),),
            (*descs, M, N, K), dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8)),
        "gemm_pointer (3 pointers, 9 ints, one of them 1)": (
            gp.gemm_pointer_kernel, (triton.cdiv(M, 128) * triton.cdiv(N, 256),),
            (x, b, z, M, N, K, K, 1, N, 1, N, 1), dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8)),
    }
    for name, (fn, grid, args, kwargs) in cases.items():
        k = wsdialects.compile(fn)
        compiled = k.compiled_of(k.specialize(args, kwargs)[1])
        info["k"] = next(iter(compiled.kernels.values()))
        launches.clear()
        k[grid](*args, **kwargs)  # the compile and the first launch's checks
        counts.clear()
        drv.record = False
        best, med = _per_call_us(lambda: k[grid](*args, **kwargs), a.launches, a.repeats)
        n = a.launches * a.repeats
        per = ", ".join(f"{c} {v / n:.2f}" for c, v in sorted(counts.items()))
        print(f"{name}: {best:.1f} us per launch (best of {a.repeats} x {a.launches}; median {med:.1f}); "
              f"per launch: {per}")
        print("  parts: " + ", ".join(f"{part} {_per_call_us(f, a.launches, a.repeats)[0]:.1f} us"
                                      for part, f in _parts(k, grid, args, kwargs)))
        drv.record = True
        k[grid](*args, **kwargs)
        assert launches[-1].params == launches[0].params, "a repeated launch got other kernel parameters"
    mp.undo()
    return 0


if __name__ == "__main__":
    sys.exit(main())
