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
for var in ("HOME", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Internal errors in ws-opt must show up as test failures, not as tracebacks
# that a CHECK-NOT happens to miss.
config.environment.pop("WS_OPT_TRACEBACK", None)

# Resolve each tool to an absolute path (clearer failure output). A tool that is
# not installed is left as its bare name: the RUN line then fails by itself.
for tool in ("ws-opt", "ws-schedule", "filecheck"):
    found = shutil.which(tool, path=path)
    if found:
        # Only the tool name as a command word, never inside a path or a flag.
        config.substitutions.append(
            (r"(?<![\w./%-])" + re.escape(tool) + r"(?![\w.-])", found)
        )

# --- %shared: design docs and reference kernels ---------------------------------
# Fallback without shared/: the bundled copies in examples/kernels/ (checked equal
# to shared/kernels/ by test/python/test_examples.py when both are present).
shared = os.path.normpath(os.path.join(repo_root, "..", "shared"))
if not os.path.isdir(os.path.join(shared, "kernels")):
    shared = os.path.join(repo_root, "shared")
if not os.path.isdir(os.path.join(shared, "kernels")):
    shared = os.path.join(repo_root, "examples")
config.substitutions.append(("%shared", shared))
