"""GPU correctness of fused_mlp, staged_mlp and two_dots_shared_load (test/Inputs/kernels/) against
a float32 torch reference on random inputs, through the heuristic pipeline (ws-hopper) and the
solver's schedule (test/Inputs/kernels/scheduled/, compiled with ws-hopper: the GPU machine has
no OR-Tools), each also persistent (one program per tile, and 3 programs looping over the tiles);
where OR-Tools is installed, `ws-schedule{arch=h100},ws-hopper` itself too. Shapes are ragged
(rows past the tile masked or dropped by TMA, weights zero-filled past their end) and include
loops of 0 and 1 iterations. Outputs are NaN-filled first. Inputs, references and tolerances:
test/gpu/more_kernels.py. Skips without torch or a Hopper GPU.

The stored two_dots_shared_load schedule is issue 12's S1 (the dots on different warp groups,
kept on purpose: tools/resolve_stored.py's KEPT); today's solver plans a cooperative team there,
whose PTX equals the heuristic's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopper_env import torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402
import more_kernels as mk  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERN = ROOT / "test" / "Inputs" / "kernels"
SCHED = KERN / "scheduled"
SOLVER = "ws-schedule{arch=h100},ws-hopper"
VARIANTS = pytest.mark.parametrize("src,pipe", [
    (KERN, "ws-hopper"),
    (KERN, "ws-hopper{persistent=true}"),
    (KERN, "ws-hopper{persistent=true programs=3}"),
    (SCHED, "ws-hopper"),
    (SCHED, "ws-hopper{persistent=true}"),
    (SCHED, "ws-hopper{persistent=true programs=3}"),
    (KERN, SOLVER),
], ids=["heuristic", "heuristic-persistent", "heuristic-persistent3",
        "ws-schedule", "ws-schedule-persistent", "ws-schedule-persistent3", "ws-schedule-live"])


def solver_or_skip(pipe: str) -> None:
    if pipe.startswith("ws-schedule"):
        pytest.importorskip("ortools")


def run_and_check(k, case) -> None:
    case.run(k)
    torch.cuda.synchronize()
    case.check()


@VARIANTS
def test_fused_mlp(src, pipe):
    solver_or_skip(pipe)
    k = wsdialects.compile(src / "fused_mlp.mlir", pipeline=pipe)
    # (M, H): one tile and one iteration; ragged both; H = 0 (no iteration: zeros); one ragged
    # iteration; 16 row tiles x 16 iterations, both ragged; exact multiples, 20 tiles x 9
    for M, H in [(64, 64), (100, 150), (70, 0), (130, 30), (1000, 1000), (1280, 576)]:
        run_and_check(k, mk.make_fused_mlp(torch, M, H))


@VARIANTS
def test_staged_mlp(src, pipe):
    solver_or_skip(pipe)
    k = wsdialects.compile(src / "staged_mlp.mlir", pipeline=pipe)
    # (n iterations, X rows, W rows): one iteration; two; none (zeros); X and W ragged
    # (zero-filled by TMA); more iterations than any ring is deep, W ragged
    for n, x_rows, w_rows in [(1, 64, 64), (2, 64, 128), (0, 64, 0), (3, 40, 150), (17, 64, 17 * 64 - 5)]:
        run_and_check(k, mk.make_staged_mlp(torch, n, x_rows, w_rows))


@VARIANTS
def test_two_dots_shared_load(src, pipe):
    solver_or_skip(pipe)
    k = wsdialects.compile(src / "two_dots_shared_load.mlir", pipeline=pipe)
    # (M, N, K): one tile, one iteration; K = 0 (no iteration: zeros); smaller than a tile, a
    # partial K step; ragged; 8 x 5 tiles x 33 iterations, ragged
    for M, N, K in [(128, 128, 64), (128, 128, 0), (64, 40, 8), (200, 136, 264), (1000, 520, 2056)]:
        run_and_check(k, mk.make_two_dots(torch, M, N, K))
