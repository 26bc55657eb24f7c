"""Level-by-level solve of the 3- and 4-player ``win`` games (integer-indexed tables).

Under ``win`` the payoffs depend on the scores, through each player's
deficit to the leader clipped at ``-remaining - 1``
(:meth:`.induction.Induction.score_keys`), so a decision state is (hand
pattern, chance slot, score keys). The patterns and slots, and their
transition tables, are those of the ``points`` solve (:func:`.levels.build_levels`);
the score keys add a third axis. Most (pattern, slot, keys) triples cannot
occur, so each level keeps only the states play reaches from the start, as
sorted int64 codes (:mod:`.winkernel`): the top level holds the first
prize's slots with every key 0, and each level below is the set of
successors of the undecided states above (:func:`.winkernel.expand_level`,
collected in a hash set),
exactly the states the memoised recursion visits.

Then :func:`.winkernel.solve_win_level` solves every level from the last
round up, in parallel; what the kernels cannot certify is redone here with
HiGHS or pygambit on the same stage game, as for ``points``. Players with
equal masks are ordered as the recursion orders them, so every stage game
is the recursion's array entry for entry and the selected equilibria are
the same.

:class:`WinLevelInduction` stores the values in those arrays but answers
the same questions as :class:`.induction.Induction` (``stage``, ``table``,
``decision``), so queries, ``verify`` and the solution files work unchanged.
"""

from __future__ import annotations

from collections.abc import MutableMapping

import numpy as np

from ..hashtable import EMPTY, slots_for
from ..stage import highs_stage
from .equilibrium import select_after_kernel
from .induction import Induction
from .kernel import KERNEL_OK, KERNEL_PURE
from .levelkernel import FLAG_EQUILIBRIUM, FLAG_SECURITY, LevelOut
from .levels import build_levels
from .winkernel import (FLAG_MISSING, METHOD_DECIDED, PASS_COPY, PASS_HASH, PASS_SOLVE, WinBelow, WinPlan, WinStates,
                        expand_level, grow_set, solve_win_level)

__all__ = ["WinLevelInduction"]

#: ``method`` codes of the states whose equilibria pygambit's path selected (by the selection step it took)
#: (fixed numbers, new methods appended, so the codes mean the same in every version)
_REDONE = {"pure": -1, "logit": -2, "first-pure": -3, "simpdiv": -4, "gnm": -5, "symmetric-logit": -6,
           "symmetric-support": -7, "support": -8}


def _run_start(patterns, m):
    """``run_start[P, j]``: first position of the run of equal masks holding position j of pattern P."""
    out = np.zeros((max(len(patterns), 1), m), dtype=np.int8)
    for P, masks in enumerate(patterns):
        for j in range(1, m):
            out[P, j] = out[P, j - 1] if masks[j] == masks[j - 1] else j
    return out


class _WinTable(MutableMapping):
    """``Induction.table`` over the level arrays: canonical key -> (security, equilibrium)."""

    def __init__(self, owner):
        self.owner = owner
        self.extra = {}  # states outside the levels (queries below unreached states: the recursion's)

    def _find(self, key):
        o = self.owner
        cm, pot, hidden, cs = key
        k = bin(cm[0]).count("1")
        codes = o.codes.get(k)
        if codes is None or k not in o.values:
            return None
        P = o.pattern_index[k].get(cm)
        s = o.slot_index[k].get((hidden, pot))
        if P is None or s is None or min(cs) <= -o.base:
            return None
        code = o.encode(k, P, s, cs)
        q = int(np.searchsorted(codes, code))
        return (k, q) if q < len(codes) and codes[q] == code else None

    def __getitem__(self, key):
        at = self._find(key)
        if at is None:
            return self.extra[key]
        k, q = at
        out = self.owner.values[k]
        return out.sec[q], out.eq[q]

    def __setitem__(self, key, value):
        self.extra[key] = value

    def __delitem__(self, key):
        del self.extra[key]

    def __len__(self):
        return sum(len(self.owner.codes[k]) for k in self.owner.values) + len(self.extra)

    def __iter__(self):
        o = self.owner
        for k in sorted(o.values):
            for code in o.codes[k].tolist():
                yield o.decode(k, code)
        yield from self.extra


class WinLevelInduction(Induction):
    """Backward induction of a ``win`` game, level by level, in integer-indexed arrays.

    Same parameters as :class:`.induction.Induction`; ``solve()`` fills every
    level. ``stage(key)``, ``table`` and ``decision`` behave as there.

    Attributes
    ----------
    codes : dict
        Hand size k -> sorted int64 codes of the level's states (see :mod:`.winkernel`).
    values : dict
        Hand size k -> :class:`.levelkernel.LevelOut` over those states.
    distinct_games : int
        Stage games actually solved: states whose games are equal bit for
        bit share one solve (``stage_games`` counts every undecided state).
    """

    def __init__(self, rules, stage_solver="numba", equilibrium=True):
        if rules.objective != "win":
            raise ValueError("the win level solver handles the win objective only: use LevelInduction for points")
        super().__init__(rules, stage_solver, equilibrium)
        n, m = rules.n, self.m
        self.patterns, self.slots, self.tables = build_levels(rules)
        self.pattern_index = {k: {cm: P for P, cm in enumerate(v)} for k, v in self.patterns.items()}
        self.slot_index = {k: {hs: s for s, hs in enumerate(v)} for k, v in self.slots.items()}
        # a key is -d with 0 <= d <= remaining + 1 <= n(n+1)/2 + 1
        self.base = n * (n + 1) // 2 + 2
        self._base = np.array([self.base], dtype=np.int64)
        self._hsum = {k: np.array([sum(h) for h, _ in self.slots[k]], dtype=np.int64) for k in range(1, n + 1)}
        self._runs = {k: _run_start(self.patterns[k], m) for k in range(1, n + 1)}
        for k in range(1, n + 1):
            if len(self.patterns[k]) * len(self.slots[k]) * float(self.base) ** m >= 2.0 ** 62:
                raise ValueError(f"{rules.describe()} has too many states for 64-bit codes: use a smaller n")
        self.codes = {}
        self.values = {}
        self.distinct_games = 0  # stage games solved: equal ones are solved once (see winkernel.WinPlan)
        self.table = _WinTable(self)

    # -- codes ------------------------------------------------------------
    def encode(self, k, P, s, keys) -> int:
        """Code of a state at hand size k (the numbering of :mod:`.winkernel`).

        Parameters
        ----------
        k : int
            Cards per hand.
        P, s : int
            Pattern and chance slot numbers of that level.
        keys : sequence of int
            Score keys (0 or less) in canonical player order.

        Returns
        -------
        int
        """
        code = P * len(self.slots[k]) + s
        for x in keys:
            code = code * self.base - x
        return code

    def decode(self, k, code):
        """The recursion's key of a state code at hand size k (inverse of :meth:`encode`).

        Returns
        -------
        tuple
            ``(masks, pot, hidden, score keys)``, players in canonical order.
        """
        keys = []
        for _ in range(self.m):
            keys.append(-(code % self.base))
            code //= self.base
        P, s = divmod(code, len(self.slots[k]))
        hidden, pot = self.slots[k][s]
        return self.patterns[k][P], pot, hidden, tuple(reversed(keys))

    def level_states(self, k) -> WinStates:
        """The states of hand size k (listed by :meth:`solve`) as the kernels read them."""
        return WinStates(self.codes[k], self._base, self._hsum[k])

    def level_below(self, k) -> WinBelow:
        """Hand size k as the level below k + 1 reads it: its states and, once solved, their values."""
        codes = self.codes.get(k, np.empty(0, dtype=np.int64))
        out = self.values.get(k)
        if out is None:  # not solved yet: numbering only (the states are being listed)
            return WinBelow(codes, self._base, self._hsum[k], self._runs[k], np.empty((0, self.m)),
                            np.empty((0, self.m)))
        return WinBelow(codes, self._base, self._hsum[k], self._runs[k], out.sec, out.eq)

    def _enumerate(self):
        """Reachable states of every level, from the first prize down (fills ``codes``)."""
        n, m = self.rules.n, self.m
        self.codes[n] = np.array([self.encode(n, 0, s, (0,) * m) for s in range(len(self.slots[n]))],
                                 dtype=np.int64)
        for k in range(n, 1, -1):
            here, below = self.level_states(k), self.level_below(k - 1)
            worst = self.tables[k].digits.shape[0] * max(1, int(self.tables[k].chances.max()))
            # a set at most half full, with room for one state's successors at least
            hk = np.full(slots_for(max(4 * len(here.codes), worst)), EMPTY, dtype=np.int64)
            q, count = 0, 0
            while True:
                q, count = expand_level(self.tables[k], here, below, m, self.carry, q, hk, count)
                if q == len(here.codes):
                    break
                bigger = np.full(2 * len(hk), EMPTY, dtype=np.int64)
                grow_set(hk, bigger)
                hk = bigger
            codes = hk[hk != EMPTY]
            del hk
            codes.sort()
            self.codes[k - 1] = codes

    def solve(self):
        """Enumerate the reachable states, then solve every level from the last round up (fills ``values``)."""
        m = self.m
        self._enumerate()
        for k in range(1, self.rules.n + 1):
            N = len(self.codes[k])
            out = LevelOut(np.empty((N, m)), np.empty((N, m)), np.empty(N), np.zeros(N, dtype=np.int8),
                           np.zeros(N, dtype=np.int8))
            plan = WinPlan(np.zeros(N, dtype=np.int64), np.full(N, -1, dtype=np.int64))
            # at k = 1 the level below is not read (the last round pays the final shares)
            args = (self.tables[k], self.level_states(k), self.level_below(max(k - 1, 1)), m, k, self.carry,
                    self.with_equilibrium)
            solve_win_level(*args, PASS_HASH, plan, out)
            if np.any(out.flags & FLAG_MISSING):
                raise RuntimeError(f"win level solver: a successor of a hand-size-{k} state is missing from "
                                   f"the level below (report this with the rules: {self.rules.describe()})")
            live = np.flatnonzero(out.method != METHOD_DECIDED)
            # the first state of each distinct hash represents the others (a stable sort keeps it first)
            _, first, inverse = np.unique(plan.hashes[live], return_index=True, return_inverse=True)
            plan.rep[live] = live[first[inverse.ravel()]]
            self.values[k] = out
            solve_win_level(*args, PASS_SOLVE, plan, out)
            self._redo_flagged(k, out)
            solve_win_level(*args, PASS_COPY, plan, out)
            self._redo_flagged(k, out)  # only hash collisions can be left
            if self.with_equilibrium:
                for name, code in (("pure", KERNEL_PURE), ("logit", KERNEL_OK), *_REDONE.items()):
                    self.methods[name] += int(np.count_nonzero(out.method == code))
                self.max_gain = max(self.max_gain, float(np.max(out.gain, initial=0.0)))
            self.stage_games += len(live)
            self.distinct_games += len(first)

    def _redo_flagged(self, k, out):
        """Re-solve what the kernel could not certify: HiGHS for security, pygambit for equilibria."""
        for q in np.flatnonzero(out.flags):
            game = self.stage(self.decode(k, int(self.codes[k][q])))
            if out.flags[q] & FLAG_SECURITY:
                for i in range(self.m):
                    M = np.ascontiguousarray(np.moveaxis(game.security[i], i, 0).reshape(k, -1))
                    out.sec[q, i] = highs_stage(M).value
            if out.flags[q] & FLAG_EQUILIBRIUM:
                found = select_after_kernel(game.equilibrium)
                out.eq[q] = found.values
                out.gain[q] = found.gain
                out.method[q] = _REDONE[found.method]  # copies of this state count the same method
            out.flags[q] = 0

    def start(self):
        """``(security, equilibrium)`` at the start, averaged over the first prize."""
        self.solve()
        return super().start()
