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
successors of the undecided states above (:func:`.winkernel.expand_patterns`,
one pattern of the level below at a time),
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

from .induction import Induction
from .kernel import SELECT_LOGIT
from .levelkernel import (PASS_COPY, PASS_DECIDE, PASS_HASH, PASS_SAMPLE, PASS_SOLVE, SAMPLE_STRIDE, LevelOut,
                          new_plan)
from .levels import build_levels, redo_flagged, share_games, tally_level
from .winkernel import (FLAG_MISSING, METHOD_DECIDED, Decoded, WinBelow, WinStates, decode_level, expand_patterns,
                        group_starts, predecessors, solve_win_level, window_codes)

__all__ = ["WinLevelInduction"]

# room for the bitmaps of the level-below patterns listed at once (each S' * B ** m bits)
_WINDOW_BYTES = 64 << 20

#: a level is solved state by state (no hash pass) where a sample estimates that at most this
#: fraction of its stage games are copies of others (see ``_worth_sharing``)
SHARE_MIN_COPIES = 0.15


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
    ``share``: ``"auto"`` (default) finds a level's equal stage games
    before solving where that pays (:meth:`_worth_sharing`), ``"always"``
    or ``"never"`` on every level (the tests compare the three).

    Attributes
    ----------
    codes : dict
        Hand size k -> sorted int64 codes of the level's states (see :mod:`.winkernel`).
    values : dict
        Hand size k -> :class:`.levelkernel.LevelOut` over those states.
    distinct_games : int
        Stage games actually solved: on a level whose equal games are
        shared, states whose games have one 128-bit fingerprint share one
        solve (``stage_games`` counts every undecided state).
    """

    def __init__(self, rules, stage_solver="numba", equilibrium=True, selection="logit", share="auto"):
        if rules.objective != "win":
            raise ValueError("the win level solver handles the win objective only: use LevelInduction for points")
        if share not in ("auto", "always", "never"):
            raise ValueError(f"unknown share {share!r}: use auto, always or never")
        super().__init__(rules, stage_solver, equilibrium, selection)
        self.share = share
        self.shared = {}  # hand size k -> whether the level's equal games were shared
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
        self.distinct_games = 0  # stage games solved: equal ones are solved once (see levelkernel.GamePlan)
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
        groups = group_starts(codes, len(self.patterns[k]) * len(self.slots[k]), self.base ** self.m)
        out = self.values.get(k)
        if out is None:  # not solved yet: numbering only (the states are being listed)
            return WinBelow(codes, self._base, self._hsum[k], self._runs[k], groups, np.empty((0, self.m)),
                            np.empty((0, self.m)))
        return WinBelow(codes, self._base, self._hsum[k], self._runs[k], groups, out.sec, out.eq)

    def list_states(self):
        """Reachable states of every level, from the first prize down (fills ``codes``).

        The level below is listed one pattern at a time (a batch of them in
        parallel), each as a bitmap of its ``S' * B ** m`` possible codes,
        so the codes come out sorted and deduplicated without a hash set.
        """
        n, m = self.rules.n, self.m
        BM = self.base ** m
        self.codes[n] = np.array([self.encode(n, 0, s, (0,) * m) for s in range(len(self.slots[n]))],
                                 dtype=np.int64)
        for k in range(n, 1, -1):
            here, below = self.level_states(k), self.level_below(k - 1)
            P_below, span = len(self.patterns[k - 1]), len(self.slots[k - 1]) * BM
            pred = predecessors(self.tables[k], here.codes, len(self.slots[k]), BM, P_below)
            dec = Decoded(np.empty(len(here.codes), dtype=np.int64), np.empty((len(here.codes), m), dtype=np.int64))
            decode_level(self.tables[k], here, m, dec)
            words = (span + 63) // 64
            nb = max(2, min(P_below, _WINDOW_BYTES // (8 * words)))
            windows = np.empty((nb, words), dtype=np.uint64)
            counts = np.empty(nb, dtype=np.int64)
            parts = []
            for Q0 in range(0, P_below, nb):
                expand_patterns(self.tables[k], here, below, m, self.carry, pred, dec, Q0, windows, counts)
                offsets = np.zeros(nb + 1, dtype=np.int64)
                np.cumsum(counts, out=offsets[1:])
                part = np.empty(offsets[-1], dtype=np.int64)
                window_codes(windows, offsets, Q0, span, part)
                parts.append(part)
            del windows, dec
            self.codes[k - 1] = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)

    def solve(self):
        """List the reachable states, then solve every level from the last round up (fills ``values``)."""
        self.list_states()
        for k in range(1, self.rules.n + 1):
            self.solve_level(k)

    def solve_level(self, k, phase=None):
        """Solve the level of hand size ``k`` (the levels below solved; fills ``values[k]``).

        ``phase``, when given, is called with each pass's name as it ends
        (``"hash"``, ``"share"``, ``"solve"``, ``"redo"``, ``"copy"``):
        ``benchmarks/win_phases.py`` times them.
        """
        m = self.m
        N = len(self.codes[k])
        out = LevelOut(np.empty((N, m)), np.empty((N, m)), np.empty(N), np.zeros(N, dtype=np.int8),
                       np.zeros(N, dtype=np.int8))
        plan = new_plan(N)
        tick = phase or (lambda name: None)
        # at k = 1 the level below is not read (the last round pays the final shares)
        args = (self.tables[k], self.level_states(k), self.level_below(max(k - 1, 1)), m, k, self.carry,
                self.selection_code)
        shared = self.shared[k] = self._worth_sharing(args, plan, out)
        solve_win_level(*args, PASS_HASH if shared else PASS_DECIDE, plan, out)
        tick("hash")
        self._check_missing(k, out)
        live = np.flatnonzero(out.method != METHOD_DECIDED)
        if shared:
            plan, distinct = share_games(plan, live)
        else:  # every live state its own representative
            plan.rep[live] = live
            plan, distinct = plan._replace(solves=live, copies=live[:0]), len(live)
        self.values[k] = out
        tick("share")
        solve_win_level(*args, PASS_SOLVE, plan, out)
        tick("solve")
        self._check_missing(k, out)  # unshared, the games are first built here
        self._redo_flagged(k, out)
        tick("redo")
        solve_win_level(*args, PASS_COPY, plan, out)
        self._redo_flagged(k, out)  # only first-hash collisions can be left
        tick("copy")
        tally_level(self, out, len(live), distinct)

    def _worth_sharing(self, args, plan, out):
        """Whether this level's equal stage games are worth finding (the hash pass) before solving.

        Finding them builds every state's games once more, which pays
        where many are equal (copies skip their solve) or where solving is
        dear. Under the ``logit`` selection a solve traces the logit branch
        and a game the kernel cannot settle goes to pygambit, so its equal
        games are always shared. Otherwise (security values only, or the
        ``pure`` selection, where most games take step 1) a first pass
        hashes every ``SAMPLE_STRIDE``-th state. A game seen ``c`` times in
        the sample stands for about ``SAMPLE_STRIDE * (c - 1)`` copies in the
        level, so ``sum(c - 1) / sampled`` estimates the fraction of copies;
        it misses the copies in groups too small to show twice in the
        sample, so it is low. Where it is at most ``SHARE_MIN_COPIES`` the
        level is solved state by state. Measured at 3 players ``pure``
        discard/win (estimate, true fraction): n = 7, 3 cards 0.53, 0.93
        (shared), 4 cards 0.080, 0.35 (not); n = 6, 3 cards 0.21, 0.74
        (shared), 4 cards 0.019, 0.13 (not). At 4 cards of n = 7 building
        a game costs more than solving it under ``pure``, so sharing 35 %
        of them did not pay for the hash pass. Either way every state gets
        the same values, bit for bit (equal games, one deterministic
        selection).
        """
        if self.share != "auto":
            return self.share == "always"
        if self.selection_code == SELECT_LOGIT:
            return True
        solve_win_level(*args, PASS_SAMPLE, plan, out)
        picked = np.arange(0, len(out.gain), SAMPLE_STRIDE)
        picked = picked[(out.method[picked] != METHOD_DECIDED) & ((out.flags[picked] & FLAG_MISSING) == 0)]
        if len(picked) == 0:
            return True
        pairs = np.stack([plan.hashes[picked], plan.checks[picked]], axis=1)
        _, counts = np.unique(pairs, axis=0, return_counts=True)
        return float(np.sum(counts - 1)) / len(picked) > SHARE_MIN_COPIES

    def _check_missing(self, k, out):
        if np.any(out.flags & FLAG_MISSING):
            raise RuntimeError(f"win level solver: a successor of a hand-size-{k} state is missing from "
                               f"the level below (report this with the rules: {self.rules.describe()})")

    def _redo_flagged(self, k, out):
        """Re-solve what the kernel could not certify (:func:`.levels.redo_flagged`)."""
        redo_flagged(self, out, [(q,) for q in np.flatnonzero(out.flags)],
                     lambda cell: self.decode(k, int(self.codes[k][cell[0]])))

    def start(self):
        """``(security, equilibrium)`` at the start, averaged over the first prize."""
        self.solve()
        return super().start()
