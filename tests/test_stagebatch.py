"""stagebatch.py: eight games solved at once in SIMD lanes give solve_stage's answers bit for bit."""

import numpy as np
import pytest

from gops_solver.game.constants import MAX_CARDS
from gops_solver.lp.stage import STAGE_OK, highs_stage, solve_stage
from gops_solver.lp._lanes import LANES, batch_shape, make_batch_work, solve_batch
from gops_solver.engine.tables import WORK


def _scalar(M, m, n):
    return solve_stage(np.ascontiguousarray(M), m, n, np.empty(MAX_CARDS), np.empty(MAX_CARDS), np.empty(WORK))


def _batched(games, m, n, bw=None):
    bw = make_batch_work(WORK) if bw is None else bw
    for lane, M in enumerate(games):
        bw.G3[:m, :n, lane] = M[:m, :n]
    values = np.full(LANES, -7.0)
    status = np.full(LANES, -7, np.int64)
    solve_batch(bw, m, n, len(games), values, status)
    return values[:len(games)], status[:len(games)]


def _padded(A):
    M = np.zeros((MAX_CARDS, MAX_CARDS))
    M[:A.shape[0], :A.shape[1]] = A
    return M


def test_batch_shape_leaves_solve_stage_its_fast_paths():
    # solve_stage settles one row or column and 2 x 2 games by a fast path whatever the entries
    assert not batch_shape(1, 5) and not batch_shape(4, 1) and not batch_shape(2, 2)
    assert batch_shape(2, 3) and batch_shape(3, 2) and batch_shape(13, 13)


@pytest.mark.parametrize("m, n", [(2, 3), (3, 2), (3, 3), (4, 6), (6, 6), (7, 5), (7, 8), (8, 7), (9, 9), (10, 12), (13, 13)])
def test_values_and_statuses_equal_solve_stage_bit_for_bit(m, n):
    # integer payoffs in a small range: ties, duplicate rows and degenerate pivots are common,
    # and about one game in ten has a saddle point
    rng = np.random.default_rng(m * 100 + n)
    bw = make_batch_work(WORK)
    for count in (1, 3, LANES):
        for _ in range(40):
            games = [_padded(rng.integers(-4, 5, size=(m, n)).astype(float)) for _ in range(count)]
            values, status = _batched(games, m, n, bw)
            for lane, M in enumerate(games):
                v, st = _scalar(M, m, n)
                assert st == status[lane] == STAGE_OK
                assert values[lane] == v  # the same arithmetic, not merely close


def test_real_stage_games_of_one_pattern():
    # games as the points kernel builds them: one pattern, pots 1..8, o * pot + a continuation
    rng = np.random.default_rng(5)
    outc = np.sign(rng.integers(-1, 2, size=(6, 6))).astype(float)
    W = rng.normal(scale=4.0, size=(6, 6))
    games = [_padded(o_pot * outc + W) for o_pot in range(1, LANES + 1)]
    values, status = _batched(games, 6, 6)
    for lane, M in enumerate(games):
        v, st = _scalar(M, 6, 6)
        assert (values[lane], status[lane]) == (v, st)
        assert abs(values[lane] - highs_stage(M[:6, :6]).value) <= 1e-9  # an independent LP agrees


def test_saddle_points_mixed_with_mixed_games():
    # a game with a saddle point (row 1 dominates and column 0 is its minimum) next to matching pennies
    saddle = _padded(np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [1.0, 0.0, 1.0]]))
    pennies = _padded(np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, -5.0]]))
    values, status = _batched([saddle, pennies, saddle], 3, 3)
    # matching pennies is worth 0; its strategies come out of the pivots with rounding
    assert values[0] == values[2] == 3.0 and abs(values[1]) <= 1e-15 and list(status) == [STAGE_OK] * 3
    assert values[1] == _scalar(pennies, 3, 3)[0]


def test_a_lane_that_fails_fails_as_solve_stage_does():
    # NaN in one game: that lane reports solve_stage's status, the others are unaffected
    rng = np.random.default_rng(3)
    games = [_padded(rng.normal(size=(4, 4))) for _ in range(4)]
    games[2][1, 2] = np.nan
    values, status = _batched(games, 4, 4)
    assert status[2] == _scalar(games[2], 4, 4)[1] != STAGE_OK
    for lane in (0, 1, 3):
        assert (values[lane], status[lane]) == _scalar(games[lane], 4, 4)


def test_degenerate_games_that_leave_the_batch():
    # many equal entries: long runs of degenerate pivots send lanes to solve_stage (Bland's rule)
    rng = np.random.default_rng(11)
    bw = make_batch_work(WORK)
    for _ in range(200):
        games = [_padded(rng.integers(0, 2, size=(8, 8)).astype(float)) for _ in range(LANES)]
        values, status = _batched(games, 8, 8, bw)
        for lane, M in enumerate(games):
            assert (values[lane], status[lane]) == _scalar(M, 8, 8)
