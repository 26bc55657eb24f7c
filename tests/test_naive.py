"""Known answers for the oracle in ``tests/naive.py``.

Every expected number below has its source in a comment: a hand computation
written out next to it, a property stated in ``/work/shared/RULES.md``, or
an independent exact solver defined in this file (rational arithmetic and
support enumeration, sharing no code with ``naive.py``).
"""

import functools
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from naive import (
    OBJECTIVES,
    TIES,
    VALUE_TOL,
    naive_game_value,
    naive_reachable_states,
    naive_stage_matrix,
    naive_step,
    naive_value,
    prize_sequence,
    random_state,
    solve_lp,
)

RULE_COMBOS = list(itertools.product(TIES, OBJECTIVES))


# ---------------------------------------------------------------------------
# An independent exact solver (Fractions, no LP, no code shared with naive.py)
# ---------------------------------------------------------------------------


def _solve_linear(A, b):
    """Solve ``A z = b`` exactly (Gauss-Jordan on Fractions); None if singular."""
    size = len(A)
    rows = [list(A[r]) + [b[r]] for r in range(size)]
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                f = rows[r][col] / rows[col][col]
                rows[r] = [u - f * w for u, w in zip(rows[r], rows[col])]
    return [rows[r][size] / rows[r][r] for r in range(size)]


def _vertex_strategies(M):
    """Row strategies at the vertices of the maximin LP's feasible region.

    A vertex has a support I and |I| tight columns J with
    ``sum_{i in I} x_i M[i][j] = v`` (j in J) and ``sum x_i = 1`` nonsingular
    (Shapley & Snow 1950, "Basic solutions of discrete games"); the maximin
    is attained at one of them, so the best of these is optimal.
    """
    m, p = len(M), len(M[0])
    for s in range(1, min(m, p) + 1):
        for I in itertools.combinations(range(m), s):
            for J in itertools.combinations(range(p), s):
                # unknowns x_I (s of them) and v
                A = [[M[i][j] for i in I] + [Fraction(-1)] for j in J]
                A.append([Fraction(1)] * s + [Fraction(0)])
                z = _solve_linear(A, [Fraction(0)] * s + [Fraction(1)])
                if z is None or any(w < 0 for w in z[:s]):
                    continue
                x = [Fraction(0)] * m
                for i, w in zip(I, z[:s]):
                    x[i] = w
                yield x


def exact_matrix_value(M):
    """Exact value of the matrix game ``M`` (rows maximise), as a Fraction."""
    M = [[Fraction(v) for v in row] for row in M]
    m, p = len(M), len(M[0])
    lower = max(
        min(sum(x[i] * M[i][j] for i in range(m)) for j in range(p))
        for x in _vertex_strategies(M)
    )
    minus_transpose = [[-M[i][j] for i in range(m)] for j in range(p)]
    upper = -max(
        min(sum(y[j] * minus_transpose[j][i] for j in range(p)) for i in range(m))
        for y in _vertex_strategies(minus_transpose)
    )
    if lower != upper:  # minimax theorem; a failure here is a bug in this file
        raise AssertionError(f"exact solver: lower {lower} != upper {upper}")
    return lower


@functools.lru_cache(maxsize=None)
def exact_value(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order):
    """Exact value of a decision state, written from RULES.md on its own.

    ``hand_a``, ``hand_b``: sorted tuples; ``prizes``: sorted tuple (random
    order) or tuple in reveal order (fixed order).  No shortcuts: every
    score difference is carried to the end of the game.
    """
    matrix = []
    for a in hand_a:
        row = []
        for b in hand_b:
            rest_a = tuple(c for c in hand_a if c != a)
            rest_b = tuple(c for c in hand_b if c != b)
            carried = 0
            if a > b:
                new_diff = diff + pot
            elif a < b:
                new_diff = diff - pot
            else:
                new_diff = diff
                if tie == "carry" and rest_a:  # a last-round tie discards
                    carried = pot
            if not rest_a:
                if objective == "points":
                    entry = Fraction(new_diff)
                else:
                    entry = Fraction((new_diff > 0) - (new_diff < 0))
            elif random_order:
                entry = sum(
                    exact_value(
                        tie, objective, rest_a, rest_b, carried + p,
                        tuple(q for q in prizes if q != p), new_diff, True,
                    )
                    for p in prizes
                ) / len(prizes)
            else:
                entry = exact_value(
                    tie, objective, rest_a, rest_b, carried + prizes[0],
                    prizes[1:], new_diff, False,
                )
            row.append(entry)
        matrix.append(row)
    return exact_matrix_value(matrix)


def test_exact_solver_on_textbook_games():
    # Matching pennies and rock-paper-scissors: value 0 (von Neumann &
    # Morgenstern); [[2, 0], [0, 1]]: x = (1/3, 2/3), value 2/3 by
    # equalising 2x = 1 - x.
    assert exact_matrix_value([[1, -1], [-1, 1]]) == 0
    assert exact_matrix_value([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]) == 0
    assert exact_matrix_value([[2, 0], [0, 1]]) == Fraction(2, 3)
    assert exact_matrix_value([[3, 1, 4]]) == 1
    assert exact_matrix_value([[3], [1], [4]]) == 4


# ---------------------------------------------------------------------------
# solve_lp
# ---------------------------------------------------------------------------


def _assert_guarantees(M, value, x, y, tol=VALUE_TOL):
    """``x`` and ``y`` are distributions that guarantee ``value`` against
    every pure reply."""
    M = np.asarray(M, dtype=float)
    for s in (x, y):
        assert np.all(s >= 0)
        assert abs(s.sum() - 1) <= tol
    assert np.all(x @ M >= value - tol)
    assert np.all(M @ y <= value + tol)


def test_solve_lp_hand_computed_2x2():
    # M = [[4, 1], [-1, 9]], no saddle point (maximin 1 < minimax 4).
    # A equalises 4x - (1 - x) = x + 9(1 - x): x = 10/13, value 37/13;
    # B equalises 4y + (1 - y) = -y + 9(1 - y): y = 8/13.
    M = [[4, 1], [-1, 9]]
    value, x, y = solve_lp(M)
    assert value == pytest.approx(37 / 13, abs=VALUE_TOL)
    assert x == pytest.approx([10 / 13, 3 / 13], abs=1e-9)
    assert y == pytest.approx([8 / 13, 5 / 13], abs=1e-9)
    _assert_guarantees(M, value, x, y)


def test_solve_lp_known_games():
    # Rock-paper-scissors: value 0, uniform strategies are the unique optimum.
    rps = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    value, x, y = solve_lp(rps)
    assert value == pytest.approx(0, abs=VALUE_TOL)
    assert x == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert y == pytest.approx([1 / 3] * 3, abs=1e-9)
    # Pure saddle point at (row 1, column 0): max of row minima = 2 = min
    # of column maxima.
    value, x, y = solve_lp([[1, 5], [2, 3]])
    assert value == 2
    assert list(x) == [0, 1] and list(y) == [1, 0]
    # 1 x 1 and non-square: [[3, 1, 4]] -> B picks 1; [[3], [1], [4]] -> A picks 4.
    assert solve_lp([[7.5]])[0] == 7.5
    assert solve_lp([[3, 1, 4]])[0] == 1
    assert solve_lp([[3], [1], [4]])[0] == 4


@pytest.mark.parametrize("bad", [[], [[]], [1, 2], [[1, np.nan]], [[np.inf]]])
def test_solve_lp_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        solve_lp(bad)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda m: st.integers(1, 4).flatmap(
            lambda p: st.lists(
                st.lists(st.integers(-20, 20), min_size=p, max_size=p),
                min_size=m,
                max_size=m,
            )
        )
    )
)
def test_solve_lp_matches_exact_solver(M):
    value, x, y = solve_lp(M)
    assert abs(value - float(exact_matrix_value(M))) <= VALUE_TOL
    _assert_guarantees(M, value, x, y)


# ---------------------------------------------------------------------------
# naive_step and the worked example of RULES.md
# ---------------------------------------------------------------------------

DECK13 = frozenset(range(1, 14))


def test_worked_example_carry():
    # RULES.md (000, carry): first prize 8, both bid 9: tie, the 8 stays.
    a, b, carry, diff = naive_step("carry", DECK13, DECK13, 8, 0, 9, 9)
    assert (carry, diff) == (8, 0)
    assert a == b == DECK13 - {9}
    # The 5 is revealed: pot 13.  A bids 7, B bids J (11): B wins 13 points.
    a, b, carry, diff = naive_step("carry", a, b, carry + 5, diff, 7, 11)
    assert (carry, diff) == (0, -13)
    assert a == DECK13 - {9, 7} and b == DECK13 - {9, 11}


def test_worked_example_discard():
    # The same bids under "discard": the tie discards the 8, so B wins only 5.
    a, b, carry, diff = naive_step("discard", DECK13, DECK13, 8, 0, 9, 9)
    assert (carry, diff) == (0, 0)
    a, b, carry, diff = naive_step("discard", a, b, carry + 5, diff, 7, 11)
    assert (carry, diff) == (0, -5)


@pytest.mark.parametrize("tie", TIES)
def test_last_round_tie_discards(tie):
    # RULES.md: a tie in the last round discards the remaining pot (carry);
    # every tie discards it (discard).
    a, b, carry, diff = naive_step(tie, {4}, {4}, 7, 2, 4, 4)
    assert (a, b, carry, diff) == (frozenset(), frozenset(), 0, 2)


def test_naive_step_rejects_cards_not_in_hand():
    with pytest.raises(ValueError, match="not in A's hand"):
        naive_step("carry", {1, 2}, {1, 2}, 3, 0, 5, 1)
    with pytest.raises(ValueError, match="not in B's hand"):
        naive_step("carry", {1, 2}, {1, 2}, 3, 0, 1, 5)
    with pytest.raises(ValueError, match="tie must be"):
        naive_step("split", {1, 2}, {1, 2}, 3, 0, 1, 1)


def test_worked_example_in_stage_matrix():
    # The worked example as the last two rounds of a game: A holds {7, 9},
    # B holds {9, J}, the 8 is revealed, the 5 is the last hidden prize.
    # Entry (A 9, B 9): tie; then A's 7 must meet B's J for the pot.
    #   carry:   the 8 stays, pot 13, B wins it                 -> -13
    #   discard: the 8 is discarded, pot 5, B wins it           -> -5
    # The other entries (B's higher card wins each pot, a last-round tie
    # discards):
    #   A7 v B9:  -8, then A9 v BJ: -5      -> -13
    #   A7 v BJ:  -8, then A9 v B9: tie     -> -8
    #   A9 v BJ:  -8, then A7 v B9: -5      -> -13
    state = dict(hand_a={7, 9}, hand_b={9, 11}, pot=8, prizes=(5,), diff=0)
    for tie, tie_entry in (("carry", -13), ("discard", -5)):
        cards_a, cards_b, M = naive_stage_matrix(tie, "points", random_order=False, **state)
        assert cards_a == [7, 9] and cards_b == [9, 11]
        assert M.tolist() == [[-13, -8], [tie_entry, -13]]
        _, _, W = naive_stage_matrix(tie, "win", random_order=False, **state)
        assert W.tolist() == [[-1, -1], [-1, -1]]
    # carry: B's J against A's 7 or 9 always wins; M[0,0] = M[1,0] = -13
    # is a saddle point in column B9: value -13.
    assert naive_value("carry", "points", random_order=False, **state) == pytest.approx(-13)
    # discard: [[-13, -8], [-5, -13]] has no saddle point; A equalises
    # -13x - 5(1-x) = -8x - 13(1-x): x = 8/13, value -5 - 64/13 = -129/13.
    assert naive_value("discard", "points", random_order=False, **state) == pytest.approx(
        -129 / 13, abs=VALUE_TOL
    )


# ---------------------------------------------------------------------------
# Hand-computed positions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("random_order", [True, False])
@pytest.mark.parametrize(
    "hand_a, hand_b, pot, diff, points, win",
    [
        # A's 3 loses to B's 5: B takes the pot 4.
        (3, 5, 4, 0, -4, -1),
        # ... after leading by 6: A still wins by 2.
        (3, 5, 4, 6, 2, 1),
        # A's 5 beats B's 1: +3 on top of -3 is a 0-0 draw.
        (5, 1, 3, -3, 0, 0),
        # Equal cards tie in the last round: the pot is discarded under both
        # rules, the score stays.
        (4, 4, 7, 2, 2, 1),
        (4, 4, 7, 0, 0, 0),
        (4, 4, 7, -1, -1, -1),
    ],
)
def test_one_card_positions(tie, random_order, hand_a, hand_b, pot, diff, points, win):
    args = ({hand_a}, {hand_b}, pot, (), diff, random_order)
    assert naive_value(tie, "points", *args) == points
    assert naive_value(tie, "win", *args) == win


# A holds {2, 3}, B holds {1, 3}, the 4 is revealed and the 5 is the last
# hidden prize (random and fixed order coincide with one hidden prize).
#   A2 v B1: +4, then A3 v B3 ties in the last round (5 discarded)   ->  4
#   A2 v B3: -4, then A3 v B1: +5                                     ->  1
#   A3 v B1: +4, then A2 v B3: -5                                     -> -1
#   A3 v B3: tie, then A2 v B1 for the pot:
#            carry:   4 + 5 = 9 carried into the last round         ->  9
#            discard: the 4 is discarded, pot 5                     ->  5
# carry   M = [[4, 1], [-1, 9]]: no saddle point; A equalises
#         4x - (1-x) = x + 9(1-x): x = 10/13, value 50/13 - 1 = 37/13.
# discard M = [[4, 1], [-1, 5]]: A equalises 5x - 1 = 5 - 4x:
#         x = 2/3, value 7/3.
# win, diff 0: signs [[1, 1], [-1, 1]]; A's 2 wins whatever B does -> 1.
# win, diff -2: signs of M - 2 = [[1, -1], [-1, 1]] under both rules
#         (carry [[2, -1], [-3, 7]], discard [[2, -1], [-3, 3]]):
#         matching pennies -> 0.
TWO_CARD = dict(hand_a={2, 3}, hand_b={1, 3}, pot=4, prizes=(5,))


@pytest.mark.parametrize("random_order", [True, False])
@pytest.mark.parametrize(
    "tie, objective, diff, expected",
    [
        ("carry", "points", 0, 37 / 13),
        ("discard", "points", 0, 7 / 3),
        ("carry", "points", -2, 37 / 13 - 2),
        ("discard", "points", 5, 7 / 3 + 5),
        ("carry", "win", 0, 1),
        ("discard", "win", 0, 1),
        ("carry", "win", -2, 0),
        ("discard", "win", -2, 0),
    ],
)
def test_two_card_positions(random_order, tie, objective, diff, expected):
    value = naive_value(tie, objective, diff=diff, random_order=random_order, **TWO_CARD)
    assert value == pytest.approx(expected, abs=VALUE_TOL)


def test_two_card_stage_matrices():
    # The matrices of the comment above, entry by entry.
    for tie, last in (("carry", 9), ("discard", 5)):
        cards_a, cards_b, M = naive_stage_matrix(
            tie, "points", diff=0, random_order=True, **TWO_CARD
        )
        assert cards_a == [2, 3] and cards_b == [1, 3]
        assert M.tolist() == [[4, 1], [-1, last]]
        value, x, y = solve_lp(M)
        _assert_guarantees(M, value, x, y)
    # carry: A plays 2 with 10/13, B plays 1 with 8/13 (see the comment).
    _, x, y = solve_lp([[4, 1], [-1, 9]])
    assert x == pytest.approx([10 / 13, 3 / 13], abs=1e-9)
    assert y == pytest.approx([8 / 13, 5 / 13], abs=1e-9)


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
def test_three_card_domination(tie, objective):
    # A's every card beats B's every card: A wins each pot whatever the
    # order, so A gains pot + all hidden prizes = 2 + 1 + 3 = 6.
    state = dict(hand_a={4, 5, 6}, hand_b={1, 2, 3}, pot=2, prizes=(1, 3))
    for random_order in (True, False):
        for diff, points, win in ((0, 6, 1), (-6, 0, 0), (-7, -1, -1)):
            value = naive_value(tie, objective, diff=diff, random_order=random_order, **state)
            assert value == pytest.approx(points if objective == "points" else win)


# ---------------------------------------------------------------------------
# Whole games
# ---------------------------------------------------------------------------

ORDERS_BY_N = {
    1: ["random", "ascending", "descending", (1,)],
    2: ["random", "ascending", "descending", (2, 1)],
    3: ["random", "ascending", "descending", (2, 3, 1)],
}


def test_game_value_one_card():
    # n = 1: both players bid their only card, a tie in the last round: the
    # pot is discarded, 0-0.
    for tie, objective in RULE_COMBOS:
        for order in ORDERS_BY_N[1]:
            assert naive_game_value(1, tie, objective, order) == 0


def test_game_value_two_cards_by_hand():
    # n = 2, carry, points, first prize p, last prize q = 3 - p; both hold
    # {1, 2}.  Rows A1, A2; columns B1, B2:
    #   A1 v B1: tie, p carried; A2 v B2 tie in the last round   -> 0
    #   A1 v B2: -p, then A2 v B1: +q                           -> q - p
    #   A2 v B1: +p, then A1 v B2: -q                           -> p - q
    #   A2 v B2: tie; A1 v B1 tie in the last round             -> 0
    # p = 1: [[0, 1], [-1, 0]], saddle at (A1, B1): 0.
    # p = 2: [[0, -1], [1, 0]], saddle at (A2, B2): 0.  Average 0.
    for p in (1, 2):
        q = 3 - p
        _, _, M = naive_stage_matrix("carry", "points", {1, 2}, {1, 2}, p, (q,), 0, True)
        assert M.tolist() == [[0, q - p], [p - q, 0]]
    for tie, objective in RULE_COMBOS:
        for order in ORDERS_BY_N[2]:
            assert naive_game_value(2, tie, objective, order) == pytest.approx(0, abs=VALUE_TOL)


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
@pytest.mark.parametrize("order", ORDERS_BY_N[3])
def test_game_value_three_cards(tie, objective, order):
    # The start is a symmetric position, so its value is 0 (RULES.md); the
    # independent exact solver gets exactly Fraction(0) by expectiminimax
    # over the whole tree (random order: average over the first prize).
    deck = (1, 2, 3)
    seq = prize_sequence(3, order)
    if seq is None:
        exact = sum(
            exact_value(tie, objective, deck, deck, p, tuple(q for q in deck if q != p), 0, True)
            for p in deck
        ) / 3
    else:
        exact = exact_value(tie, objective, deck, deck, seq[0], seq[1:], 0, False)
    assert exact == 0
    assert naive_game_value(3, tie, objective, order) == pytest.approx(0, abs=VALUE_TOL)


def _as_naive_args(state, random_order):
    return (
        state["hand_a"], state["hand_b"], state["pot"], state["prizes"],
        state["diff"], random_order,
    )


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
@pytest.mark.parametrize("n, order", [(3, "random"), (3, "descending"), (3, (2, 3, 1)),
                                      (4, "random"), (4, (3, 1, 4, 2))])
def test_every_reachable_state_matches_exact_solver(tie, objective, n, order):
    # Every decision state of the game agrees with the independent exact
    # solver.  For points the exact solver carries diff through the whole
    # tree, so this also checks the diff shortcut of naive.py.
    random_order = prize_sequence(n, order) is None
    for hand_a, hand_b, pot, prizes, diff in sorted(naive_reachable_states(n, tie, order)):
        exact = exact_value(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order)
        value = naive_value(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order)
        assert abs(value - float(exact)) <= VALUE_TOL, (hand_a, hand_b, pot, prizes, diff)


# ---------------------------------------------------------------------------
# Properties on random states
# ---------------------------------------------------------------------------

# n = 4 for random order keeps these fast (a 5-card random-order state solves
# the whole game tree); tests/test_against_naive.py goes through n = 5.
PROPERTY_CASES = [(4, "random"), (5, "ascending"), (5, "descending"), (5, (3, 1, 5, 2, 4))]


def _states(n, tie, objective, order, count, seed):
    rng = np.random.default_rng(seed)
    return [random_state(rng, n, tie, objective, order) for _ in range(count)]


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
@pytest.mark.parametrize("n, order", PROPERTY_CASES)
def test_symmetric_positions_are_zero(tie, objective, n, order):
    # RULES.md: any symmetric position (equal hands, equal scores) has value
    # 0 under every rule.  Give B A's hand in random reachable states.
    random_order = prize_sequence(n, order) is None
    for state in _states(n, tie, objective, order, 25, seed=1):
        state = dict(state, hand_b=state["hand_a"], diff=0)
        value = naive_value(tie, objective, *_as_naive_args(state, random_order))
        assert abs(value) <= VALUE_TOL, state


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
@pytest.mark.parametrize("n, order", PROPERTY_CASES)
def test_antisymmetry(tie, objective, n, order):
    # Swapping the players' roles (hands swapped, diff negated) is the same
    # game seen from the other side: the value is negated.
    random_order = prize_sequence(n, order) is None
    for state in _states(n, tie, objective, order, 25, seed=2):
        swapped = dict(state, hand_a=state["hand_b"], hand_b=state["hand_a"], diff=-state["diff"])
        value = naive_value(tie, objective, *_as_naive_args(state, random_order))
        mirror = naive_value(tie, objective, *_as_naive_args(swapped, random_order))
        assert abs(value + mirror) <= VALUE_TOL, state


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
@pytest.mark.parametrize("n, order", PROPERTY_CASES)
def test_stage_strategies_guarantee_the_value(tie, objective, n, order):
    # RULES.md: an optimal strategy guarantees the value against every pure
    # reply of the opponent (to 1e-9).
    random_order = prize_sequence(n, order) is None
    for state in _states(n, tie, objective, order, 25, seed=3):
        args = _as_naive_args(state, random_order)
        cards_a, cards_b, M = naive_stage_matrix(tie, objective, *args)
        assert cards_a == sorted(state["hand_a"]) and cards_b == sorted(state["hand_b"])
        value, x, y = solve_lp(M)
        assert value == pytest.approx(naive_value(tie, objective, *args), abs=VALUE_TOL)
        _assert_guarantees(M, value, x, y)


@pytest.mark.parametrize("tie, objective", RULE_COMBOS)
def test_points_value_shifts_with_diff(tie, objective):
    # Under points the value is the expected final margin, so it moves one
    # for one with diff; under win it is a difference of probabilities.
    state = dict(hand_a={1, 4, 5}, hand_b={2, 3, 5}, pot=3, prizes={1, 4})
    base = naive_value(tie, objective, diff=0, random_order=True, **state)
    for diff in (-9, -2, 3, 10):
        value = naive_value(tie, objective, diff=diff, random_order=True, **state)
        if objective == "points":
            assert value == pytest.approx(base + diff, abs=VALUE_TOL)
        else:
            assert -1 - VALUE_TOL <= value <= 1 + VALUE_TOL
    if objective == "win":
        # |diff| beyond the 3 + 1 + 4 = 8 points still to come: decided.
        assert naive_value(tie, objective, diff=9, random_order=True, **state) == 1
        assert naive_value(tie, objective, diff=-9, random_order=True, **state) == -1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(hand_a={1, 2}, hand_b={1}, pot=1, prizes=()), "equal size"),
        (dict(hand_a=set(), hand_b=set(), pot=1, prizes=()), "equal size"),
        (dict(hand_a={1, 2}, hand_b={1, 2}, pot=1, prizes=()), "hidden prizes"),
        (dict(hand_a={1, 2}, hand_b={1, 2}, pot=1, prizes=(3, 3)), "distinct"),
    ],
)
def test_naive_value_rejects_bad_states(kwargs, match):
    with pytest.raises(ValueError, match=match):
        naive_value("carry", "points", diff=0, random_order=True, **kwargs)
    with pytest.raises(ValueError, match="objective"):
        naive_value("carry", "margin", {1}, {2}, 1, (), 0, True)


# ---------------------------------------------------------------------------
# random_state produces reachable states, all of them
# ---------------------------------------------------------------------------


def test_reachable_states_two_cards_ascending():
    # n = 2, carry, ascending: the 1 is revealed at the start; after the
    # four bid pairs (the 2 is then revealed):
    #   1 v 1 tie: 1 carried, pot 3        -> ({2}, {2}, 3, diff 0)
    #   1 v 2: B takes 1, pot 2            -> ({2}, {1}, 2, diff -1)
    #   2 v 1: A takes 1, pot 2            -> ({1}, {2}, 2, diff 1)
    #   2 v 2 tie: 1 carried, pot 3        -> ({1}, {1}, 3, diff 0)
    assert naive_reachable_states(2, "carry", "ascending") == {
        ((1, 2), (1, 2), 1, (2,), 0),
        ((2,), (2,), 3, (), 0),
        ((2,), (1,), 2, (), -1),
        ((1,), (2,), 2, (), 1),
        ((1,), (1,), 3, (), 0),
    }


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize(
    "n, order",
    [(n, order) for n in (1, 2, 3, 4) for order in ("random", "ascending", "descending")]
    + [(5, "random"), (5, (3, 1, 5, 2, 4))],
)
def test_random_state_is_reachable(tie, n, order):
    reachable = naive_reachable_states(n, tie, order)
    seq = prize_sequence(n, order)
    rng = np.random.default_rng(4)
    for i in range(300):
        s = random_state(rng, n, tie, OBJECTIVES[i % 2], order)
        key = (s["hand_a"], s["hand_b"], s["pot"], s["prizes"], s["diff"])
        assert key in reachable, s
        # The properties the brief of this oracle lists, checked directly.
        k = len(s["hand_a"])
        assert len(s["prizes"]) == k - 1
        if seq is not None:
            assert s["prizes"] == seq[n - k + 1 :]
        revealed_total = n * (n + 1) // 2 - sum(s["prizes"]) - s["pot"]
        assert abs(s["diff"]) <= revealed_total
        if tie == "discard":
            assert s["pot"] not in s["prizes"] and s["pot"] <= n
            if seq is not None:
                assert s["pot"] == seq[n - k]


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("order", ["random", "descending"])
def test_random_state_covers_every_reachable_state(tie, order):
    # With n = 3 every reachable state appears within 10000 draws (the
    # largest set, carry/random, has 123 states); a generator that missed
    # carried pots or decided positions would fail here.
    reachable = naive_reachable_states(3, tie, order)
    rng = np.random.default_rng(5)
    seen = set()
    for i in range(10000):
        s = random_state(rng, 3, tie, OBJECTIVES[i % 2], order)
        seen.add((s["hand_a"], s["hand_b"], s["pot"], s["prizes"], s["diff"]))
        if seen == reachable:
            break
    assert seen == reachable
