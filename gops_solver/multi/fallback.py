"""The fallback selection of many stage games at once, spread over worker processes.

The level solvers hand the games their kernel could not certify to
:func:`.equilibrium.select_after_kernel` (pygambit's tracers, support
enumeration, ...): seconds to minutes a game, in Python, so one core at a
time. Each game's selection depends on that game alone, so the games are
shared out between forked worker processes (one per numba thread, as many
as the kernel pass used) and the results come back in the order given:
the same selection as one after another, sooner.
"""

from __future__ import annotations

import multiprocessing

import numba

from .equilibrium import StageEquilibrium, select_after_kernel

__all__ = ["select_all"]

#: fewer games than this per worker are not worth the processes
_MIN_GAMES_PER_WORKER = 2


def _workers(games: int, workers: int | None) -> int:
    """How many processes to use for ``games`` games (1: in this process)."""
    if workers is None:
        workers = numba.get_num_threads()
    workers = min(workers, games // _MIN_GAMES_PER_WORKER)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if multiprocessing.current_process().daemon:  # a daemon (a pool's worker) may not have children
        return 1
    return workers


def select_all(games: list, workers: int | None = None) -> list[StageEquilibrium]:
    """:func:`.equilibrium.select_after_kernel` on every game, in order.

    Parameters
    ----------
    games : list of numpy.ndarray, each of shape (m, k, ..., k)
    workers : int, optional
        Processes to share the games between (default: numba's thread
        count); one, or fewer than two games per worker, runs them here.

    Returns
    -------
    list of StageEquilibrium
        ``select_after_kernel(games[i])`` at position ``i``.
    """
    count = _workers(len(games), workers)
    if count == 1:
        return [select_after_kernel(U) for U in games]
    # fork: the workers inherit the compiled kernels and pygambit; the longest
    # games set the pace, so they are handed out one at a time
    pool = multiprocessing.get_context("fork").Pool(count)
    try:
        found = pool.map(select_after_kernel, games, chunksize=1)
    except BaseException:
        pool.terminate()  # an interrupt or a failed game stops every worker now
        raise
    pool.close()
    pool.join()
    return found
