"""wsdialects: automatic warp specialization for Hopper GPUs, on xDSL.

    import wsdialects
    module = wsdialects.parse_file("gemm.mlir")
    wsdialects.interpret(module, "matmul", grid, args)
    k = wsdialects.compile("gemm.mlir", pipeline="ws-hopper", depth=3)   # .ptx, k[grid](*tensors)
    k = wsdialects.autotune("gemm.mlir", configs=[wsdialects.Config(depth=3), ...], key=["M", "N", "K"])

In a host compiler built on xDSL (docs/embedding.md): `wsdialects.register_dialects(ctx)` loads
our dialects into its Context, `wsdialects.available_passes()` gives our passes to xDSL's
`PassPipeline.parse_spec`. Importing wsdialects changes nothing in xDSL; the faster xDSL
routines of `wsdialects.irfast` are an explicit opt-in (`irfast.install()`) that only our
console scripts and test suite take.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from wsdialects.diagnostics import WsError

__all__ = ["Config", "Deadlock", "InterpretError", "WsError", "autotune", "available_passes", "compile", "dialects",
           "interpret", "parse", "parse_file", "register_dialects"]


def parse(text: str, filename: str = "<string>") -> ModuleOp:
    """Parse and verify MLIR text, or import Triton's TTIR text into the tile dialect; raises
    WsError (file:line:col) on bad input."""
    from wsdialects.triton import parse_source

    return parse_source(text, filename)


def parse_file(path: str) -> ModuleOp:
    """Parse and verify an .mlir file, or import a file of Triton's TTIR (.ttir, or .mlir holding
    `tt.` ops) into the tile dialect; raises WsError on bad input."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise WsError(f"cannot read input: {e.strerror}", str(path)) from None
    from wsdialects.triton import parse_source

    return parse_source(text, str(path))


def __getattr__(name: str):
    # Imported on first use: `import wsdialects` (and so `ws-opt`) needs neither numpy
    # (the interpreter) nor llvmlite or CUDA (`compile`).
    if name in ("Deadlock", "InterpretError", "interpret"):
        import wsdialects.interpreter as _interpreter

        return getattr(_interpreter, name)
    if name == "compile":
        from wsdialects.runtime import compile as _compile

        return _compile
    if name in ("dialects", "register_dialects"):
        import wsdialects.context as _context

        return getattr(_context, name)
    if name == "available_passes":
        from wsdialects.passes import available_passes as _available_passes

        return _available_passes
    if name == "from_triton":  # triton itself is imported only when a function is compiled
        from wsdialects.triton.frontend import from_triton

        return from_triton
    if name == "autotune":
        from wsdialects.runtime import autotune as _autotune

        return _autotune
    if name == "Config":
        from wsdialects.runtime.tuner import Config as _Config

        return _Config
    raise AttributeError(f"module 'wsdialects' has no attribute '{name}'")
