"""The semantic oracle: `interpret(module, kernel_name, grid, args)` runs a tile
kernel, at any IR level above threads, on the CPU over numpy arrays."""

from wsdialects.interpreter.core import Interpreter
from wsdialects.interpreter.partitions import Deadlock
from wsdialects.interpreter.values import InterpretError

__all__ = ["Deadlock", "InterpretError", "Interpreter", "interpret"]


def interpret(module, kernel_name: str, grid, args, *, seed: int | None = None) -> None:
    """Run `kernel_name` over `grid` (an int or up to 3 sizes) with `args`
    (numpy arrays for `!tile.ptr`/`!tile.desc`, Python numbers for scalars).
    Results land in the arrays passed. `seed` picks a random interleaving of
    warp_group partitions; None runs them round-robin."""
    Interpreter(module).run(kernel_name, grid, args, seed=seed)
