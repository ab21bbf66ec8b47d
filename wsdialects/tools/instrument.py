"""What runs between the passes of a pipeline: verification, MLIR's IR dumps and
timing, and the warning for a pass that had no kernel to work on.

- the module is verified after every pass (a failure is located at the op), once: a
  composite pass (ws-specialize, ws-hopper) that verified it as its last step is not
  verified again;
- `--mlir-print-ir-before-all` / `--mlir-print-ir-after-all` / `--mlir-print-ir-after-failure`
  print the module on stderr under MLIR's header,
  `// -----// IR Dump After SpecializePass (ws-specialize) //----- //`;
- `--mlir-timing` collects each pass's wall time for `Timing.report()`, a table in the
  layout of MLIR's execution time report;
- a module with functions but no `tile.kernel` function, left unchanged by a pass, gets
  a warning at its first function: the pass did nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from wsdialects.diagnostics import location_of, note_at, take_verified, verify


class Timing:
    """Wall time per row (parsing, each pass, verification, output), in first-seen order."""

    def __init__(self):
        self.rows: dict[str, float] = {}
        self.start = time.perf_counter()

    def add(self, name: str, seconds: float) -> None:
        self.rows[name] = self.rows.get(name, 0.0) + seconds

    def report(self) -> str:
        total = max(time.perf_counter() - self.start, 1e-9)
        bar = "===" + "-" * 73 + "==="
        out = [bar, "... Execution time report ...".center(79).rstrip(), bar,
               f"  Total Execution Time: {total:.4f} seconds", "", "  ----Wall Time----  ----Name----"]
        for name, t in self.rows.items():
            out.append(f"  {t:8.4f} ({100 * t / total:5.1f}%)  {name}")
        out.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(out) + "\n"


@dataclass
class Instrumentation:
    """The MLIR debugging flags of ws-opt (all off: verification only)."""

    print_before: bool = False
    print_after: bool = False
    print_after_failure: bool = False
    timing: Timing | None = None
    print_ir: Callable[[ModuleOp], str] | None = None  # module -> text, as the output is printed


def has_kernel(module: ModuleOp) -> bool:
    from wsdialects.tile import KERNEL_ATTR

    return any(op.name == "func.func" and KERNEL_ATTR in op.attributes for op in module.walk())


def _no_kernel_location(module: ModuleOp, file: str) -> tuple[str, int, int]:
    """The first function (the one the user probably meant to mark)."""
    for op in module.walk():
        if op.name == "func.func" and (loc := location_of(op)):
            return loc
    return (file, 1, 1)


class PassObserver:
    """The callback of a PassPipeline (called before the first pass, between passes
    and after the last): verification, dumps, timing and the no-kernel warning."""

    def __init__(self, file: str, instr: Instrumentation | None = None):
        self.file = file
        self.instr = instr or Instrumentation()
        self.running: ModulePass | None = None
        self.started = 0.0
        self.before: ModuleOp | None = None  # a copy, only while no tile.kernel function exists

    def dump(self, when: str, p: ModulePass, module: ModuleOp) -> None:
        text = self.instr.print_ir(module) if self.instr.print_ir else str(module) + "\n"
        name = type(p).__name__ + (" Failed" if when == "Failed" else "")
        sys.stderr.write(f"// -----// IR Dump {'After' if when == 'Failed' else when} {name} ({p.name}) //----- //\n"
                         f"{text}\n")

    def __call__(self, prev: ModulePass | None, module: ModuleOp, nxt: ModulePass | None) -> None:
        timing = self.instr.timing
        if prev is not None:
            if timing is not None:
                timing.add(prev.name, time.perf_counter() - self.started)
            t0 = time.perf_counter()
            if not take_verified(module):  # a composite pass verified it as its last step
                verify(module, self.file)
            if timing is not None:
                timing.add("Verifier", time.perf_counter() - t0)
            if self.before is not None and module.is_structurally_equivalent(self.before):
                note_at(_no_kernel_location(module, self.file), "warning",
                        f"{prev.name} did nothing: no function has the 'tile.kernel' attribute "
                        "(mark the kernel: func.func @k(...) attributes {tile.kernel})")
            self.running = self.before = None
            if self.instr.print_after:
                self.dump("After", prev, module)
        if nxt is not None:
            take_verified(module)  # only the pass about to run may mark the module verified
            if self.instr.print_before:
                self.dump("Before", nxt, module)
            # a module with functions but no kernel: watch whether the pass changes anything
            # (one with no function at all, e.g. the comment-only part of a split file, is quiet)
            watch = not has_kernel(module) and any(op.name == "func.func" for op in module.walk())
            self.before = module.clone() if watch else None
            self.running = nxt
            self.started = time.perf_counter()

    def failed(self, module: ModuleOp) -> None:
        """The running pass (or the verifier after it) failed: dump if asked."""
        if self.running is not None and self.instr.print_after_failure:
            self.dump("Failed", self.running, module)
