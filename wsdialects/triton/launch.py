"""Launching a `@triton.jit` function through wsdialects, the way Triton launches it.

    k = wsdialects.compile(gemm_kernel)                  # or compile(fn, "ws-hopper", depth=3)
    k[grid](a_desc, b_desc, c_desc, M, N, K, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8)
    k.interpret[grid](...)                               # the same call on numpy arrays, interpreted

    t = wsdialects.autotune(gemm_kernel, configs=[triton.Config({"BLOCK_M": 128, ...}, num_warps=8), ...],
                            key=["M", "N", "K"])
    t[lambda META: (cdiv(M, META["BLOCK_M"]) * cdiv(N, META["BLOCK_N"]),)](a_desc, b_desc, c_desc, M, N, K)

A call binds its arguments to the function's parameters (constexprs by keyword or position,
defaults filled in), infers the signature (frontend.py), imports and compiles the kernel
once per signature, constexprs and num_warps, and launches it with the arguments expanded
as the TTIR signature has them: a host `TensorDescriptor` becomes the tensor (viewed with the
descriptor's shape and strides: the runtime builds the TMA descriptor from it and the block
shape) followed by its shape and stride scalars; a tensor passed for a pointer is passed as
the flat run of memory from its first element (the kernel addresses it with its own strides);
constexprs are dropped. `grid` is a tuple or a function of the meta-parameters (every
argument by name, constexprs included), as in Triton.

A repeated launch skips all of that: `fast_key` reads the specialization straight off the
call's arguments (frontend.arg_spec per argument, the rule infer_signature is built from;
constexprs by repr; num_warps) and finds the launcher and the expansion plan kept for it; a
descriptor's tensor then travels as the runtime's StridedView (base, shape, strides), made into
a torch view only when the runtime checks a launch it has not seen.
"""

from __future__ import annotations

from wsdialects.diagnostics import WsError
from wsdialects.triton import frontend as fe

__all__ = ["TritonAutotuner", "TritonKernel", "expand"]


def _span(x) -> int:
    """The number of elements from the first element of `x` to its last, in memory; a TypeError
    for a negative stride (a pointer addresses memory upwards from the first element)."""
    strides = _strides(x)
    if any(s < 0 for s in strides):
        raise TypeError(f"{'a tensor' if hasattr(x, 'as_strided') else 'an array'} with a negative stride cannot "
                        "be passed as a pointer")
    return 1 + sum((int(n) - 1) * int(s) for n, s in zip(x.shape, strides) if int(n) > 0)


def _strided(base, shape: tuple, strides: tuple):
    """`base` viewed with this shape and these strides (in elements), from its first element."""
    if hasattr(base, "as_strided"):  # torch
        return base.as_strided(shape, strides)
    import numpy as np

    return np.lib.stride_tricks.as_strided(base, shape, tuple(s * base.itemsize for s in strides))


def _flat(x):
    """`x` as a 1-D run of memory from its first element to its last (a view)."""
    return _strided(x, (_span(x),), (1,))


def _strides(x) -> tuple:
    """Strides in elements (torch's stride(), numpy's strides / itemsize)."""
    return tuple(x.stride()) if hasattr(x, "stride") and callable(x.stride) else tuple(
        s // x.itemsize for s in x.strides)


def _view(d):
    """The tensor a host TensorDescriptor describes: its base with the descriptor's shape and strides."""
    return _strided(d.base, tuple(int(s) for s in d.shape), tuple(int(s) for s in d.strides))


_DESC, _PTR, _VALUE = 0, 1, 2  # how an argument is expanded


def _plan(signature: dict) -> tuple:
    """(parameter index, how it is expanded) per launch argument of a Triton signature."""
    kinds = [(i, _DESC if t.startswith("tensordesc") else _PTR if t.startswith("*") else _VALUE)
             for i, t in enumerate(signature.values()) if t != "constexpr"]
    return tuple(kinds)


def _expand(values: list, plan: tuple, names, name: str, strided) -> list:
    """The launch arguments for the parameters' values in order: `strided(base, shape, strides)`
    makes a descriptor's tensor and a pointer's flat run (a view, or the runtime's StridedView,
    which the launcher turns into the view only for a launch it has not seen)."""
    out: list = []
    for i, kind in plan:
        value = values[i]
        if kind == _DESC:
            shape, strides = tuple(map(int, value.shape)), tuple(map(int, value.strides))
            out.append(strided(value.base, shape, strides))
            out += shape
            out += strides
        elif kind == _PTR:
            try:
                out.append(strided(value, (_span(value),), (1,)))
            except TypeError as e:
                raise TypeError(f"{name}: argument '{names[i]}': {e}") from None
        else:
            out.append(value)
    return out


def expand(bound: dict, signature: dict, name: str = "kernel") -> list:
    """The launch arguments of the imported kernel (named `name`, for messages) for its
    bound arguments (every parameter by name) and Triton signature: a descriptor's tensor
    viewed with its shape and strides, then those; a pointer's tensor as its flat run of
    memory; constexprs dropped."""
    return _expand(list(bound.values()), _plan({k: signature[k] for k in bound}), list(bound), name, _strided)


def _grid(grid, meta: dict):
    g = grid(meta) if callable(grid) else grid
    if isinstance(g, int):
        g = (g,)
    return tuple(int(x) for x in g)


class _Interpret:
    def __init__(self, kernel: TritonKernel):
        self.kernel = kernel

    def __getitem__(self, grid):
        def run(*args, seed=None, **kwargs):
            from wsdialects.interpreter import interpret

            k = self.kernel
            bound, spec = k.specialize(args, kwargs)
            module = k.module_of(spec)
            interpret(module, k.fn.__name__, _grid(grid, bound), expand(bound, spec[0], k.fn.__name__), seed=seed)

        return run


class TritonKernel:
    """What `wsdialects.compile(fn)` returns for a `@triton.jit` function: `kernel[grid](*args,
    **constexprs)` compiles (once per signature, constexprs and num_warps) and launches;
    `kernel.interpret[grid](...)` runs the imported module in the interpreter on numpy
    arrays with the same argument handling; `kernel.module(...)` / `kernel.compiled(...)` are
    the imported module and the wsdialects.Compiled of one specialization (example arguments
    as for a launch, or the spec `specialize` returns)."""

    def __init__(self, fn, pipeline: str = "ws-hopper", options: dict | None = None, *, compiler=None):
        fe.require_triton()
        self.fn = fe.jit_function(fn)
        self.pipeline, self.options = pipeline, dict(options or {})
        self._compiler = compiler
        self._modules: dict = {}
        self._compiled: dict = {}
        self._rules = tuple(tuple(r[1:]) for r in fe.param_rules(self.fn))  # (constexpr, specialize, align)
        self._calls: dict = {}  # (len(args), *keywords) -> binding's sources, or False
        self._fast: dict = {}  # fast_key -> (launcher, expansion plan, how a view is passed)
        self.interpret = _Interpret(self)

    def __repr__(self) -> str:
        return f"<wsdialects.TritonKernel {self.fn.__name__} pipeline={self.pipeline!r} compiled={len(self._compiled)}>"

    def specialize(self, args, kwargs) -> tuple[dict, tuple]:
        """(the bound arguments, the spec: (signature, constexprs, attrs, num_warps))."""
        bound, options = fe.bind(self.fn, args, kwargs)
        extra = sorted(set(options) - {"num_warps", "num_stages"})
        if extra or options.get("num_ctas", 1) != 1:
            raise TypeError(f"{self.fn.__name__}: launch option {', '.join(extra)} is not supported (num_warps is; "
                            "num_stages is accepted and left to the pipeline)")
        sig, consts, attrs = fe.infer_signature(self.fn, bound)
        return bound, (sig, consts, attrs, int(options.get("num_warps", 4)))

    @staticmethod
    def _key(spec) -> str:
        sig, consts, attrs, warps = spec
        return repr((sorted(sig.items()), sorted((k, repr(v)) for k, v in consts.items()), sorted(attrs.items()),
                     warps))

    def spec(self, *args, signature=None, constexprs=None, num_warps=None, **kwargs) -> tuple:
        """A specialization from example arguments (as a launch takes them) or from Triton's
        signature strings (frontend.from_triton's conventions)."""
        return fe.spec_of(self.fn, args, kwargs, signature=signature, constexprs=constexprs, num_warps=num_warps)

    def module(self, *args, **kwargs):
        """The imported tile module of a specialization (arguments as `spec` takes them)."""
        return self.module_of(self.spec(*args, **kwargs))

    def compiled(self, *args, **kwargs):
        """The wsdialects.Compiled of a specialization (arguments as `spec` takes them)."""
        return self.compiled_of(self.spec(*args, **kwargs))

    def module_of(self, spec):
        key = self._key(spec)
        if key not in self._modules:
            sig, consts, attrs, warps = spec
            text = fe.ttir(self.fn, sig, consts, warps, attrs)
            self._modules[key] = fe.import_module(text, self.fn.fn.__code__.co_filename, warps)
        return self._modules[key]

    def compiled_of(self, spec):
        key = self._key(spec)
        if key not in self._compiled:
            if self._compiler is not None:
                self._compiled[key] = self._compiler(self.module_of(spec), self.pipeline)
            else:
                from wsdialects.runtime.compiler import compile_module

                self._compiled[key] = compile_module(self.module_of(spec), self.pipeline, **self.options)
        return self._compiled[key]

    def __getitem__(self, grid):
        return lambda *args, stream=None, **kwargs: self.run(grid, args, kwargs, stream)

    def fast_key(self, args, kwargs):
        """The key of the specialization a call `kernel[grid](*args, **kwargs)` takes, from the
        arguments themselves (the same rule `specialize` applies: frontend.arg_spec per argument,
        constexprs by repr, num_warps), or None for a call the cache does not take (launch options
        other than num_warps / num_stages, or an argument the slow path rejects). Two calls have
        the same key exactly when `specialize` gives them the same spec; also (the parameters'
        values in order, the key)."""
        call = self._calls.get((len(args), *kwargs))
        if call is None:
            call = self._call(args, kwargs)
        if call is False:
            return None, None
        values = fe.bound_values(call, args, kwargs)
        parts = []
        try:
            for value, (const, special, align) in zip(values, self._rules):
                parts.append(("constexpr", repr(value)) if const or value is None else fe.arg_spec(value, special, align))
            warps = int(kwargs["num_warps"]) if "num_warps" in kwargs else 4
        except (TypeError, ValueError):
            return None, None
        return values, (*parts, warps)

    def _call(self, args, kwargs):
        """`binding`'s sources for a call's shape (how many positional arguments, which
        keywords), or False where the launch options leave it to the slow path."""
        options = set(kwargs) & set(fe.OPTIONS)
        try:
            sources = fe.binding(self.fn, len(args), kwargs)
        except TypeError:
            sources = False  # the slow path says what is wrong
        if options - {"num_warps", "num_stages"}:
            sources = False
        if len(self._calls) < 64:
            self._calls[(len(args), *kwargs)] = sources
        return sources

    def run(self, grid, args, kwargs, stream=None):
        values, key = self.fast_key(args, kwargs)
        hit = self._fast.get(key) if key is not None else None
        if hit is None:
            bound, spec = self.specialize(args, kwargs)
            launcher = self.compiled_of(spec).kernel(self.fn.__name__)
            from wsdialects.runtime.launch import Launcher, StridedView

            lazy = isinstance(launcher, Launcher)  # another compiler's launcher (a test's) gets torch views
            hit = (launcher, _plan(spec[0]), StridedView if lazy else _strided)
            if key is not None:
                self._fast[key] = hit
            values = list(bound.values())
        launcher, plan, strided = hit
        launch_args = _expand(values, plan, self.fn.arg_names, self.fn.__name__, strided)
        meta = dict(zip(self.fn.arg_names, values)) if callable(grid) else None
        return launcher[_grid(grid, meta)](*launch_args, stream=stream)


def _config_parts(config) -> tuple[dict, int | None, str, object]:
    """(constexpr values, num_warps, a name, pre_hook) of a triton.Config (or a dict of constexprs)."""
    if isinstance(config, dict):
        kwargs, warps, hook = dict(config), None, None
    elif hasattr(config, "kwargs") and hasattr(config, "num_warps"):
        kwargs, warps, hook = dict(config.kwargs), config.num_warps, getattr(config, "pre_hook", None)
    else:
        raise TypeError(f"autotune: configs of a Triton function must be triton.Config (or dicts of constexprs), "
                        f"got {type(config).__name__}")
    name = ", ".join(f"{k}={v}" for k, v in kwargs.items()) + (f", num_warps={warps}" if warps else "")
    return kwargs, warps, name, hook


class TritonAutotuner:
    """What `wsdialects.autotune(fn, configs=[triton.Config(...)], key=[...])` returns for a
    `@triton.jit` function: each config's constexprs (and num_warps) give their own import and
    compile; the choice among them is wsdialects.Autotuner's (runtime/tuner.py: timing, the
    disk cache, restore_value / reset_to_zero), one tuner per signature of the other arguments.
    A config's `pre_hook` is called with the arguments by name (constexprs included) before
    its kernel is specialized, as Triton's tutorials use it: to set host descriptors'
    `block_shape` to the config's tiles."""

    def __init__(self, fn, configs, key, *, pipeline: str = "ws-hopper", pipeline_options: dict | None = None,
                 **tuner_kwargs):
        self.fn = fe.jit_function(fn)
        self.configs = [_config_parts(c) for c in configs]
        if not self.configs:
            raise TypeError("autotune: configs must be a non-empty list of triton.Config")
        self.key = [key] if isinstance(key, str) else list(key)
        for n in self.key:
            if n not in self.fn.arg_names:
                raise TypeError(f"autotune: key names '{n}', which is not an argument of {self.fn.__name__} "
                                f"(its arguments: {', '.join(self.fn.arg_names)})")
        self.pipeline, self.pipeline_options = pipeline, dict(pipeline_options or {})
        self.tuner_kwargs = tuner_kwargs
        self._kernel = TritonKernel(self.fn, pipeline, self.pipeline_options)
        self._tuners: dict = {}
        self._meta: dict = {}
        self._user_grid = None

    def __repr__(self) -> str:
        return f"<wsdialects.TritonAutotuner {self.fn.__name__} configs={len(self.configs)} key={self.key}>"

    def __getitem__(self, grid):
        return lambda *args, stream=None, **kwargs: self.run(grid, args, kwargs, stream)

    def tuner(self, args, kwargs):
        """(the wsdialects.Autotuner for these arguments' signature, the bound arguments, one config's spec)."""
        tuned = {k for c, _, _, _ in self.configs for k in c}
        given = sorted(tuned & set(kwargs))
        if given:
            raise TypeError(f"autotune: {', '.join(given)} {'is' if len(given) == 1 else 'are'} chosen by the configs; "
                            "do not pass it at the call")
        from wsdialects.runtime.tuner import Autotuner, Config

        specs, bound = [], None
        for consts, warps, _name, hook in self.configs:
            extra = {"num_warps": warps} if warps else {}
            if hook is not None:  # Triton's way to fit host descriptors' blocks to the config's tiles
                hook({**fe.bind(self.fn, args, {**kwargs, **consts})[0]})
            bound, spec = self._kernel.specialize(args, {**kwargs, **consts, **extra})
            specs.append(spec)
        key = TritonKernel._key(specs[0]) if len(specs) == 1 else repr([TritonKernel._key(s) for s in specs])
        if key not in self._tuners:
            configs = []
            for (consts, _warps, name, _hook), spec in zip(self.configs, specs):
                module = self._kernel.module_of(spec)
                configs.append(Config(self.pipeline, name=name, source=module,
                                      grid=lambda named, consts=consts: _grid(self._user_grid,
                                                                              {**self._meta, **consts}),
                                      **self.pipeline_options))
            self._tuners[key] = Autotuner(configs[0].source, configs, self._expanded_key(specs[0]),
                                          **self._expanded(self.tuner_kwargs, specs[0]))
        return self._tuners[key], bound, specs[0]

    def _expanded_names(self, spec) -> dict:
        """User argument name -> the imported kernel's parameter name holding it (a descriptor's
        tensor keeps the descriptor's name)."""
        return {n: n for n, t in spec[0].items() if t != "constexpr"}

    def _expanded_key(self, spec) -> list:
        names = self._expanded_names(spec)
        bad = [n for n in self.key if n not in names]
        if bad:
            raise TypeError(f"autotune: key {', '.join(bad)} names a constexpr; key on the other arguments")
        return [names[n] for n in self.key]

    def _expanded(self, kwargs: dict, spec) -> dict:
        out = dict(kwargs)
        for what in ("restore_value", "reset_to_zero"):
            if what in out:
                names = [out[what]] if isinstance(out[what], str) else list(out[what])
                out[what] = [self._expanded_names(spec).get(n, n) for n in names]
        return out

    def run(self, grid, args, kwargs, stream=None):
        if grid is None:
            raise WsError(f"autotune: {self.fn.__name__}: launch with tuner[grid](...)", self.fn.fn.__code__.co_filename)
        tuner, bound, spec = self.tuner(args, kwargs)
        self._meta, self._user_grid = bound, grid
        return tuner.run(expand(bound, spec[0], self.fn.__name__), None, stream)

    @property
    def best_config(self) -> dict:
        """key values -> the chosen config's name, over every signature seen."""
        return {k: c.name for t in self._tuners.values() for k, c in t.best_config.items()}
