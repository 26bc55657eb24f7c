"""induction.py: the level kernel solves each distinct stage game of a pattern once, and counts every state's game."""

import numpy as np
import pytest

import gops_solver.engine.induction as induction
from gops_solver import Rules
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.encoding import full_space
from gops_solver.engine.induction import level_solves, level_work, run_induction
from gops_solver.engine.tables import game_axes, level_axes, level_table

pytestmark = pytest.mark.nojit


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("tie, order", [("carry", "random"), ("discard", "random"), ("carry", "descending")])
def test_kernel_solves_equal_games_once(monkeypatch, tie, order, objective):
    # RULES.md: a round's stage game is fixed by the hands, the pot and the prizes left
    # hidden (naive.naive_stage_matrix takes nothing else), so under the carry rule a carry
    # c with prize p and a carry c' with prize p' where c + p = c' + p' play one game (under
    # win, at each difference). The kernel, run as plain Python with a counting solver, must
    # build each such game once (level_solves; under win a game equal to the previous
    # difference's is not solved again, so the solver may see fewer), still count one game
    # per state, reveal and difference (level_work), and fill the same table as the jitted kernel.
    # Games solved in SIMD lanes (where the processor has them) count as they are flushed.
    space = full_space(Rules(5, tie, objective, order))
    tables, _ = run_induction(space)
    game = game_axes(space)
    calls = [0]
    batched = [0]
    real = induction.solve_stage

    def counting(M, m, n, x, y, work):
        calls[0] += 1
        return real(M, m, n, x, y, work)

    real_flush = induction._flush

    def counting_flush(lanes, outc, na, nb, toff, nt, acc, pot_val, failed_game):
        calls[0] += int(lanes.i[induction._ICNT])
        batched[0] += int(lanes.i[induction._ICNT])
        return real_flush(lanes, outc, na, nb, toff, nt, acc, pot_val, failed_game)

    real_win_flush = induction._win_flush

    def counting_win_flush(lanes, na, nb, row, failed_game):
        calls[0] += int(lanes.i[induction._ICNT])
        batched[0] += int(lanes.i[induction._ICNT])
        return real_win_flush(lanes, na, nb, row, failed_game)

    monkeypatch.setattr(induction, "solve_stage", counting)
    monkeypatch.setattr(induction, "_flush", counting_flush)
    monkeypatch.setattr(induction, "_win_flush", counting_win_flush)
    kernel = getattr(induction.level_kernel, "py_func", induction.level_kernel)
    work_total = solves_total = 0
    for k in range(1, 6):
        level = level_axes(space, k)
        prev = level_table(space, k - 1, tables[k - 1])
        R = np.full(space.size(k), np.nan)
        ps = np.arange(len(level.canonical), dtype=np.int64)
        games = induction.games_array(game, level, len(ps))
        fails = np.zeros(len(ps), np.int64)
        calls[0] = 0
        kernel(game, level, prev, ps, R, games, fails, np.zeros(2 + MAX_CARDS * MAX_CARDS), False)
        assert not fails.any()
        assert calls[0] == level_solves(space, k) if objective == "points" else calls[0] <= level_solves(space, k)
        if objective == "points":
            assert int(games.sum()) == level_work(space, k)
        else:  # games settled for sure without an LP (win_saturation) are not counted
            assert calls[0] <= int(games.sum()) <= level_work(space, k)
        assert np.array_equal(R, tables[k], equal_nan=True)
        work_total += level_work(space, k)
        solves_total += level_solves(space, k)
    # the kernel solves a pattern's games in lanes where it can (3 x 3 games and up here)
    assert (batched[0] > 0) == induction.LANES_ON
    if tie == "carry" and order == "random":
        assert solves_total < work_total  # 5 cards, points: 1,270 games built of 1,882
    else:
        assert solves_total == work_total  # no two reveals meet at one pot


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("tie, order", [("carry", "random"), ("discard", "random"), ("discard", "ascending"),
                                        ("carry", "descending")])
def test_lanes_change_no_bit(monkeypatch, tie, order, objective):
    # The jitted kernel solves a pattern's games eight at a time in SIMD lanes where the processor
    # has them (induction.LANES_ON); the same kernel run as plain Python with the lanes turned off
    # takes them one at a time through solve_stage. Every level must come out the same bit for bit.
    # (The parallel kernel, not the serial twin that a game this small gets: the twins run without lanes.)
    space = full_space(Rules(5, tie, objective, order))
    monkeypatch.setattr(induction, "is_small", lambda space: False)
    tables, _ = run_induction(space)
    monkeypatch.undo()
    game = game_axes(space)
    monkeypatch.setattr(induction, "LANES_ON", False)
    kernel = getattr(induction.level_kernel, "py_func", induction.level_kernel)
    for k in range(1, 6):
        level = level_axes(space, k)
        prev = level_table(space, k - 1, tables[k - 1])
        R = np.full(space.size(k), np.nan)
        ps = np.arange(len(level.canonical), dtype=np.int64)
        fails = np.zeros(len(ps), np.int64)
        kernel(game, level, prev, ps, R, induction.games_array(game, level, len(ps)), fails, np.zeros(2 + MAX_CARDS * MAX_CARDS), False)
        assert not fails.any()
        assert np.array_equal(R, tables[k], equal_nan=True)
