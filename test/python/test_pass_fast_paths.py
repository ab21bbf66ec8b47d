"""The passes' shortcuts give what the plain path gives: ws-lower-warp-groups verifies only the
ops it moved or made (the whole dispatch verifies too, turns and named barriers included), and
ws-cooperative re-makes a splat constant from its first element (the same attribute as from
every element)."""

import pytest
from xdsl.dialects.builtin import BFloat16Type, DenseIntOrFPElementsAttr, Float16Type, Float32Type, IntegerType, TensorType

from cases import CASES
from kernel_cache import compile_kernel
from wsdialects.transforms.cooperative import _is_splat


def test_lowered_turns_and_barriers_verify_as_a_whole():
    m = compile_kernel(CASES[0].path(), "ws-specialize{cooperative=2 pingpong=true},ws-lower-aref,ws-lower-warp-groups",
                       shared=True)
    names = {o.name for o in m.walk()}
    assert {"nvvm.barrier", "nvvm.barrier_arrive"} <= names  # the turns became named barriers
    for d in (o for o in m.walk() if o.name == "nvgpu.wg.dispatch"):
        d.verify()


@pytest.mark.parametrize("elt", [Float16Type(), BFloat16Type(), Float32Type(), IntegerType(32), IntegerType(1)])
def test_splat_from_first_element(elt):
    t = TensorType(elt, [64, 32])
    x = 1 if isinstance(elt, IntegerType) else -1.5
    whole = DenseIntOrFPElementsAttr.from_list(TensorType(elt, [128, 32]), [x] * 4096)
    first = next(whole.iter_values())
    assert DenseIntOrFPElementsAttr.from_list(t, [first]) == DenseIntOrFPElementsAttr.from_list(t, [first] * 2048)
    assert _is_splat(whole) and whole.is_splat()
    mixed = DenseIntOrFPElementsAttr.from_list(t, [x] * 2047 + [0])
    assert not _is_splat(mixed) and not mixed.is_splat()
