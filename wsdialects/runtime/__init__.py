"""Compile a tile kernel for Hopper and launch it on torch CUDA tensors.

    import wsdialects
    k = wsdialects.compile("gemm.mlir", pipeline="ws-hopper", depth=3)
    k.ptx, k.llvm_ir, k.ir          # the stages' text
    k[grid](a, b, c, M, N, K, N)    # torch CUDA tensors and Python numbers
    o, lse = attention_forward(q, k, v, causal=True)                    # attention training
    dq, dk, dv = attention_backward(q, k, v, o, lse, do, causal=True)   # (runtime/attention_bwd.py)
    c = grouped_gemm(a, b, offs)        # MoE: a [sum M_g, K], b [G, N, K] (runtime/grouped.py)

Argument conventions (docs/writing-a-kernel.md): a `!tile.desc<tensor<BxCxT>>` takes a 2-D tensor
(a TMA descriptor with that box is built from it, swizzled as the kernel's shared
memory needs); a `!tile.ptr<T>` takes a contiguous tensor addressed flat, in
elements; scalars take Python numbers. Checks happen before the launch.
Compiling needs no GPU; launching needs cuda-python and torch.

This module only dispatches: MLIR to the compile of one module (runtime/compiler.py),
`configs=` to the autotuner (runtime/tuner.py), a `@triton.jit` function to the Triton
launcher (triton/launch.py). Each of those compiles with runtime/compiler.py; none of them
imports this module.
"""

from __future__ import annotations

from wsdialects.runtime.attention_bwd import attention, attention_backward, attention_forward
from wsdialects.runtime.grouped import grouped_gemm
from wsdialects.runtime.compiler import Compiled, compile_module, source_text  # noqa: F401 (source_text: re-exported)

__all__ = ["Compiled", "attention", "attention_backward", "attention_forward", "autotune", "compile", "grouped_gemm"]


def _is_triton(obj) -> bool:
    """A `@triton.jit` function (or a Triton wrapper of one), known without importing triton."""
    return type(obj).__module__.startswith("triton.")


def compile(module_or_path, pipeline: str = "ws-hopper", *, configs=None, key=None, **options):  # noqa: A001
    """Parse (a path, MLIR text or a ModuleOp), run `pipeline` (pass options as keyword
    arguments, e.g. depth=3), lower to LLVM IR and PTX: a Compiled. With `configs=` and
    `key=` it autotunes instead, as `wsdialects.autotune(module_or_path, configs, key,
    **options)` (the options are then the tuner's keywords): an Autotuner.

    A `@triton.jit` function (wsdialects/triton/launch.py) gives a TritonKernel, launched as
    Triton launches it (`k[grid](*args, BLOCK_M=128, num_warps=8)`; compiled once per
    signature and constexprs); with `configs=[triton.Config(...)]` a TritonAutotuner."""
    if _is_triton(module_or_path):
        from wsdialects.triton.launch import TritonAutotuner, TritonKernel

        if configs is not None or key is not None:
            if configs is None or key is None:
                raise TypeError("compile: autotuning needs both configs= and key=")
            return TritonAutotuner(module_or_path, configs, key, pipeline=pipeline, **options)
        return TritonKernel(module_or_path, pipeline, options)
    if configs is not None or key is not None:
        from wsdialects.runtime.tuner import autotune_from_compile

        return autotune_from_compile(module_or_path, pipeline, configs, key, options)
    return compile_module(module_or_path, pipeline, **options)


def autotune(kernel_source, configs, key, **kwargs):
    """`wsdialects.autotune(source, configs=[Config(...), ...], key=[argument names], ...)`:
    an Autotuner (runtime/tuner.py's docstring; keyword arguments as Autotuner's). For a
    `@triton.jit` function the configs are `triton.Config`s (their constexprs and num_warps:
    each its own import and compile; `pipeline=` and `pipeline_options=` say how each
    compiles): a TritonAutotuner (wsdialects/triton/launch.py)."""
    if _is_triton(kernel_source):
        from wsdialects.triton.launch import TritonAutotuner

        return TritonAutotuner(kernel_source, configs, key, **kwargs)
    from wsdialects.runtime.tuner import Autotuner

    return Autotuner(kernel_source, configs, key, **kwargs)
