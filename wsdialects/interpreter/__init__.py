"""The semantic oracle: `interpret(module, kernel_name, grid, args)` runs a tile
kernel, at any IR level above threads, on the CPU over numpy arrays."""

from wsdialects.interpreter.core import Interpreter
# each registers its ops' implementations in core.IMPLS (they import core; core imports none of them)
from wsdialects.interpreter import ops_arith, ops_async, ops_nvgpu, ops_tile, ops_tile_regroup  # noqa: F401
from wsdialects.interpreter.partitions import Deadlock
from wsdialects.interpreter.values import InterpretError

__all__ = ["Deadlock", "InterpretError", "Interpreter", "interpret"]


def interpret(module, kernel_name: str, grid, args, *, seed: int | None = None) -> None:
    """Run `kernel_name` over `grid` (an int or up to 3 sizes) with `args`, one per parameter:

    - `!tile.ptr<T>` (C-contiguous) and `!tile.desc<tensor<...xT>>`: a numpy array of T's dtype.
      numpy has no bf16 or fp8 dtype; those are ml_dtypes' (installed with wsdialects):
      `a.astype(ml_dtypes.bfloat16)`, `ml_dtypes.float8_e4m3fn`, `ml_dtypes.float8_e5m2`;
    - an integer scalar (`i32`, `i64`): an int or a numpy integer; a float or a bool is refused,
      never truncated (wsdialects/scalar_args.py); a float scalar (`f32`): an int or a float.

    A wrong argument raises TypeError naming it (`argument 4 (%N: i32): expected an int ...`).
    Results land in the arrays passed. `seed` picks a random interleaving of warp_group
    partitions; None runs them round-robin."""
    Interpreter(module).run(kernel_name, grid, args, seed=seed)
