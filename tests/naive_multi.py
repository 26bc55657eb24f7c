"""Slow, obviously-correct oracle for the three- and four-player games.

Written from RULES.md ("Three and four players") alone, sharing no code
with :mod:`gops_solver.multi`: raw card values (no relabelling), no
symmetry, plain recursion over the game tree, and scipy's ``linprog`` for
every player-vs-coalition stage game.

A state is ``(hands, pot, prizes, scores)``: ``hands`` a tuple of sorted
tuples (one per player, equal sizes), ``prizes`` the hidden prizes (sorted
for a random order, in reveal order for a fixed one), ``scores`` one per
player. Values are final payoffs: ``points`` the player's own final score,
``win`` 1 to the single top scorer, 1/s to each of s sharing the top.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
from scipy.optimize import linprog


def final_payoff(scores, player, objective):
    """Payoff of ``player`` when the game ends with ``scores``."""
    if objective == "points":
        return float(scores[player])
    top = max(scores)
    if scores[player] != top:
        return 0.0
    return 1.0 / sum(1 for s in scores if s == top)


def play_round(hands, pot, prizes, scores, bids, tie, random_order):
    """Outcomes of one round: a list of ``(probability, next_state or None, scores)``.

    ``next_state`` is None when the game is over (the hands are empty).
    """
    top = max(bids)
    winners = [i for i, b in enumerate(bids) if b == top]
    scores = list(scores)
    carry = 0
    if len(winners) == 1:
        scores[winners[0]] += pot  # the single highest bid takes the pot
    elif tie == "carry":
        carry = pot  # shared highest bid: the pot stays (lost after the last round)
    new_hands = tuple(tuple(c for c in h if c != b) for h, b in zip(hands, bids))
    if not new_hands[0]:
        return [(1.0, None, tuple(scores))]
    if random_order:
        out = []
        for p in prizes:
            rest = tuple(q for q in prizes if q != p)
            out.append((1.0 / len(prizes), (new_hands, carry + p, rest, tuple(scores)), tuple(scores)))
        return out
    return [(1.0, (new_hands, carry + prizes[0], prizes[1:], tuple(scores)), tuple(scores))]


def lp_value(M):
    """Value of the zero-sum game ``M`` (rows maximise) by scipy's LP."""
    M = np.asarray(M, dtype=float)
    m, n = M.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.hstack([-M.T, np.ones((n, 1))]), b_ub=np.zeros(n),
                  A_eq=np.hstack([np.ones((1, m)), np.zeros((1, 1))]), b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"linprog failed: {res.message}")
    return -res.fun


def make_security(tie, objective, random_order):
    """A memoised ``security(hands, pot, prizes, scores, player)``."""

    @lru_cache(maxsize=None)
    def security(hands, pot, prizes, scores, player):
        others = [j for j in range(len(hands)) if j != player]
        rows = []
        for own in hands[player]:
            row = []
            for combo in itertools.product(*(hands[j] for j in others)):
                bids = [0] * len(hands)
                bids[player] = own
                for j, b in zip(others, combo):
                    bids[j] = b
                v = 0.0
                for prob, nxt, sc in play_round(hands, pot, prizes, scores, bids, tie, random_order):
                    v += prob * (final_payoff(sc, player, objective) if nxt is None
                                 else security(*nxt, player))
                row.append(v)
            rows.append(row)
        return lp_value(rows)

    return security


def stage_payoffs(hands, pot, prizes, scores, tie, random_order, continuation):
    """The stage game at a state: array ``(players, k, ..., k)`` of expected payoffs.

    ``continuation(state, scores)`` gives the payoff vector from a successor
    decision state on (or None at the end: then the final payoffs apply via
    ``continuation(None, scores)``).
    """
    m, k = len(hands), len(hands[0])
    out = np.zeros((m,) + (k,) * m)
    for idx in itertools.product(range(k), repeat=m):
        bids = [hands[i][idx[i]] for i in range(m)]
        for prob, nxt, sc in play_round(hands, pot, prizes, scores, bids, tie, random_order):
            out[(slice(None),) + idx] += prob * np.asarray(continuation(nxt, sc))
    return out


def max_deviation_gain(payoffs, strategies):
    """Largest gain of any player by a pure deviation from the mixed profile."""
    m = payoffs.shape[0]
    best = 0.0
    for i in range(m):
        t = payoffs[i]
        # expected payoff of each own card against the others' mixes
        for j in reversed(range(m)):
            if j == i:
                continue
            t = np.tensordot(t, strategies[j], axes=([j], [0]))
        # after contracting every other axis only player i's axis is left
        own = t
        value = float(own @ strategies[i])
        best = max(best, float(own.max()) - value)
    return best
