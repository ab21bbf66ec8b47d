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
