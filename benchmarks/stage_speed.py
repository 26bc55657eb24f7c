"""Speed of the jitted stage-game solver against scipy's HiGHS.

Run ``python benchmarks/stage_speed.py`` for a table. Both backends solve the
same random square games with integer payoffs in [-100, 100] (the scale of
the "points" objective); random games of these sizes are mostly mixed (a
random n x n game has a pure saddle point with probability
n!^2 / (2n-1)!, e.g. 30% at 3 x 3 and 4% at 5 x 5).

:func:`time_numba_batch` times a list of games of any shapes (``run.py``
uses it on stage games of real GOPS states).
"""

import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

if __package__ in (None, ""):
    # Run as a script from a source checkout: make the package importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gops_solver.lp.stage import (
    STAGE_OK,
    highs_stage,
    solve_stage,
    stage_work_size,
)
from gops_solver.game.constants import VALUE_TOL

#: Spend at least this long timing each numba batch (best of the repeats).
_MIN_NUMBA_SECONDS = 0.2


@njit(cache=True)
def _solve_batch(mats, ms, ns, values, statuses, x, y, work):
    """Solve the top-left ``ms[k] x ns[k]`` block of every ``mats[k]``."""
    for k in range(mats.shape[0]):
        values[k], statuses[k] = solve_stage(mats[k], ms[k], ns[k], x, y, work)


def _time_numba(mats, ms, ns):
    """Best-of-repeats microseconds per game, and the values.

    ``mats`` has shape (count, mmax, nmax); game k is its top-left
    ``ms[k] x ns[k]`` block.
    """
    count, mmax, nmax = mats.shape
    values = np.empty(count)
    statuses = np.empty(count, dtype=np.int64)
    x = np.empty(mmax)
    y = np.empty(nmax)
    work = np.empty(stage_work_size(mmax, nmax))
    _solve_batch(mats[:1], ms[:1], ns[:1], values, statuses, x, y, work)  # JIT warm-up
    best = np.inf
    spent = 0.0
    repeats = 0
    while spent < _MIN_NUMBA_SECONDS or repeats < 3:
        t0 = time.perf_counter()
        _solve_batch(mats, ms, ns, values, statuses, x, y, work)
        dt = time.perf_counter() - t0
        best = min(best, dt)
        spent += dt
        repeats += 1
    if not np.all(statuses == STAGE_OK):
        bad = int(np.count_nonzero(statuses != STAGE_OK))
        raise RuntimeError(f"solve_stage failed on {bad} of {count} benchmark games")
    return best / count * 1e6, values


def time_numba_batch(games) -> float:
    """Microseconds per game for ``solve_stage`` on a list of games.

    Parameters
    ----------
    games : sequence of array_like, each of shape (m_k, n_k)
        Payoff matrices, of any (possibly different) shapes.

    Returns
    -------
    float
        Best-of-repeats time per game, JIT compilation excluded, measured by
        one jitted loop over the whole batch (games packed into the top-left
        blocks of one padded array).

    Raises
    ------
    RuntimeError
        If the solver reports failure on any game.
    """
    games = [np.asarray(M, dtype=np.float64) for M in games]
    ms = np.array([M.shape[0] for M in games], dtype=np.int64)
    ns = np.array([M.shape[1] for M in games], dtype=np.int64)
    mats = np.zeros((len(games), ms.max(), ns.max()))
    for k, M in enumerate(games):
        mats[k, : ms[k], : ns[k]] = M
    return _time_numba(mats, ms, ns)[0]


def _time_highs(mats):
    values = np.empty(mats.shape[0])
    t0 = time.perf_counter()
    for k in range(mats.shape[0]):
        values[k] = highs_stage(mats[k]).value
    dt = time.perf_counter() - t0
    return dt / mats.shape[0] * 1e6, values


def measure_stage_ratio(sizes=(3, 5, 8, 13), count=200, seed=0) -> list[dict]:
    """Time ``solve_stage`` and ``highs_stage`` on the same random games.

    Parameters
    ----------
    sizes : sequence of int
        Square game sizes to measure.
    count : int
        Games per size. HiGHS solves each once; the numba batch is re-run
        until at least 0.2 s has been spent and the best run is reported.
    seed : int
        Seed of the numpy random generator.

    Returns
    -------
    list of dict
        One row per size: ``size``, ``numba_us_per_game``,
        ``highs_us_per_game``, ``ratio`` (HiGHS time / numba time) and
        ``max_abs_diff`` (largest value difference between the backends).

    Raises
    ------
    RuntimeError
        If a solver fails or the backends disagree by more than
        ``VALUE_TOL``.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        mats = rng.integers(-100, 101, size=(count, size, size)).astype(np.float64)
        sides = np.full(count, size, dtype=np.int64)
        numba_us, numba_values = _time_numba(mats, sides, sides)
        highs_us, highs_values = _time_highs(mats)
        diff = float(np.max(np.abs(numba_values - highs_values)))
        if not diff <= VALUE_TOL:
            raise RuntimeError(
                f"numba and HiGHS disagree by {diff:.3g} on {size}x{size} games"
            )
        rows.append(
            {
                "size": size,
                "numba_us_per_game": numba_us,
                "highs_us_per_game": highs_us,
                "ratio": highs_us / numba_us,
                "max_abs_diff": diff,
            }
        )
    return rows


def main():
    rows = measure_stage_ratio()
    print(f"{'size':>5} {'numba us':>10} {'HiGHS us':>10} {'ratio':>8} {'max |dv|':>10}")
    for r in rows:
        print(
            f"{r['size']:>5} {r['numba_us_per_game']:>10.3f} "
            f"{r['highs_us_per_game']:>10.1f} {r['ratio']:>8.0f} "
            f"{r['max_abs_diff']:>10.1e}"
        )


if __name__ == "__main__":
    main()
