"""Queries: a decision state's value and strategies, from tables or from the sub-game below it."""

import pytest

from gops_solver import Rules, solve
from gops_solver.engine.query import query_state
from gops_solver.game.rules import validate_state

# small cases: also run as plain Python (the NUMBA_DISABLE_JIT=1 pass of CI)
pytestmark = pytest.mark.nojit


@pytest.fixture(scope="module")
def sol5():
    return solve(Rules(5, "carry", "points"))


def test_query_strategies_are_distributions_over_the_hand(sol5):
    q = sol5.query("1,3,5", "2,3,4", 5, "1,4")
    for strat, hand in ((q.strategy_a, {1, 3, 5}), (q.strategy_b, {2, 3, 4})):
        assert set(strat) == hand
        assert all(p >= -1e-12 for p in strat.values())
        assert sum(strat.values()) == pytest.approx(1.0, abs=1e-12)


def test_query_without_tables_matches_full_solution(sol5):
    st = validate_state(sol5.rules, (1, 2, 5), (2, 3, 4), 7, (1, 4), 0)
    assert query_state(sol5.rules, st).value == pytest.approx(sol5.query((1, 2, 5), (2, 3, 4), 7, (1, 4)).value, abs=1e-9)


@pytest.mark.parametrize("bad, msg", [
    (dict(hand_a=[1, 9], hand_b=[1, 2], pot=3, prizes=[4]), "outside 1..5"),
    (dict(hand_a=[1, 1], hand_b=[1, 2], pot=3, prizes=[4]), "twice"),
    (dict(hand_a=[1, 2], hand_b=[1], pot=3, prizes=[4]), "differ in size"),
    (dict(hand_a=[], hand_b=[], pot=3, prizes=[]), "empty"),
    (dict(hand_a=[1, 2], hand_b=[1, 2], pot=3, prizes=[4, 4]), "twice"),
    (dict(hand_a=[1, 2], hand_b=[1, 2], pot=3, prizes=[4, 5]), "exactly 1"),
    (dict(hand_a=[1, 2], hand_b=[1, 2], pot=0, prizes=[4]), "pot 0 is impossible"),
    (dict(hand_a=[1, 2], hand_b=[1, 2], pot=12, prizes=[4]), "between 1 and 11"),
    (dict(hand_a=[1, 2], hand_b=[1, 2], pot=3, prizes=[4], diff=9), "unreachable"),
    (dict(hand_a=["Z"], hand_b=[1], pot=3, prizes=[]), "unknown card"),
])
def test_query_validation(sol5, bad, msg):
    with pytest.raises(ValueError, match=msg):
        sol5.query(**bad)
