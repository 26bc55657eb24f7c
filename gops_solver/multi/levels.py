"""Level-by-level solve of the 3- and 4-player ``points`` games (integer-indexed tables).

Under ``points`` a player's value is their score plus a continuation that
does not depend on the scores (docs/rules.md: each player's payoff is their own
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
states of a level at once, from ``k = 1`` up, each distinct pair of stage
games once (:class:`.levelkernel.GamePlan`); what it cannot certify is
redone here with HiGHS or pygambit before the next level starts.

:class:`LevelInduction` stores the values in those arrays but answers the
same questions as the memoised :class:`.induction.Induction` (``stage``,
``table``), so queries and ``verify`` work unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import MutableMapping

import numpy as np

from gops_solver.lp.stage import highs_stage
from .equilibrium import METHOD_CODES
from .fallback import select_all
from .induction import Induction, _bits, _relabel_masks
from .kernel import KERNEL_OK, KERNEL_PURE
from .levelkernel import (FLAG_EQUILIBRIUM, FLAG_SECURITY, PASS_COPY, PASS_HASH, PASS_SOLVE, LevelOut, new_plan,
                          LevelTables, PrevLevel, solve_level)
from .state import canonical

__all__ = ["LevelInduction", "build_levels", "redo_flagged", "share_games", "tally_level"]


def share_games(plan, live):
    """Share the stage games of a level's live states: ``(plan, distinct)``.

    Returns the plan with ``rep``, ``solves`` and ``copies`` set from
    ``plan.hashes`` (:class:`.levelkernel.GamePlan`; ``rep`` is filled in
    place) and the number of distinct games. The first state of each
    distinct hash represents the others (a stable sort keeps it first);
    states not in ``live`` keep ``rep == -1``.
    """
    _, first, inverse = np.unique(plan.hashes[live], return_index=True, return_inverse=True)
    rep = live[first[inverse.ravel()]]
    plan.rep[live] = rep
    # the copies in state order (live is ascending): the copy pass then writes its results
    # one after the other and reads the representatives' (a few percent of the states)
    copies = live[rep != live]
    return plan._replace(solves=np.sort(live[first]), copies=copies), len(first)


def tally_level(ind, out, stage_games, distinct):
    """Add a solved level's selection methods, largest deviation gain and game counts to the solver's counters.

    ``out.method`` holds the kernel's statuses and, for the games the
    fallback selected, :data:`.equilibrium.METHOD_CODES` (copies of a game
    count its method too).
    """
    if ind.with_equilibrium:
        for name, code in (("pure", KERNEL_PURE), ("logit", KERNEL_OK), *METHOD_CODES.items()):
            ind.methods[name] += int(np.count_nonzero(out.method == code))
        ind.max_gain = max(ind.max_gain, float(np.max(out.gain, initial=0.0)))
    ind.stage_games += stage_games
    ind.distinct_games += distinct


def redo_flagged(ind, out, cells, key_of):
    """Re-solve what a level's kernel could not certify: HiGHS for security, the fallback for equilibria.

    The ``points`` and ``win`` level solvers share this. Each flagged
    state's stage games come from the recursion's builder
    (``ind.stage(key_of(cell))``); the equilibria go to
    :func:`.fallback.select_all` (seconds to minutes a game, shared out
    between processes) and their ``method`` becomes the step's
    :data:`.equilibrium.METHOD_CODES`, so copies of the state count it too.

    Parameters
    ----------
    ind : LevelInduction or WinLevelInduction
    out : LevelOut
        The level's results (modified in place; the flags are cleared).
    cells : list of tuple of int
        The flagged states, as indices of ``out``'s state axes.
    key_of : callable
        A cell's state key.
    """
    redo = []
    for cell in cells:
        game = ind.stage(key_of(cell))
        if out.flags[cell] & FLAG_SECURITY:
            for i in range(ind.m):
                M = game.security[i]
                M = np.ascontiguousarray(np.moveaxis(M, i, 0).reshape(M.shape[0], -1))
                out.sec[cell + (i,)] = highs_stage(M).value
        if out.flags[cell] & FLAG_EQUILIBRIUM:
            redo.append((cell, game.equilibrium))
        out.flags[cell] = 0
    for (cell, _), found in zip(redo, select_all([U for _, U in redo])):
        out.eq[cell] = found.values
        out.gain[cell] = found.gain
        out.method[cell] = METHOD_CODES[found.method]


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

    Attributes
    ----------
    distinct_games : int
        States whose stage games were actually solved: states whose games
        have one fingerprint share one solve (``stage_games`` counts them all).
    """

    def __init__(self, rules, stage_solver="numba", equilibrium=True, selection="logit"):
        if rules.objective != "points":
            raise ValueError("the level solver handles the points objective only")
        super().__init__(rules, stage_solver, equilibrium, selection)
        self.patterns, self.slots, self.tables = build_levels(rules)
        self.pattern_index = {k: {cm: P for P, cm in enumerate(v)} for k, v in self.patterns.items()}
        self.slot_index = {k: {hs: s for s, hs in enumerate(v)} for k, v in self.slots.items()}
        self.values = {}
        self.distinct_games = 0  # stage games solved: equal ones are solved once (see levelkernel.GamePlan)
        self.table = _LevelTable(self)

    def solve(self):
        """Solve every level from the last round up (fills ``values``)."""
        m = self.m
        prev = PrevLevel(np.zeros((1, 1, m)), np.zeros((1, 1, m)))
        for k in range(1, self.rules.n + 1):
            out = self.solve_level(k, prev)
            prev = PrevLevel(out.sec, out.eq)

    def solve_level(self, k, prev):
        """Solve the level of hand size ``k`` from the level below (``prev``); its :class:`.levelkernel.LevelOut`."""
        m = self.m
        P, S = len(self.patterns[k]), len(self.slots[k])
        out = LevelOut(np.empty((P, S, m)), np.empty((P, S, m)), np.empty((P, S)),
                       np.zeros((P, S), dtype=np.int8), np.zeros((P, S), dtype=np.int8))
        plan = new_plan(P * S)
        args = (self.tables[k], prev, m, k, self.carry, self.selection_code)
        solve_level(*args, PASS_HASH, plan, out)
        plan, distinct = share_games(plan, np.arange(P * S))
        self.values[k] = out
        solve_level(*args, PASS_SOLVE, plan, out)
        self._redo_flagged(k, out)
        solve_level(*args, PASS_COPY, plan, out)
        self._redo_flagged(k, out)  # only first-hash collisions can be left
        tally_level(self, out, P * S, distinct)
        return out

    def _redo_flagged(self, k, out):
        """Re-solve what the kernel could not certify (:func:`redo_flagged`)."""
        zero = (0,) * self.m

        def key_of(cell):
            hidden, pot = self.slots[k][cell[1]]
            return self.patterns[k][cell[0]], pot, hidden, zero

        redo_flagged(self, out, list(zip(*np.nonzero(out.flags))), key_of)

    def start(self):
        """``(security, equilibrium)`` at the start, averaged over the first prize."""
        self.solve()
        return super().start()
