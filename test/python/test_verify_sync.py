"""ws-verify-sync, the static synchronization check (issue 12), cannot pass wrong IR and
does not reject right IR.

Mutation tests: correctly compiled kernels (GEMM, attention, scheduled attention,
cooperative, ping-pong, persistent; aref IR and lowered mbarrier / named-barrier IR)
with one synchronizing op deleted or duplicated, or a ring's `consumers` / an mbarrier's
arrival count changed, must be reported, at that op where the op is still there (a
duplicate, a changed count) and naming the ring / barrier where it is gone. Then every
bundled kernel through every pipeline the tests use is accepted, and inside ws-specialize
a violation is an internal compiler error (exit 2), demonstrated on the defects of issue
12 (S1, S2) put back into ws-cooperative.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, IntegerAttr
from xdsl.printer import Printer

import wsdialects
from wsdialects.diagnostics import location_of, parse_text, verify
from wsdialects.sync import Violation
from wsdialects.sync.check import check_sync, kernels_to_check
from wsdialects.tools.targets import print_mlir
from kernel_cache import compile_kernel

REPO = Path(__file__).resolve().parents[2]
GEMM = REPO / "examples" / "kernels" / "gemm.mlir"
FLASH = REPO / "examples" / "kernels" / "flash_attention.mlir"
INPUTS = REPO / "test" / "Inputs" / "kernels"

CASES = [
    (GEMM, "ws-specialize"),
    (GEMM, "ws-hopper{auto=false}"),
    (GEMM, "ws-specialize{cooperative=2 pingpong=true}"),
    (GEMM, "ws-hopper{auto=false cooperative=2 pingpong=true}"),
    (GEMM, "ws-hopper{auto=false persistent=true}"),
    (FLASH, "ws-specialize{depth=2 mma-depth=1}"),
    (FLASH, "ws-hopper{auto=false cooperative=2}"),
    (FLASH, "ws-specialize{cooperative=2 pingpong=true}"),
    (FLASH, "ws-specialize{persistent=true}"),
    (INPUTS / "scheduled" / "flash_attention.mlir", "ws-specialize"),
    (INPUTS / "tma_store_gemm.mlir", "ws-specialize{cooperative=2}"),  # gathers
]
MUTATED = ("aref.put", "aref.consumed", "warp_group.turn_wait", "warp_group.turn_pass", "warp_group.gather",
           "nvgpu.mbarrier.arrive", "nvgpu.mbarrier.arrive_expect_tx", "nvgpu.mbarrier.try_wait.parity",
           "nvvm.barrier", "nvvm.barrier_arrive")


def compiled_text(path: Path, pipeline: str) -> str:
    m = compile_kernel(path, pipeline, shared=True)  # only printed
    out = StringIO()
    Printer(stream=out).print_op(m)
    return out.getvalue()


def _in_loop(op) -> bool:
    cur = op.parent_op()
    while cur is not None:
        if cur.name == "scf.for":
            return True
        cur = cur.parent_op()
    return False


def _branch_threads(op) -> int | None:
    cur = op.parent_op()
    while cur is not None and cur.name not in ("warp_group.partition", "nvgpu.wg.branch"):
        cur = cur.parent_op()
    if cur is None:
        return None
    return 32 * (cur.warps if cur.name == "warp_group.partition" else cur.num_warps)


def no_effect(op, mode: str) -> bool:
    """Mutations that change nothing the check models (and nothing on the GPU either)."""
    if op.name == "nvvm.barrier":
        if op.id.value.data == 0:  # the CTA barrier after the mbarrier inits: twice is harmless
            return mode == "duplicate"
        if op.threads is not None and op.threads.value.data == _branch_threads(op):
            return True  # a partition's own barrier (warp_group.barrier): one thread of control here
    if op.name == "nvgpu.mbarrier.try_wait.parity" and mode == "delete" and not _in_loop(op):
        # the producer's wait for a one-shot slot: a fresh barrier passes parity 1 at once
        parity = op.parity.owner
        return getattr(parity, "name", "") == "arith.xori"
    return False


def object_named(op) -> tuple[str, ...]:
    """What a report about this op names (any of): its ring or barrier array, its named
    barrier; a missing wait shows as the race or the phase overrun it lets happen."""
    if op.name == "nvgpu.mbarrier.try_wait.parity":
        return "%" + op.operands[0].name_hint, "data race", "overrun"
    if op.name.startswith(("aref.", "nvgpu.mbarrier.")) and op.operands[0].name_hint:
        return ("%" + op.operands[0].name_hint,)
    if op.name.startswith("nvvm.barrier"):
        return ("nvvm.barrier 0",) if op.id.value.data == 0 else (f"named barrier {op.id.value.data}",)
    if op.name.startswith("warp_group.turn"):
        return ("turn",)
    return ()


def text_mutants(text: str):
    """(description, mutated text, expected line or None, text the report must contain, edit):
    one synchronizing op deleted or duplicated, a ring's `consumers` or an mbarrier's arrival
    count changed, as an edit of the printed kernel's lines. `edit` makes the same mutant
    from the kernel parsed once (`ir_mutant`), without parsing the mutated text."""
    lines = text.split("\n")
    base = parse_text(text, "m.mlir")
    by_kind: dict[str, list] = {}
    for o in base.walk():
        if o.name in MUTATED:
            by_kind.setdefault(o.name, []).append(o)
    for kind, ops in sorted(by_kind.items()):
        for o in dict.fromkeys([ops[0], ops[len(ops) // 2], ops[-1]]):  # first, middle, last of each kind
            i = location_of(o)[1] - 1
            for mode in ("delete", "duplicate"):
                if o.results or no_effect(o, mode):  # (an op with results cannot be deleted or duplicated alone)
                    continue
                new = lines[:i] + lines[i + 1:] if mode == "delete" else lines[:i + 1] + lines[i:]
                exact = mode == "duplicate" and not o.name.startswith("nvvm.")
                yield (f"{mode} line {i + 1}: {lines[i].strip()[:70]}", "\n".join(new),
                       i + 2 if exact else None, object_named(o), (mode, i + 1, o.name, None))
    for i, line in enumerate(lines):
        if "aref.create" in line:
            n = int(m.group(1)) if (m := re.search(r"consumers = (\d+)", line)) else 1
            new = re.sub(r"aref.create( consumers = \d+)? :", f"aref.create consumers = {n + 1} :", line)
            yield (f"consumers {n} -> {n + 1} at line {i + 1}", "\n".join(lines[:i] + [new] + lines[i + 1:]), i + 1,
                   (), ("property", i + 1, "aref.create", ("consumers", n + 1)))
        elif "nvgpu.mbarrier.init" in line:
            new = re.sub(r"count (\d+)", lambda m: f"count {int(m.group(1)) * 2}", line)
            count = int(re.search(r"count (\d+)", line).group(1))
            yield (f"init count x2 at line {i + 1}", "\n".join(lines[:i] + [new] + lines[i + 1:]), i + 1, (),
                   ("property", i + 1, "nvgpu.mbarrier.init", ("count", count * 2)))


def _shift_lines(module, after: int, by: int) -> None:
    """Every op located below line `after` moves `by` lines (as when a line is inserted or removed)."""
    for o in module.walk():
        loc = o.location
        if isinstance(loc, FileLineColLoc) and loc.line.data > after:
            o.location = FileLineColLoc(loc.filename, IntAttr(loc.line.data + by), loc.column)


def ir_mutant(base, edit):
    """The mutant `edit` describes (see `text_mutants`), made on a copy of `base` (the kernel
    parsed from the unmutated text) and verified as `parse_text` verifies the mutated text:
    the same module, source locations included, in a fraction of a parse."""
    mode, line, name, prop = edit
    m = base.clone()
    at = [o for o in m.walk() if o.name == name and isinstance(o.location, FileLineColLoc)
          and o.location.line.data == line]
    assert len(at) == 1, (edit, len(at))  # one op per line in printed IR
    o = at[0]
    if mode == "property":
        o.properties[prop[0]] = IntegerAttr(prop[1], 32)  # as the op's parser builds it
    elif mode == "delete":
        o.detach()
        o.erase()
        _shift_lines(m, line, -1)
    else:  # duplicate: the copy is the next line
        _shift_lines(m, line, 1)
        copy = o.clone()
        copy.location = FileLineColLoc(o.location.filename, IntAttr(line + 1), o.location.column)
        o.parent_block().insert_op_after(copy, o)
    verify(m, "m.mlir")
    return m


def mutants(text: str):
    """(description, mutant module or None where the verifier rejects it, expected line or None,
    text the report must contain), every mutant made from one parse of `text`."""
    base = parse_text(text, "m.mlir")
    for what, _, line, named, edit in text_mutants(text):
        try:
            mutant = ir_mutant(base, edit)
        except wsdialects.WsError:
            mutant = None  # the verifier rejects it already (e.g. a second release of one position in a block)
        yield what, mutant, line, named


@pytest.mark.parametrize("path,pipeline", CASES, ids=[f"{p.stem}-{q}" for p, q in CASES])
def test_mutations_are_reported(path, pipeline):
    text = compiled_text(path, pipeline)
    assert check_sync(parse_text(text, "m.mlir")) > 0  # traces were run: the check is not vacuous
    problems, count = [], 0
    for what, mutant, line, named in mutants(text):
        if mutant is None:
            continue
        count += 1
        try:
            check_sync(mutant)
            problems.append(f"not reported: {what}")
            continue
        except Violation as v:
            at = location_of(v.op)
            if line is not None and (at is None or at[1] != line):
                problems.append(f"{what}: reported at line {at and at[1]}, not {line}: {v.message}")
            if named and not any(n in v.message for n in named):
                problems.append(f"{what}: the report names none of {named}: {v.message}")
    assert count >= 3, count  # not vacuous
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path,pipeline", [CASES[0], CASES[3], CASES[10]],
                         ids=[f"{p.stem}-{q}" for p, q in [CASES[0], CASES[3], CASES[10]]])
def test_ir_mutants_are_the_text_mutants(path, pipeline):
    """The mutants above are made on the parsed kernel (a parse per mutant took most of this
    file's time); each is the module the mutated text parses to, source locations included,
    and the verifier rejects the same ones. On aref IR, lowered IR and gathers."""
    text = compiled_text(path, pipeline)
    base = parse_text(text, "m.mlir")
    kinds = set()
    for what, mutated, _, _, edit in text_mutants(text):
        if (edit[0], edit[2]) in kinds:
            continue  # one of each edit of each op kind: a text mutant costs a parse
        kinds.add((edit[0], edit[2]))
        try:
            want = print_mlir(parse_text(mutated, "m.mlir"), debuginfo=True)
        except wsdialects.WsError as e:
            want = f"rejected: {e}"
        try:
            got = print_mlir(ir_mutant(base, edit), debuginfo=True)
        except wsdialects.WsError as e:
            got = f"rejected: {e}"
        assert got == want, what
    assert {k[0] for k in kinds} == {"delete", "duplicate", "property"}, kinds


# ---------------------------------------------------------------------------- no false positives

KERNELS = sorted(p for p in [*(REPO / "examples" / "kernels").glob("*.mlir"), *INPUTS.glob("*.mlir")]
                 if not p.name.startswith("bad_"))
PIPELINES = ["ws-hopper{auto=false}", "ws-hopper{auto=false cooperative=2}", "ws-hopper{auto=false cooperative=2 pingpong=true}",
             "ws-hopper{auto=false persistent=true}"]


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_bundled_kernels_are_accepted(path, pipeline):
    """ws-hopper checks the aref IR and the lowered IR; a kernel a pipeline rejects as
    input (a located error) is not this test's business."""
    try:
        m = compile_kernel(path, pipeline, shared=True)  # only checked
    except wsdialects.WsError as e:
        assert "internal compiler error" not in str(e), str(e)
        return
    if kernels_to_check(m):
        assert check_sync(m) > 0


SCHEDULED = sorted(p for p in (INPUTS / "scheduled").glob("*.mlir") if "bad" not in p.stem)


@pytest.mark.parametrize("pipeline", ["ws-specialize{cooperative=2}", "ws-hopper{auto=false}"])
@pytest.mark.parametrize("path", SCHEDULED, ids=[p.stem for p in SCHEDULED])
def test_scheduled_kernels_are_accepted(path, pipeline):
    m = compile_kernel(path, pipeline, shared=True)  # only checked
    assert check_sync(m) > 0


# ---------------------------------------------------------------------------- inside ws-specialize


def test_a_pass_defect_is_an_internal_error(monkeypatch, capsys):
    """S1 put back into ws-cooperative (every ring read in a region it split counted G
    consumers): ws-opt exits 2 with a located internal error, and writes no kernel. The first
    ring it names is %x's, which all three consumer partitions read through one ring."""
    from test_cooperative_rings import put_back_s1

    from wsdialects.tools import ws_opt

    put_back_s1(monkeypatch)
    kernel = INPUTS / "scheduled" / "two_dots_shared_load.mlir"
    with pytest.raises(SystemExit) as exit_:
        ws_opt.main([str(kernel), "-p", "ws-specialize{cooperative=2}"])
    out = capsys.readouterr()
    assert exit_.value.code == 2, out.err
    assert not out.out
    line = next(i for i, t in enumerate(kernel.read_text().splitlines(), 1) if "%u2 = tile.dot" in t)
    assert re.search(rf"two_dots_shared_load.mlir:{line}:7: error: internal compiler error: ws-verify-sync: ring "
                     r"%\w+ has consumers = 2, but it is released by 3 partitions:", out.err), out.err


def test_s2_put_back_is_an_internal_error_at_the_put_value(monkeypatch, capsys):
    """S2 put back (ws-cooperative splitting a partition that puts): reported at the op
    computing the tile both groups put (the aref ops ws-distribute made have no location)."""
    from wsdialects.tools import ws_opt

    monkeypatch.setattr("wsdialects.transforms.cooperative.PutOp", type("NoPut", (), {}))
    kernel = INPUTS / "scheduled" / "flash_attention_p_on_w1.mlir"
    with pytest.raises(SystemExit) as exit_:
        ws_opt.main([str(kernel), "-p", "ws-hopper{auto=false cooperative=2}"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert (f"{kernel}:43:7: error: internal compiler error: ws-verify-sync: ring %aref_p is put into by partition 2 "
            "(consumer_w10) and by partition 3 (consumer_w11): a ring has one producing partition") in err, err


def test_group_lists_read_as_prose():
    """Messages name groups in words, never as a Python list (issue 14): ws-lower-warp-groups'
    missing turn (lit: test/transforms/ws-lower-warp-groups.mlir, LONELY), the gather rule
    and the simulator's stuck gather use `numbered`; counts use `counted`."""
    from wsdialects.diagnostics import counted, numbered

    assert numbered("group", [1]) == "group 1"
    assert numbered("group", [1, 2]) == "groups 1 and 2"
    assert numbered("group", [0, 1, 3]) == "groups 0, 1 and 3"
    # counts too, never "time(s)" (lit: test/transforms/ws-verify-sync.mlir, CONSUMERS)
    assert (counted(1, "partition"), counted(0, "time"), counted(2, "arrival")) == ("1 partition", "0 times",
                                                                                     "2 arrivals")
