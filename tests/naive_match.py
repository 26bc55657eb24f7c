"""Slow, obviously-correct match values (the oracle for tests/test_match.py).

A game whose end pays ``f(final difference)`` is solved by the card-level
recursion of ``naive.py`` with no shortcuts (no decided positions, no
additivity); a match chains such games exactly as RULES.md "Match formats"
describes, by brute force over match positions:

- session: game 3 pays the sign (``win``) or the total itself (``points``)
  of the 3-game total; game g pays game g + 1's value from its final total.
- best-of-N: first to N // 2 + 1 wins; a replayed draw pays the position's
  own value (found by bisection: the value is a nondecreasing function of
  the draw payoff with slope at most 1), a half draw gives half a game each.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.optimize import linprog

from naive import naive_step, prize_sequence, solve_lp

#: Certificate gap accepted from the tightened retry (HiGHS stops near 1e-9 on
#: a few bisection payoffs); still a certified bracket of the stage value.
FALLBACK_GAP_TOL = 1e-9


def _solve(M):
    """``naive.solve_lp``; when HiGHS's default tolerances miss its certificate, retry them tighter."""
    try:
        return solve_lp(M)[0]
    except RuntimeError:
        m, p = M.shape
        res = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.hstack([-M.T, np.ones((p, 1))]), b_ub=np.zeros(p),
                      A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)],
                      method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                               "dual_feasibility_tolerance": 1e-10})
        if not res.success:
            raise RuntimeError(f"linprog failed: {res.message}")
        x = np.clip(res.x[:m], 0, None)
        y = np.clip(-np.asarray(res.ineqlin.marginals), 0, None)
        x, y = x / x.sum(), y / y.sum()
        lower, upper = float(np.min(x @ M)), float(np.max(M @ y))
        if upper - lower > FALLBACK_GAP_TOL:
            raise RuntimeError(f"stage solve not certified: [{lower!r}, {upper!r}]")
        return (lower + upper) / 2


@functools.lru_cache(maxsize=None)
def _value(tie, f, hand_a, hand_b, pot, prizes, diff, random_order):
    """Value of a state whose game ends paying ``dict(f)[final diff]``."""
    cards_a, cards_b = sorted(hand_a), sorted(hand_b)
    M = np.empty((len(cards_a), len(cards_b)))
    for i, a in enumerate(cards_a):
        for j, b in enumerate(cards_b):
            na, nb, carry, d = naive_step(tie, hand_a, hand_b, pot, diff, a, b)
            if not na:
                M[i, j] = dict(f)[d]
            elif random_order:
                M[i, j] = sum(_value(tie, f, na, nb, carry + p, prizes - {p}, d, True) for p in sorted(prizes)) / len(prizes)
            else:
                M[i, j] = _value(tie, f, na, nb, carry + prizes[0], prizes[1:], d, False)
    return _solve(M)


def game_value(n, tie, order, f, start_diff=0):
    """Value at the start of a game from ``start_diff``; ``f`` maps every final difference to a payoff."""
    T = n * (n + 1) // 2
    f = tuple(sorted((d, float(f(d))) for d in range(start_diff - T, start_diff + T + 1)))
    seq = prize_sequence(n, order)
    deck = frozenset(range(1, n + 1))
    if seq is None:
        return sum(_value(tie, f, deck, deck, p, deck - {p}, start_diff, True) for p in sorted(deck)) / n
    return _value(tie, f, deck, deck, seq[0], tuple(seq[1:]), start_diff, False)


def state_value(n, tie, order, f, hand_a, hand_b, pot, prizes, diff):
    """Value of one decision state of a game that ends paying ``f``."""
    T = n * (n + 1) // 2
    f = tuple(sorted((d, float(f(d))) for d in range(diff - T, diff + T + 1)))
    random_order = prize_sequence(n, order) is None
    prizes = frozenset(prizes) if random_order else tuple(prizes)
    return _value(tie, f, frozenset(hand_a), frozenset(hand_b), pot, prizes, diff, random_order)


def session_end(n, tie, order, objective, game):
    """The end payoff of session game ``game`` as a function of the running total."""
    if game == 3:
        return (lambda d: d) if objective == "points" else (lambda d: float(np.sign(d)))
    nxt = session_end(n, tie, order, objective, game + 1)
    cache = {}

    def f(d):
        if d not in cache:
            cache[d] = game_value(n, tie, order, nxt, d)
        return cache[d]
    return f


def session_value(n, tie, order, objective):
    """Value of a 3-game session at its start."""
    return game_value(n, tie, order, session_end(n, tie, order, objective, 1), 0)


def best_of_values(n, tie, order, games, draw):
    """Match values V[(a, b)] of a best-of match (a, b: games won; halves under ``half``)."""
    need = games // 2 + 1
    V = {}

    def val(a, b):
        if draw == "replay":
            if a >= need:
                return 1.0
            if b >= need:
                return -1.0
        elif a + b >= games or abs(a - b) > games - (a + b):
            return float(np.sign(a - b))
        if (a, b) not in V:
            win, loss = val(a + 1, b), val(a, b + 1)
            if draw == "half":
                V[(a, b)] = game_value(n, tie, order, _wdl(win, val(a + 0.5, b + 0.5), loss))
            else:
                lo, hi = loss, win
                for _ in range(45):  # bisection on G(x) - x, nonincreasing
                    x = (lo + hi) / 2
                    if game_value(n, tie, order, _wdl(win, x, loss)) > x:
                        lo = x
                    else:
                        hi = x
                V[(a, b)] = (lo + hi) / 2
        return V[(a, b)]

    val(0, 0)
    return V, val


def _wdl(win, draw, loss):
    return lambda d: win if d > 0 else (loss if d < 0 else draw)
