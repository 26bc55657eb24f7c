"""State space of a variant game: hand classes, prize states and the diff axis.

One game of ``R`` rounds is laid out level by level; level ``t`` holds the
positions after ``t`` rounds, before the next prizes are turned. A position is
``(hand class c, prize state p, diff index)``:

- **Hands** (``bid_cards``): the outcome of a round depends only on which
  bid total is larger, so two hand pairs are equivalent when relabelling
  their cards in sorted order preserves every comparison of bid totals the
  rest of the game can make: sums of pairs (two-card rounds) and single
  cards (one-card rounds). The *comparison signature* of ``(A, B)`` is the
  sign matrix ``sign(sum(a) - sum(b))`` over all bids ``a`` of ``A`` and
  ``b`` of ``B`` of each size still to be bid, listed in sorted order; hand
  pairs with the same signature form one class (a sound, not necessarily
  coarsest, reduction). With one-card bids this is the order pattern of the
  classic game.
- **Prizes** (``open_prizes = m``): a prize state is ``(pile, row, carry)``
  as bit masks and the carried pot. Before the bids the row is filled from
  the pile; with ``m = 1`` the filled state keeps the pot only
  (``row = 0, carry = pot``), which is the classic game's state.
- **Diff**: under ``win`` the score difference so far, ``-lim..lim`` at
  each level (``lim`` = the most points ``t`` rounds can hand out plus the
  difference a match may bring in); under ``points`` one slot, and the
  tables hold the value of the rest of the game (``diff`` adds on).

Every set is enumerated forward from the start, so only reachable prize
states are stored.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from gops_solver.game.rules import Rules


class HandLevel(NamedTuple):
    """Stage structure of the hand classes of one level (numba-ready).

    Attributes
    ----------
    sign : int8 ndarray, shape (C, na, nb)
        ``sign(total of A's bid i - total of B's bid j)`` in class ``c``.
    nxt : int32 ndarray, shape (C, na, nb)
        Class of the remaining hands at the next level.
    """

    sign: np.ndarray
    nxt: np.ndarray


class DiffLevel(NamedTuple):
    """Which diffs of one level need a stage game (numba-ready).

    Per prize state before the fill (``pre_*``) and per decision state
    (``post_*``): ``reach`` is the largest reachable ``|diff|`` (the points
    handed out so far, capped at the level's ``lim``); ``dec`` the smallest
    ``|diff|`` that no remaining prize can overturn (the end payoff is then
    known: no stage game); ``par`` the parity every reachable diff has
    (under ``carry`` all prizes handed out were taken, so ``diff`` and their
    total share a parity), or -1 when any parity occurs. ``todo`` lists the
    hand classes solved (one of each mirror pair when mirroring is exact),
    ``mir`` the mirror class of each class.
    """

    pre_reach: np.ndarray
    pre_dec: np.ndarray
    pre_par: np.ndarray
    post_reach: np.ndarray
    post_dec: np.ndarray
    post_par: np.ndarray
    todo: np.ndarray
    mir: np.ndarray


class LevelConst(NamedTuple):
    """Scalars of one level's induction (numba-ready).

    ``lim`` / ``lim_next``: the diff axes' half widths of this and the next
    level; ``win``; ``mirror``: exchanging the players negates the value (so
    one class of each mirror pair is solved); ``lo`` / ``hi``: the end payoff
    of a decided loss / win.
    """

    lim: int
    lim_next: int
    win: bool
    mirror: bool
    lo: float
    hi: float


class PrizeLevel(NamedTuple):
    """Prize transitions of one level (numba-ready).

    Attributes
    ----------
    rev_ptr, rev_idx, rev_prob : ndarray
        CSR list per prize state before the fill: the filled (decision)
        states ``rev_idx`` and their probabilities.
    opt_ptr, opt_idx, opt_gain : ndarray
        CSR list per decision state: the winner's choices, each the next
        level's prize state and the points it takes.
    tie_idx : ndarray
        Per decision state: the next level's prize state after a tie.
    """

    rev_ptr: np.ndarray
    rev_idx: np.ndarray
    rev_prob: np.ndarray
    opt_ptr: np.ndarray
    opt_idx: np.ndarray
    opt_gain: np.ndarray
    tie_idx: np.ndarray


def mask(cards) -> int:
    """Bit mask of a set of cards 1..13 (bit ``c - 1``)."""
    out = 0
    for c in cards:
        out |= 1 << (c - 1)
    return out


def cards_of(m: int) -> tuple:
    """Ascending cards of a bit mask."""
    return tuple(c + 1 for c in range(13) if m >> c & 1)


def rounds(rules: Rules) -> int:
    """Rounds of one game: ``ceil(n / bid_cards)``."""
    return -(-rules.n // rules.bid_cards)


def hand_size(rules: Rules, t: int) -> int:
    """Cards in each hand after ``t`` rounds."""
    return max(0, rules.n - rules.bid_cards * t)


def bid_size(rules: Rules, t: int) -> int:
    """Cards bid in round ``t + 1``."""
    return min(rules.bid_cards, hand_size(rules, t))


class HandSpace:
    """Hands of one level: ranks of single hands and the class of each pair.

    Attributes
    ----------
    hands : list of tuple
        Every hand of ``k`` cards from 1..n, ascending (lexicographic order).
    rank : dict
        Hand mask -> index into ``hands``.
    cls : int32 ndarray, shape (H, H)
        Class of ``(hands[a], hands[b])``.
    reps : int64 ndarray, shape (C, 2)
        One ``(a, b)`` index pair per class.
    bids : list of tuple
        The bids of a sorted hand of ``k`` cards as positions into it.
    """

    def __init__(self, rules: Rules, t: int):
        n, k = rules.n, hand_size(rules, t)
        self.k = k
        self.hands = list(itertools.combinations(range(1, n + 1), k))
        self.rank = {mask(h): i for i, h in enumerate(self.hands)}
        sizes = sorted({bid_size(rules, s) for s in range(t, rounds(rules))})
        self.bids = list(itertools.combinations(range(k), bid_size(rules, t))) if k else []
        H = len(self.hands)
        arr = np.array(self.hands, dtype=np.int64).reshape(H, k)
        parts = []
        for b in sizes:
            pos = np.array(list(itertools.combinations(range(k), b)), dtype=np.int64).reshape(-1, b)
            sums = arr[:, pos].sum(axis=2) if k else np.zeros((H, 0), np.int64)  # (H, nbids)
            parts.append(sums)
        keys = np.zeros((H, H, 0), dtype=np.int8)
        if k:
            keys = np.concatenate([np.sign(s[:, None, :, None] - s[None, :, None, :]).reshape(H, H, -1)
                                   .astype(np.int8) for s in parts], axis=2)
        flat = np.ascontiguousarray(keys.reshape(H * H, -1))
        if flat.shape[1] == 0:
            inverse = np.zeros(H * H, np.int64)
            first = np.zeros(1, np.int64)
        else:
            view = flat.view(np.dtype((np.void, flat.shape[1])))[:, 0]
            _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
        self.cls = inverse.reshape(H, H).astype(np.int32)
        self.reps = np.stack([first // H, first % H], axis=1).astype(np.int64)
        # exchanging the players maps the class of (A, B) to the class of (B, A)
        self.mir = self.cls[self.reps[:, 1], self.reps[:, 0]].astype(np.int64)

    @property
    def classes(self) -> int:
        return len(self.reps)

    def class_of(self, a, b) -> int:
        """Class of the hand pair ``(a, b)`` (iterables of cards)."""
        return int(self.cls[self.rank[mask(a)], self.rank[mask(b)]])


def hand_level(rules: Rules, hs: HandSpace, nxt: HandSpace | None) -> HandLevel:
    """Signs and next classes of every class's stage game (vectorised)."""
    arr = np.array(hs.hands, dtype=np.int64).reshape(len(hs.hands), hs.k)
    pos = np.array(hs.bids, dtype=np.int64)
    sums = arr[:, pos].sum(axis=2)  # (H, nbids)
    ra, rb = hs.reps[:, 0], hs.reps[:, 1]
    sign = np.sign(sums[ra][:, :, None] - sums[rb][:, None, :]).astype(np.int8)
    if nxt is None or nxt.k == 0:
        return HandLevel(sign, np.zeros(sign.shape, np.int32))
    full = (1 << rules.n) - 1
    rem = np.empty((len(hs.hands), len(hs.bids)), np.int64)
    for h, cards in enumerate(hs.hands):
        m = mask(cards)
        for i, bid in enumerate(hs.bids):
            rem[h, i] = nxt.rank[m & full & ~mask(cards[p] for p in bid)]
    nx = nxt.cls[rem[ra][:, :, None], rem[rb][:, None, :]].astype(np.int32)
    return HandLevel(sign, nx)


class PrizeSpace:
    """Prize states of every level, enumerated forward from the start.

    ``pre[t]`` lists the states ``(pile, row, carry)`` before the fill of
    round ``t + 1`` (level ``R`` holds one terminal state); ``post[t]`` the
    filled decision states; ``levels[t]`` their :class:`PrizeLevel`.
    """

    def __init__(self, rules: Rules):
        n, m, R = rules.n, rules.open_prizes, rounds(rules)
        self.rules = rules
        seq = rules.sequence
        pos = {c: i for i, c in enumerate(seq)} if seq is not None else None
        carry = rules.tie == "carry"
        self.pre = [[((1 << n) - 1, 0, 0)]]
        self.pre_index = [{self.pre[0][0]: 0}]
        self.post, self.post_index, self.levels = [], [], []
        for t in range(R):
            last = t == R - 1
            post, post_index = [], {}
            rev_ptr, rev_idx, rev_prob = [0], [], []

            def add(key, table, index):
                i = index.get(key)
                if i is None:
                    i = index[key] = len(table)
                    table.append(key)
                return i

            for pile, row, c in self.pre[t]:
                cards = cards_of(pile)
                need = min(m - bin(row).count("1"), len(cards))
                if seq is not None:
                    draws = [tuple(sorted(cards, key=pos.__getitem__)[:need])]
                else:
                    draws = list(itertools.combinations(cards, need))
                for d in draws:
                    dm = mask(d)
                    key = (pile & ~dm, 0, c + sum(d)) if m == 1 else (pile & ~dm, row | dm, c)
                    rev_idx.append(add(key, post, post_index))
                    rev_prob.append(1.0 / len(draws))
                rev_ptr.append(len(rev_idx))
            nxt, nxt_index = [], {}
            opt_ptr, opt_idx, opt_gain, tie_idx = [0], [], [], []

            def next_key(pile, row, c):
                return (0, 0, 0) if last else (pile, row, c)

            for pile, row, c in post:
                if m == 1:
                    opt_idx.append(add(next_key(pile, 0, 0), nxt, nxt_index))
                    opt_gain.append(c)
                    tie = next_key(pile, 0, c if carry and not last else 0)
                else:
                    rc = cards_of(row)
                    for r in rc:
                        opt_idx.append(add(next_key(pile, row & ~mask([r]), 0), nxt, nxt_index))
                        opt_gain.append(c + r)
                    low = rc[0]
                    tie = next_key(pile, row & ~mask([low]), c + low if carry and not last else 0)
                opt_ptr.append(len(opt_idx))
                tie_idx.append(add(tie, nxt, nxt_index))
            i64 = np.int64
            self.levels.append(PrizeLevel(np.array(rev_ptr, i64), np.array(rev_idx, i64), np.array(rev_prob),
                                          np.array(opt_ptr, i64), np.array(opt_idx, i64),
                                          np.array(opt_gain, i64), np.array(tie_idx, i64)))
            self.post.append(post)
            self.post_index.append(post_index)
            self.pre.append(nxt)
            self.pre_index.append(nxt_index)


def top_sum(values, t) -> int:
    """Sum of the ``t`` largest values."""
    return sum(sorted(values, reverse=True)[:t])


class VariantSpace:
    """The whole state space of a variant game.

    Parameters
    ----------
    rules : Rules
    term : ndarray, optional
        Win objective only: the end payoff of a final score difference
        ``d`` is ``term[d + T]`` for ``|d| <= T = (len(term) - 1) / 2``,
        ``term[0]`` / ``term[-1]`` beyond (default ``[-1, 0, 1]``).
    diff_reach : int
        Win objective only: the game may start from any difference
        ``|d| <= diff_reach`` (matches).
    """

    def __init__(self, rules: Rules, term=None, diff_reach: int = 0):
        self.rules = rules
        self.win = rules.objective == "win"
        self.R = rounds(rules)
        self.hands = [HandSpace(rules, t) for t in range(self.R + 1)]
        self.prizes = PrizeSpace(rules)
        self.hand_levels = [hand_level(rules, self.hands[t], self.hands[t + 1]) for t in range(self.R)]
        self.term = np.array([-1.0, 0.0, 1.0]) if term is None else np.asarray(term, dtype=np.float64)
        if not self.win:
            self.term = np.zeros(1)
        self.T = (len(self.term) - 1) // 2
        values = range(1, rules.n + 1)
        # |diff| after t rounds: at most the t largest prizes handed out, plus what a match brings in
        self.lim = [min(top_sum(values, t) + diff_reach, rules.total + diff_reach) if self.win else 0
                    for t in range(self.R)] + [self.T]
        self.diff_reach = diff_reach
        # mirroring is exact when the end payoff is antisymmetric: term(-d) = -term(d)
        self.mirror = bool(np.array_equal(self.term[::-1], -self.term))
        # under carry (and from a level start) every prize handed out was taken: diff's parity is known
        self.parity = self.win and rules.tie == "carry" and diff_reach == 0
        self.diff_levels = [self._diff_level(t) for t in range(self.R)]

    def _bounds(self, states, t, post):
        """``(reach, dec, par)`` arrays of a list of prize states of level ``t``."""
        rules = self.rules
        total = rules.total
        left = self.R - t - (1 if post and rules.open_prizes == 1 else 0)
        reach, dec, par = [], [], []
        for pile, row, c in states:
            taken = total - sum(cards_of(pile)) - sum(cards_of(row)) - c
            reach.append(min(taken + self.diff_reach, self.lim[t]))
            # the most points the rest of the game hands out (upper bound)
            dec.append(c + top_sum(cards_of(pile) + cards_of(row), left) + self.T)
            par.append(taken % 2 if self.parity else -1)
        i64 = np.int64
        return np.array(reach, i64), np.array(dec, i64), np.array(par, i64)

    def _diff_level(self, t):
        hs = self.hands[t]
        if self.mirror:
            todo = np.nonzero(hs.mir >= np.arange(hs.classes))[0].astype(np.int64)
        else:
            todo = np.arange(hs.classes, dtype=np.int64)
        pre = self._bounds(self.prizes.pre[t], t, False)
        post = self._bounds(self.prizes.post[t], t, True)
        return DiffLevel(*pre, *post, todo, hs.mir)

    def const(self, t: int) -> LevelConst:
        """Scalars of level ``t``'s induction."""
        return LevelConst(int(self.lim[t]), int(self.lim[t + 1]), bool(self.win), bool(self.mirror),
                          float(self.term[0]), float(self.term[-1]))

    def needed(self, t: int, q: int, d: int) -> bool:
        """True when decision state ``q`` of level ``t`` can be reached at diff ``d``."""
        D = self.diff_levels[t]
        if not self.win:
            return True
        return abs(d) <= D.post_reach[q] and (D.post_par[q] < 0 or (d - D.post_par[q]) % 2 == 0)

    def shape(self, t: int) -> tuple:
        """Table shape of level ``t``: (hand classes, prize states, diff slots)."""
        if t == self.R:
            return (1, 1, len(self.term))
        return (self.hands[t].classes, len(self.prizes.pre[t]), 2 * self.lim[t] + 1)

    def size(self, t: int) -> int:
        s = self.shape(t)
        return s[0] * s[1] * s[2]

    def stage_games(self, t: int) -> int:
        """Stage games set up at level ``t``.

        One per solved class (one of each mirror pair; a self-mirror class
        at positive diffs only), decision state and reachable, undecided diff.
        Repeats of the previous diff's game are not solved again, so the
        kernel may solve fewer.
        """
        D = self.diff_levels[t]
        self_m = int(np.sum(D.mir[D.todo] == D.todo)) if self.mirror else 0
        other = len(D.todo) - self_m
        if not self.win:
            return other * len(D.post_reach)
        full = pos = 0
        for reach, dec, par in zip(D.post_reach, D.post_dec, D.post_par):
            d = np.arange(-reach, reach + 1)
            ok = np.abs(d) < dec
            if par >= 0:
                ok &= (d - par) % 2 == 0
            full += int(ok.sum())
            pos += int((ok & (d > 0)).sum())
        return other * full + self_m * (pos if self.mirror else full)
