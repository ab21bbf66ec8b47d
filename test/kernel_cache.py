"""Session caches for the tests: each kernel file is parsed once, each pass pipeline prefix
run once, per test process (per pytest-xdist worker).

    from kernel_cache import compile_kernel, parse_kernel
    before = parse_kernel(path)                          # wsdialects.parse_file(path), a fresh copy
    after = compile_kernel(path, "ws-specialize{depth=2}")  # parse_file + build_pipeline(...).apply

Hundreds of tests parse the same dozen kernels and put them through the same pipelines
(or through pipelines that share a prefix: `X,ws-lower-aref` and then `X,ws-lower-aref,
ws-lower-mma`). What a test gets is exactly what the uncached calls give:

- the key is the path as given (it is the location's file name), the file's bytes and,
  for each pass of the pipeline, its name and every option (defaults included);
- passes run and are verified exactly as in `ws-opt` (`build_pipeline`'s callback), a
  pipeline resumes from the module after its longest kept prefix, and the caller always
  gets its own copy, which it may change;
- what the passes printed (remarks, warnings) is printed again on every hit;
- a parse or pass that raises is never kept: it raises again on the next call;
- while a test uses `monkeypatch` (it may have changed a pass), the cache is neither read
  nor written (test/conftest.py switches it off for such tests);
- `shared=True` (for a caller that only reads the module: interprets, walks, prints it) gives
  the kept module itself, not a copy (a copy of a kernel costs a few ms, and most pipelines
  are asked for once): a module so lent is checked unchanged (`_fingerprint`: every op,
  operand, type, attribute and name by identity) whenever the cache hands it out again or
  copies it, and a change fails that test loudly.

`compile_ptx` and `run_ptxas` (PTX per kernel and pipeline, ptxas's answer per PTX text) are
also shared by the pytest-xdist workers of one run, through files in the run's folder
(`run_folder()`, or the test command's folder: see `install_ptx_memo`): each is made once per run;
so are the PTX of each LLVM IR text and ptxas's answer for each PTX text, whoever asks for them
(`install_ptx_memo`). Nothing else is cached: interpreting the modules on each test's own
random inputs still happens in every test.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import os
import sys
from collections import OrderedDict

_LIMIT = 512  # modules kept (LRU); a few hundred kB each

enabled = True
_modules: OrderedDict[tuple, tuple] = OrderedDict()  # key -> (module, stdout, stderr of the last pass)
stats = {"parse_hits": 0, "parse_misses": 0, "pass_hits": 0, "passes_run": 0}


def _fingerprint(module) -> int:
    """A hash of everything a change to `module` changes: its ops in order and, for each, its
    name, operands, result types and names, attributes, properties, location and the types
    and names of its blocks' arguments, all by identity (attributes and types are immutable:
    a change replaces them)."""
    items = []
    for op in module.walk():
        items.append((id(op), op.name, tuple(map(id, op.operands)),
                      tuple((id(r.type), r.name_hint) for r in op.results),
                      tuple((k, id(v)) for k, v in op.attributes.items()),
                      tuple((k, id(v)) for k, v in op.properties.items()), id(op.location),
                      tuple((id(a.type), a.name_hint) for r in op.regions for b in r.blocks for a in b.args)))
    return hash(tuple(items))


def _lent(key: tuple):
    """The kept module of `key`, checked unchanged if it was lent (`shared=True`)."""
    entry = _modules[key]
    if len(entry) > 3 and _fingerprint(entry[0]) != entry[3]:
        del _modules[key]
        raise AssertionError(f"kernel_cache: a module lent with shared=True was changed by its user ({key[1]}, "
                             f"after {len(key) - 3} passes): ask for a copy (shared=False) to change it")
    return entry[0]


def _lend(key: tuple):
    """The kept module of `key` itself, for a caller that only reads it."""
    module = _lent(key)
    entry = _modules[key]
    if len(entry) == 3:
        _modules[key] = (*entry, _fingerprint(module))
    return module


def _keep(key: tuple, value: tuple) -> None:
    _modules[key] = value
    _modules.move_to_end(key)
    while len(_modules) > _LIMIT:
        _modules.popitem(last=False)


def _file_key(path) -> tuple:
    with open(path, "rb") as f:
        return ("file", str(path), hashlib.blake2b(f.read(), digest_size=16).digest())


def _pass_key(p) -> tuple:
    return (p.name, repr(sorted(dataclasses.asdict(p).items())))


class _Tee(io.TextIOBase):
    """Writes through to `out` and remembers what was written."""

    def __init__(self, out):
        self.out, self.seen = out, io.StringIO()

    def write(self, s: str) -> int:
        self.seen.write(s)
        return self.out.write(s)

    def flush(self) -> None:
        self.out.flush()


def _teed(fn, *args):
    """fn(*args), and what it printed on stdout and stderr (printed as usual too)."""
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = fn(*args)
    return result, out.seen.getvalue(), err.seen.getvalue()


def parse_kernel(path, shared: bool = False):
    """`wsdialects.parse_file(path)`, parsed once per file content (`shared`: see the module)."""
    import wsdialects

    if not enabled:
        return wsdialects.parse_file(path)
    try:
        key = _file_key(path)
    except OSError:
        return wsdialects.parse_file(path)  # its own error
    hit = _modules.get(key)
    if hit is None:
        stats["parse_misses"] += 1
        module, out, err = _teed(wsdialects.parse_file, path)
        if shared:
            _keep(key, (module, out, err, _fingerprint(module)))
        else:
            _keep(key, (module.clone(), out, err))
        return module
    stats["parse_hits"] += 1
    _modules.move_to_end(key)
    sys.stdout.write(hit[1])
    sys.stderr.write(hit[2])
    return _lend(key) if shared else _lent(key).clone()


def _step(passes, i, module, callback) -> None:
    """Pass i of the pipeline, then the pipeline's callback (the verifier), as PassPipeline.apply."""
    passes[i].apply(None, module)
    if callback is not None:
        callback(passes[i], module, passes[i + 1] if i + 1 < len(passes) else None)


def compile_kernel(path, pipeline: str, file: str | None = None, shared: bool = False):
    """A fresh copy of `path` parsed, verified and put through `pipeline` (`ws-opt -p`);
    `file`: the name the verifier's errors give (`build_pipeline`'s), `path` by default;
    `shared`: the kept module itself, for a caller that only reads it (see the module)."""
    from wsdialects.tools.ws_opt import build_pipeline

    if not pipeline:
        return parse_kernel(path, shared)
    pipe = build_pipeline(pipeline, str(path) if file is None else file)  # a bad pipeline raises here, as in ws-opt
    passes, callback = tuple(getattr(pipe, "passes", ())), getattr(pipe, "callback", None)
    if not enabled or not passes:
        module = parse_kernel(path)
        pipe.apply(None, module)
        return module
    try:
        base = _file_key(path)
    except OSError:
        base = None
    if base is None:
        module = parse_kernel(path)
        pipe.apply(None, module)
        return module
    keys = [base + tuple(_pass_key(p) for p in passes[:i]) for i in range(len(passes) + 1)]
    done = 0  # the longest kept prefix whose every step is kept (what each printed is replayed)
    while done < len(passes) and keys[done + 1] in _modules:
        done += 1
    for key in keys[1 : done + 1]:  # what the kept passes printed
        out, err = _modules[key][1:3]
        sys.stdout.write(out)
        sys.stderr.write(err)
    if done:
        stats["pass_hits"] += done
        _modules.move_to_end(keys[done])
        if shared and done == len(passes):
            return _lend(keys[done])
        module = _lent(keys[done]).clone()
    else:
        module = parse_kernel(path)
        if callback is not None:
            callback(None, module, passes[0])
    for i in range(done, len(passes)):
        _, out, err = _teed(_step, passes, i, module, callback)
        stats["passes_run"] += 1
        if shared and i + 1 == len(passes):
            _keep(keys[i + 1], (module, out, err, _fingerprint(module)))
        else:
            _keep(keys[i + 1], (module.clone(), out, err))
    return module


_texts: OrderedDict[tuple, object] = OrderedDict()  # PTX per kernel and pipeline, ptxas's answer per PTX

RUN_DIR = "WSDIALECTS_TEST_RUN_DIR"  # a folder of this test run, shared by its processes (test/conftest.py)


def run_folder() -> str | None:
    """The folder that the processes of this test run share (made by the process that started the
    run, removed at its end: nothing in it outlives the run), or None."""
    d = os.environ.get(RUN_DIR)
    return d if d and os.path.isdir(d) else None


def _shared(key: tuple, make, folder: str | None = None):
    """make(), once per test run: a PTX text or ptxas answer that the other pytest-xdist worker
    made for the same key is read from the run's folder (or `folder`; while it is making it,
    this one waits)."""
    folder = folder or run_folder()
    if folder is None:
        return make()
    import fcntl
    import pickle

    path = os.path.join(folder, "text-" + hashlib.blake2b(repr(key).encode(), digest_size=16).hexdigest())
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if make() raises
        try:
            with open(path, "rb") as f:
                return pickle.load(f)
        except FileNotFoundError:
            pass
        value = make()
        with open(f"{path}.{os.getpid()}", "wb") as f:
            pickle.dump(value, f)
        os.replace(f"{path}.{os.getpid()}", path)
        return value


def _memo(key: tuple, make, folder: str | None = None):
    if not enabled:
        return make()
    if key in _texts:
        _texts.move_to_end(key)
        return _texts[key]
    value = _texts[key] = _shared(key, make, folder)
    while len(_texts) > _LIMIT:
        _texts.popitem(last=False)
    return value


def compile_ptx(path, pipeline: str) -> str:
    """The PTX of `path` after `pipeline`: `llvm_to_ptx(lower_module(compile_kernel(...)).llvm_ir)`
    (without ptxas's spill check, as that call makes it), once per file content and pipeline."""
    from wsdialects.lower.ptx import llvm_to_ptx
    from wsdialects.lower.to_llvm import lower_module

    return _memo(("ptx", *_file_key(path), pipeline),
                 lambda: llvm_to_ptx(lower_module(compile_kernel(path, pipeline, shared=True)).llvm_ir))


SHARED = "WSDIALECTS_TEST_SOLVE_CACHE"  # the test command's folder, shared by its lit and pytest runs


def _shared_folder() -> str | None:
    """The test command's folder (test/run.py sets SHARED), else None (the run's folder)."""
    folder = os.environ.get(SHARED)
    return folder if folder and os.path.isdir(folder) else None


def run_ptxas(ptx: str, ptxas: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    """`wsdialects.lower.ptxas.run_ptxas` (ptxas -arch=sm_90a -v), once per PTX text and flags
    (`install_ptx_memo` makes every call of it so)."""
    from wsdialects.lower import ptxas as _ptxas

    run = getattr(_ptxas.run_ptxas, "real", _ptxas.run_ptxas)
    digest = hashlib.blake2b(ptx.encode(), digest_size=16).digest()
    return _memo(("ptxas", digest, ptxas, tuple(extra)), lambda: run(ptx, ptxas, tuple(extra)), _shared_folder())


def install_ptx_memo() -> None:
    """Wrap `wsdialects.lower.ptx.llvm_to_ptx` (LLVM's NVPTX back end, ~0.1-1 s a kernel) and
    `wsdialects.lower.ptxas.run_ptxas` (ptxas -v, ~0.1-1 s a kernel) so that each LLVM IR text
    is made into PTX, and each PTX text (with the same ptxas and flags) assembled, once per test
    run: the same text gives the answer already made, by this process, the other pytest-xdist
    worker or, under the test command (test/run.py, which sets WSDIALECTS_TEST_SOLVE_CACHE), a
    lit RUN line's `ws-opt -t ptx` (test/lit.cfg.py installs it in lit's fork server then: the
    ptxas answer is its spill check's). About a sixth of pytest's calls repeat a text (e.g. a
    stored schedule and the heuristic pipeline that compile to the same kernel, or
    `wsdialects.compile` after `compile_ptx`), and lit's `-t ptx` lines assemble kernels that
    pytest's ptxas tests assemble too. The PTX's key is the text and the optimization level; what
    is kept is what the real function returned for them without a `module`, and with a `module`
    its ptxas check (`check_ptx`: the spill warning) still runs on every call, through the ptxas
    memo. A call that raises keeps nothing. Off while a test uses `monkeypatch` (test/conftest.py)."""
    try:
        from wsdialects.lower import ptx as _ptx
        from wsdialects.lower import ptxas as _ptxas
    except ImportError:
        return
    real = _ptx.llvm_to_ptx
    if getattr(real, "_session_cache", False):
        return

    def llvm_to_ptx(text: str, opt: int = 3, module=None) -> str:
        if not enabled:
            return llvm_to_ptx.real(text, opt, module)
        key = ("llvm_to_ptx", hashlib.blake2b(text.encode(), digest_size=16).digest(), opt)
        ptx = _memo(key, lambda: llvm_to_ptx.real(text, opt), _shared_folder())
        if module is not None:
            from wsdialects.lower.ptxas import check_ptx

            check_ptx(ptx, module)
        return ptx

    def ptxas_memo(ptx: str, ptxas: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
        return run_ptxas(ptx, ptxas, extra) if enabled else ptxas_memo.real(ptx, ptxas, extra)

    for wrapper, wrapped in ((llvm_to_ptx, real), (ptxas_memo, _ptxas.run_ptxas)):
        wrapper.real = wrapped  # the wrapped function
        wrapper._session_cache = True
        wrapper.__doc__ = wrapped.__doc__
    _ptx.llvm_to_ptx = llvm_to_ptx
    _ptxas.run_ptxas = ptxas_memo
