"""A slot is read before it is released: the emitter reads `nvgpu.smem.load` where the IR
reads it, not where the value is first used. Read lazily at the use, the split attention
schedule's consumer loaded the row rescale `alpha` after its EMPTY arrival (the writer could
refill the slot first; compute-sanitizer racecheck run -23 found it, and the SASS showed
SYNCS.ARRIVE before the LDS)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernel_cache import compile_kernel
from wsdialects.lower.to_llvm import lower_module

ROOT = Path(__file__).resolve().parents[2]
SCHEDULED = ROOT / "test" / "Inputs" / "kernels" / "scheduled"

# the per-thread arrival of a ring with a computed payload (ws-lower-aref: `per_thread`)
_RELEASE = re.compile(r'asm sideeffect "mbarrier\.arrive\.shared::cta\.b64 _, \[\$0\];"')
_WAIT = re.compile(r"mbarrier\.try_wait\.parity")
_LOAD = re.compile(r'asm sideeffect "ld\.shared')


def _loads_after_release(ll: str) -> list[int]:
    """Lines with a shared-memory load between a per-thread release and the next wait of
    the same basic block (a block label ends the span)."""
    bad, released = [], False
    for k, line in enumerate(ll.splitlines()):
        if _RELEASE.search(line):
            released = True
        elif _WAIT.search(line) or re.match(r"^[\w.$]+:", line):
            released = False
        elif released and _LOAD.search(line):
            bad.append(k)
    return bad


@pytest.mark.parametrize("name", ["flash_attention_split", "flash_attention_causal_split"])
def test_slot_loads_precede_the_release(name):
    ll = lower_module(compile_kernel(SCHEDULED / f"{name}.mlir", "ws-hopper")).llvm_ir
    assert _RELEASE.search(ll) and _LOAD.search(ll)  # the pattern is there to check
    assert _loads_after_release(ll) == []


def test_the_check_finds_a_late_load():
    ll = "\n".join(['  call void asm sideeffect "mbarrier.try_wait.parity ..."',
                    '  %x = call i32 asm sideeffect "ld.shared.b32 $0, [$1];", "=r,r"(i32 %a)',
                    '  call void asm sideeffect "mbarrier.arrive.shared::cta.b64 _, [$0];", "r"(i32 %b)',
                    '  %y = call i32 asm sideeffect "ld.shared.b32 $0, [$1];", "=r,r"(i32 %a)'])
    assert _loads_after_release(ll) == [3]
