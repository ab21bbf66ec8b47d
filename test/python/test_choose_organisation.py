"""Semantic tests of ws-hopper's default organisation (ws-choose-organisation): kernels
interpreted as written and after ws-hopper with no options (the model's persistent ping-pong
team, or two CTAs per SM, ...) on fresh random inputs give the same outputs, under several
partition interleavings; the decision depends on what the kernel is, not on its name."""

import numpy as np
import pytest

import wsdialects
from cases import CASES, INPUTS, assert_same, run
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.transforms.organisation import ORGANISATION_ATTR, from_attr

OWN = INPUTS / "organisation"
SEMANTIC = [c for c in CASES if c.name in ("gemm", "causal_attention", "batched_gemm", "bias_gemm")]


def _organisation(module) -> dict:
    (k,) = [o for o in module.walk() if o.name == "func.func" and ORGANISATION_ATTR in o.attributes]
    return from_attr(k.attributes[ORGANISATION_ATTR])


@pytest.mark.parametrize("case", SEMANTIC, ids=lambda c: c.name)
def test_default_ws_hopper_preserves_semantics(case, rng):
    before = parse_kernel(case.path())
    after = compile_kernel(case.path(), "ws-hopper")
    org = _organisation(after)
    assert org["persistent"] and any(o.name == "nvgpu.wg.dispatch" for o in after.walk())
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))


def _f16(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


def test_own_gemm_with_epilogue_against_numpy(rng):
    """relu(A @ B^T + bias) on a 200 x 384 x 100 problem (M and K ragged; the bias load is unmasked), as written and after the default
    ws-hopper (a persistent ping-pong team): both equal numpy's (f32 accumulation, f16 output)."""
    M, N, K = 200, 384, 100
    a, b, bias = _f16(rng, M, K), _f16(rng, N, K), _f16(rng, N)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32).T + bias.astype(np.float32), 0)
    path = OWN / "gemm_bias_relu.mlir"
    after = compile_kernel(path, "ws-hopper")
    assert _organisation(after)["cooperative"] == 2 and _organisation(after)["pingpong"]
    outs = []
    for module in (parse_kernel(path), after):
        c = np.full((M, N), np.nan, np.float16)
        wsdialects.interpret(module, "gemm_bias_relu", grid=(-(-M // 128), -(-N // 128)), args=[a, b, bias, c, K],
                             seed=5)
        np.testing.assert_allclose(c.astype(np.float32), want, rtol=2e-2, atol=2e-2)
        outs.append(c)
    assert np.array_equal(outs[0], outs[1])


def test_own_small_k_gemm_before_and_after(rng):
    M, N = 300, 200
    a, b = _f16(rng, M, 128), _f16(rng, N, 128)
    path = OWN / "small_k_gemm.mlir"
    outs = []
    for module in (parse_kernel(path), compile_kernel(path, "ws-hopper")):
        c = np.full((M, N), np.nan, np.float16)
        wsdialects.interpret(module, "small_k_gemm", grid=(-(-M // 128) * -(-N // 128),), args=[a, b, c, M])
        outs.append(c)
    np.testing.assert_allclose(outs[0].astype(np.float32), (a.astype(np.float32) @ b.astype(np.float32).T),
                               rtol=2e-2, atol=5e-2)
    assert np.array_equal(outs[0], outs[1])


def _decision(text: str, pipeline: str = "ws-choose-organisation") -> dict:
    from wsdialects.tools.ws_opt import build_pipeline

    m = wsdialects.parse(text)
    build_pipeline(pipeline, "k.mlir").apply(None, m)
    return _organisation(m)


def test_decision_follows_the_kernel_not_its_name():
    text = (OWN / "gemm_bias_relu.mlir").read_text()
    base = _decision(text)
    assert base == _decision(text.replace("@gemm_bias_relu", "@flash_attention_causal"))
    # a smaller launch than the SMs hold: no persistent loop
    assert base["persistent"] and not _decision(text, "ws-choose-organisation{tiles=100}")["persistent"]
    # the same GEMM on 64-row tiles of one warp group: no team to split it, two CTAs per SM
    rows64 = (text.replace("tile.num_warps = 8", "tile.num_warps = 4")
              .replace("%a_desc: !tile.desc<tensor<128x64xf16>>", "%a_desc: !tile.desc<tensor<64x64xf16>>")
              .replace("%a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>",
                       "%a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>")
              .replace("tile.dot %a, %bt, %acc : tensor<128x64xf16>", "tile.dot %a, %bt, %acc : tensor<64x64xf16>")
              .replace("tensor<128x128xf32>", "tensor<64x128xf32>").replace("tensor<128x128xf16>", "tensor<64x128xf16>")
              .replace("%om = arith.muli %pm, %c128", "%om = arith.muli %pm, %c64"))
    small = _decision(rows64)
    assert (base["cooperative"], base["ctas-per-sm"]) == (2, 1)
    assert (small["cooperative"], small["ctas-per-sm"]) == (1, 2)


# The GEMM kinds of bench/gemm_kinds.py as the model decides them, each the fastest variant
# bench/default_vs_best.py found on the GPU: the batched and the fp8 GEMM (TMA-store epilogues,
# little to hide) persistent without a team; the pointer-store GEMM (examples/kernels/gemm.mlir)
# as a team; the GELU GEMM as a team (two CTAs per SM spill); the 64-row f32-output GEMM
# persistent at two CTAs per SM.
KINDS = INPUTS / "gemm_kinds"
MEASURED = [(KINDS / "batched_tma_gemm.mlir", (True, 1, 1)), (KINDS / "fp8_scaled_gemm.mlir", (True, 1, 1)),
            (INPUTS.parents[2] / "examples" / "kernels" / "gemm.mlir", (True, 2, 1)),
            (KINDS / "bias_gelu_gemm.mlir", (True, 2, 1)), (KINDS / "f32out_gemm.mlir", (True, 1, 2))]


@pytest.mark.parametrize("path,want", MEASURED, ids=lambda x: getattr(x, "stem", ""))
def test_gemm_kinds_organised_as_measured(path, want):
    org = _decision(path.read_text())
    assert (org["persistent"], org["cooperative"], org["ctas-per-sm"]) == want


def _kernel(path):
    (k,) = [o for o in wsdialects.parse(path.read_text()).walk() if o.name == "func.func"]
    return k


def test_two_ctas_per_sm_only_where_the_consumer_fits_their_registers():
    """At two CTAs per SM a thread gets 65536 / (2 x threads) registers: 128 for a consumer of one
    warp group. The GELU GEMM's 128x128 f32 accumulator alone takes 128 (156 with the branch's
    scalars, ws-register-budget): without the register rule the model would pair it (and ptxas
    would spill it); the 64x128 f32-output GEMM needs about 92 (ws-register-budget's estimate on
    the kernel built at two CTAs per SM) and is paired."""
    from wsdialects.schedule.machine import load_machine
    from wsdialects.transforms import organisation

    machine = load_machine("h100")
    gelu, f32out = _kernel(KINDS / "bias_gelu_gemm.mlir"), _kernel(KINDS / "f32out_gemm.mlir")
    alone = organisation.decide(gelu, machine, given={"cooperative": 1})  # no team: pairing is the alternative
    assert alone.options["ctas-per-sm"] == 1
    assert ("not 2 CTAs per SM: the consumer needs at least 156 registers per thread (ws-register-budget), "
            "above the 128 a thread gets at 2 CTAs per SM") in alone.reasons
    assert organisation._built_consumer_regs(f32out, True) == 92
    assert organisation.decide(f32out, machine).options["ctas-per-sm"] == 2


def test_two_ctas_per_sm_rule_decides_the_gelu_gemm(monkeypatch):
    """The register rule is what keeps the GELU GEMM at one CTA per SM: with it off, the model
    predicts two CTAs per SM fastest."""
    from wsdialects.schedule.machine import load_machine
    from wsdialects.transforms import organisation

    monkeypatch.setattr(organisation, "pair_registers", lambda *a: None)
    d = organisation.decide(_kernel(KINDS / "bias_gelu_gemm.mlir"), load_machine("h100"), given={"cooperative": 1})
    assert d.options["ctas-per-sm"] == 2


def test_batched_gemm_default_organisation_preserves_semantics(rng):
    """The batched TMA GEMM under ws-hopper with no options (persistent, one lockstep consumer of
    two warp groups) and as written give the same C on a ragged problem (M, N, K past the tiles)."""
    B, M, N, K = 2, 200, 300, 100
    a, b = _f16(rng, B, M, K), _f16(rng, B, N, K)
    path = KINDS / "batched_tma_gemm.mlir"
    after = compile_kernel(path, "ws-hopper")
    org = _organisation(after)
    assert (org["persistent"], org["cooperative"]) == (True, 1)
    outs = []
    for module, seed in ((parse_kernel(path), None), (after, None), (after, 3)):
        c = np.full((B, M, N), np.nan, np.float16)
        wsdialects.interpret(module, "batched_tma_gemm", grid=(-(-M // 128), -(-N // 256), B), args=[a, b, c, K],
                             seed=seed)
        outs.append(c)
    want = np.einsum("bmk,bnk->bmn", a.astype(np.float32), b.astype(np.float32))
    np.testing.assert_allclose(outs[0].astype(np.float32), want, rtol=2e-2, atol=5e-2)
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], outs[2])


@pytest.mark.parametrize("name", ["f32out_gemm", "bias_gelu_gemm"])
@pytest.mark.parametrize("persistent", [True, False])
def test_register_probe_is_ws_hoppers_build(name, persistent):
    """The model's estimate of the consumer's registers at two CTAs per SM is the one
    ws-register-budget writes on what ws-hopper builds with those options."""
    from wsdialects.lower.register_budget import REGS_ATTR
    from wsdialects.transforms import organisation

    path = KINDS / f"{name}.mlir"
    built = compile_kernel(path, f"ws-hopper{{auto=false persistent={str(persistent).lower()} ctas-per-sm=2 depth=2}}")
    want = max(o.attributes[REGS_ATTR].value.data for o in built.walk()
               if o.name == "nvgpu.wg.branch" and o.role.data != "producer")
    assert organisation._built_consumer_regs(_kernel(path), persistent) == want


def test_math_ops_without_a_machine_rule_are_priced():
    """tanh (GELU's) costs what an exponential costs on the SFU, fma what arithmetic costs: a GELU
    epilogue is not free."""
    from wsdialects.schedule.machine import load_machine
    from wsdialects.transforms.organisation import _reg_cycles

    machine = load_machine("h100")
    ops = {o.name: _reg_cycles(machine, o) for o in _kernel(KINDS / "bias_gelu_gemm.mlir").walk()
           if o.name in ("math.tanh", "math.fma", "arith.mulf")}
    assert machine.rule("math.tanh") is None and machine.rule("math.fma") is None  # else this test is moot
    assert ops["math.tanh"] == 128 * 128 / machine.rule("math.exp2")["per_cycle"]
    assert ops["math.fma"] == ops["arith.mulf"] > 0
