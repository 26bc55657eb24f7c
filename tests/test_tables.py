"""tables.py: the one stage-matrix builder against the naive oracle; the reader's mirror images."""

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.game.constants import VALUE_TOL
from gops_solver.engine.query import stage_matrix_of
from gops_solver.game.rules import validate_state
from gops_solver.engine.tables import level_table, read_value
from naive import naive_stage_matrix, random_state

pytestmark = pytest.mark.nojit


@pytest.mark.parametrize("tie, objective, order", [("carry", "points", "random"), ("discard", "win", "random"),
                                                   ("carry", "win", "descending")])
def test_stage_matrix_matches_the_oracle(tie, objective, order):
    # tables.stage_matrix builds every stage game (induction, verify, the equilibrium policy,
    # queries); here it is read from solved 4-card tables and compared, card by card, with the
    # naive oracle's stage game (RULES.md), which the tables leave without the score under points
    rules = Rules(4, tie, objective, order)
    sol = solve(rules)
    sp = sol.space
    rng = np.random.default_rng(11)
    for _ in range(10):
        st = random_state(rng, 4, tie, objective, order)
        ds = validate_state(rules, st["hand_a"], st["hand_b"], st["pot"], st["prizes"], st["diff"])
        if sp.random_order:
            s_prev, ci = int(sp.prize_sets.set_rank[sp.prize_sets.mask(ds.prizes)]), 0
        else:
            s_prev, ci = 0, ds.carry_chain
        found = stage_matrix_of(ds, sp, sol.tables, s_prev, sum(ds.prizes), ci)
        assert found is not None, st
        cards_a, cards_b, M = found
        ca, cb, ref = naive_stage_matrix(tie, objective, frozenset(ds.hand_a), frozenset(ds.hand_b), ds.pot,
                                         frozenset(ds.prizes) if rules.random_order else ds.prizes, ds.diff,
                                         rules.random_order)
        row = {c: i for i, cls in enumerate(cards_a) for c in cls}
        col = {c: j for j, cls in enumerate(cards_b) for c in cls}
        offset = ds.diff if objective == "points" else 0
        got = np.array([[M[row[a], col[b]] + offset for b in cb] for a in ca])
        np.testing.assert_allclose(got, ref, rtol=0, atol=VALUE_TOL)


def test_read_value_reads_mirror_images_negated():
    # only one of each mirror pair is stored; the other reads negated with the difference negated
    sol = solve(Rules(4, "carry", "win"))
    sp, k = sol.space, 2
    table = level_table(sp, k, sol.tables[k])
    swap = sp.patterns.level_swap[k]
    read = 0
    for h in range(sp.patterns.count(k)):
        for s in range(len(sp.sets[k])):
            for c in range(len(sp.cvals[k])):
                for d in range(-sp.dmax[k], sp.dmax[k] + 1):
                    v, w = read_value(table, h, s, c, d), read_value(table, swap[h], s, c, -d)
                    assert (np.isnan(v) and np.isnan(w)) or v == -w
                    read += not np.isnan(v)
    assert read > 0
    # outside the stored axes: NaN, never another slot's value
    assert np.isnan(read_value(table, 0, len(sp.sets[k]), 0, 0))
    assert np.isnan(read_value(table, 0, 0, 0, sp.dmax[k] + 1))


@pytest.mark.parametrize("order", ["random", "ascending", "descending"])
def test_level_reveals_lists_each_sets_hidden_prizes(order):
    # the kernels read a prize set's reveals from level_reveals: under a random order every
    # hidden prize in increasing order, with the set left hidden after it (its mask at level
    # k - 1) and that set's sum; under a fixed order the next prize of the sequence alone
    from gops_solver.engine.solution import full_space
    from gops_solver.engine.tables import level_axes
    sp = full_space(Rules(6, "carry", "points", order))
    for k in range(1, sp.kmax + 1):
        level = level_axes(sp, k)
        shape = (len(sp.sets[k]), k if order == "random" else 1)
        assert level.rev_prize.shape == level.rev_set.shape == level.rev_sum.shape == shape
        for si, mask in enumerate(sp.sets[k]):
            if order == "random":
                hidden = [v for q, v in enumerate(sp.prize_sets.values) if (int(mask) >> q) & 1]
                assert list(level.rev_prize[si]) == sorted(hidden)
                for j, prize in enumerate(hidden):
                    rest = [v for v in hidden if v != prize]
                    rest_mask = sum(1 << q for q, v in enumerate(sp.prize_sets.values) if v in rest)
                    assert sp.sets[k - 1][level.rev_set[si, j]] == rest_mask
                    assert level.rev_sum[si, j] == sum(rest)
            else:
                seq = sorted(range(1, 7), reverse=order == "descending")
                played = 6 - k
                assert (level.rev_prize[si, 0], level.rev_set[si, 0], level.rev_sum[si, 0]) == \
                    (seq[played], 0, sum(seq[played + 1:]))


@pytest.mark.parametrize("tie, order", [("carry", "random"), ("discard", "random"), ("carry", "ascending")])
def test_points_gather_and_game_equal_stage_matrix(tie, order):
    # the points kernel builds each game in two steps (what a run of reveals leaving one set
    # hidden shares, then the pot); entry for entry it must be stage_matrix's game, NaN included
    from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
    from gops_solver.game.encoding import decode
    from gops_solver.engine.tables import (game_axes, level_axes, points_cells, points_game, points_gather, points_tied, points_ties,
                                    stage_entry, stage_matrix, stage_structure)
    sol = solve(Rules(5, tie, "points", order))
    sp = sol.space
    game = game_axes(sp)
    tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    W = np.empty((MAX_CARDS, MAX_CARDS))
    W2 = np.empty((MAX_CARDS, MAX_CARDS))
    cells = np.empty((MAX_CARDS * MAX_CARDS, 3), dtype=np.int64)
    M1 = np.empty((MAX_CARDS, MAX_CARDS))
    M2 = np.empty((MAX_CARDS, MAX_CARDS))
    tv = np.empty(MAX_CARDS)
    tied_cells = np.empty(MAX_CARDS, dtype=np.int64)
    checked = ties = 0
    for k in range(1, 6):
        level = level_axes(sp, k)
        prev = level_table(sp, k - 1, sol.tables[k - 1])
        for h in level.canonical:
            u = int(level.pat_u[h])
            decode(u, level.pat_code[h], tokens)
            stage = stage_structure(tokens, u, game.lut, game.lut_off)
            na, nb = stage.na, stage.nb
            points_cells(game, prev, k, stage, cells)
            nt = points_tied(game, k, stage, tied_cells)
            for si in range(len(level.sets)):
                for j in range(level.rev_prize.shape[1]):
                    s_prev, p = int(level.rev_set[si, j]), int(level.rev_prize[si, j])
                    for a in range(na):  # the one cell rule at pot 0
                        for b in range(nb):
                            W[a, b] = stage_entry(game, prev, k, stage.outc[a, b], 0, 0, 0, s_prev, 0, stage.succ[a, b])
                    points_gather(prev, stage, cells, s_prev, W2)  # the kernel's way: one load per cell
                    assert np.array_equal(W[:na, :nb], W2[:na, :nb], equal_nan=True), (k, h, si, j)
                    for ci in range(len(level.cvals)):
                        pot = int(level.cvals[ci]) + p
                        stage_matrix(game, prev, k, stage, pot, 0, ci, s_prev, int(level.rev_sum[si, j]), M1)
                        points_game(game, prev, k, stage, pot, ci, s_prev, W2, M2)
                        assert np.array_equal(M1[:na, :nb], M2[:na, :nb], equal_nan=True), (k, h, si, j, ci)
                        # the SIMD kernel's way: the same entries from W2 and the tied cells read at the pot
                        points_ties(game, prev, k, stage, tied_cells, nt, pot, ci, s_prev, tv)
                        tied = stage.outc[:na, :nb] == 0
                        carried = tie == "carry" and k > 1
                        assert nt == (int(tied.sum()) if carried else 0)
                        assert list(tied_cells[:nt]) == ([int(c) for c in np.flatnonzero(tied)] if carried else [])
                        assert np.array_equal(tv[:nt], M1[:na, :nb][tied][:nt], equal_nan=True)
                        if carried:
                            assert np.array_equal(M1[:na, :nb][~tied], W2[:na, :nb][~tied] + (stage.outc[:na, :nb] * pot)[~tied],
                                                  equal_nan=True)
                        checked += 1
                        ties += int((stage.outc[:na, :nb] == 0).any())
    assert checked > (1000 if order == "random" else 100) and ties > 0
