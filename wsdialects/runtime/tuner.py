"""Autotuning, the way Triton users know it: a kernel, a list of configs (ws-hopper option
sets), the names of the arguments whose values select a choice; on the first call for a
new key every config is compiled (once) and timed, the fastest is kept in memory and on
disk, and that call and the later ones launch it.

    import wsdialects
    from wsdialects import Config

    gemm = wsdialects.autotune("examples/kernels/gemm.mlir", configs=[
        Config("ws-hopper"),
        Config("ws-hopper", persistent=True),
        Config("ws-hopper", depth=4, mma_depth=3),
    ], key=["M", "N", "K"])
    gemm[cdiv(M, 128) * cdiv(N, 256)](a, b, c, M, N, K, N)   # times the 3 configs, then runs the best
    gemm.best_config[(M, N, K)]                              # Config('ws-hopper{persistent=true}')

`wsdialects.compile(source, configs=[...], key=[...], **autotune_keywords)` is the same tuner.

- A config's `grid=` (a function of the named arguments, a dict) replaces the call's grid
  for that config; `gemm(*args)` without a grid needs one in every config. A config's
  `source=` replaces the kernel source (another tile shape; same argument names). A
  `persistent=true` config needs no grid of its own: the launcher runs min(programs,
  tiles) programs of the tile grid it is given.
- A config that does not compile is skipped with an `AutotuneWarning` naming it; when
  none compiles the call raises a WsError at the kernel. One that fails to launch during
  the trials is skipped likewise (every one failing re-raises the first failure).
- Trial runs write the outputs: `restore_value=[names]` puts those arguments back after
  the trials (the call then runs once on the original values); `reset_to_zero=[names]`
  zeroes them before each trial and before the call (kernels that accumulate).
- The choice is stored in `$WSDIALECTS_CACHE_DIR/autotune` (else ~/.cache/wsdialects/autotune;
  `cache_dir=False`: memory only), keyed by the kernel source, the configs, the key
  values, the device and the compiler (runtime/tuner_cache.py): another process launches
  the winner without timing. `WSDIALECTS_PRINT_AUTOTUNING=1` or `verbose=True` prints each
  choice on stderr.
- Trials run on the current stream; `stream=` at the call applies to the call's launch.
- `timer(fn) -> ms` (default: bench.cuda_timer(warmup, rep), CUDA events, median),
  `compiler(source, pipeline) -> Compiled` and `device_name(args) -> str` can be replaced
  (the tests run all of this without a GPU).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from wsdialects.diagnostics import WsError, error_at
from wsdialects.runtime.compiler import compile_module, pipeline_with_options, source_text
from wsdialects.runtime.tuner_cache import DiskCache, compiler_version, default_cache_dir, text_hash
from wsdialects.triton import parse_source

__all__ = ["AutotuneWarning", "Autotuner", "Config"]


class AutotuneWarning(UserWarning):
    """A config skipped (it does not compile, or failed to launch), or a cache not written."""


def _warn(message: str) -> None:
    """An AutotuneWarning attributed to the first caller outside this module (the user's call)."""
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, AutotuneWarning, stacklevel=level)


def _code_identity(fn) -> str | None:
    """What identifies a grid function across processes: its name and its bytecode."""
    if fn is None:
        return None
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__qualname__", type(fn).__name__)
    if code is None:
        return name
    return f"{name}:{hashlib.sha256(code.co_code + repr(code.co_consts).encode()).hexdigest()[:16]}"


class Config:
    """One candidate: a pipeline with its options (`Config("ws-hopper", depth=4)` is
    `ws-hopper{depth=4}`; a full spec string works too), optionally its own `grid`
    (a function of the named arguments, or a fixed grid), kernel `source` and `name`
    (default: the pipeline spec)."""

    def __init__(self, pipeline: str = "ws-hopper", *, grid=None, name: str | None = None, source=None,
                 **options):
        self.pipeline, self.options, self.grid, self.source = pipeline, dict(options), grid, source
        self.spec = pipeline_with_options(pipeline, self.options)
        self.name = name or self.spec

    def __repr__(self) -> str:
        return f"Config({self.name!r})"


class _Source:
    """A kernel source as `compile` takes it, its text (for the cache) and the kernel's
    argument names (parsed, not compiled)."""

    def __init__(self, src, kernel: str | None):
        if isinstance(src, ModuleOp):
            from io import StringIO

            from xdsl.printer import Printer

            buf = StringIO()
            Printer(stream=buf).print_op(src)
            self.arg, self.file, self.text, module = src, "<module>", buf.getvalue(), src
        else:
            self.file, self.text = source_text(src)
            self.arg = src if self.file != "<string>" else self.text
            module = parse_source(self.text, self.file)  # MLIR, or Triton's TTIR imported
        funcs = [op for op in module.walk() if isinstance(op, FuncOp) and "tile.kernel" in op.attributes]
        names = [f.sym_name.data for f in funcs]
        if not funcs:
            raise WsError("autotune: no tile.kernel function in the source", self.file)
        if kernel is None and len(funcs) > 1:
            raise WsError(f"autotune: the source has kernels {', '.join(names)}: name one with kernel=", self.file)
        if kernel is not None and kernel not in names:
            raise WsError(f"autotune: no kernel '{kernel}' (kernels: {', '.join(names)})", self.file)
        self.func = funcs[0] if kernel is None else funcs[names.index(kernel)]
        self.kernel = self.func.sym_name.data
        self.params = [a.name_hint or f"arg{i}" for i, a in enumerate(self.func.body.blocks[0].args)]


def _names(what: str, value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not all(isinstance(n, str) for n in value):
        raise TypeError(f"autotune: {what} must be a list of argument names, got {value!r}")
    return list(value)


def _is_array(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _clone(x):
    return x.clone() if hasattr(x, "clone") else x.copy()


def _copy_into(x, saved) -> None:
    if hasattr(x, "copy_"):
        x.copy_(saved)
    else:
        x[...] = saved


def _zero(x) -> None:
    if hasattr(x, "zero_"):
        x.zero_()
    else:
        x.fill(0)


def _key_value(v):
    """A key argument's value as the key holds it: numbers and strings as they are, an
    array (tensor) as its shape and dtype."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if _is_array(v):
        return (tuple(int(s) for s in v.shape), str(v.dtype))
    raise TypeError(f"a {type(v).__name__}: key arguments must be numbers, strings or tensors")


def _cuda_tensor(args):
    return next((x for x in args if getattr(x, "is_cuda", False)), None)


def default_device_name(args) -> str:
    """The name of the GPU that holds the first CUDA tensor among `args` ('cpu' if none)."""
    x = _cuda_tensor(args)
    if x is None:
        return "cpu"
    import torch

    return torch.cuda.get_device_name(x.device)


def _on_device_of(args):
    x = _cuda_tensor(args)
    if x is None:
        return contextlib.nullcontext()
    import torch

    return torch.cuda.device(x.device)


def _default_compiler(source, pipeline: str):
    return compile_module(source, pipeline)


_PRUNE_KEYS = {"early_config_prune", "perf_model", "top_k"}


class Autotuner:
    """What `wsdialects.autotune` returns: `tuner[grid](*args)` (or `tuner(*args)` when every
    config has a grid) like a compiled kernel; `.best_config[key]`, `.timings[key]`
    (config name -> ms), `.compiled(config)` (its wsdialects.Compiled)."""

    def __init__(self, kernel_source, configs, key, *, kernel: str | None = None, restore_value=(),
                 reset_to_zero=(), prune_configs_by: dict | None = None, timer=None, warmup: float = 25.0,
                 rep: float = 100.0, cache_dir=None, verbose: bool | None = None, compiler=None,
                 device_name=None):
        self.source = _Source(kernel_source, kernel)
        self.kernel_name = self.source.kernel
        self.params = self.source.params
        self.configs = list(configs)
        if not self.configs or not all(isinstance(c, Config) for c in self.configs):
            raise TypeError("autotune: configs must be a non-empty list of wsdialects.Config")
        seen: set[str] = set()
        for c in self.configs:
            if c.name in seen:
                raise ValueError(f"autotune: two configs are named '{c.name}'; give them distinct name=")
            seen.add(c.name)
        self._by_name = {c.name: c for c in self.configs}
        self._sources = {id(c): (self.source if c.source is None else _Source(c.source, self.kernel_name))
                         for c in self.configs}
        for c in self.configs:
            other = self._sources[id(c)]
            if other.params != self.params:
                raise error_at(other.func, f"autotune: config {c.name}: its @{self.kernel_name} takes "
                                           f"({', '.join(other.params)}), the kernel's takes "
                                           f"({', '.join(self.params)}); a config's source must take the same "
                                           "arguments", other.file)
        self.key = _names("key", key)
        self.restore_value = _names("restore_value", restore_value)
        self.reset_to_zero = _names("reset_to_zero", reset_to_zero)
        for what, names in (("key", self.key), ("restore_value", self.restore_value),
                            ("reset_to_zero", self.reset_to_zero)):
            for n in names:
                if n not in self.params:
                    raise error_at(self.source.func, f"autotune: {what} names '{n}', which is not an argument of "
                                                     f"@{self.kernel_name} (its arguments: {', '.join(self.params)})",
                                   self.source.file)
        self.prune_configs_by = dict(prune_configs_by or {})
        if set(self.prune_configs_by) - _PRUNE_KEYS:
            raise ValueError(f"autotune: prune_configs_by takes {', '.join(sorted(_PRUNE_KEYS))}; got "
                             f"{', '.join(sorted(set(self.prune_configs_by) - _PRUNE_KEYS))}")
        if timer is None:
            from wsdialects.runtime.bench import cuda_timer

            timer = cuda_timer(warmup=warmup, rep=rep)
        self.timer = timer
        self.compiler = compiler or _default_compiler
        self.device_name = device_name or default_device_name
        self.cache_dir = None if cache_dir is False else Path(cache_dir) if cache_dir else default_cache_dir()
        if verbose is None:
            verbose = os.environ.get("WSDIALECTS_PRINT_AUTOTUNING", "0") not in ("", "0")
        self.verbose = verbose
        self.best_config: dict[tuple, Config] = {}
        self.timings: dict[tuple, dict[str, float]] = {}
        self._compiled: dict[str, object] = {}  # config name -> Compiled, or the exception it raised
        self._disk: dict[str, DiskCache] = {}
        self._cache_warned = False

    def __repr__(self) -> str:
        return (f"<wsdialects.Autotuner @{self.kernel_name} key={self.key} "
                f"configs=[{', '.join(c.name for c in self.configs)}] tuned keys={len(self.best_config)}>")

    # ---- calling
    def __getitem__(self, grid):
        return lambda *args, stream=None: self.run(args, grid, stream)

    def __call__(self, *args, stream=None):
        return self.run(args, None, stream)

    def run(self, args, grid=None, stream=None):
        """Launch the best config for these arguments (choosing it first for a new key)."""
        if len(args) != len(self.params):
            raise WsError(f"autotune: @{self.kernel_name} takes {len(self.params)} arguments "
                          f"({', '.join(self.params)}), got {len(args)}", self.source.file)
        named = dict(zip(self.params, args))
        key = self._key(named)
        config = self.best_config.get(key)
        if config is None:
            config = self._choose(key, args, named, grid)
        return self._launcher(config, named, grid)(*args, stream=stream)

    def compiled(self, config: Config):
        """The config's wsdialects.Compiled (compiled now if it was not); WsError if it does not compile."""
        got = self._compile(config)
        if isinstance(got, Exception):
            raise got
        return got

    # ---- pieces
    def _key(self, named) -> tuple:
        values = []
        for n in self.key:
            try:
                values.append(_key_value(named[n]))
            except TypeError as e:
                raise WsError(f"autotune: key argument '{n}' is {e}", self.source.file) from None
        return tuple(values)

    def _compile(self, config: Config):
        if config.name not in self._compiled:
            try:
                self._compiled[config.name] = self.compiler(self._sources[id(config)].arg, config.spec)
            except Exception as e:  # noqa: BLE001 - reported as the config's failure
                self._compiled[config.name] = e
                what = str(e) if isinstance(e, WsError) else f"{type(e).__name__}: {e}"
                _warn(f"autotune: @{self.kernel_name}: config {config.name} skipped, it does not compile: {what}")
        return self._compiled[config.name]

    def _grid(self, config: Config, grid, named):
        g = config.grid if config.grid is not None else grid
        if g is None:
            raise WsError(f"autotune: config {config.name} has no grid: launch with "
                          f"tuner[grid](...) or give the config grid=", self.source.file)
        return g(named) if callable(g) else g

    def _launcher(self, config: Config, named, grid):
        return self.compiled(config).kernel(self.kernel_name)[self._grid(config, grid, named)]

    def _candidates(self, named) -> list[Config]:
        configs = list(self.configs)
        prune = self.prune_configs_by
        if "early_config_prune" in prune:
            configs = list(prune["early_config_prune"](configs, named))
            if not configs or any(c not in self.configs for c in configs):
                raise ValueError("autotune: early_config_prune must return a non-empty subset of the configs")
        if "perf_model" in prune:
            top_k = prune.get("top_k", len(configs))
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            configs = sorted(configs, key=lambda c: prune["perf_model"](c, named))[:int(top_k)]
        return configs

    def _cache(self, device: str) -> DiskCache | None:
        if self.cache_dir is None:
            return None
        if device not in self._disk:
            identity = {
                "kernel": self.kernel_name, "source": text_hash(self.source.text), "key": self.key,
                "device": device, "compiler": compiler_version(),
                "configs": [{"name": c.name, "pipeline": c.spec, "grid": _code_identity(c.grid),
                             "source": None if c.source is None else text_hash(self._sources[id(c)].text)}
                            for c in self.configs],
            }
            self._disk[device] = DiskCache(self.cache_dir, identity, self.kernel_name)
        return self._disk[device]

    def _choose(self, key: tuple, args, named, grid) -> Config:
        cache = self._cache(self.device_name(args))
        jkey = json.dumps(list(key))
        entry = cache.get(jkey) if cache is not None else None
        if entry is not None and entry["config"] in self._by_name:
            config = self._by_name[entry["config"]]
            if not isinstance(self._compile(config), Exception):
                ms = entry.get("ms")
                self.timings[key] = ({k: math.inf if v is None else float(v) for k, v in ms.items()}
                                     if isinstance(ms, dict) else {})
                self.best_config[key] = config
                self._report(key, config, f"cached in {cache.path}")
                return config
        start = time.perf_counter()
        candidates = self._candidates(named)
        compiled = [c for c in candidates if not isinstance(self._compile(c), Exception)]
        if not compiled:
            raise self._none_compiles(candidates)
        if len(compiled) == 1:  # nothing to compare (Triton does not time a single config either)
            self.best_config[key] = compiled[0]
            self.timings[key] = {}
            self._report(key, compiled[0], "the only config that compiles" if len(candidates) > 1 else "one config")
            return compiled[0]
        times = self._time(compiled, args, named, grid)
        best = min(compiled, key=lambda c: times[c.name])
        self.best_config[key] = best
        self.timings[key] = times
        if cache is not None:
            ok = cache.put(jkey, {"config": best.name,
                                  "ms": {k: (v if math.isfinite(v) else None) for k, v in times.items()}})
            if not ok and not self._cache_warned:
                self._cache_warned = True
                _warn(f"autotune: cannot write the cache {cache.write_error}; the choice is kept in memory only")
        self._report(key, best, f"tuned in {time.perf_counter() - start:.1f} s")
        return best

    def _none_compiles(self, candidates) -> WsError:
        lines = "; ".join(f"{c.name}: {self._compiled[c.name]}" for c in candidates)
        return error_at(self.source.func, f"autotune: no config of @{self.kernel_name} compiles ({lines})",
                        self.source.file)

    def _time(self, configs, args, named, grid) -> dict[str, float]:
        """Each config's time (ms; inf where the launch failed), on the caller's arguments,
        which are put back (restore_value) or zeroed (reset_to_zero) afterwards."""
        for n in self.restore_value + self.reset_to_zero:
            if not _is_array(named[n]):
                raise WsError(f"autotune: '{n}' is listed to be restored or zeroed but is a "
                              f"{type(named[n]).__name__}, not a tensor", self.source.file)
        saved = {n: _clone(named[n]) for n in self.restore_value}
        times: dict[str, float] = {}
        failures: list[tuple[Config, Exception]] = []
        try:
            with _on_device_of(args):
                for config in configs:
                    launch = self._launcher(config, named, grid)

                    def trial(launch=launch):
                        for n in self.reset_to_zero:
                            _zero(named[n])
                        launch(*args)

                    try:
                        times[config.name] = float(self.timer(trial))
                    except Exception as e:  # noqa: BLE001 - this config is out; the others go on
                        times[config.name] = math.inf
                        failures.append((config, e))
        finally:
            for n in self.reset_to_zero:
                _zero(named[n])
            for n, value in saved.items():
                _copy_into(named[n], value)
        if len(failures) == len(configs):
            raise failures[0][1]
        for config, e in failures:
            _warn(f"autotune: @{self.kernel_name}: config {config.name} skipped, its trial launch failed: "
                  f"{type(e).__name__}: {e}")
        return times

    def _report(self, key: tuple, config: Config, how: str) -> None:
        if not self.verbose:
            return
        times = self.timings.get(key, {})
        ms = f"{times[config.name]:.3f} ms; " if times.get(config.name) is not None else ""
        others = ", ".join(f"{n} {t:.3f} ms" if t is not None and math.isfinite(t) else f"{n} failed"
                           for n, t in times.items() if n != config.name)
        others = f"others: {others}; " if others else ""
        print(f"autotune: @{self.kernel_name} key {key}: picked {config.name} ({ms}{others}{how})",
              file=sys.stderr)


def autotune_from_compile(source, pipeline: str, configs, key, kwargs: dict) -> Autotuner:
    """`wsdialects.compile(source, configs=[...], key=[...], **kwargs)`: the same tuner as
    `autotune(source, configs, key, **kwargs)`. Each config names its own pipeline and pass
    options, so a pipeline or a pass option given to compile is an error that says so."""
    if configs is None or key is None:
        given = "key" if configs is None else "configs"
        raise TypeError(f"compile: autotuning needs both configs= and key= (got only {given}=)")
    if pipeline != "ws-hopper":
        raise TypeError(f"compile: with configs=, each Config names its pipeline; got pipeline='{pipeline}' as well")
    known = set(inspect.signature(Autotuner.__init__).parameters) - {"self", "kernel_source", "configs", "key"}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        verb = "is" if len(unknown) == 1 else "are"
        raise TypeError(f"compile: with configs=, the keywords are autotune's ({', '.join(sorted(known))}); "
                        f"{', '.join(unknown)} {verb} not (pass options go in each Config, e.g. "
                        f"Config('ws-hopper', {unknown[0]}=...))")
    return Autotuner(source, configs, key, **kwargs)
