"""tables.win_cells/win_gather, the win induction's builder, against the one builder stage_matrix."""

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.engine.blocked import block_table
from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
from gops_solver.game.encoding import decode
from gops_solver.engine.tables import (game_axes, level_axes, level_table, stage_matrix, stage_structure, win_cells,
                                win_gather)


def _same(a, b):
    return np.array_equal(np.nan_to_num(a, nan=1e300), np.nan_to_num(b, nan=1e300))


@pytest.mark.parametrize("tie, order", [("discard", "random"), ("carry", "random"), ("carry", "descending")])
def test_win_gather_builds_the_stage_matrix_game(tie, order):
    # the win induction builds its games with win_cells/win_gather (one read per cell, the
    # differences in order); for every pattern, prize set, carry, reveal and difference -- also
    # differences outside the table, where entries are decided or NaN -- that game must be
    # stage_matrix's to the last bit, from a whole level and from a level held as blocks, and
    # win_gather must report a change exactly when the game differs from the previous one
    rules = Rules(5, tie, "win", order)
    sol = solve(rules)
    sp = sol.space
    game = game_axes(sp)
    rng = np.random.default_rng(5)
    compared = changes = 0
    for k in range(1, sp.kmax + 1):
        level = level_axes(sp, k)
        nsets = len(sp.sets[k - 1])
        blen = sp.size(k - 1) // nsets
        R = np.asarray(sol.tables[k - 1])
        # the blocked layout: every prize set's block, in a shuffled slot order
        perm = rng.permutation(nsets)
        blocks = {int(r): np.concatenate([R[sp.layouts[k - 1].offset[p]:sp.layouts[k - 1].offset[p + 1]]
                                          .reshape(nsets, -1)[r] for p in range(len(sp.layouts[k - 1].ncarry))])
                  for r in perm}
        views = [level_table(sp, k - 1, R), block_table(sp, k - 1, blocks)]
        assert all(len(b) == blen for b in blocks.values())
        tokens = np.empty(TOKEN_SCRATCH, np.int64)
        for p_out in rng.choice(len(level.canonical), size=min(12, len(level.canonical)), replace=False):
            h = level.canonical[p_out]
            decode(level.pat_u[h], level.pat_code[h], tokens)
            stage = stage_structure(tokens, level.pat_u[h], game.lut, game.lut_off)
            for si in range(len(level.sets)):
                for ci in range(level.ncarry[p_out]):
                    for q in range(level.rev_prize.shape[1]):
                        p, s_prev, sum_prev = level.rev_prize[si, q], level.rev_set[si, q], level.rev_sum[si, q]
                        pot = level.cvals[ci] + p
                        for prev in views:
                            cells = np.empty((MAX_CARDS * MAX_CARDS, 6), np.int64)
                            win_cells(game, prev, k, stage, pot, ci, s_prev, sum_prev, cells)
                            M = np.full((MAX_CARDS, MAX_CARDS), np.nan)
                            ref = np.empty((MAX_CARDS, MAX_CARDS))
                            last = None
                            for d in range(-sp.dmax[k] - 2, sp.dmax[k] + 3):
                                changed = win_gather(game, prev, stage, cells, d, M)
                                stage_matrix(game, prev, k, stage, pot, d, ci, s_prev, sum_prev, ref)
                                got, want = M[:stage.na, :stage.nb], ref[:stage.na, :stage.nb]
                                assert _same(got, want), (k, p_out, si, ci, q, d)
                                if last is not None:
                                    assert changed == (not _same(want, last) or np.isnan(want).any())
                                    changes += changed
                                last = want.copy()
                                compared += 1
    assert compared > 1000 and changes > 100
