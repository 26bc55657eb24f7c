"""Time the two-player level kernel per level inside one process, on this checkout or an old one.

    NUMBA_NUM_THREADS=1 python benchmarks/kernel_levels.py 10 [discard] [points]
    NUMBA_NUM_THREADS=1 PYTHONPATH=/path/to/worktree python benchmarks/kernel_levels.py 10

Wraps ``gops_solver.engine.induction.level_kernel`` with a timer and runs the whole
induction (``run_induction`` over ``full_space``), then prints the seconds
spent in the kernel at each level and their total. Start-up, compilation
and table building are left out, so two commits compare on the kernel
alone; it reads the level from the kernel's first argument (the hand size
itself before 30 November, the level's named tuple since), so it runs on
commits back to 29 November. Alternate the checkouts, one thread each.
"""
import collections
import sys
import time

import gops_solver.engine.induction as induction
from gops_solver import Rules

try:
    from gops_solver.game.encoding import full_space
except ImportError:  # commits before 30 November
    from gops_solver.engine.solution import full_space


def timed_induction(space):
    """Run the whole induction of ``space`` with the level kernel timed: ``(tables, seconds per level)``."""
    kernel = induction.level_kernel
    seconds = collections.defaultdict(float)

    def timed(*args):
        k = args[0] if isinstance(args[0], int) else args[1].k
        t0 = time.perf_counter()
        out = kernel(*args)
        seconds[k] += time.perf_counter() - t0
        return out

    induction.level_kernel = timed  # run_induction looks the kernel up at each call
    try:
        tables, _ = induction.run_induction(space)
    finally:
        induction.level_kernel = kernel
    return tables, seconds


def main(argv):
    n = int(argv[0])
    tie = argv[1] if len(argv) > 1 else "discard"
    objective = argv[2] if len(argv) > 2 else "points"
    _, seconds = timed_induction(full_space(Rules(n=n, tie=tie, objective=objective)))
    print(" ".join(f"{k}:{seconds[k]:.2f}" for k in sorted(seconds)), "total", round(sum(seconds.values()), 2))

if __name__ == "__main__":
    main(sys.argv[1:])
