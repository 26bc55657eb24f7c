"""Slow, obviously-correct oracle for the variants of RULES.md "Variants of 002".

Written from RULES.md alone, independently of ``gops_solver``: raw hand
sets, plain memoised recursion over the full game tree, every bid (pair or
single card) a row or column of the stage game, every stage game solved by
``scipy.optimize.linprog``. Used by ``tests/test_variants.py``.

A decision state here is ``(hand_a, hand_b, row, carry, pile, diff)``:

- ``row``: the face-up prizes after the fill (with one open prize, the
  revealed prize alone),
- ``carry``: the carried pot,
- ``pile``: the face-down prizes (a sorted tuple for random order, the
  remaining order for a fixed order),
- ``diff``: score A - score B so far; values include it (``points``: the
  expected final margin; ``win``: P(A wins) - P(B wins)).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
from scipy.optimize import linprog

LP_GAP_TOL = 1e-10


def solve_lp(M):
    """Value of the zero-sum game ``M`` (row player maximises), by LP, certified."""
    M = np.asarray(M, dtype=float)
    m, n = M.shape
    # a pure saddle point needs no LP: row i's minimum equals column j's maximum
    i, j = int(M.min(axis=1).argmax()), int(M.max(axis=0).argmin())
    if M[i].min() >= M[:, j].max() - 1e-12:
        x, y = np.zeros(m), np.zeros(n)
        x[i] = y[j] = 1.0
        return float(M[i, j]), x, y
    # row player's LP: max v s.t. x^T M >= v, sum x = 1, x >= 0
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-M.T, np.ones((n, 1))])
    A_eq = np.ones((1, m + 1))
    A_eq[0, -1] = 0.0
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"linprog failed: {res.message}")
    x = np.clip(res.x[:m], 0, None)
    x /= x.sum()
    y = np.clip(-res.ineqlin.marginals, 0, None)
    y /= y.sum()
    lo, hi = float((x @ M).min()), float((M @ y).max())
    if hi - lo > LP_GAP_TOL:
        raise RuntimeError(f"LP strategies leave a gap {hi - lo}")
    return 0.5 * (lo + hi), x, y


class Game:
    """A variant game: ``bid_cards`` 1 or 2, ``open_prizes`` m, ``tie``, ``objective``, ``order``.

    ``order`` is ``None`` for a random order or a tuple (the fixed order).
    """

    def __init__(self, n, bid_cards=1, open_prizes=1, tie="carry", objective="points", order=None):
        self.n, self.bid, self.m, self.tie, self.objective = n, bid_cards, open_prizes, tie, objective
        self.order = None if order is None else tuple(order)
        self.cache = {}

    def end(self, diff):
        """A's payoff when the game is over (RULES.md, Objectives)."""
        return diff if self.objective == "points" else (diff > 0) - (diff < 0)

    def before_fill(self, a, b, row, carry, pile, diff):
        """Value before the row is filled: the average over the fills."""
        if not a:
            return self.end(diff)
        need = min(self.m - len(row), len(pile))
        if self.order is not None:
            fills = [(pile[:need], pile[need:])]
        else:
            fills = [(d, tuple(p for p in pile if p not in d)) for d in itertools.combinations(pile, need)]
        total = 0.0
        for drawn, rest in fills:
            total += self.decision(a, b, tuple(sorted(row + drawn)), carry, rest, diff)
        return total / len(fills)

    def matrix(self, a, b, row, carry, pile, diff):
        """Stage game of a decision state: rows A's bids, columns B's (ascending tuples)."""
        size = min(self.bid, len(a))
        bids_a = list(itertools.combinations(sorted(a), size))
        bids_b = list(itertools.combinations(sorted(b), size))
        M = np.empty((len(bids_a), len(bids_b)))
        last = len(a) == size  # the hands run out after this round
        for i, x in enumerate(bids_a):
            for j, y in enumerate(bids_b):
                a2 = tuple(c for c in a if c not in x)
                b2 = tuple(c for c in b if c not in y)
                if sum(x) != sum(y):
                    sgn = 1 if sum(x) > sum(y) else -1
                    # the winner takes the carried pot plus the row prize best for them
                    vals = [self.before_fill(a2, b2, tuple(p for p in row if p != r), 0, pile,
                                             diff + sgn * (carry + r)) for r in row]
                    M[i, j] = max(vals) if sgn > 0 else min(vals)
                else:
                    low = min(row)
                    keep = carry + low if self.tie == "carry" and not last else 0
                    M[i, j] = self.before_fill(a2, b2, tuple(p for p in row if p != low), keep, pile, diff)
        return M, bids_a, bids_b

    def decision(self, a, b, row, carry, pile, diff):
        if self.objective == "points" and diff:
            # RULES.md: under points the score so far only adds on
            return diff + self.decision(a, b, row, carry, pile, 0)
        key = (a, b, row, carry, pile, diff)
        if key not in self.cache:
            M, _, _ = self.matrix(a, b, row, carry, pile, diff)
            self.cache[key] = solve_lp(M)[0]
        return self.cache[key]

    def start(self):
        """Value of the game at its start."""
        full = tuple(range(1, self.n + 1))
        pile = self.order if self.order is not None else full
        return self.before_fill(full, full, (), 0, pile, 0)
