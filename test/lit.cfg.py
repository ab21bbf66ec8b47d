# lit configuration for wsdialects: `lit -sv test` from the repository root.
#
# Tools (`ws-opt`, `ws-schedule`, `filecheck`) come from the Python environment
# that runs lit (the venv locally and in CI); `not` and `diff` are builtins of
# lit's internal shell. `%shared` is the shared/ folder beside the checkout.

import os
import re
import shutil
import sys

import lit.formats

config.name = "wsdialects"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".json", ".test"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

# gpu/ and python/ are pytest suites; Inputs/ hold the files RUN lines read.
config.excludes = ["gpu", "python", "Output", "__pycache__", "Inputs", "lit.cfg.py"]

# --- tools: the running interpreter's bin/ first, then the repo's venv ---------
repo_root = os.path.dirname(config.test_source_root)
bin_dirs = [os.path.dirname(sys.executable), os.path.join(repo_root, ".venv", "bin")]
path = os.pathsep.join(
    [d for d in bin_dirs if os.path.isdir(d)] + [os.environ.get("PATH", "")]
)
config.environment["PATH"] = path
# WSDIALECTS_TEST_SOLVE_CACHE: the test command's (test/run.py) folder of CP-SAT answers that
# the lit and pytest runs share (test/solve_cache.py); unset, every model is solved for real.
for var in ("HOME", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "WSDIALECTS_TEST_SOLVE_CACHE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Internal errors in ws-opt must show up as test failures, not as tracebacks
# that a CHECK-NOT happens to miss.
config.environment.pop("WS_OPT_TRACEBACK", None)

# Resolve each tool to an absolute path (clearer failure output). A tool that is
# not installed is left as its bare name: the RUN line then fails by itself.
tools = {}
for tool in ("ws-opt", "ws-schedule", "filecheck"):
    found = shutil.which(tool, path=path)
    if found:
        tools[tool] = found


def _interpreter(script):
    """The Python that a console script's `#!` line names ('' if none)."""
    with open(script, "rb") as f:
        line = f.readline().decode(errors="replace")
    return line[2:].strip() if line.startswith("#!") else ""


def _start_zygote(tools):
    """Start test/tools/zygote.py's fork server (the tools imported once, not once per
    RUN line); returns {tool: client command} for the tools it serves."""
    if os.environ.get("WSDIALECTS_LIT_ZYGOTE", "1") == "0" or "ws-opt" not in tools:
        return {}
    python = _interpreter(tools["ws-opt"])  # the tools' own venv
    served = {t: p for t, p in tools.items() if _interpreter(p) == python}
    if not os.path.isfile(python) or not hasattr(os, "fork"):
        return {}
    import subprocess
    import tempfile
    import time

    zygote = os.path.join(config.test_source_root, "tools", "zygote.py")
    sock = os.path.join(tempfile.mkdtemp(prefix="ws-lit-"), "zygote.sock")
    env = dict(config.environment, OPENBLAS_NUM_THREADS="1")  # no BLAS threads: it forks
    # the test command's shared solve cache (test/solve_cache.py), in the server before it forks
    share = ([f"--path={config.test_source_root}", "--import=solve_cache:install",
              "--import=kernel_cache:install_ptx_memo"]  # and the PTX texts, ptxas's answers
             if config.environment.get("WSDIALECTS_TEST_SOLVE_CACHE") else [])
    subprocess.Popen(
        [python, zygote, "serve", sock, str(os.getpid()), "--preload=wsdialects", "--skip=wsdialects.runtime",
         "--import=llvmlite.ir", "--import=llvmlite.binding",  # imported on first use by -t llvm / ptx
         "--import=wsdialects.schedule.solvers:import_cp_model"]  # OR-Tools, by ws-schedule (~0.1 s a child)
        + share
        + [f"{t}={p}" for t, p in served.items()],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10  # it binds the socket before importing anything
    while not os.path.exists(sock) and time.monotonic() < deadline:
        time.sleep(0.01)
    client = _c_client(os.path.join(os.path.dirname(zygote), "zygote_client.c"))
    if client is not None:
        client = f"{client} {sock}"
    else:  # the client from zygote's cached bytecode (__pycache__), not compiled per command
        client = (f"{python} -S -E -c 'import sys; sys.path[0] = sys.argv[1]; from zygote import client; "
                  f"client(sys.argv[2], sys.argv[3], sys.argv[4:])' {os.path.dirname(zygote)} {sock}")
    return {t: f"{client} {p}" for t, p in served.items()}


def _c_client(source):
    """test/tools/zygote_client.c compiled by the C compiler found ($CC, `cc`, `gcc`, `clang`)
    into a folder removed when lit exits, or None: no compiler, or it failed (the Python client
    then runs). It starts in ~1 ms of CPU against ~13 ms for the Python client, for each of the
    ~900 tool commands of a run."""
    import atexit
    import subprocess
    import tempfile

    compiler = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
    if compiler is None:
        return None
    folder = tempfile.mkdtemp(prefix="ws-lit-client-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # lit's main process only
    out = os.path.join(folder, "zygote_client")
    try:
        subprocess.run([compiler, "-O2", "-o", out, source], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out if os.access(out, os.X_OK) else None


commands = {**tools, **_start_zygote(tools)}
for tool, command in commands.items():
    # Only the tool name as a command word, never inside a path or a flag.
    config.substitutions.append((r"(?<![\w./%-])" + re.escape(tool) + r"(?![\w.-])", command))

# --- %shared: design docs and reference kernels ---------------------------------
# Fallback without shared/: the bundled copies in examples/kernels/ (checked equal
# to shared/kernels/ by test/python/test_examples.py when both are present).
shared = os.path.normpath(os.path.join(repo_root, "..", "shared"))
if not os.path.isdir(os.path.join(shared, "kernels")):
    shared = os.path.join(repo_root, "shared")
if not os.path.isdir(os.path.join(shared, "kernels")):
    shared = os.path.join(repo_root, "examples")
config.substitutions.append(("%shared", shared))


# --- order on a fresh checkout: the longest files first ------------------------------
# lit starts the tests that took longest last time first (.lit_test_times.txt, which it
# writes after a run); a fresh clone has none and runs them alphabetically, so the slowest
# files (transforms/ws-hopper*, ws-schedule*) would start last and leave one of the two CI
# workers idle at the end. Seed the file with an estimate: one unit per RUN line, more for
# a RUN line that calls the schedule solver or emits LLVM / PTX. lit replaces it after the run.
def _seed_test_times(root):
    times = os.path.join(root, ".lit_test_times.txt")
    if os.path.exists(times):
        return
    lines = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in config.excludes]
        for name in filenames:
            if os.path.splitext(name)[1] not in config.suffixes:
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    runs = [l for l in f if "RUN:" in l]
            except OSError:
                continue
            cost = sum(1 + 4 * ("sched''ule{" in l) + ("-t llvm" in l or "-t ptx" in l) for l in runs)
            lines.append(f"{cost:e} {os.path.relpath(path, root).replace(os.sep, '/')}\n")
    try:
        with open(times, "w") as f:
            f.writelines(lines)
    except OSError:
        pass  # a read-only checkout: alphabetical order


_seed_test_times(config.test_source_root)
