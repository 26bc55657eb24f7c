"""Compile the kernels a first session uses, once, before it needs them (``gops warmup``).

numba compiles each kernel on its first call and caches it beside the
sources (or in ``NUMBA_CACHE_DIR``); a first ``gops solve`` or ``gops
evaluate`` therefore pays for the compile. Running these small games once
fills the cache with exactly the kernels a small game calls: the serial
solve kernels of both objectives, the query path, exact evaluation and
simulation. Larger games (from 6 cards under carry/win, 8 under carry/points,
9 under discard/points; see :func:`~gops_solver.engine.induction.is_small`)
solve with the parallel kernels and compile those on their first solve.
"""

from __future__ import annotations

import time

#: (what is compiled, the call that compiles it): small games take the same kernels as n <= 8
_STEPS = ("solve kernels (points)", "solve kernels (win)", "queries", "exact evaluation", "simulation")


def warm_up(report=None) -> list:
    """Run one small game through every kernel a first session uses.

    Parameters
    ----------
    report : callable, optional
        ``report(step, seconds)`` after each step (``step`` names what was compiled).

    Returns
    -------
    list of (str, float)
        Each step and its wall seconds (about zero when the cache was warm).
    """
    from gops_solver.analysis.evaluate import evaluate
    from gops_solver.analysis.simulate import simulate
    from gops_solver.api import solve
    from gops_solver.game.rules import Rules

    points, win = Rules(4, "carry", "points"), Rules(4, "carry", "win")
    sol = {}

    def step_points():
        sol["points"] = solve(points)

    calls = (step_points, lambda: solve(win),
             lambda: sol["points"].query([1, 3], [2, 4], pot=3, prizes=[1]),
             lambda: evaluate("match", points, solution=sol["points"]),
             lambda: simulate("match", "equilibrium", points, 100, seed=0, solution=sol["points"]))
    done = []
    for name, call in zip(_STEPS, calls):
        t0 = time.perf_counter()
        call()
        done.append((name, time.perf_counter() - t0))
        if report is not None:
            report(*done[-1])
    return done
