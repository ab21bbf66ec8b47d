"""What ptxas says about generated PTX: registers, spills and stack frame per function
(`ptxas -v`), and a located warning at the kernel function where ptxas spills.

    $ ws-opt gemm_w4.mlir -p ws-hopper -t ptx -o k.ptx
    gemm_w4.mlir:3:3: warning: ptxas: kernel 'matmul' spills registers to local memory:
    2568 bytes spill stores, 2056 bytes spill loads, 936-byte stack frame (255 registers per thread)

Where ptxas serializes the wgmma pipeline (it injects a `warpgroup.arrive` / `wait`, C7509-C7520)
that is a located warning as well: the code generator is meant never to cause it.

`-t ptx` runs ptxas only where it is installed (`ptxas` on PATH, or WSDIALECTS_PTXAS names
it); where it is not, or WSDIALECTS_PTXAS=0, the check is skipped without a word: the PTX
is the same either way. ptxas rejecting the PTX is reported too (the PTX is
not written: it is an error at the kernel function, with ptxas's reason, e.g. a kernel whose
wgmma accumulators do not fit the registers a thread gets at the CTAs per SM asked for
(`ptxas fatal : (C7602) Insufficient registers (80) to compile instruction ...`);
WSDIALECTS_PTXAS=0 writes such PTX without the check, for a bug report.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from wsdialects.diagnostics import error_at, warning

ARCH = "sm_90a"
TIMEOUT_S = 300


@dataclass
class PtxasInfo:
    """ptxas's `-v` report for one function."""

    name: str
    registers: int | None = None
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    serialized: list[str] = field(default_factory=list)  # ptxas's wgmma-serialization notes (C75xx)

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0


_FUNC = re.compile(r"(?:Compiling entry function|Function properties for)\s+'?([\w$.]+)'?")
_PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
# "(C7519) warpgroup.arrive is injected in around line 499 by compiler to allow use of registers
# in GMMA in function 'matmul'", "(C7511) Potential Performance Loss: wgmma.mma_async instructions
# are serialized due to ... in the function 'matmul'", "(C7512) ... due to insufficient register
# resources for the function 'f'" (printed before the function's other lines): the wgmma pipeline is serialized
_SERIAL = re.compile(r"\((C75\d\d)\)\s*(.*?)\s*(?:(?:in|for) (?:the )?function '?([\w$.]+)'?)?\s*$")
_WGMMA = re.compile(r"wgmma|warpgroup|gmma", re.IGNORECASE)


def serializing(code: str, text: str) -> bool:
    """A C75xx note that says ptxas serialized the wgmma pipeline: any one that speaks of wgmma,
    warpgroup or GMMA (C7508, setmaxnreg ignored, is reported as such elsewhere)."""
    return code != "C7508" and bool(_WGMMA.search(text))


def parse_report(text: str) -> dict[str, PtxasInfo]:
    """Per function, what `ptxas -v` printed (its stderr): registers used, stack frame,
    spill bytes and the notes where ptxas serializes the wgmma pipeline (C75xx notes on
    wgmma: it injected a warpgroup.arrive / wait, or ran the wgmmas one by one). Lines are attributed to the function named last ("Compiling entry
    function 'f'", "Function properties for f")."""
    out: dict[str, PtxasInfo] = {}
    cur: PtxasInfo | None = None
    for line in text.splitlines():
        if (m := _SERIAL.search(line)) and serializing(m.group(1), m.group(2)):
            where = out.setdefault(m.group(3), PtxasInfo(m.group(3))) if m.group(3) else cur
            if where is not None:
                where.serialized.append(f"({m.group(1)}) {m.group(2)}")
            continue
        if m := _FUNC.search(line):
            cur = out.setdefault(m.group(1), PtxasInfo(m.group(1)))
        if cur is None:
            continue
        if m := _PROPS.search(line):
            cur.stack_frame, cur.spill_stores, cur.spill_loads = (int(g) for g in m.groups())
        if m := _USED.search(line):
            cur.registers = int(m.group(1))
    return out


def find_ptxas() -> str | None:
    """The ptxas to run, or None (not installed, or WSDIALECTS_PTXAS=0)."""
    env = os.environ.get("WSDIALECTS_PTXAS")
    if env is not None and env.strip().lower() in ("0", "off", "no", "false", ""):
        return None
    return shutil.which(env or "ptxas")


def run_ptxas(ptx: str, ptxas: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    """Assemble `ptx` for sm_90a with `-v`: (exit status, ptxas's diagnostics)."""
    with tempfile.TemporaryDirectory(prefix="ws-ptxas-") as d:
        src = Path(d) / "k.ptx"
        src.write_text(ptx)
        try:
            r = subprocess.run([ptxas, f"-arch={ARCH}", "-v", *extra, str(src), "-o", str(Path(d) / "k.cubin")],
                               capture_output=True, text=True, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            return -1, str(e)
        return r.returncode, r.stderr + r.stdout


def _reason(text: str) -> str:
    """The line of ptxas's output that says why it failed: a numbered diagnostic ("(C7602)
    Insufficient registers ..."), else the first line with "error", else the first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for test in (lambda ln: re.search(r"\(C\d{4}\)", ln), lambda ln: "error" in ln.lower(), lambda ln: True):
        if found := next((ln for ln in lines if test(ln) and "aborted due to errors" not in ln), None):
            return found
    return text.strip()[:200]


def check_ptx(ptx: str, module: ModuleOp) -> dict[str, PtxasInfo] | None:
    """Run ptxas on `ptx` (made from `module`) where it is installed and warn, at each kernel
    function, about the spills ptxas reports; None where ptxas is not run. PTX that ptxas
    rejects is an error at the kernel (it would not load on the GPU either)."""
    ptxas = find_ptxas()
    if ptxas is None:
        return None
    rc, text = run_ptxas(ptx, ptxas)
    funcs = {f.sym_name.data: f for f in module.walk() if isinstance(f, func.FuncOp)}
    if rc != 0:
        raise error_at(next(iter(funcs.values()), module),
                       f"ptxas could not assemble the PTX (exit {rc}): {_reason(text)}")
    infos = parse_report(text)
    for name, info in infos.items():
        if info.spills:
            regs = f" ({info.registers} registers per thread)" if info.registers is not None else ""
            warning(funcs.get(name, module),
                    f"ptxas: kernel '{name}' spills registers to local memory: {info.spill_stores} bytes spill "
                    f"stores, {info.spill_loads} bytes spill loads, {info.stack_frame}-byte stack frame{regs}")
        if info.serialized:
            warning(funcs.get(name, module),
                    f"ptxas: kernel '{name}': the wgmma pipeline is serialized: " + "; ".join(info.serialized))
    return infos
