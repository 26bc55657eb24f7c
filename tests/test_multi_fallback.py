"""The fallback selection shared out between processes (gops_solver.multi.fallback)."""

import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest

from gops_solver.multi import fallback
from gops_solver.multi.equilibrium import EquilibriumError, deviation_gain, select_after_kernel

DATA = Path(__file__).parent / "data" / "multi_stage_games.npz"


def _real_games():
    """3-player 3-card stage games of the level solvers on which the jitted tracer has failed."""
    data = np.load(DATA)
    return [U.reshape(3, 3, 3, 3) for name in ("folds", "turned_back", "stalled", "bifurcations") for U in data[name]]


def test_games_shared_between_processes_get_the_selection_of_one_after_another():
    games = _real_games()
    assert len(games) == 10
    alone = [select_after_kernel(U) for U in games]
    shared = fallback.select_all(games, workers=2)
    assert len(shared) == len(games)
    for U, a, b in zip(games, alone, shared):
        assert b.method == a.method
        for sa, sb in zip(a.strategies, b.strategies):
            np.testing.assert_array_equal(sa, sb)
        np.testing.assert_array_equal(a.values, b.values)
        assert deviation_gain(U, b.strategies) <= 1e-6  # the naive oracle's check, in this process


def _pid(U):
    return os.getpid()


def _fails(U):
    raise EquilibriumError("no equilibrium certified")


def test_workers_are_other_processes_and_few_games_stay_here(monkeypatch):
    monkeypatch.setattr(fallback, "select_after_kernel", _pid)
    games = [np.zeros((3, 2, 2, 2))] * 8
    pids = fallback.select_all(games, workers=2)
    assert len(pids) == 8 and os.getpid() not in pids
    assert fallback.select_all(games[:3], workers=2) == [os.getpid()] * 3  # under 2 games a worker
    assert fallback.select_all(games, workers=1) == [os.getpid()] * 8
    assert multiprocessing.active_children() == []


def test_a_game_that_fails_in_a_worker_fails_the_call_and_stops_the_workers(monkeypatch):
    monkeypatch.setattr(fallback, "select_after_kernel", _fails)
    with pytest.raises(EquilibriumError, match="no equilibrium certified"):
        fallback.select_all([np.zeros((3, 2, 2, 2))] * 6, workers=2)
    assert multiprocessing.active_children() == []
