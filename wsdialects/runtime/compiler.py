"""The compile of one kernel module: MLIR (a path, text or a ModuleOp) through a pass
pipeline to LLVM IR and PTX, a `Compiled`.

It is what every way of compiling ends in: `wsdialects.compile` (the dispatcher,
runtime/__init__) for MLIR, the autotuner for each config (runtime/tuner.py), the Triton
launcher for each specialization of a `@triton.jit` function (triton/launch.py):

    from wsdialects.runtime.compiler import compile_module
    k = compile_module("gemm.mlir", "ws-hopper", depth=3)   # ws-hopper{depth=3}
    k.ptx, k.llvm_ir, k.ir
    k[grid](a, b, c, M, N, K, N)
"""

from __future__ import annotations

import hashlib
import os
from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from wsdialects.diagnostics import WsError
from wsdialects.lower.to_llvm import KernelInfo, lower_module
from wsdialects.triton import parse_source


def pipeline_with_options(pipeline: str, options: dict) -> str:
    """`pipeline` with pass options given as keywords: ("ws-hopper", {"mma_depth": 1}) ->
    `ws-hopper{mma-depth=1}`; WsError if the pipeline is not a single pass name."""
    if not options:
        return pipeline
    if "," in pipeline or "{" in pipeline:
        raise WsError(f"compile: options {', '.join(sorted(options))} need a single pass name as pipeline, got "
                      f"'{pipeline}'",
                      "wsdialects.compile")
    opts = " ".join(f"{k.replace('_', '-')}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in options.items())
    return f"{pipeline}{{{opts}}}"


def _ptx_cached(llvm_ir: str) -> str:
    """PTX for `llvm_ir`; `WSDIALECTS_PTX_CACHE=DIR` keeps PTX by the hash of the LLVM IR."""
    cache = os.environ.get("WSDIALECTS_PTX_CACHE")
    key = hashlib.sha256(llvm_ir.encode()).hexdigest()[:32]
    if cache:
        f = Path(cache) / f"{key}.ptx"
        if f.is_file():
            return f.read_text()
    from wsdialects.lower.ptx import llvm_to_ptx

    ptx = llvm_to_ptx(llvm_ir)
    if cache:
        try:
            Path(cache).mkdir(parents=True, exist_ok=True)
            (Path(cache) / f"{key}.ptx").write_text(ptx)
        except OSError:
            pass
    return ptx


class Compiled:
    """The result of `wsdialects.compile`: `.ir`, `.llvm_ir`, `.ptx`, `.kernels`, and
    `compiled[grid](*args)` (the module's kernel; `compiled.kernel(name)[grid]` when
    it has several)."""

    def __init__(self, ir: str, llvm_ir: str, ptx: str, kernels: list[KernelInfo]):
        self.ir = ir
        self.llvm_ir = llvm_ir
        self.ptx = ptx
        self.kernels = {k.name: k for k in kernels}
        self._launchers: dict = {}

    def kernel(self, name: str | None = None):
        if name is None:
            if len(self.kernels) != 1:
                raise WsError(f"the module has kernels {', '.join(sorted(self.kernels))}: name one with .kernel(name)",
                              "wsdialects.compile")
            name = next(iter(self.kernels))
        if name not in self.kernels:
            raise WsError(f"no kernel '{name}' (kernels: {', '.join(sorted(self.kernels))})", "wsdialects.compile")
        if name not in self._launchers:
            from wsdialects.runtime.launch import Launcher

            self._launchers[name] = Launcher(self.ptx, self.kernels[name])
        return self._launchers[name]

    def __getitem__(self, grid):
        return self.kernel()[grid]

    def __repr__(self) -> str:
        return f"<wsdialects.Compiled kernels={sorted(self.kernels)}>"


def source_text(path_or_text) -> tuple[str, str]:
    """(file name, MLIR text) of a path (one line naming an existing file or ending in .mlir)
    or of MLIR text itself (file name `<string>`); WsError if the file cannot be read."""
    s = str(path_or_text)
    if "\n" not in s and (s.endswith(".mlir") or os.path.exists(s)):
        try:
            return s, Path(s).read_text(encoding="utf-8")
        except OSError as e:
            raise WsError(f"cannot read input: {e.strerror}", s) from None
    return "<string>", s


def compile_module(module_or_path, pipeline: str = "ws-hopper", **options) -> Compiled:
    """Parse (a path, MLIR text or a ModuleOp, which is not changed), run `pipeline` (pass
    options as keyword arguments, e.g. depth=3), lower to LLVM IR and PTX: a Compiled."""
    from wsdialects.tools.pipeline_spec import build_pipeline

    if isinstance(module_or_path, ModuleOp):
        module, file = module_or_path.clone(), "<module>"
    else:
        file, text = source_text(module_or_path)
        module = parse_source(text, file)  # MLIR, or Triton's TTIR imported
    spec = pipeline_with_options(pipeline, options)
    if spec:
        build_pipeline(spec, file).apply(None, module)
    buf = StringIO()
    Printer(stream=buf).print_op(module)
    lowered = lower_module(module)
    return Compiled(buf.getvalue(), lowered.llvm_ir, _ptx_cached(lowered.llvm_ir), lowered.kernels)
