"""Level-by-level solve of the 3- and 4-player ``points`` games (integer-indexed tables).

Under ``points`` a player's value is their score plus a continuation that
does not depend on the scores (RULES.md: each player's payoff is their own
final score), so a decision state is (hand pattern, hidden prizes, pot):

* **patterns** of hand size ``k``: the hands as rank masks (only the order
  of the cards matters), players sorted (permuting players permutes the
  values), numbered per level;
* **chance slots**: the (hidden set, pot) pairs that play can reach at that
  hand size, numbered per level.

The tables of a level are the transitions of every (pattern, bid profile)
(winner, next pattern, where each player lands in its canonical order) and
of every (slot, carry or not, next prize) (the slot below). The jitted
kernel :func:`.levelkernel.solve_level` then solves all ``patterns x slots``
states of a level at once, from ``k = 1`` up; what it cannot certify is
redone here with HiGHS or pygambit before the next level starts.

:class:`LevelInduction` stores the values in those arrays but answers the
same questions as the memoised :class:`.induction.Induction` (``stage``,
``table``), so queries and ``verify`` work unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import MutableMapping

import numpy as np

from ..stage import highs_stage
from .equilibrium import select_after_kernel
from .induction import Induction, _bits, _relabel_masks
from .kernel import KERNEL_OK, KERNEL_PURE
from .levelkernel import FLAG_EQUILIBRIUM, FLAG_SECURITY, LevelOut, LevelTables, PrevLevel, solve_level
from .state import canonical

__all__ = ["LevelInduction", "build_levels"]


def _patterns(n, m):
    """Canonical patterns per hand size and the transitions of each (pattern, profile)."""
    full = (1 << n) - 1
    levels = {n: [(full,) * m]}
    trans = {}
    zero = (0,) * m
    for k in range(n, 1, -1):
        index = {}
        nxt_list = []
        K = k ** m
        win = np.empty((len(levels[k]), K), dtype=np.int8)
        nxt = np.empty((len(levels[k]), K), dtype=np.int32)
        inv = np.empty((len(levels[k]), K, m), dtype=np.int8)
        for P, masks in enumerate(levels[k]):
            cards = [_bits(x) for x in masks]
            for t, prof in enumerate(itertools.product(*cards)):
                top = max(prof)
                winners = [i for i, b in enumerate(prof) if b == top]
                win[P, t] = winners[0] if len(winners) == 1 else -1
                new = _relabel_masks(tuple(x & ~(1 << b) for x, b in zip(masks, prof)))
                perm = canonical(new, zero)
                cm = tuple(new[i] for i in perm)
                Q = index.get(cm)
                if Q is None:
                    Q = index[cm] = len(nxt_list)
                    nxt_list.append(cm)
                nxt[P, t] = Q
                inv[P, t, list(perm)] = np.arange(m)
        trans[k] = (win, nxt, inv)
        levels[k - 1] = nxt_list
    P1 = len(levels[1])
    trans[1] = (np.full((P1, 1), -1, dtype=np.int8), np.zeros((P1, 1), dtype=np.int32),
                np.zeros((P1, 1, m), dtype=np.int8))
    for P, masks in enumerate(levels[1]):  # one card each: the single highest card wins
        top = max(masks)
        if sum(1 for x in masks if x == top) == 1:
            trans[1][0][P, 0] = masks.index(top)
    return levels, trans


def _slots(rules):
    """Reachable (hidden, pot) pairs per hand size and their successors."""
    n = rules.n
    carry = rules.tie == "carry"
    if rules.random_order:
        prizes = tuple(range(1, n + 1))
        top = [(tuple(q for q in prizes if q != p), p) for p in prizes]
    else:
        seq = tuple(rules.sequence)
        top = [(seq[1:], seq[0])]
    slots = {n: top}
    succ = {}
    for k in range(n, 1, -1):
        index, below = {}, []
        C = (k - 1) if rules.random_order else 1
        table = np.empty((len(slots[k]), 2, C), dtype=np.int32)
        for s, (hidden, pot) in enumerate(slots[k]):
            for c in (0, 1):
                carried = pot if (c == 1 and carry) else 0
                for r in range(C):
                    p = hidden[r]
                    rest = hidden[:r] + hidden[r + 1:]
                    key = (rest, carried + p)
                    j = index.get(key)
                    if j is None:
                        j = index[key] = len(below)
                        below.append(key)
                    table[s, c, r] = j
        succ[k] = table
        slots[k - 1] = below
    succ[1] = np.zeros((len(slots[1]), 2, 1), dtype=np.int32)
    return slots, succ


def build_levels(rules):
    """The integer-indexed tables of every level.

    Returns
    -------
    patterns : dict
        k -> list of canonical mask tuples.
    slots : dict
        k -> list of ``(hidden, pot)``.
    tables : dict
        k -> :class:`.levelkernel.LevelTables`.
    """
    n, m = rules.n, rules.players
    patterns, trans = _patterns(n, m)
    slots, succ = _slots(rules)
    tables = {}
    for k in range(1, n + 1):
        K = k ** m
        strides = np.array([k ** (m - 1 - j) for j in range(m)], dtype=np.int64)
        digits = np.ascontiguousarray((np.arange(K, dtype=np.int64)[:, None] // strides[None, :]) % k)
        pots = np.array([pot for _, pot in slots[k]], dtype=np.int64)
        chances = np.array([(len(h) if rules.random_order else 1) if k > 1 else 0 for h, _ in slots[k]],
                           dtype=np.int64)
        win, nxt, inv = trans[k]
        tables[k] = LevelTables(win, nxt, inv, pots, succ[k], chances, digits)
    return patterns, slots, tables


class _LevelTable(MutableMapping):
    """``Induction.table`` over the level arrays: canonical key -> (security, equilibrium)."""

    def __init__(self, owner):
        self.owner = owner
        self.extra = {}  # states outside the tables (solved by the memoised fallback)

    def _find(self, key):
        o = self.owner
        cm, pot, hidden, _ = key
        k = bin(cm[0]).count("1")
        P = o.pattern_index.get(k, {}).get(cm)
        s = o.slot_index.get(k, {}).get((hidden, pot))
        return None if P is None or s is None else (k, P, s)

    def __getitem__(self, key):
        at = self._find(key)
        if at is None:
            return self.extra[key]
        k, P, s = at
        out = self.owner.values[k]
        return out.sec[P, s], out.eq[P, s]

    def __setitem__(self, key, value):
        self.extra[key] = value

    def __delitem__(self, key):
        del self.extra[key]

    def __len__(self):
        return sum(v.gain.size for v in self.owner.values.values()) + len(self.extra)

    def __iter__(self):
        o = self.owner
        zero = (0,) * o.m
        for k in sorted(o.values):
            for cm in o.patterns[k]:
                for hidden, pot in o.slots[k]:
                    yield (cm, pot, hidden, zero)
        yield from self.extra


class LevelInduction(Induction):
    """Backward induction of a ``points`` game, level by level, in integer-indexed arrays.

    Same parameters as :class:`.induction.Induction`; ``solve()`` fills every
    level. ``stage(key)``, ``table`` and ``decision`` behave as there.
    """

    def __init__(self, rules, stage_solver="numba", equilibrium=True):
        if rules.objective != "points":
            raise ValueError("the level solver handles the points objective only")
        super().__init__(rules, stage_solver, equilibrium)
        self.patterns, self.slots, self.tables = build_levels(rules)
        self.pattern_index = {k: {cm: P for P, cm in enumerate(v)} for k, v in self.patterns.items()}
        self.slot_index = {k: {hs: s for s, hs in enumerate(v)} for k, v in self.slots.items()}
        self.values = {}
        self.table = _LevelTable(self)

    def solve(self):
        """Solve every level from the last round up (fills ``values``)."""
        m = self.m
        prev = PrevLevel(np.zeros((1, 1, m)), np.zeros((1, 1, m)))
        for k in range(1, self.rules.n + 1):
            P, S = len(self.patterns[k]), len(self.slots[k])
            out = LevelOut(np.empty((P, S, m)), np.empty((P, S, m)), np.empty((P, S)),
                           np.zeros((P, S), dtype=np.int8), np.zeros((P, S), dtype=np.int8))
            solve_level(self.tables[k], prev, m, k, self.carry, self.with_equilibrium, out)
            self.values[k] = out
            self._redo_flagged(k, out)
            if self.with_equilibrium:
                self.methods["pure"] += int(np.count_nonzero(out.method == KERNEL_PURE))
                self.methods["logit"] += int(np.count_nonzero(out.method == KERNEL_OK))
                self.max_gain = max(self.max_gain, float(np.max(out.gain)))
            self.stage_games += P * S
            prev = PrevLevel(out.sec, out.eq)

    def _redo_flagged(self, k, out):
        """Re-solve what the kernel could not certify: HiGHS for security, pygambit for equilibria."""
        zero = (0,) * self.m
        # distinct states can build the very same stage game (seen at 3 players
        # n = 6 carry); the reference path, seconds to minutes a game, runs once per game
        selected = {}
        for P, s in zip(*np.nonzero(out.flags)):
            hidden, pot = self.slots[k][s]
            game = self.stage((self.patterns[k][P], pot, hidden, zero))
            if out.flags[P, s] & FLAG_SECURITY:
                for i in range(self.m):
                    M = np.ascontiguousarray(np.moveaxis(game.security[i], i, 0).reshape(k, -1))
                    out.sec[P, s, i] = highs_stage(M).value
            if out.flags[P, s] & FLAG_EQUILIBRIUM:
                key = game.equilibrium.tobytes()
                found = selected.get(key)
                if found is None:
                    found = selected[key] = select_after_kernel(game.equilibrium)
                self.methods[found.method] += 1
                out.eq[P, s] = found.values
                out.gain[P, s] = found.gain
                out.method[P, s] = -1  # counted here, not by the kernel's statuses

    def start(self):
        """``(security, equilibrium)`` at the start, averaged over the first prize."""
        self.solve()
        return super().start()
