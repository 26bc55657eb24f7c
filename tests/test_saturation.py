"""Saturation under ``win``: values settled for sure are found without an LP, and no value changes.

- Every table of n = 6 under ``win`` (both ties; random, descending and one
  permuted order) equals, to 1e-12, the tables of the solver that solved a
  stage game at every difference (``data/win6_tables.npz``, written by that
  solver), in memory and in a block store; fewer stage games are solved.
- A value is exactly +1 (-1) where, and only where, a plain recursion over
  pure bids says A (B) wins for sure, at every reachable state of n <= 5.
"""

import functools
import itertools
from pathlib import Path

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.engine.induction import level_work

from naive import naive_reachable_states, naive_step, prize_sequence

DATA = Path(__file__).parent / "data" / "win6_tables.npz"
ORDERS = (("random", "random"), ("descending", "descending"), ((3, 1, 6, 2, 5, 4), "perm316254"))


@pytest.fixture(scope="module")
def reference():
    with np.load(DATA) as z:
        return {key: z[key] for key in z.files}


@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("order, oid", ORDERS)
def test_tables_equal_the_lp_at_every_difference(reference, tie, order, oid):
    sol = solve(Rules(n=6, tie=tie, objective="win", order=order))
    games_before = sum(level_work(sol.space, k) for k in range(7))
    assert sol.stage_games < games_before
    for k in range(7):
        got, ref = np.asarray(sol.tables[k]), reference[f"{tie}-{oid}-{k}"]
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.nanmax(np.abs(got - ref), initial=0.0) <= 1e-12


@pytest.mark.parametrize("tie", ["carry", "discard"])
def test_block_store_equals_the_lp_at_every_difference(reference, tmp_path, tie):
    from gops_solver.engine.blocked import pattern_major
    sol = solve(Rules(n=6, tie=tie, objective="win"), out=tmp_path / "store", memory="200MB")
    for k in range(7):
        blocks = np.stack([sol.store.read_block(k, r) for r in range(sol.store.nsets[k])])
        got, ref = pattern_major(sol.space, k, blocks), reference[f"{tie}-random-{k}"]
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.nanmax(np.abs(got - ref), initial=0.0) <= 1e-12


def _sure(tie, seq):
    """``sure(hand_a, hand_b, pot, prizes, diff)``: +1 if A wins for sure, -1 if B does, else 0.

    Pure bids only: A wins for sure when, whatever prize comes next, some bid
    of A's wins for sure against every bid of B's (and likewise for B).
    """
    @functools.lru_cache(maxsize=None)
    def sure(hand_a, hand_b, pot, prizes, diff):
        if not hand_a:
            return (diff > 0) - (diff < 0)
        def after(a, b):
            na, nb, carry, nd = naive_step(tie, hand_a, hand_b, pot, diff, a, b)
            if not na:
                return (nd > 0) - (nd < 0)
            nexts = [(carry + p, prizes - {p}) for p in prizes] if seq is None else [(carry + prizes[0], prizes[1:])]
            res = {sure(na, nb, q, rest, nd) for q, rest in nexts}
            return res.pop() if len(res) == 1 else 0
        outcome = {(a, b): after(a, b) for a, b in itertools.product(hand_a, hand_b)}
        if any(all(outcome[a, b] == 1 for b in hand_b) for a in hand_a):
            return 1
        if any(all(outcome[a, b] == -1 for a in hand_a) for b in hand_b):
            return -1
        return 0
    return sure


@pytest.mark.parametrize("n, tie, order", [(4, tie, order) for tie in ("carry", "discard")
                                            for order in ("random", "ascending")] + [(5, "carry", "random")])
def test_exact_one_where_a_pure_bid_wins_for_sure(n, tie, order):
    sol = solve(Rules(n=n, tie=tie, objective="win", order=order))
    seq = prize_sequence(n, order)
    sure = _sure(tie, seq)
    seen = {-1: 0, 0: 0, 1: 0}
    for hand_a, hand_b, pot, prizes, diff in naive_reachable_states(n, tie, order):
        rest = frozenset(prizes) if seq is None else tuple(prizes)
        want = sure(frozenset(hand_a), frozenset(hand_b), pot, rest, diff)
        value = sol.query(list(hand_a), list(hand_b), pot=pot, prizes=list(prizes), diff=diff).value
        assert (value == 1.0) == (want == 1) and (value == -1.0) == (want == -1), (hand_a, hand_b, pot, prizes, diff)
        seen[want] += 1
    assert min(seen.values()) > 0  # states of each kind were checked
