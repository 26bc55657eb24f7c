"""Canonical state encoding: hand patterns, prize-set ranks, carry and diff axes.

A pair of hands is reduced to its *pattern*: the merged hands in increasing
card order, one token per distinct value::

    0 = only A holds it,  1 = only B holds it,  2 = both hold it.

Every comparison of bids depends only on this order, so all pairs of hands
with the same pattern share one value (docs/rules.md: only "higher bid wins"
matters). A pattern of length ``u`` is the base-3 number
``code = sum(token[i] * 3**i)``, lowest card first; ``lut[off[u] + code]`` is
its index within its *level* (hand size ``k``).

Within a pattern, A's cards in one run of consecutive ``0`` tokens have no B
card between them: they beat and lose to the same B cards and leave the same
successor pattern, so they form one *class* (one row of the stage game).
Every ``2`` token is a class of its own for both players. Likewise for B.

Prize sets (random order) are bitmasks over the positions of a sorted
*universe* of prize values; ``set_rank[mask]`` numbers the sets of one size.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gops_solver.game.constants import MAX_CARDS

TOK_A, TOK_B, TOK_SHARED = 0, 1, 2

#: offsets of each length's block in the lookup table
LUT_OFF = np.array([sum(3**v for v in range(u)) for u in range(MAX_CARDS + 2)], dtype=np.int64)


@njit(cache=True)
def _enumerate_patterns(umax, kmax, lut_off):
    """Number every pattern with length <= umax and hand size <= kmax.

    Returns lut (code -> index within level, -1 if none), pat_u, pat_code,
    pat_level (parallel arrays sorted by level, then u, then code) and
    level_start (level k occupies level_start[k]:level_start[k+1]).
    """
    lut = np.full(lut_off[umax + 1], -1, dtype=np.int32)
    counts = np.zeros(kmax + 2, dtype=np.int64)
    # first pass: level of each code
    levels = np.full(lut_off[umax + 1], -1, dtype=np.int16)
    for u in range(umax + 1):
        p3 = 3**u
        for code in range(p3):
            c = code
            na = 0
            nb = 0
            for _ in range(u):
                t = c % 3
                c //= 3
                if t != TOK_B:
                    na += 1
                if t != TOK_A:
                    nb += 1
            if na == nb and na <= kmax:
                levels[lut_off[u] + code] = na
                counts[na] += 1
    level_start = np.zeros(kmax + 2, dtype=np.int64)
    for k in range(kmax + 1):
        level_start[k + 1] = level_start[k] + counts[k]
    total = level_start[kmax + 1]
    pat_u = np.empty(total, dtype=np.int8)
    pat_code = np.empty(total, dtype=np.int32)
    fill = level_start[:-1].copy()
    for u in range(umax + 1):
        for code in range(3**u):
            lev = levels[lut_off[u] + code]
            if lev >= 0:
                g = fill[lev]
                pat_u[g] = u
                pat_code[g] = code
                lut[lut_off[u] + code] = g - level_start[lev]
                fill[lev] += 1
    return lut, pat_u, pat_code, level_start


@njit(cache=True)
def decode(u, code, tokens):
    """Write the ``u`` tokens of a pattern into ``tokens`` (modified in place)."""
    c = code
    for i in range(u):
        tokens[i] = c % 3
        c //= 3


@njit(cache=True)
def encode(tokens, u):
    """Base-3 code of ``tokens[:u]``."""
    code = 0
    p = 1
    for i in range(u):
        code += tokens[i] * p
        p *= 3
    return code


@njit(cache=True)
def swap_code(u, code):
    """Code of the pattern with the players exchanged (tokens 0 <-> 1)."""
    out = 0
    p = 1
    c = code
    for _ in range(u):
        t = c % 3
        c //= 3
        if t == TOK_A:
            t = TOK_B
        elif t == TOK_B:
            t = TOK_A
        out += t * p
        p *= 3
    return out


@njit(cache=True)
def classes(tokens, u, cls_a, cls_b):
    """Classes of interchangeable cards of a pattern.

    ``cls_a[i]`` is the token position representing A's i-th class (the
    first token of a run of 0s, or a 2); likewise ``cls_b``. Returns
    ``(na, nb)``; both arrays are modified in place.
    """
    na = 0
    nb = 0
    for i in range(u):
        t = tokens[i]
        if t == TOK_A:
            if i == 0 or tokens[i - 1] != TOK_A:
                cls_a[na] = i
                na += 1
        elif t == TOK_B:
            if i == 0 or tokens[i - 1] != TOK_B:
                cls_b[nb] = i
                nb += 1
        else:
            cls_a[na] = i
            na += 1
            cls_b[nb] = i
            nb += 1
    return na, nb


@njit(cache=True)
def successor(tokens, u, pa, pb, lut, lut_off, tmp):
    """Index (in level k-1) of the pattern after A bids at token ``pa`` and B at ``pb``.

    Returns ``(index, outcome)`` with outcome +1 when A's bid is higher, -1
    when B's is, 0 on a tie. ``tmp`` is scratch of length >= u.
    """
    m = 0
    for i in range(u):
        t = tokens[i]
        if i == pa and i == pb:
            continue  # tied shared card: gone from both hands
        if i == pa:
            if t == TOK_A:
                continue
            t = TOK_B  # A spent its copy of a shared value
        elif i == pb:
            if t == TOK_B:
                continue
            t = TOK_A
        tmp[m] = t
        m += 1
    code = encode(tmp, np.int64(m))  # int64: one specialisation, not one for a literal 0
    if pa > pb:
        out = 1
    elif pa < pb:
        out = -1
    else:
        out = 0
    return lut[lut_off[m] + code], out


def hands_to_pattern(hand_a, hand_b):
    """Pattern tokens of two hands, and the cards behind each token.

    Returns
    -------
    tokens : list of int
    values : list of int
        The card value at each token (shared values appear once).
    """
    sa, sb = set(hand_a), set(hand_b)
    values = sorted(sa | sb)
    tokens = [TOK_SHARED if v in sa and v in sb else (TOK_A if v in sa else TOK_B) for v in values]
    return tokens, values


class PatternTable:
    """All patterns of hand size <= kmax and length <= umax, numbered per level.

    Attributes
    ----------
    lut : ndarray of int32
        ``lut[LUT_OFF[u] + code]`` -> index within its level, or -1.
    level_u, level_code : list of ndarray
        Length and code of each pattern of level k.
    level_swap : list of ndarray of int32
        Index of the player-swapped pattern, same level.
    """

    def __init__(self, umax: int, kmax: int):
        self.umax, self.kmax = int(umax), int(kmax)
        lut, pat_u, pat_code, start = _enumerate_patterns(self.umax, self.kmax, LUT_OFF)
        self.lut = lut
        self.level_u = [pat_u[start[k]:start[k + 1]].copy() for k in range(self.kmax + 1)]
        self.level_code = [pat_code[start[k]:start[k + 1]].copy() for k in range(self.kmax + 1)]
        self.level_swap = [_swap_indices(self.level_u[k], self.level_code[k], lut, LUT_OFF)
                           for k in range(self.kmax + 1)]

    def count(self, k: int) -> int:
        """Number of patterns with hand size k."""
        return len(self.level_u[k])

    def index(self, tokens) -> int:
        """Index within its level of a token sequence."""
        u = len(tokens)
        code = sum(int(t) * 3**i for i, t in enumerate(tokens))
        return int(self.lut[LUT_OFF[u] + code])


@njit(cache=True)
def _swap_indices(us, codes, lut, lut_off):
    out = np.empty(len(us), dtype=np.int32)
    for i in range(len(us)):
        out[i] = lut[lut_off[us[i]] + swap_code(us[i], codes[i])]
    return out


# ---------------------------------------------------------------------------
# prize sets and the carry axis
# ---------------------------------------------------------------------------

class PrizeSets:
    """Subsets of a prize universe, numbered per size (random order only).

    Parameters
    ----------
    values : sequence of int
        The universe of prize values still to come, sorted.
    """

    def __init__(self, values):
        self.values = np.asarray(sorted(values), dtype=np.int64)
        m = len(self.values)
        self.m = m
        masks = np.arange(1 << m, dtype=np.int64)
        pop = np.array([bin(x).count("1") for x in range(1 << m)], dtype=np.int64)
        self.set_rank = np.zeros(1 << m, dtype=np.int64)
        self.level_sets = []
        for k in range(m + 1):
            ms = masks[pop == k]
            self.set_rank[ms] = np.arange(len(ms))
            self.level_sets.append(ms)
        bits = (masks[:, None] >> np.arange(m)) & 1
        self.set_sum = (bits * self.values[None, :]).sum(axis=1).astype(np.int64) if m else np.zeros(1, np.int64)

    def mask(self, prizes) -> int:
        """Bitmask of a set of prize values (each must be in the universe)."""
        pos = {int(v): i for i, v in enumerate(self.values)}
        out = 0
        for p in prizes:
            out |= 1 << pos[int(p)]
        return out


@njit(cache=True)
def min_ties_table(set_masks, values, extra, cmax):
    """Fewest tied rounds that leave a carried pot ``c`` with prize set ``s`` hidden.

    A carry is the sum of the prizes of the rounds tied in a row just before,
    i.e. of some revealed prizes (plus ``extra``, a pot already on the table
    when a sub-game starts, if > 0). Returns ``out[s, c]`` = the smallest
    number of such prizes summing to c (0 for c = 0; 127 if impossible).
    """
    m = len(values)
    out = np.full((len(set_masks), cmax + 1), 127, dtype=np.int8)
    best = np.empty(cmax + 1, dtype=np.int64)
    for si in range(len(set_masks)):
        mask = set_masks[si]
        best[:] = 127
        best[0] = 0
        for q in range(m + 1):
            if q < m:
                if (mask >> q) & 1:
                    continue
                v = values[q]
            else:
                if extra <= 0:
                    continue
                v = extra
            for c in range(cmax, v - 1, -1):
                if best[c - v] + 1 < best[c]:
                    best[c] = best[c - v] + 1
        for c in range(cmax + 1):
            out[si, c] = best[c]
    return out


# ---------------------------------------------------------------------------
# the state space of one solve: every axis of every level
# ---------------------------------------------------------------------------

class Layout(NamedTuple):
    """Flat storage of one level (see :meth:`StateSpace._layout`)."""

    canonical: np.ndarray  # pattern index of each stored position
    canon: np.ndarray      # pattern -> stored position p, or -1 - p for the swapped twin
    offset: np.ndarray     # start of each stored pattern's block (+ total at the end)
    ncarry: np.ndarray     # carry-axis length of each stored pattern
    size: int
    nd: int                # diff-axis length


class StateSpace:
    """Axes of the value tables ``R[k][pattern, set, carry, diff]`` of one solve.

    Each level is stored flat, canonical patterns only (see ``layouts``).
    ``R[k]`` holds values *before* a prize is revealed, with k cards in each
    hand and k prizes hidden. A full game and a query's sub-game share this
    description: the sub-game's prizes are the query's hidden prizes and its
    pot is an ``extra`` carry item (random order) or the first item of the
    sequence (fixed order).

    Parameters
    ----------
    random_order : bool
    carry, win : bool
        Tie rule ``carry`` and objective ``win``.
    items : sequence of int
        Random order: the prize values still to come (any order). Fixed
        order: the prize values in reveal order, the first revealed at the
        top level ``kmax``.
    kmax : int
        Highest level tabulated.
    union_cap : int
        Largest number of distinct values in the two hands together; each
        tie removes one more, which bounds how many prizes a carry holds.
    extra : int
        Random-order sub-games only: the pot on the table at the top.
    diff_reach : int
        Largest |diff| at the top of the solve (0 for a full game).
    term : array_like, optional
        ``win`` only: A's payoff at the end of the game as a function of the
        final difference d, ``term[clamp(d, -t, t) + t]`` with
        ``t = len(term) // 2`` (so it is constant beyond ``|d| >= t``).
        Default ``[-1, 0, 1]``: win/draw/loss of one game. Matches use others
        (see :mod:`~.match`). When ``term`` is not antisymmetric the
        mirror-image half of the tables is stored too (``mirror`` False).
    """

    def __init__(self, random_order, carry, win, items, kmax, union_cap, extra=0, diff_reach=0, term=None):
        self.random_order = bool(random_order)
        self.carry, self.win = bool(carry), bool(win)
        self.term = np.array([-1.0, 0.0, 1.0] if term is None else term, dtype=np.float64)
        if len(self.term) % 2 != 1:
            raise ValueError("term needs an odd length: values for d = -t..t")
        self.tmax = len(self.term) // 2
        # exchanging the players negates values only when the end payoff is antisymmetric
        self.mirror = bool(np.array_equal(self.term[::-1], -self.term))
        self.kmax, self.union_cap = int(kmax), int(union_cap)
        self.extra = int(extra)
        items = [int(v) for v in items]
        self.items = items
        self.total = sum(items) + self.extra
        self.diff_reach = int(diff_reach) + self.total
        self.patterns = PatternTable(self.union_cap, self.kmax)
        self.sets, self.cvals, self.min_ties, self.dmax = [], [], [], []
        if self.random_order:
            self.prize_sets = PrizeSets(items)
            vals = sorted(items)
        else:
            self.prize_sets = None
            self.seq = np.asarray(items, dtype=np.int64)
        L = len(items)
        for k in range(self.kmax + 1):
            if self.random_order:
                masks = self.prize_sets.level_sets[k] if k <= L else np.zeros(0, np.int64)
                cmax = self.total - sum(vals[:k]) if self.carry else 0
                if self.carry:
                    mt = min_ties_table(masks, self.prize_sets.values, self.extra, cmax)
                else:
                    mt = np.zeros((len(masks), 1), dtype=np.int8)
                cvals = np.arange(cmax + 1, dtype=np.int64)
                smax, smin = sum(vals[L - k:]) if k else 0, sum(vals[:k])
            else:
                masks = np.zeros(1, dtype=np.int64)
                jmax = L - k if self.carry else 0
                cvals = np.array([int(self.seq[L - k - j:L - k].sum()) for j in range(jmax + 1)], dtype=np.int64)
                mt = np.arange(jmax + 1, dtype=np.int8)[None, :].copy()
                smax = smin = int(self.seq[L - k:].sum()) if k else 0
                cmax = int(cvals[-1])
            # |d| >= remaining points + tmax is decided (the payoff is flat there)
            dmax = max(0, min(smax + cmax + self.tmax - 1, self.diff_reach - smin)) if self.win else 0
            self.sets.append(masks)
            self.cvals.append(cvals)
            self.min_ties.append(mt)
            self.dmax.append(dmax)
        self.layouts = [self._layout(k) for k in range(self.kmax + 1)]

    def _layout(self, k):
        """Where each pattern's values live in the flat table of level k.

        Only canonical patterns (``swap[h] >= h``) are stored; ``canon[h]`` is
        the position ``p`` of a canonical pattern, or ``-1 - p`` of its swapped
        twin (whose values are the negation, with the difference mirrored).
        A pattern of length ``u`` allows at most ``union_cap - u`` ties in a
        row, which bounds its carry axis: ``ncarry[p]`` entries. Pattern p's
        block starts at ``offset[p]`` and is indexed ``(set, carry, diff)``.
        """
        pats = self.patterns
        h = np.arange(pats.count(k))
        swap = pats.level_swap[k] if self.mirror else h
        canonical = h[swap >= h]
        pos = np.empty(len(h), dtype=np.int64)
        pos[canonical] = np.arange(len(canonical))
        canon = np.where(swap >= h, pos, -1 - pos[swap])
        mt = self.min_ties[k]
        # most ties any set needs for carry index c, then the last index each cap allows
        need = mt.min(axis=0).astype(np.int64) if mt.size else np.zeros(1, np.int64)
        caps = self.union_cap - pats.level_u[k][canonical].astype(np.int64)
        ok = need[None, :] <= caps[:, None]
        ncarry = np.where(ok.any(axis=1), len(need) - np.argmax(ok[:, ::-1], axis=1), 1).astype(np.int64)
        block = len(self.sets[k]) * ncarry * (2 * self.dmax[k] + 1)
        offset = np.zeros(len(canonical) + 1, dtype=np.int64)
        np.cumsum(block, out=offset[1:])
        return Layout(canonical.astype(np.int64), canon, offset, ncarry, int(offset[-1]), 2 * self.dmax[k] + 1)

    def size(self, k: int) -> int:
        """Number of float64 entries of the flat table of level k."""
        return self.layouts[k].size

    def hidden_sum(self, k: int) -> int:
        """Fixed order: sum of the k prizes still hidden at level k."""
        L = len(self.items)
        return int(self.seq[L - k:].sum()) if k else 0


def full_space(rules) -> StateSpace:
    """State space of the whole game under ``rules`` (a :class:`~.rules.Rules`)."""
    items = range(1, rules.n + 1) if rules.random_order else rules.sequence
    return StateSpace(rules.random_order, rules.tie == "carry", rules.objective == "win",
                      items, rules.n, rules.n)
