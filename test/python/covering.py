"""Covering arrays for test grids: a subset of a parameter product in which every combination
of values of any `strength` parameters that the full product has still occurs.

A semantic test over kernels x pass options compiles and interprets each combination; the full
product of five parameters grows as the product of their sizes, a covering array of strength
3 only as the product of the largest three. `covering` picks combinations greedily, the one
that covers the most combinations not yet covered first (ties: the first in product order), so
the grid is the same in every run and in every pytest-xdist worker:

    >>> covering([("a", "b"), (1, 2), (False, True)], strength=2)
    [('a', 1, False), ('a', 2, True), ('b', 1, True), ('b', 2, False)]

`WSDIALECTS_TEST_EXHAUSTIVE=1` in the environment gives the full product instead.
"""

from __future__ import annotations

import itertools
import os
from typing import Callable, Sequence

EXHAUSTIVE = "WSDIALECTS_TEST_EXHAUSTIVE"


def covered_by(combination: tuple, strength: int) -> set[tuple]:
    """The sub-combinations (parameter, value, parameter, value, ...) of `strength` parameters
    that one combination covers (values by identity where they are unhashable, test cases)."""
    key = [id(v) if getattr(type(v), "__hash__", None) is None else v for v in combination]
    return {tuple(x for i in idx for x in (i, key[i])) for idx in itertools.combinations(range(len(key)), strength)}


def covering(factors: Sequence[Sequence], strength: int, allowed: Callable[[tuple], bool] = lambda c: True,
             exhaustive: bool | None = None) -> list[tuple]:
    """Combinations of one value per factor (those `allowed`) covering every combination of
    `strength` parameters' values that some allowed combination has, in product order; the whole
    product where `exhaustive` (default: WSDIALECTS_TEST_EXHAUSTIVE is set and not "0")."""
    product = [c for c in itertools.product(*factors) if allowed(c)]
    if exhaustive is None:
        exhaustive = os.environ.get(EXHAUSTIVE, "0") not in ("", "0")
    if exhaustive:
        return product
    covers = [covered_by(c, strength) for c in product]
    uncovered = set().union(*covers)
    chosen: list[int] = []
    while uncovered:
        best = max(range(len(product)), key=lambda k: len(covers[k] & uncovered))
        chosen.append(best)
        uncovered -= covers[best]
    return [product[k] for k in sorted(chosen)]
