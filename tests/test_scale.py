"""Correctness at scale: end-game positions of 13-card games against the naive oracle.

The 13-card solver and a query's sub-game share one code path (a
:class:`~gops_solver.game.encoding.StateSpace` with 13-card values), so sampled
end-games with few cards left check the scaled solver where the oracle can
still follow.
"""

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.game.rules import validate_state
from gops_solver.engine.solution import query_state
from naive import naive_stage_matrix, naive_value, random_state

COMBOS = [(t, o, order) for t in ("carry", "discard") for o in ("points", "win")
          for order in ("random", "descending", (7, 2, 13, 4, 9, 11, 1, 12, 3, 6, 10, 5, 8))]


def endgame_states(rng, n, tie, objective, order, count, kmax):
    out = []
    while len(out) < count:
        st = random_state(rng, n, tie, objective, order)
        if len(st["hand_a"]) <= kmax:
            out.append(st)
    return out


@pytest.mark.parametrize("tie, objective, order", COMBOS)
def test_13_card_endgames_match_oracle(tie, objective, order):
    rng = np.random.default_rng(hash((tie, objective, str(order))) % 2**32)
    rules = Rules(13, tie, objective, order)
    for st in endgame_states(rng, 13, tie, objective, order, 12, 4):
        ds = validate_state(rules, st["hand_a"], st["hand_b"], st["pot"], st["prizes"], st["diff"])
        q = query_state(rules, ds)
        ref = naive_value(tie, objective, frozenset(ds.hand_a), frozenset(ds.hand_b), ds.pot,
                          frozenset(ds.prizes) if rules.random_order else ds.prizes, ds.diff, rules.random_order)
        assert q.value == pytest.approx(ref, abs=1e-9), st
        # the strategies guarantee the value against every pure reply
        cards_a, cards_b, M = naive_stage_matrix(tie, objective, frozenset(ds.hand_a), frozenset(ds.hand_b), ds.pot,
                                                 frozenset(ds.prizes) if rules.random_order else ds.prizes,
                                                 ds.diff, rules.random_order)
        x = np.array([q.strategy_a[c] for c in cards_a])
        y = np.array([q.strategy_b[c] for c in cards_b])
        assert (x @ M).min() >= ref - 1e-9 and (M @ y).max() <= ref + 1e-9


@pytest.mark.parametrize("tie, objective", [("carry", "points"), ("discard", "win")])
def test_13_card_symmetry_and_antisymmetry(tie, objective):
    rng = np.random.default_rng(5)
    rules = Rules(13, tie, objective)
    for _ in range(10):
        k = int(rng.integers(2, 6))
        a = sorted(rng.choice(np.arange(1, 14), k, replace=False).tolist())
        b = sorted(rng.choice(np.arange(1, 14), k, replace=False).tolist())
        prizes = sorted(rng.choice(np.arange(1, 14), k - 1, replace=False).tolist())
        pot = int(rng.choice([v for v in range(1, 14) if v not in prizes]))
        diff = int(rng.integers(-5, 6))
        sym = query_state(rules, validate_state(rules, a, a, pot, prizes, 0))
        assert abs(sym.value) < 1e-12
        v1 = query_state(rules, validate_state(rules, a, b, pot, prizes, diff)).value
        v2 = query_state(rules, validate_state(rules, b, a, pot, prizes, -diff)).value
        assert v1 == pytest.approx(-v2, abs=1e-9)


@pytest.mark.parametrize("tie, objective", [("carry", "points"), ("carry", "win"), ("discard", "win")])
def test_stored_tables_agree_with_sub_games(tie, objective):
    # a query reads level k-1 of the full solution; the same state's sub-game
    # is solved from scratch: both must agree everywhere
    rng = np.random.default_rng(11)
    rules = Rules(8, tie, objective)
    sol = solve(rules)
    for _ in range(40):
        st = random_state(rng, 8, tie, objective, "random")
        ds = validate_state(rules, st["hand_a"], st["hand_b"], st["pot"], st["prizes"], st["diff"])
        full = query_state(rules, ds, sol.space, sol.tables)
        sub = query_state(rules, ds)
        assert full.value == pytest.approx(sub.value, abs=1e-9)
