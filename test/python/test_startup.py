"""`ws-opt` and `ws-schedule` start without importing what only some features need
(lit starts them hundreds of times): numpy (the interpreter, the passes), the solvers,
llvmlite (-t llvm/ptx), CUDA and torch (the GPU runtime)."""

import subprocess
import sys

HEAVY = ("numpy", "ml_dtypes", "ortools", "z3", "llvmlite", "cuda", "torch", "pandas")


def test_the_tools_import_nothing_heavy():
    code = ("import sys, wsdialects, wsdialects.tools.ws_opt, wsdialects.tools.ws_schedule\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", r.stdout


def test_the_lazy_names_are_there():
    import wsdialects
    from wsdialects.interpreter import Deadlock, InterpretError, interpret

    assert (wsdialects.Deadlock, wsdialects.InterpretError, wsdialects.interpret) == (Deadlock, InterpretError, interpret)
    assert callable(wsdialects.compile)
    from wsdialects.runtime import autotune
    from wsdialects.runtime.tuner import Config

    assert (wsdialects.autotune, wsdialects.Config) == (autotune, Config)
    from wsdialects.context import dialects, register_dialects
    from wsdialects.passes import available_passes

    assert (wsdialects.dialects, wsdialects.register_dialects, wsdialects.available_passes) == (
        dialects, register_dialects, available_passes)
    assert set(wsdialects.__all__) <= set(dir(wsdialects)) | {"Deadlock", "InterpretError", "interpret", "compile",
                                                              "autotune", "Config", "dialects", "register_dialects",
                                                              "available_passes"}
