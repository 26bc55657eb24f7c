"""Strategies of the variants played against each other: exact evaluation and sampled play.

A state is ``(hand_a, hand_b, pile, row, carry, diff)`` over actual cards
(sorted tuples; a fixed order keeps the pile in reveal order). A round fills
the row from the pile (docs/rules.md "Variants of 002"), both seats bid (a
distribution over the bids of their hand, as the solution's ``query``
keys them), the larger total takes the carried pot and a prize of the
winner's choice, a tie moves the lowest prize out of the row (into the pot
under ``carry``).

Strategies: ``equilibrium`` (the solution's optimal bids and prize choices),
``uniform`` (every bid equally likely), ``highest`` / ``lowest`` (the bid of
the largest / smallest total; the first such in ascending order), ``match``,
``match+1`` and ``proportional`` (:func:`heuristic_mix`; the classic game's
definitions, read with the pot a winner takes). The non-equilibrium
strategies take the largest prize of the row when they win.

* :func:`evaluate_variant` -- exact: the distribution of the final margin
  of a strategy against another, and against its best reply (backward
  recursion over every reachable state, memoised; small decks only).
* :func:`simulate_variant` -- sampled games, reproducible by a seed.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from gops_solver.game.constants import REPLY_TOL
from gops_solver.variants import _walk as walk
from gops_solver.analysis._common import Evaluation, Outcome, Simulation

STRATEGIES = ("equilibrium", "uniform", "highest", "lowest", "match", "match+1", "proportional")

#: largest decks :func:`evaluate_variant` accepts (the recursion visits every reachable state and
#: queries the solution at each; measured on the shared 2-core machine: two-card n = 6 win, uniform
#: 36 s; open prizes m = 3, n = 5, uniform 12 s)
EVAL_MAX_CARDS = {"bid_cards": 6, "open_prizes": 5}


def strategy_name(spec) -> str:
    """A strategy spec as the variants' name (case and spaces ignored); one line for anything else."""
    if not isinstance(spec, str):
        raise ValueError(f"the variants play named strategies, not {spec!r}: use one of {', '.join(STRATEGIES)}")
    return check_strategy(spec.strip().lower())


def check_strategy(name) -> str:
    """Refuse a strategy the variants do not play, in one line."""
    if isinstance(name, str) and ":" in name:
        raise ValueError(f"strategy {name}: user functions take the classic game's view (one card a round, "
                         f"one revealed prize) and are not called in the variants: use one of "
                         f"{', '.join(STRATEGIES)}")
    if name not in STRATEGIES:
        raise ValueError(f"strategy {name!r} is not played in the variants: use one of {', '.join(STRATEGIES)}")
    return name


class Table:
    """The rules' mechanics over actual cards, and the strategies' bids at a state."""

    def __init__(self, sol):
        self.sol = sol
        self.rules = r = sol.rules
        self.m = r.open_prizes
        self.objective = r.objective
        self._eq = lru_cache(maxsize=None)(self._equilibrium)

    # the rounds' mechanics are the variants' own (gops_solver.variants._walk)
    def start(self):
        return walk.start(self.rules)

    def fills(self, state):
        """``[(probability, state after the fill)]``."""
        return walk.fills(self.rules, state)

    def bids(self, hand):
        return walk.bids(self.rules, hand)

    def after(self, state, x, y, prize):
        """The state after bids ``x``, ``y``; ``prize`` is the winner's pick (ignored on a tie)."""
        return walk.after(self.rules, state, x, y, prize)

    def payoff(self, diff) -> float:
        return float(diff) if self.objective == "points" else float(np.sign(diff))

    # -- strategies ---------------------------------------------------------------
    def _equilibrium(self, state):
        res = self.sol.query(**walk.query_args(self.rules, state))
        return res.strategy_a, res.strategy_b, res.choices

    def mix(self, name, state, seat):
        """Bid -> probability of seat ``"a"`` or ``"b"`` playing ``name`` at a decision state."""
        hand = state[0] if seat == "a" else state[1]
        bids = self.bids(hand)
        if name == "equilibrium":
            sa, sb, _ = self._eq(state)
            return sa if seat == "a" else sb
        if name == "uniform":
            return {x: 1.0 / len(bids) for x in bids}
        if name in ("match", "match+1", "proportional"):
            return heuristic_mix(name, self.rules, state, seat)
        pick = max(bids, key=sum) if name == "highest" else min(bids, key=sum)
        return {x: (1.0 if x == pick else 0.0) for x in bids}

    def choice(self, name, state, x, y):
        """The prize the winner (playing ``name``) takes after bids ``x``, ``y``."""
        row = state[3]
        if name == "equilibrium":
            if self.m == 1:
                return row[0]
            return self._eq(state)[2][(x, y)]
        return row[-1]


def heuristic_mix(name, rules, state, seat) -> dict:
    """Bid -> probability of ``match``, ``match+1`` or ``proportional`` at a variant's decision state.

    The classic game's definitions (:mod:`gops_solver.analysis.strategies`), with
    the pot the one a winner takes: the carried pot plus the revealed prize (one
    open prize) or plus the largest prize of the row (open prizes; the heuristics
    take that prize when they win). With one open prize and one-card bids they
    are exactly the classic heuristics.

    ``match`` / ``match+1``
        the bid whose total (a pair's sum with two-card bids) is closest to the
        pot (``pot + 1``); equally close bids share the probability equally.
    ``proportional``
        rank matching: the other prizes not yet won are the rest of the row and
        the face-down pile, ``N`` of them, ``r`` of them strictly smaller than
        the pot. The sorted hand is cut into ``P`` consecutive groups of the
        bid's size (two-card bids: the two lowest cards, the next two, ...; with
        an odd hand the highest card is left for the one-card last round); bid
        group ``floor(r * P / (N + 1))``. One-card bids: ``P = k``, ``N = k - 1``,
        so the card of rank ``r``, as in the classic game.
    """
    a, b, pile, row, carry, _ = state
    hand = tuple(sorted(a if seat == "a" else b))
    bids = walk.bids(rules, hand)
    pot = carry + row[-1]
    if name in ("match", "match+1"):
        target = pot + (name == "match+1")
        gaps = [abs(sum(x) - target) for x in bids]
        best = min(gaps)
        picks = [x for x, g in zip(bids, gaps) if g == best]
        return {x: (1.0 / len(picks) if x in picks else 0.0) for x in bids}
    size = len(bids[0])
    groups = len(hand) // size
    others = tuple(row[:-1]) + tuple(pile)
    r = sum(1 for p in others if p < pot)
    j = r * groups // (len(others) + 1)
    pick = hand[j * size:(j + 1) * size]
    return {x: (1.0 if x == pick else 0.0) for x in bids}


def check_evaluable(rules) -> None:
    """Refuse, in one line, a deck too large for :func:`evaluate_variant`."""
    key = "bid_cards" if rules.bid_cards == 2 else "open_prizes"
    if rules.n > EVAL_MAX_CARDS[key]:
        raise ValueError(f"exact evaluation of this variant is measured up to n={EVAL_MAX_CARDS[key]} "
                         f"(n={rules.n} given): use gops simulate for larger decks")


def _shift(dist, out, p):
    for k, v in dist.items():
        out[k] = out.get(k, 0.0) + p * v


def evaluate_variant(strategy, sol, against="equilibrium") -> Evaluation:
    """Exact margin, win/draw/loss and exploitability of ``strategy`` (seat A) in a variant game.

    Parameters
    ----------
    strategy, against : str
        One of :data:`STRATEGIES`.
    sol : VariantSolution

    Returns
    -------
    Evaluation
        As the classic :func:`~gops_solver.analysis.evaluate.evaluate`: the
        strategy against ``against``, against its best reply (B minimising
        A's ``value``; its pure reply is the first best bid), the game's
        value and the exploitability ``game_value - vs_best_response.value``.

    Raises
    ------
    ValueError
        An unknown strategy, or a deck larger than :data:`EVAL_MAX_CARDS`.
    """
    check_strategy(strategy)
    check_strategy(against)
    rules = sol.rules
    check_evaluable(rules)
    t0 = time.perf_counter()
    tb = Table(sol)

    @lru_cache(maxsize=None)
    def dist(state, b_name):
        """Final-margin distribution from a state before the fill (B plays ``b_name`` or the best reply)."""
        if not state[0]:
            return {state[5]: 1.0}
        out = {}
        for pf, st in tb.fills(state):
            xa = tb.mix(strategy, st, "a")
            if b_name == "best":
                yb = {best_reply(st): 1.0}
            else:
                yb = tb.mix(b_name, st, "b")
            for x, px in xa.items():
                for y, py in yb.items():
                    if px * py == 0:
                        continue
                    if sum(x) > sum(y):
                        prize = tb.choice(strategy, st, x, y)
                    elif sum(x) < sum(y):
                        prize = (_best_pick(st, x, y) if b_name == "best" else tb.choice(b_name, st, x, y))
                    else:
                        prize = None
                    _shift(dist(tb.after(st, x, y, prize), b_name), out, pf * px * py)
        return out

    @lru_cache(maxsize=None)
    def worst(state):
        """A's value from a state before the fill when B best-replies to ``strategy``."""
        if not state[0]:
            return tb.payoff(state[5])
        return sum(pf * reply_values(st)[0] for pf, st in tb.fills(state))

    def cell(st, x, y):
        if sum(x) > sum(y):
            return worst(tb.after(st, x, y, tb.choice(strategy, st, x, y)))
        if sum(x) < sum(y):
            return min(worst(tb.after(st, x, y, r)) for r in st[3])
        return worst(tb.after(st, x, y, None))

    @lru_cache(maxsize=None)
    def reply_values(st):
        """``(A's value under B's best reply, that reply)`` at a decision state."""
        xa = tb.mix(strategy, st, "a")
        best, arg = None, None
        for y in tb.bids(st[1]):
            v = sum(px * cell(st, x, y) for x, px in xa.items() if px)
            if best is None or v < best - REPLY_TOL:
                best, arg = v, y
        return best, arg

    def best_reply(st):
        return reply_values(st)[1]

    def _best_pick(st, x, y):
        vals = [(worst(tb.after(st, x, y, r)), -r) for r in st[3]]
        return -min(vals)[1]

    start = tb.start()
    vs = Outcome.from_distribution(dist(start, against), rules.objective)
    br = Outcome.from_distribution(dist(start, "best"), rules.objective)
    game_value = sol.value
    return Evaluation(rules, strategy, against, vs, br, game_value, max(0.0, game_value - br.value),
                      time.perf_counter() - t0)


def simulate_variant(a, b, sol, games: int, seed: int = 0, progress=None) -> Simulation:
    """Play ``games`` games of ``a`` (seat A) against ``b``, reproducible by ``seed``.

    Draws (fills, mixed bids) come from ``numpy.random.default_rng(seed)``.
    Returns the classic :class:`~gops_solver.analysis.simulate.Simulation` (means and
    95% intervals).
    """
    check_strategy(a)
    check_strategy(b)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games={games!r} must be a positive whole number")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"seed={seed!r} must be a whole number in 0..2**32-1")
    t0 = time.perf_counter()
    tb = Table(sol)
    rng = np.random.default_rng(int(seed))
    G = int(games)
    margins = np.empty(G, np.int64)

    def draw(mix):
        keys = list(mix)
        p = np.array([mix[k] for k in keys], dtype=float)
        return keys[int(rng.choice(len(keys), p=p / p.sum()))]

    for g in range(G):
        st = tb.start()
        while st[0]:
            fills = tb.fills(st)
            st = fills[int(rng.integers(len(fills)))][1] if len(fills) > 1 else fills[0][1]
            x, y = draw(tb.mix(a, st, "a")), draw(tb.mix(b, st, "b"))
            prize = None
            if sum(x) != sum(y):
                prize = tb.choice(a if sum(x) > sum(y) else b, st, x, y)
            st = tb.after(st, x, y, prize)
        margins[g] = st[5]
        if progress is not None:
            progress(1)
    m = float(margins.mean())
    half = 1.96 * float(margins.std(ddof=1)) / np.sqrt(G) if G > 1 else float("inf")

    def rate(mask):
        p = float(np.count_nonzero(mask)) / G
        h = 1.96 * np.sqrt(p * (1 - p) / G)
        return p, (p - h, p + h)

    w, wci = rate(margins > 0)
    dr, dci = rate(margins == 0)
    lo, lci = rate(margins < 0)
    return Simulation(sol.rules, a, b, G, int(seed), m, (m - half, m + half), w, wci, dr, dci, lo, lci,
                      time.perf_counter() - t0)


__all__ = ["STRATEGIES", "evaluate_variant", "simulate_variant"]
