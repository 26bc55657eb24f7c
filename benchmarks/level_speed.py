"""Time the two-player level kernel one level at a time (ns per stage game).

    NUMBA_NUM_THREADS=1 python benchmarks/level_speed.py 10 discard points 5,7

Solves the game in memory, then runs :func:`gops_solver.engine.induction.level_kernel`
again on each listed level (best of three) and prints the time per stage
game. To compare two commits side by side, run it from each checkout in
turn (``PYTHONPATH=path/to/worktree``) on the same machine, alternating.
"""
import sys
import time

import numpy as np

from gops_solver import Rules
from gops_solver.game.constants import MAX_CARDS
from gops_solver.engine.induction import games_array, level_kernel, run_induction
from gops_solver.engine.solution import full_space
from gops_solver.engine.tables import game_axes, level_axes, level_table


def main(argv):
    n, tie, objective = int(argv[0]), argv[1], argv[2]
    levels = [int(a) for a in argv[3].split(",")]
    space = full_space(Rules(n=n, tie=tie, objective=objective))
    tables, _ = run_induction(space)
    game = game_axes(space)
    for k in levels:
        level = level_axes(space, k)
        prev = level_table(space, k - 1, tables[k - 1])
        ps = np.arange(len(level.canonical), dtype=np.int64)
        R = np.full(space.size(k), np.nan)
        games = games_array(game, level, len(ps))
        fails = np.zeros(len(ps), np.int64)
        failed = np.zeros(2 + MAX_CARDS * MAX_CARDS)
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            level_kernel(game, level, prev, ps, R, games, fails, failed, False)
            best = min(best, time.perf_counter() - t0)
        assert np.array_equal(R, tables[k], equal_nan=True), "the re-run level differs from the solve's"
        print(f"level {k}: {games.sum():,} stage games, {best:.2f} s, {best / games.sum() * 1e9:.0f} ns per stage game",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
