"""The fast solver against the slow oracle of ``tests/naive.py``.

For every tie rule x objective x prize order (random, ascending, descending
and one explicit permutation) and n = 1..5:

- the game value at the start equals the oracle's;
- at 30 random reachable decision states (seeded) the queried value equals
  the oracle's;
- the queried strategies are distributions over exactly the cards in hand
  and guarantee the value against every pure reply in the oracle's
  card-level stage matrix (RULES.md, "States, values and strategies").

Each ``Rules`` is solved once per module (``_solution``); the oracle's
``lru_cache`` shares sub-results across states, so the file stays well
under a minute.
"""

import functools
import itertools
import zlib

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.game.constants import GUARANTEE_TOL, VALUE_TOL

from naive import (
    OBJECTIVES,
    TIES,
    naive_game_value,
    naive_stage_matrix,
    naive_value,
    prize_sequence,
    random_state,
)

#: One explicit permutation of 1..n per n (for n = 1 and 2 it coincides
#: with a named order, which is harmless).
PERMUTATIONS = {1: (1,), 2: (2, 1), 3: (2, 3, 1), 4: (3, 1, 4, 2), 5: (3, 1, 5, 2, 4)}

STATES_PER_CASE = 30

CASES = [
    pytest.param(n, tie, objective, order, id=f"n{n}-{tie}-{objective}-{order_id}")
    for n in range(1, 6)
    for tie, objective in itertools.product(TIES, OBJECTIVES)
    for order, order_id in (
        ("random", "random"),
        ("ascending", "ascending"),
        ("descending", "descending"),
        (PERMUTATIONS[n], "perm" + "".join(map(str, PERMUTATIONS[n]))),
    )
]


@functools.lru_cache(maxsize=None)
def _solution(n, tie, objective, order):
    """Solve each ``Rules`` once per module."""
    return solve(Rules(n=n, tie=tie, objective=objective, order=order))


def _states(n, tie, objective, order):
    """The case's random reachable states, the same on every run."""
    seed = zlib.crc32(repr((n, tie, objective, order)).encode())
    rng = np.random.default_rng(seed)
    return [random_state(rng, n, tie, objective, order) for _ in range(STATES_PER_CASE)]


def _naive_args(state, random_order):
    return (
        state["hand_a"], state["hand_b"], state["pot"], state["prizes"],
        state["diff"], random_order,
    )


def _query(sol, state):
    return sol.query(
        state["hand_a"], state["hand_b"], state["pot"],
        prizes=state["prizes"], diff=state["diff"],
    )


@pytest.mark.parametrize("n, tie, objective, order", CASES)
def test_game_value(n, tie, objective, order):
    sol = _solution(n, tie, objective, order)
    expected = naive_game_value(n, tie, objective, order)
    assert abs(sol.value - expected) <= VALUE_TOL, (sol.value, expected)


@pytest.mark.parametrize("n, tie, objective, order", CASES)
def test_query_values(n, tie, objective, order):
    sol = _solution(n, tie, objective, order)
    random_order = prize_sequence(n, order) is None
    for state in _states(n, tie, objective, order):
        expected = naive_value(tie, objective, *_naive_args(state, random_order))
        got = _query(sol, state).value
        assert abs(got - expected) <= VALUE_TOL, (state, got, expected)


def _distribution(strategy, hand, who, state):
    """The strategy dict as an array over ``sorted(hand)``, after checking it
    is a probability distribution over exactly the cards in hand."""
    assert set(strategy) == set(hand), (who, state, strategy)
    probs = np.array([strategy[c] for c in sorted(hand)], dtype=float)
    assert np.all(probs >= -GUARANTEE_TOL), (who, state, strategy)
    assert abs(probs.sum() - 1.0) <= GUARANTEE_TOL, (who, state, strategy)
    return probs


@pytest.mark.parametrize("n, tie, objective, order", CASES)
def test_query_strategies_guarantee_the_value(n, tie, objective, order):
    sol = _solution(n, tie, objective, order)
    random_order = prize_sequence(n, order) is None
    for state in _states(n, tie, objective, order):
        args = _naive_args(state, random_order)
        value = naive_value(tie, objective, *args)
        cards_a, cards_b, M = naive_stage_matrix(tie, objective, *args)
        q = _query(sol, state)
        x = _distribution(q.strategy_a, cards_a, "A", state)
        y = _distribution(q.strategy_b, cards_b, "B", state)
        # A's mix earns at least the value against each of B's cards, and
        # B's mix concedes at most the value against each of A's cards.
        worst_for_a = x @ M
        worst_for_b = M @ y
        assert np.all(worst_for_a >= value - GUARANTEE_TOL), (state, value, worst_for_a)
        assert np.all(worst_for_b <= value + GUARANTEE_TOL), (state, value, worst_for_b)
