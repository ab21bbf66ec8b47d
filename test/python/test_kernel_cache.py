"""test/kernel_cache.py gives exactly what the uncached calls give: the same IR (printed
generically, with locations), the same remarks, the same errors, a copy of its own."""

from io import StringIO

import pytest
from xdsl.printer import Printer

import kernel_cache
import wsdialects
from cases import CASES
from wsdialects.tools.ws_opt import build_pipeline

GEMM = CASES[0].path()
SPECS = ["ws-partition,ws-distribute{depth=2}", "ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1}",
         "ws-specialize{cooperative=2}", "ws-hopper{persistent=true}"]


def printed(module) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(module)
    return out.getvalue()


def uncached(path, pipeline):
    m = wsdialects.parse_file(path)
    build_pipeline(pipeline, str(path)).apply(None, m)
    return m


@pytest.fixture
def fresh_cache():
    saved = dict(kernel_cache._modules)
    kernel_cache._modules.clear()
    yield
    kernel_cache._modules.clear()
    kernel_cache._modules.update(saved)


@pytest.mark.parametrize("case", CASES[:3], ids=lambda c: c.name)
def test_same_ir_on_a_miss_a_hit_and_a_resumed_prefix(case, fresh_cache):
    for spec in SPECS:  # the second spec resumes from the first
        want = printed(uncached(case.path(), spec))
        assert printed(kernel_cache.compile_kernel(case.path(), spec)) == want  # miss (or prefix)
        assert printed(kernel_cache.compile_kernel(case.path(), spec)) == want  # hit
    assert printed(kernel_cache.parse_kernel(case.path())) == printed(wsdialects.parse_file(case.path()))


def test_options_are_part_of_the_key(fresh_cache):
    a = printed(kernel_cache.compile_kernel(GEMM, "ws-specialize{depth=2 mma-depth=1}"))
    b = printed(kernel_cache.compile_kernel(GEMM, "ws-specialize{depth=3 mma-depth=1}"))
    assert a != b and b == printed(uncached(GEMM, "ws-specialize{depth=3 mma-depth=1}"))
    # an option left at its default is the same pass
    assert printed(kernel_cache.compile_kernel(GEMM, "ws-specialize{depth=3 mma-depth=2}")) == \
        printed(kernel_cache.compile_kernel(GEMM, "ws-specialize{depth=3}"))


def test_each_caller_gets_its_own_copy(fresh_cache):
    m = kernel_cache.compile_kernel(GEMM, "ws-partition")
    want = printed(m)
    m.body.block.ops.first.detach()
    assert printed(kernel_cache.compile_kernel(GEMM, "ws-partition")) == want
    p = kernel_cache.parse_kernel(GEMM)
    p.body.block.ops.first.detach()
    assert printed(kernel_cache.parse_kernel(GEMM)) == printed(wsdialects.parse_file(GEMM))


def test_remarks_are_printed_on_every_hit(fresh_cache, capsys):
    path = CASES[3].path()  # bias_gemm: ws-cooperative leaves its consumer one group, with a remark
    spec = "ws-partition,ws-distribute{depth=2},ws-cooperative{groups=2}"
    uncached(path, spec)
    want = capsys.readouterr()
    assert "remark: ws-cooperative" in want.err
    for _ in range(2):
        kernel_cache.compile_kernel(path, spec)
        got = capsys.readouterr()
        assert (got.out, got.err) == (want.out, want.err)


def test_errors_are_raised_every_time_and_never_kept(fresh_cache, tmp_path):
    bad = tmp_path / "k.mlir"
    bad.write_text(GEMM.read_text().replace("tile.dot", "tile.dotx", 1))
    for _ in range(2):
        with pytest.raises(wsdialects.WsError, match="tile.dotx"):
            kernel_cache.compile_kernel(bad, "ws-partition")
    with pytest.raises(wsdialects.WsError, match="unknown pass"):
        kernel_cache.compile_kernel(GEMM, "ws-no-such-pass")
    for _ in range(2):  # a pass that refuses its options
        with pytest.raises(wsdialects.WsError, match="must be smaller than the aref ring depth"):
            kernel_cache.compile_kernel(GEMM, "ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=3}")
    assert not any("ws-pipeline-mma" in str(k) for k in kernel_cache._modules)


def test_a_changed_file_is_parsed_again(fresh_cache, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GEMM.read_text())
    first = printed(kernel_cache.compile_kernel(f, "ws-partition"))
    f.write_text(GEMM.read_text().replace("tile.num_warps = 8", "tile.num_warps = 12"))
    second = printed(kernel_cache.compile_kernel(f, "ws-partition"))
    assert first != second and second == printed(uncached(f, "ws-partition"))


def test_off_while_a_test_monkeypatches(monkeypatch):
    assert kernel_cache.enabled is False
    before = len(kernel_cache._modules)
    kernel_cache.compile_kernel(GEMM, "ws-partition,ws-distribute{depth=1}")
    assert len(kernel_cache._modules) == before


def test_on_otherwise():
    assert kernel_cache.enabled is True


def test_a_prefix_whose_first_steps_were_dropped_runs_again(fresh_cache, capsys):
    path = CASES[3].path()
    spec = "ws-partition,ws-distribute{depth=2},ws-cooperative{groups=2}"
    want = printed(kernel_cache.compile_kernel(path, spec))
    err = capsys.readouterr().err
    first = next(k for k in kernel_cache._modules if len(k) == 4)  # the module after ws-partition
    del kernel_cache._modules[first]
    assert printed(kernel_cache.compile_kernel(path, spec)) == want
    assert capsys.readouterr().err == err


def test_a_shared_module_is_the_kept_one_and_a_change_to_it_is_caught(fresh_cache):
    """shared=True lends the kept module (the same object on a hit, what a copy prints) and
    checks it unchanged whenever it is handed out again or copied: each kind of change fails
    the next call loudly (and drops the module: the call after that computes it afresh)."""
    from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, f32

    spec = "ws-specialize{cooperative=2}"
    want = printed(uncached(GEMM, spec))
    lent = kernel_cache.compile_kernel(GEMM, spec, shared=True)  # a miss: the module itself is kept
    assert kernel_cache.compile_kernel(GEMM, spec, shared=True) is lent and printed(lent) == want
    copy = kernel_cache.compile_kernel(GEMM, spec)
    assert copy is not lent and printed(copy) == want
    assert kernel_cache.parse_kernel(GEMM, shared=True) is kernel_cache.parse_kernel(GEMM, shared=True)

    def retyped(m):
        v = next(r for o in m.walk() for r in o.results if isinstance(r.type, TensorType))
        v._type = TensorType(f32, v.type.get_shape())

    changes = [lambda m: next(o for o in m.walk() if o.name == "aref.put").detach(),
               lambda m: next(o for o in m.walk() if o.name == "func.func").attributes.update(x=StringAttr("y")),
               lambda m: next(o for o in m.walk() if o.name == "aref.create").properties.update(
                   consumers=IntegerAttr(7, 32)),
               retyped,
               lambda m: setattr(next(r for o in m.walk() for r in o.results), "name_hint", "renamed")]
    for change in changes:
        change(kernel_cache.compile_kernel(GEMM, spec, shared=True))
        with pytest.raises(AssertionError, match="lent with shared=True was changed"):
            kernel_cache.compile_kernel(GEMM, spec)
        assert printed(kernel_cache.compile_kernel(GEMM, spec, shared=True)) == want  # computed again



# The memo does not read the text: the least LLVM IR module that the NVPTX back end makes PTX of.
TINY_LLVM = """target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
"""


def test_ptx_memo_assembles_each_llvm_text_once():
    """install_ptx_memo (test/conftest.py installs it): the PTX of an LLVM IR text is made
    once per run and is what the real function gives; the optimization level is part of the
    key; the ptxas check of a call with a `module` still runs on every call; a text that does
    not parse raises every time. (No `monkeypatch` here: it would switch the memo off.)"""
    import os

    import wsdialects.lower.ptxas as ptxas_mod
    from wsdialects.lower import ptx

    memo = ptx.llvm_to_ptx
    assert getattr(memo, "_session_cache", False)
    module = object()  # what the text was lowered from: handed to the (recording) ptxas check
    text = TINY_LLVM + f"\n; {os.urandom(8).hex()}\n"  # a text no other test asks for
    real, calls, checked = memo.real, [], []

    def counted(*args):
        calls.append(args[1:])
        return real(*args)

    saved_check = ptxas_mod.check_ptx
    memo.real, ptxas_mod.check_ptx = counted, lambda p, m: checked.append((p, m))
    try:
        first = memo(text)
        assert first == real(text)
        assert memo(text) == first and memo(text, module=module) == first
        assert calls == [(3,)] and checked == [(first, module)]
        assert memo(text, 2) == real(text, 2) and calls == [(3,), (2,)]
        for _ in range(2):
            with pytest.raises(RuntimeError, match="does not parse"):
                memo("this is not LLVM IR")
        assert len(calls) == 4
    finally:
        memo.real, ptxas_mod.check_ptx = real, saved_check
