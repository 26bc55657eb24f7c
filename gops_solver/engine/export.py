"""Whole-strategy export: one row per decision state of the first rounds.

The states, their values and both players' strategies are computed a level
at a time, as arrays:

1. :func:`decision_states` (and its array form ``_walk``) plays the game
   forward from its start in a kernel, every prize that can be shown and
   every pair of bids of all the states of a round, each successor as one
   integer key that sorts as the rows are listed; one sort keeps each
   reachable decision state once (hands and hidden prizes as bitmasks).
2. :func:`equilibrium_table` reduces each state to its stage game -- hand
   pattern, prize set left hidden, pot, and under ``win`` the score
   difference -- and solves each distinct stage game once, in a jitted loop
   that builds it with :func:`~.tables.stage_matrix` and solves it with
   :func:`~gops_solver.lp.stage.solve_stage`, exactly as
   :meth:`Solution.query` does for one state. A kernel then gives each row
   its game's value and spreads each class's probability over its cards.
3. :func:`write_table` writes the table as CSV (assembled in a kernel that
   writes each number as Python's ``"%.17g"`` does, exactly, and keeps the
   text of recent numbers), Parquet or ``.npz``, atomically, or CSV to a
   stream. :func:`to_frame` returns it as a pandas DataFrame.

Every number is the one ``Solution.query`` gives at the same state.
The schema is documented in ``docs/export.md``.

Columns (every format):

``round``, ``k``
    Round number (1 = the first) and cards left in each hand (k = n - round + 1).
``hand_a``, ``hand_b``, ``prizes``
    Card sets: tuples in the DataFrame, ``"1,3,5"`` text in CSV, lists in
    Parquet, bitmasks (bit c - 1 set for card c) in ``.npz``. ``prizes``
    are the hidden prizes (in reveal order for a fixed order).
``pot``, ``diff``
    Points at stake this round; score A - score B so far.
``value``
    Value of the state for A (``points``: expected final margin, ``diff``
    included; ``win``: P(A wins) - P(B wins)).
``a_1`` .. ``a_n``, ``b_1`` .. ``b_n``
    Probability that A (B) bids card c in an optimal strategy; 0 for a card
    not in the hand.
"""

from __future__ import annotations

import json
from numbers import Real
from typing import NamedTuple

import numpy as np
from numba import njit

from gops_solver.engine.tables import Stage, WORK, game_axes, holds_level, level_view, stage_matrix, stage_structure
from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
from gops_solver.game.encoding import LUT_OFF, TOK_A, TOK_B, TOK_SHARED, decode
from gops_solver.game.rules import Rules
from gops_solver.lp.stage import STAGE_OK, solve_stage

#: formats :func:`write` knows
FORMATS = ("csv", "parquet", "npz")
#: rows an export builds unless told otherwise; past it the files reach
#: hundreds of megabytes, so the default refuses them before any work
DEFAULT_MAX_ROWS = 2_000_000
#: rows written at a time (CSV text, Parquet row groups): bounds the memory of the text
_CHUNK_ROWS = 1 << 18
#: candidate successors built at a time by the forward walk
_WALK_CHUNK = 1 << 22
#: prize sets of a block store loaded at a time
_BLOCK_RANKS = 64
#: the columns before the strategies
_LEAD = ("round", "k", "hand_a", "hand_b", "pot", "prizes", "diff", "value")
_SETS = ("hand_a", "hand_b", "prizes")


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise ValueError("export needs pandas and pyarrow: pip install 'gops-solver[export]'") from None
    return pd


# ---------------------------------------------------------------------------
# the forward walk
# ---------------------------------------------------------------------------

class _Round(NamedTuple):
    """The decision states of one round, sorted as :func:`decision_states` lists them.

    Hands and hidden prizes are bitmasks (bit c - 1 for card c); all int64.
    """

    rnd: int
    k: int
    ha: np.ndarray
    hb: np.ndarray
    pot: np.ndarray
    pm: np.ndarray
    diff: np.ndarray


class _Cards:
    """Per-bitmask lookups of an ``n``-card game: card tuples and a sort key.

    ``sets[m]``: the cards of mask ``m`` ascending; ``prizes[m]``: the same in
    reveal order for a fixed order. ``rank[m]``: the place of ``m`` among the
    masks of as many cards, ordered as their ascending card tuples are, and
    ``unrank[c, r]`` the mask of ``c`` cards at place ``r``.
    """

    def __init__(self, rules: Rules):
        n = rules.n
        self.n = n
        self.sets = [tuple(c for c in range(1, n + 1) if m >> (c - 1) & 1) for m in range(1 << n)]
        order = rules.sequence
        self.prizes = self.sets if order is None else [tuple(c for c in order if m >> (c - 1) & 1)
                                                      for m in range(1 << n)]
        size = np.array([len(s) for s in self.sets], np.int64)
        by_size = sorted(range(1 << n), key=lambda m: (size[m], self.sets[m]))
        self.rank = np.zeros(1 << n, np.int64)
        self.unrank = np.zeros((n + 1, int(np.bincount(size).max())), np.int64)
        start = np.concatenate([[0], np.cumsum(np.bincount(size, minlength=n + 1))])
        for at, m in enumerate(by_size):
            self.rank[m] = at - start[size[m]]
            self.unrank[size[m], self.rank[m]] = m


# a state's sort key while the walk merges duplicates: the ranks of its hands, pot, rank of its hidden prizes,
# difference, in the order decision_states sorts them (ranks < C(13, 6) = 1716 < 2**11; pot < 2**7; |diff| < 128)
_SH_A, _SH_B, _SH_POT, _SH_PM = 37, 26, 19, 8
_M11 = (1 << 11) - 1


@njit(cache=True, inline="always")
def _state_key(ra, rb, pot, rpm, diff):
    return (ra << 37) | (rb << 26) | (pot << 19) | (rpm << 8) | (diff + 128)


def _range(rules: Rules, rounds, level):
    """``(first, last)`` rounds to list, or ValueError naming the fix."""
    n = rules.n
    if rules.match != "single":
        raise ValueError(f"export covers single games; {rules.match} is a match: drop --match")
    for name, v in (("rounds", rounds), ("level", level)):  # 1.5 or True would pass int() unnoticed
        if v is not None and (isinstance(v, bool) or not isinstance(v, Real) or not float(v).is_integer()):
            raise ValueError(f"{name}={v!r} is not a whole number: give a count of rounds (or cards left) 1..{n}")
    if level is not None:
        if not 1 <= int(level) <= n:
            raise ValueError(f"level {level} is outside 1..{n}: give the cards left in each hand")
        if rounds is not None and n - level + 1 > rounds:
            raise ValueError(f"level {level} is round {n - level + 1}, after the {rounds} rounds asked for: "
                             f"drop --rounds or choose a level >= {n - rounds + 1}")
        return n - level + 1, n - level + 1
    last = n if rounds is None else int(rounds)
    if not 1 <= last <= n:
        raise ValueError(f"rounds {rounds} is outside 1..{n}: give how many rounds to export")
    return 1, last


@njit(cache=True)
def _successor_keys(ha, hb, pot, pm, diff, n, fixed_q, carry, rank, out):
    """Keys (:func:`_state_key`) of the states after each state ``i``: every pair of bids and every reveal.

    ``fixed_q``: the card index revealed next under a fixed order, -1 for a
    random order (any hidden prize). Writes ``out[:count]`` (modified in
    place) and returns ``count``; from one state no key repeats.
    """
    at = 0
    for i in range(len(ha)):
        h_a, h_b, p, m, d0 = ha[i], hb[i], pot[i], pm[i], diff[i]
        for a in range(n):
            if not (h_a >> a) & 1:
                continue
            ra = rank[h_a & ~(1 << a)]
            for b in range(n):
                if not (h_b >> b) & 1:
                    continue
                rb = rank[h_b & ~(1 << b)]
                o = 1 if a > b else (-1 if a < b else 0)  # a card's index orders as its value
                d = d0 + o * p
                kept = p if o == 0 and carry else 0  # not the last round here
                for q in range(n):
                    if q != fixed_q if fixed_q >= 0 else not (m >> q) & 1:
                        continue
                    out[at] = _state_key(ra, rb, kept + q + 1, rank[m & ~(1 << q)], d)
                    at += 1
    return at


def _distinct(keys) -> np.ndarray:
    """The distinct values of ``keys``, ascending."""
    keys = np.sort(keys)
    if len(keys) < 2:
        return keys
    keep = np.empty(len(keys), bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _successors(st: _Round, rules: Rules, max_rows: int, cards: _Cards) -> np.ndarray:
    """Sorted keys of every decision state of the round after ``st`` (ValueError past ``max_rows``)."""
    n, k = rules.n, st.k
    seq = rules.sequence
    fixed_q = -1 if seq is None else seq[st.rnd] - 1
    per = k * k * (k - 1 if seq is None else 1)  # successors of one state
    step = max(1, _WALK_CHUNK // per)
    scratch = np.empty(min(len(st.ha), step) * per, np.int64)
    found, held = [], 0
    for lo in range(0, len(st.ha), step):
        sl = slice(lo, lo + step)
        count = _successor_keys(st.ha[sl], st.hb[sl], st.pot[sl], st.pm[sl], st.diff[sl], n, fixed_q,
                                rules.tie == "carry", cards.rank, scratch)
        found.append(_distinct(scratch[:count]))
        held += len(found[-1])
        if held > max_rows:  # chunks overlap: merge before judging
            found = [_distinct(np.concatenate(found))]
            held = len(found[0])
            if held > max_rows:
                raise ValueError(f"round {st.rnd + 1} has more decision states than the {max_rows:,} rows "
                                 f"allowed: export fewer rounds, an earlier --level, or raise --max-rows")
    return found[0] if len(found) == 1 else _distinct(np.concatenate(found))


def _round_of(rnd, k, keys, cards: _Cards, hidden: int) -> _Round:
    """The states of sorted ``keys`` (round ``rnd``, ``k`` cards a hand, ``hidden`` prizes hidden)."""
    return _Round(rnd, k, cards.unrank[k][keys >> _SH_A], cards.unrank[k][(keys >> _SH_B) & _M11],
                  (keys >> _SH_POT) & 127, cards.unrank[hidden][(keys >> _SH_PM) & _M11], (keys & 255) - 128)


def _walk(rules: Rules, rounds=None, level=None, max_rows: int = DEFAULT_MAX_ROWS, cards: _Cards | None = None):
    """The rounds :func:`decision_states` lists, as arrays (a list of :class:`_Round`)."""
    first, last = _range(rules, rounds, level)
    n = rules.n
    cards = cards or _Cards(rules)
    full = (1 << n) - 1
    seq = rules.sequence
    shown = np.arange(1, n + 1, dtype=np.int64) if seq is None else np.array([seq[0]], np.int64)
    start = cards.rank[full]
    keys = _distinct((start << _SH_A) | (start << _SH_B) | (shown << _SH_POT)
                     | (cards.rank[full & ~(np.int64(1) << (shown - 1))] << _SH_PM) | 128)
    out, rows = [], 0
    for rnd in range(1, last + 1):
        st = _round_of(rnd, n - rnd + 1, keys, cards, n - rnd)
        if rnd >= first:
            if rows + len(st.ha) > max_rows:
                raise ValueError(f"round {rnd} alone has {len(st.ha):,} decision states, more than the "
                                 f"{max_rows:,} rows allowed: export fewer rounds, one --level, or raise --max-rows")
            out.append(st)
            rows += len(st.ha)
        if rnd == last:
            break
        keys = _successors(st, rules, max_rows, cards)
    return out


def decision_states(rules: Rules, rounds: int | None = None, level: int | None = None,
                    max_rows: int = DEFAULT_MAX_ROWS):
    """Every reachable decision state of the first ``rounds`` rounds (or of one level).

    Parameters
    ----------
    rules : Rules
        A single game (``match="single"``).
    rounds : int, optional
        States of rounds 1..``rounds``. Default: all n rounds, unless ``level``.
    level : int, optional
        Only the states with ``level`` cards in each hand (round n - level + 1).
    max_rows : int
        Refuse (ValueError) when more states than this would be listed.

    Returns
    -------
    list of tuple
        ``(round, hand_a, hand_b, pot, prizes, diff)`` with sorted hand tuples
        and ``prizes`` as :func:`~gops_solver.game.rules.validate_state` orders them;
        in round order, each round's states sorted.

    Raises
    ------
    ValueError
        Bad ``rounds``/``level``, a match format, or too many states.
    """
    cards = _Cards(rules)
    out = []
    for st in _walk(rules, rounds, level, max_rows, cards):
        out.extend(zip([st.rnd] * len(st.ha), [cards.sets[m] for m in st.ha.tolist()],
                       [cards.sets[m] for m in st.hb.tolist()], st.pot.tolist(),
                       [cards.prizes[m] for m in st.pm.tolist()], st.diff.tolist()))
    return out


# ---------------------------------------------------------------------------
# values and strategies
# ---------------------------------------------------------------------------

@njit(cache=True)
def _pair_patterns(ha, hb, n, lut, lut_off, pat, cls_a, div_a, cls_b, div_b):
    """Pattern and classes of each pair of hands (bitmasks), as :func:`~.query.query_state` finds them.

    ``pat[i]``: the pattern's index within its level. ``cls_a[i, c]``: the
    class (stage-game row) of A's card c + 1, -1 when A lacks it;
    ``div_a[i, c]``: the number of cards in that class (likewise for B).
    All outputs are modified in place.
    """
    tok = np.empty(TOKEN_SCRATCH, np.int64)
    card = np.empty(TOKEN_SCRATCH, np.int64)
    size = np.empty(MAX_CARDS, np.int64)
    for i in range(len(ha)):
        u = 0
        code = 0
        p3 = 1
        for c in range(n):
            ina = (ha[i] >> c) & 1
            inb = (hb[i] >> c) & 1
            if ina == 0 and inb == 0:
                continue
            t = TOK_SHARED if ina and inb else (TOK_A if ina else TOK_B)
            tok[u] = t
            card[u] = c
            code += t * p3
            p3 *= 3
            u += 1
        pat[i] = lut[lut_off[u] + code]
        for side in range(2):
            own = TOK_A if side == 0 else TOK_B
            cls = cls_a if side == 0 else cls_b
            div = div_a if side == 0 else div_b
            for c in range(n):
                cls[i, c] = -1
            m = -1
            for t in range(u):
                if tok[t] == own:
                    if t == 0 or tok[t - 1] != own:  # a run of one player's cards is one class
                        m += 1
                        size[m] = 0
                elif tok[t] == TOK_SHARED:
                    m += 1
                    size[m] = 0
                else:
                    continue
                cls[i, card[t]] = m
                size[m] += 1
            for c in range(n):
                div[i, c] = size[cls[i, c]] if cls[i, c] >= 0 else 1


@njit(cache=True)
def _structures(level_u, level_code, pats, lut, lut_off, na, nb, succ, outc):
    """The :class:`~.tables.Stage` of each pattern ``pats[j]`` of one level, into the arrays given."""
    tok = np.empty(TOKEN_SCRATCH, np.int64)
    for j in range(len(pats)):
        u = level_u[pats[j]]
        decode(u, level_code[pats[j]], tok)
        st = stage_structure(tok, u, lut, lut_off)
        na[j] = st.na
        nb[j] = st.nb
        succ[j] = st.succ
        outc[j] = st.outc


class _Games(NamedTuple):
    """The distinct stage games of a level: game ``g`` has structure ``st[g]`` (a row of :class:`_Shapes`),
    leaves prize set ``set[g]`` of level ``k - 1`` hidden (summing to ``sum[g]``), and has pot ``pot[g]``,
    score difference ``d[g]`` (``win``) and carry index ``ci[g]`` (fixed order)."""

    st: np.ndarray
    set: np.ndarray
    pot: np.ndarray
    d: np.ndarray
    ci: np.ndarray
    sum: np.ndarray

    def part(self, sl):
        return _Games(*(a[sl] for a in self))


class _Shapes(NamedTuple):
    """The :class:`~.tables.Stage` of each pattern in use, as arrays: ``na``, ``nb``, ``succ``, ``outc``."""

    na: np.ndarray
    nb: np.ndarray
    succ: np.ndarray
    outc: np.ndarray


class _Solved(NamedTuple):
    """What :func:`_solve_games` finds for each game: ``value``, strategies ``x[g, :na]`` and ``y[g, :nb]``,
    and ``ok`` (False where a successor is not tabulated or the solve failed)."""

    value: np.ndarray
    x: np.ndarray
    y: np.ndarray
    ok: np.ndarray

    def part(self, sl):
        return _Solved(*(a[sl] for a in self))


@njit(cache=True)
def _solve_games(game, prev, k, games, shapes, out):
    """Build and solve each stage game of :class:`_Games` ``games`` at level ``k`` into ``out`` (modified in place).

    Each game is built by :func:`~.tables.stage_matrix` from ``prev`` (level
    ``k - 1``) and solved by :func:`solve_stage`, as a query does. Where
    ``out.ok[g]`` is False the caller answers the states another way.
    """
    M = np.empty((MAX_CARDS, MAX_CARDS))
    x = np.empty(MAX_CARDS)
    y = np.empty(MAX_CARDS)
    work = np.empty(WORK)
    for g in range(len(games.st)):
        j = games.st[g]
        na, nb = shapes.na[j], shapes.nb[j]
        stage = Stage(na, nb, shapes.succ[j], shapes.outc[j])
        out.ok[g] = False
        if not stage_matrix(game, prev, k, stage, games.pot[g], games.d[g], games.ci[g], games.set[g],
                            games.sum[g], M):
            continue
        v, status = solve_stage(M, na, nb, x, y, work)
        if status != STAGE_OK:
            continue
        out.ok[g] = True
        out.value[g] = v
        for i in range(na):
            out.x[g, i] = x[i]
        for i in range(nb):
            out.y[g, i] = y[i]


class ExportTable(NamedTuple):
    """The rows of an export as columns: what :func:`write_table` writes and :func:`to_frame` wraps.

    Card sets are ``(codes, sets)``: row ``i`` holds ``sets[codes[i]]``, a
    tuple of cards (in reveal order for a fixed order's prizes). From a
    solution the codes are the sets' bitmasks.

    Attributes
    ----------
    rules : dict
        ``Rules.to_dict()`` of the game ({} when unknown).
    n : int
        Cards per hand at the start (columns ``a_1..a_n``).
    rnd, k : ndarray of int8
    hand_a, hand_b, prizes : tuple of (ndarray of int64, sequence of tuple)
    pot, diff : ndarray of int16
    value : ndarray of float64
    sa, sb : ndarray of float64, shape (rows, n)
        Columns ``a_1..a_n`` and ``b_1..b_n``.
    """

    rules: dict
    n: int
    rnd: np.ndarray
    k: np.ndarray
    hand_a: tuple
    hand_b: tuple
    pot: np.ndarray
    prizes: tuple
    diff: np.ndarray
    value: np.ndarray
    sa: np.ndarray
    sb: np.ndarray

    def __len__(self) -> int:
        return len(self.value)

    @property
    def columns(self) -> list:
        """Column names, in order."""
        return list(_LEAD) + [f"{s}_{c}" for s in "ab" for c in range(1, self.n + 1)]

    def rows(self, sl: slice) -> "ExportTable":
        """The rows ``sl`` (views where possible)."""
        return ExportTable(self.rules, self.n, self.rnd[sl], self.k[sl], (self.hand_a[0][sl], self.hand_a[1]),
                           (self.hand_b[0][sl], self.hand_b[1]), self.pot[sl], (self.prizes[0][sl], self.prizes[1]),
                           self.diff[sl], self.value[sl], self.sa[sl], self.sb[sl])


@njit(cache=True, inline="always")
def _slot(b, mask):
    # Fibonacci hashing of the bit pattern
    return np.int64((b * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask


@njit(cache=True)
def _group(keys):
    """Number the distinct values of ``keys`` (int64) in order of first appearance: ``(ids, distinct values)``."""
    size = 1 << 10
    while size < 2 * len(keys) and size < (1 << 22):
        size *= 2
    table = np.full(size, -1, np.int64)  # slot -> number, -1 when free
    seen = np.empty(max(len(keys), 1), np.int64)
    ids = np.empty(len(keys), np.int64)
    count = 0
    for r in range(len(keys)):
        key = keys[r]
        if r > 0 and key == keys[r - 1]:  # neighbours often share their game
            ids[r] = ids[r - 1]
            continue
        i = _slot(np.uint64(key), size - 1)
        while table[i] >= 0 and seen[table[i]] != key:
            i = (i + 1) & (size - 1)
        if table[i] < 0:
            seen[count] = key
            table[i] = count
            count += 1
            if 2 * count > size:  # keep the table at most half full
                size *= 2
                table = np.full(size, -1, np.int64)
                for t in range(count):
                    i = _slot(np.uint64(seen[t]), size - 1)
                    while table[i] >= 0:
                        i = (i + 1) & (size - 1)
                    table[i] = t
        ids[r] = table[i]
    return ids, seen[:count].copy()


def _sorted_groups(keys):
    """``np.unique(keys, return_inverse=True)`` for int64 keys with few distinct values."""
    ids, distinct = _group(keys)
    order = np.argsort(distinct, kind="stable")
    place = np.empty(len(order), np.int64)
    place[order] = np.arange(len(order))
    return distinct[order], place[ids]


@njit(cache=True)
def _spread(ginv, pinv, diff, solved, cls_a, div_a, cls_b, div_b, value, sa, sb, done):
    """Each row's value and strategies from its game's solution (:class:`_Solved` ``solved``), as a query reads them.

    The value is the stage value plus ``diff[i]`` (0 under ``win``); each
    class's probability is shared evenly among its cards, 0 for a card not
    in the hand. ``done[i]``: the game was solved. Outputs modified in place.
    """
    n = sa.shape[1]
    for i in range(len(ginv)):
        g = ginv[i]
        p = pinv[i]
        done[i] = solved.ok[g]
        value[i] = solved.value[g] + np.float64(diff[i])
        for c in range(n):
            j = cls_a[p, c]
            sa[i, c] = 0.0 + solved.x[g, j] / div_a[p, c] if j >= 0 else 0.0
            j = cls_b[p, c]
            sb[i, c] = 0.0 + solved.y[g, j] / div_b[p, c] if j >= 0 else 0.0


def _round_equilibrium(solution, st: _Round, value, sa, sb):
    """Values and strategies of the states of one round into ``value``, ``sa``, ``sb`` (modified in place).

    Returns a boolean array: True where the state was answered here; the
    caller asks ``solution.query`` for the others (a successor the tables
    lack, or a stage solve that failed: the query's sub-game and its error).
    """
    rules, space, tables = solution.rules, solution.space, solution.tables
    n, k, rows = rules.n, st.k, len(st.ha)
    done = np.zeros(rows, dtype=bool)
    if (solution.stage_solver or "numba") != "numba" or k - 1 > space.kmax or not holds_level(tables, k - 1):
        return done  # the HiGHS backend answers state by state
    pats = space.patterns
    # the states are sorted by their hands: each pair of hands is a run of rows
    new_pair = np.ones(rows, dtype=bool)
    np.not_equal(st.ha[1:], st.ha[:-1], out=new_pair[1:])
    new_pair[1:] |= st.hb[1:] != st.hb[:-1]
    first = np.flatnonzero(new_pair)
    pinv = np.cumsum(new_pair) - 1
    npair = len(first)
    pat = np.empty(npair, np.int64)
    cls_a, cls_b = np.empty((npair, n), np.int64), np.empty((npair, n), np.int64)
    div_a, div_b = np.empty((npair, n), np.float64), np.empty((npair, n), np.float64)
    _pair_patterns(st.ha[first], st.hb[first], n, pats.lut, LUT_OFF, pat, cls_a, div_a, cls_b, div_b)
    # the stage game depends on the pattern, the set left hidden, the pot, and (win) the difference;
    # under a fixed order the set is the order's and the carry index follows from the pot
    if space.random_order:
        s_prev = space.prize_sets.set_rank[st.pm]
    else:
        s_prev = np.zeros(rows, np.int64)
    d = st.diff if space.win else np.zeros(rows, np.int64)
    key = (s_prev << 40) | (pat[pinv] << 16) | (st.pot << 8) | (d + 128)
    ukey, ginv = _sorted_groups(key)
    g_set, g_pat, g_pot, g_d = ukey >> 40, (ukey >> 16) & ((1 << 24) - 1), (ukey >> 8) & 255, (ukey & 255) - 128
    if space.random_order:
        g_sum = space.prize_sets.set_sum[space.prize_sets.level_sets[k - 1][g_set]]
        g_ci = np.zeros(len(ukey), np.int64)
    else:
        seq = rules.sequence
        g_sum = np.full(len(ukey), sum(seq[st.rnd:]), np.int64)
        # carry index: rounds tied in a row, as validate_state reads it off the pot
        chains = np.cumsum([0] + list(seq[:st.rnd - 1][::-1]))
        g_ci = np.searchsorted(chains, g_pot - seq[st.rnd - 1]).astype(np.int64)
    upat, st_of = np.unique(g_pat, return_inverse=True)
    na, nb = np.empty(len(upat), np.int64), np.empty(len(upat), np.int64)
    succ = np.empty((len(upat), MAX_CARDS, MAX_CARDS), np.int64)
    outc = np.empty((len(upat), MAX_CARDS, MAX_CARDS), np.int64)
    _structures(pats.level_u[k], pats.level_code[k], upat, pats.lut, LUT_OFF, na, nb, succ, outc)
    ng = len(ukey)
    games = _Games(st_of, g_set, g_pot, g_d, g_ci, g_sum)
    shapes = _Shapes(na, nb, succ, outc)
    out = _Solved(np.empty(ng), np.zeros((ng, MAX_CARDS)), np.zeros((ng, MAX_CARDS)), np.zeros(ng, dtype=bool))
    game = game_axes(space)
    # a block store loads only the prize sets asked for: a few at a time (games are sorted by set)
    step = _BLOCK_RANKS if hasattr(tables, "view") else ng
    bounds = np.searchsorted(g_set, np.unique(g_set)[::step]).tolist() + [ng]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        prev = level_view(space, tables, k - 1, np.unique(g_set[lo:hi]).tolist())
        _solve_games(game, prev, k, games.part(slice(lo, hi)), shapes, out.part(slice(lo, hi)))
    # Solution.query: the stage value plus the difference (points), each class's probability shared evenly
    _spread(ginv, pinv, np.zeros(rows, np.int64) if space.win else st.diff, out, cls_a, div_a, cls_b, div_b,
            value, sa, sb, done)
    return done


def equilibrium_table(solution, rounds: int | None = None, level: int | None = None,
                      max_rows: int = DEFAULT_MAX_ROWS) -> ExportTable:
    """The equilibrium at every reachable decision state of the first rounds, as columns.

    Parameters
    ----------
    solution : Solution
        A solved single game (from :func:`~gops_solver.solve` or :func:`~gops_solver.load`).
    rounds, level, max_rows
        As for :func:`decision_states`.

    Returns
    -------
    ExportTable
        One row per state, in the order of :func:`decision_states`; each
        row's ``value`` and strategies are those of ``solution.query`` at the
        state.
    """
    rules = solution.rules
    n = rules.n
    if getattr(solution, "rounds_held", None) is not None:  # a top-levels file: its rounds only
        solution.require_rounds(_range(rules, rounds, level)[1])
    cards = _Cards(rules)
    parts = _walk(rules, rounds, level, max_rows, cards)
    rows = sum(len(st.ha) for st in parts)
    value = np.empty(rows)
    sa, sb = np.zeros((rows, n)), np.zeros((rows, n))
    at = 0
    for st in parts:
        sl = slice(at, at + len(st.ha))
        done = _round_equilibrium(solution, st, value[sl], sa[sl], sb[sl])
        for i in np.flatnonzero(~done).tolist():
            q = solution.query(cards.sets[st.ha[i]], cards.sets[st.hb[i]], int(st.pot[i]), cards.prizes[st.pm[i]],
                               int(st.diff[i]))
            value[at + i] = q.value
            sa[at + i] = 0.0
            sb[at + i] = 0.0
            for c, p in q.strategy_a.items():
                sa[at + i, c - 1] = p
            for c, p in q.strategy_b.items():
                sb[at + i, c - 1] = p
        at += len(st.ha)

    def cat(field, dtype):
        return np.concatenate([getattr(st, field) for st in parts]).astype(dtype) if parts else np.zeros(0, dtype)

    rnd = np.concatenate([np.full(len(st.ha), st.rnd, np.int8) for st in parts]) if parts else np.zeros(0, np.int8)
    return ExportTable(rules.to_dict(), n, rnd, (n - rnd + 1).astype(np.int8), (cat("ha", np.int64), cards.sets),
                       (cat("hb", np.int64), cards.sets), cat("pot", np.int16), (cat("pm", np.int64), cards.prizes),
                       cat("diff", np.int16), value, sa, sb)


def _object_column(codes, sets) -> np.ndarray:
    lut = np.empty(len(sets), dtype=object)
    lut[:] = list(sets)
    return lut[codes]


def table_frame(table: ExportTable):
    """An :class:`ExportTable` as a pandas DataFrame (card sets as tuples, rules in ``attrs``)."""
    pd = _pandas()
    cols = {"round": table.rnd, "k": table.k, "hand_a": _object_column(*table.hand_a),
            "hand_b": _object_column(*table.hand_b), "pot": table.pot, "prizes": _object_column(*table.prizes),
            "diff": table.diff, "value": table.value}
    cols.update({f"a_{c}": table.sa[:, c - 1] for c in range(1, table.n + 1)})
    cols.update({f"b_{c}": table.sb[:, c - 1] for c in range(1, table.n + 1)})
    frame = pd.DataFrame(cols)
    frame.attrs["rules"] = table.rules
    return frame


def to_frame(solution, rounds: int | None = None, level: int | None = None, max_rows: int = DEFAULT_MAX_ROWS):
    """The equilibrium at every reachable decision state of the first rounds, as a DataFrame.

    Parameters
    ----------
    solution : Solution
        A solved single game (from :func:`~gops_solver.solve` or :func:`~gops_solver.load`).
    rounds, level, max_rows
        As for :func:`decision_states`.

    Returns
    -------
    pandas.DataFrame
        One row per state, columns as in this module's docstring; each row's
        ``value`` and strategies are those of ``solution.query`` at the state.
    """
    _pandas()
    return table_frame(equilibrium_table(solution, rounds, level, max_rows))


def frame_table(frame) -> ExportTable:
    """A DataFrame of :func:`to_frame`'s columns as an :class:`ExportTable` (for :func:`write`)."""
    pd = _pandas()
    n = sum(1 for c in frame.columns if str(c).startswith("a_"))
    sets = {}
    for col in _SETS:
        codes, uniques = pd.factorize(frame[col], sort=False)
        sets[col] = (codes.astype(np.int64), [tuple(v) for v in uniques])
    return ExportTable(frame.attrs.get("rules", {}), n, frame["round"].to_numpy(), frame["k"].to_numpy(),
                       sets["hand_a"], sets["hand_b"], frame["pot"].to_numpy(), sets["prizes"],
                       frame["diff"].to_numpy(), frame["value"].to_numpy(np.float64),
                       frame[[f"a_{c}" for c in range(1, n + 1)]].to_numpy(np.float64),
                       frame[[f"b_{c}" for c in range(1, n + 1)]].to_numpy(np.float64))


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------

def _mask(cards) -> int:
    return sum(1 << (c - 1) for c in cards)


def cards_from_mask(mask: int, order=None) -> tuple:
    """The cards of an ``.npz`` bitmask column entry (bit c - 1 set for card c).

    Parameters
    ----------
    mask : int
    order : sequence of int, optional
        A fixed prize order: the hidden prizes are listed in it (a bitmask
        keeps no order). Default: ascending.
    """
    mask = int(mask)
    return tuple(c for c in (order or range(1, 14)) if mask >> (c - 1) & 1)


# -- CSV: every number as Python's "%.17g" writes it, in a kernel ------------------------------------------------

#: 5**s and 10**s as uint64 (the exact "%.17g" arithmetic)
_POW5 = np.array([5 ** s for s in range(28)], np.uint64)
_POW10 = np.array([10 ** s for s in range(20)], np.uint64)
#: "00".."99"
_DIGITS2 = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), np.uint8).copy()
#: bytes of the longest "%.17g" text ("-1.2345678901234567e-308")
_FLOAT_TEXT = 24
#: CSV rows assembled at a time into one reused buffer
_CSV_ROWS = 1 << 14
#: numbers whose text the CSV kernel keeps at a time (a direct-mapped cache)
_CACHE_SLOTS = 1 << 16


class _Digits(NamedTuple):
    """Tables and scratch of :func:`_g17`: ``pow5``, ``pow10``, ``digits2`` (module constants), ``dig`` (18 bytes)."""

    pow5: np.ndarray
    pow10: np.ndarray
    digits2: np.ndarray
    dig: np.ndarray


def _digits() -> _Digits:
    return _Digits(_POW5, _POW10, _DIGITS2, np.empty(18, np.uint8))


@njit(cache=True, inline="always")
def _mul128(a, b):
    """``a * b`` of two uint64 as ``(high, low)`` uint64 words."""
    m32 = np.uint64(0xFFFFFFFF)
    a_lo, a_hi = a & m32, a >> np.uint64(32)
    b_lo, b_hi = b & m32, b >> np.uint64(32)
    ll, lh, hl = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo
    mid = (ll >> np.uint64(32)) + (lh & m32) + (hl & m32)
    return a_hi * b_hi + (lh >> np.uint64(32)) + (hl >> np.uint64(32)) + (mid >> np.uint64(32)), \
        (ll & m32) | (mid << np.uint64(32))


@njit(cache=True, inline="always")
def _g17_handles(b):
    """True when :func:`_g17` writes the float64 of bit pattern ``b`` itself.

    Zeros, infinities, NaN and magnitudes in [2**-33, 2**49): there the
    decimal exponent E lies in -10..14, so ``value * 10**(16 - E)`` is a
    product ``m * 5**s`` (s <= 27) of 53 and 63 bits shifted right by less
    than 64 bits: exact in two 64-bit words.
    """
    ex = (b >> np.uint64(52)) & np.uint64(0x7FF)
    return (b << np.uint64(1)) == 0 or ex == 0x7FF or (1023 - 33 <= ex and ex < 1023 + 49)


@njit(cache=True)
def _g17(b, out, at, dg):
    """Python's ``"%.17g" % v`` of the float64 ``v`` with bit pattern ``b`` (uint64), as bytes into ``out[at:]``.

    Returns the number of bytes (0 for NaN: pandas writes an empty field),
    or -1 outside :func:`_g17_handles`. The 17 significant digits are
    ``value * 10**(16 - E)`` rounded half to even, computed exactly: for
    ``value = m * 2**e``, the integer ``m * 5**s`` shifted by ``e + s`` bits,
    its remainder against half of ``2**-(e + s)``.
    """
    if not _g17_handles(b):
        return -1  # before writing anything
    neg = (b >> np.uint64(63)) != 0
    ex = np.int64((b >> np.uint64(52)) & np.uint64(0x7FF))
    frac = b & np.uint64(0xFFFFFFFFFFFFF)
    p = at
    if ex == 0x7FF and frac != 0:
        return 0
    if neg:
        out[p] = 45  # '-'
        p += 1
    if ex == 0x7FF:
        out[p], out[p + 1], out[p + 2] = 105, 110, 102  # inf
        return p + 3 - at
    if ex == 0 and frac == 0:
        out[p] = 48
        return p + 1 - at
    m = frac | np.uint64(1 << 52)
    e = ex - 1075  # value = m * 2**e
    E = np.int64(np.floor((e + 52) * 0.30102999566398120))  # floor(log10(value)) or one less
    lo10, hi10 = dg.pow10[16], dg.pow10[17]
    D = rem = half = np.uint64(0)
    for _ in range(3):
        s = 16 - E
        ph, pl = _mul128(m, dg.pow5[s])
        r = -(e + s)  # value * 10**s = m * 5**s / 2**r, 0 < r < 64 in range
        D = (ph << np.uint64(64 - r)) | (pl >> np.uint64(r))
        rem = pl & ((np.uint64(1) << np.uint64(r)) - np.uint64(1))
        half = np.uint64(1) << np.uint64(r - 1)
        if (ph >> np.uint64(r)) != 0 or D >= hi10:
            E += 1
        elif D < lo10:
            E -= 1
        else:
            break
    if rem > half or (rem == half and (D & np.uint64(1)) == np.uint64(1)):  # half to even, as dtoa rounds
        D += np.uint64(1)
        if D == hi10:
            D = lo10
            E += 1
    dig = dg.dig
    q = D
    for i in range(16, 0, -2):  # digits 15..16, 13..14, ..., 1..2, then digit 0
        two = np.int64(q % np.uint64(100))
        q //= np.uint64(100)
        dig[i - 1], dig[i] = dg.digits2[2 * two], dg.digits2[2 * two + 1]
    dig[0] = 48 + np.int64(q)
    nz = 17  # significant digits once trailing zeros go, as %g drops them
    while nz > 1 and dig[nz - 1] == 48:
        nz -= 1
    if -4 <= E < 17:  # %g's fixed notation
        if E >= 0:
            for j in range(E + 1):
                out[p] = dig[j] if j < nz else 48
                p += 1
            if nz > E + 1:
                out[p] = 46
                p += 1
                for j in range(E + 1, nz):
                    out[p] = dig[j]
                    p += 1
        else:
            out[p], out[p + 1] = 48, 46  # "0."
            p += 2
            for j in range(-E - 1):
                out[p] = 48
                p += 1
            for j in range(nz):
                out[p] = dig[j]
                p += 1
        return p - at
    out[p] = dig[0]
    p += 1
    if nz > 1:
        out[p] = 46
        p += 1
        for j in range(1, nz):
            out[p] = dig[j]
            p += 1
    out[p], out[p + 1] = 101, 45 if E < 0 else 43  # e-, e+
    a = -E if E < 0 else E
    out[p + 2], out[p + 3] = dg.digits2[2 * a], dg.digits2[2 * a + 1]  # |E| < 100 in range
    return p + 4 - at


@njit(cache=True)
def _g17_all(bits, out, at, dg):
    """:func:`_g17` of each bit pattern into ``out[at[i]:]`` (modified in place); the lengths (tests use it)."""
    lens = np.empty(len(bits), np.int64)
    for i in range(len(bits)):
        lens[i] = _g17(bits[i], out, at[i], dg)
    return lens


@njit(cache=True)
def _unhandled(bits, found):
    """How many of the bit patterns ``bits`` :func:`_g17` leaves; the first ``len(found)`` into ``found`` (in place)."""
    count = 0
    for i in range(len(bits)):
        if not _g17_handles(bits[i]):
            if count < len(found):
                found[count] = bits[i]
            count += 1
    return count


def _spare_numbers(cols) -> np.ndarray:
    """The distinct bit patterns of the float64 arrays ``cols`` that :func:`_g17` leaves, sorted."""
    parts = []
    for col in cols:
        bits = col.reshape(-1).view(np.uint64)
        found = np.empty(1024, np.uint64)
        count = _unhandled(bits, found)
        if count > len(found):
            found = np.empty(count, np.uint64)
            _unhandled(bits, found)
        parts.append(found[:count])
    return np.unique(np.concatenate(parts))


class _TextCache(NamedTuple):
    """The text of recently written numbers, one 32-byte slot each (a direct-mapped cache).

    Slot ``i``: bytes 0..7 the number's bit pattern (``key[i]`` views them as
    uint64), byte 8 its text's length (255: empty), bytes 9.. the text
    (``slot``: uint8, shape (slots, 32)). ``spare_key``/``spare_text``/``spare_start``:
    the numbers :func:`_g17` leaves, formatted by Python, keys sorted.
    """

    slot: np.ndarray
    key: np.ndarray
    spare_key: np.ndarray
    spare_text: np.ndarray
    spare_start: np.ndarray


#: where a slot's text starts, and the longest text a slot holds (the in-range numbers need 23)
_SLOT_TEXT = 9
_SLOT_EMPTY = 255


def _text_cache(spare, text) -> _TextCache:
    slot = np.zeros((_CACHE_SLOTS, 32), np.uint8)
    slot[:, 8] = _SLOT_EMPTY
    start = np.zeros(len(text) + 1, np.int64)
    np.cumsum([len(t) for t in text], out=start[1:])
    return _TextCache(slot, slot.view(np.uint64)[:, 0], spare, np.frombuffer(b"".join(text) or b"\0", np.uint8),
                      start)


@njit(cache=True)
def _put_spare(b, cache, out, at):
    """The Python-formatted text of bit pattern ``b`` into ``out[at:]``; the next position."""
    j = np.searchsorted(cache.spare_key, b)
    for q in range(cache.spare_start[j], cache.spare_start[j + 1]):
        out[at] = cache.spare_text[q]
        at += 1
    return at


@njit(cache=True)
def _csv_rows(lead, buf, start, value, sa, sb, cache, dg, out):
    """CSV lines into ``out`` (modified in place); the number of bytes.

    Row ``r``: the tokens ``lead[r, :]`` (token ``t`` is ``buf[start[t]:start[t + 1]]``), then ``value[r]``,
    ``sa[r, :]``, ``sb[r, :]`` (float64 bit patterns, uint64) as "%.17g" text, joined by commas. A number
    is looked up in ``cache`` (a :class:`_TextCache`, modified in place) and formatted only when missing;
    a row whose strategies repeat the row before's (a stage game shared) copies their text.
    """
    slot, key = cache.slot, cache.key  # locals: the loop below is the hot one
    mask = len(key) - 1
    n = sa.shape[1]
    at = 0
    seg_lo = seg_hi = 0  # the previous row's strategies' text, commas included
    for r in range(lead.shape[0]):
        for j in range(lead.shape[1]):
            t = lead[r, j]
            for q in range(start[t], start[t + 1]):
                out[at] = buf[q]
                at += 1
            out[at] = 44  # ','
            at += 1
        repeat = r > 0
        if repeat:
            for c in range(n):
                if sa[r, c] != sa[r - 1, c] or sb[r, c] != sb[r - 1, c]:
                    repeat = False
                    break
        for j in range(1 if repeat else 2 * n + 1):
            if j == 1:
                seg_lo = at
            if j > 0:
                out[at] = 44
                at += 1
            b = value[r] if j == 0 else (sa[r, j - 1] if j <= n else sb[r, j - 1 - n])
            if b == np.uint64(0):
                out[at] = 48  # '0'
                at += 1
                continue
            i = _slot(b, mask)
            if key[i] != b or slot[i, 8] == _SLOT_EMPTY:
                size = _g17(b, slot[i], _SLOT_TEXT, dg)
                if size < 0:  # one of the numbers Python formatted: not cached
                    at = _put_spare(b, cache, out, at)
                    continue
                key[i] = b
                slot[i, 8] = size
            size = slot[i, 8]
            for q in range(_SLOT_TEXT, _SLOT_TEXT + size):
                out[at] = slot[i, q]
                at += 1
        if repeat:  # the reference text stays that of the last row written out in full
            for q in range(seg_lo, seg_hi):
                out[at] = out[q]
                at += 1
        else:
            seg_hi = at
        out[at] = 10  # '\n'
        at += 1
    return at


def _csv_field(text: str) -> str:
    # the quoting of pandas' to_csv (csv.QUOTE_MINIMAL)
    return f'"{text}"' if "," in text else text


class _Tokens:
    """Text of every distinct cell of the leading columns, each formatted once: a byte buffer and token starts."""

    def __init__(self):
        self.texts = []

    def add(self, texts) -> int:
        base = len(self.texts)
        self.texts.extend(texts)
        return base

    def buffer(self):
        encoded = [t.encode() for t in self.texts]
        start = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum([len(e) for e in encoded], out=start[1:])
        return np.frombuffer(b"".join(encoded) or b"\0", np.uint8), start


def _lead_columns(table: ExportTable, tok: _Tokens):
    """For each leading column, a function of a row slice giving its token numbers in ``tok``."""
    cols = []
    for arr, sets in ((table.rnd, None), (table.k, None), (None, table.hand_a), (None, table.hand_b),
                      (table.pot, None), (None, table.prizes), (table.diff, None)):
        if sets is None:
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo < 1 << 16:  # a token for every whole number between
                shift = tok.add([str(v) for v in range(lo, hi + 1)]) - lo
                cols.append(lambda sl, arr=arr, shift=shift: arr[sl].astype(np.int64) + shift)
            else:
                u, inv = np.unique(arr, return_inverse=True)
                ids = inv.reshape(-1) + tok.add([str(int(v)) for v in u.tolist()])
                cols.append(lambda sl, ids=ids: ids[sl])
        else:
            codes, lut = sets
            used = np.flatnonzero(np.bincount(codes, minlength=len(lut)))
            where = np.zeros(max(len(lut), 1), np.int64)
            where[used] = np.arange(len(used)) + tok.add([_csv_field(",".join(map(str, lut[c])))
                                                          for c in used.tolist()])
            cols.append(lambda sl, codes=codes, where=where: where[codes[sl]])
    return cols


def _csv_chunks(table: ExportTable):
    """The CSV text of ``table`` (header first), as byte arrays of at most :data:`_CSV_ROWS` rows each.

    Each array is valid until the next is asked for (one buffer serves them all).
    """
    yield (",".join(table.columns) + "\n").encode()
    rows = len(table)
    if not rows:
        return
    tok = _Tokens()
    lead = _lead_columns(table, tok)
    buf, start = tok.buffer()
    floats = tuple(np.ascontiguousarray(a, np.float64) for a in (table.value, table.sa, table.sb))
    spare = _spare_numbers(floats)  # subnormals, tiny and huge numbers: Python writes them
    text = [("%.17g" % v).encode() for v in spare.view(np.float64).tolist()]
    cache = _text_cache(spare, text)
    widest = int(np.diff(start).max()) if len(start) > 1 else 0
    row_bytes = 7 * (widest + 1) + (1 + 2 * table.n) * (_FLOAT_TEXT + 1)
    out = np.empty(min(rows, _CSV_ROWS) * row_bytes, np.uint8)
    dg = _digits()
    for lo in range(0, rows, _CSV_ROWS):
        sl = slice(lo, lo + _CSV_ROWS)
        ids = np.stack([col(sl) for col in lead], axis=1)
        size = _csv_rows(ids, buf, start, *(a[sl].view(np.uint64) for a in floats), cache, dg, out)
        yield out[:size]


def _arrow_table(table: ExportTable, schema_meta):
    import pyarrow as pa
    cols = {}
    for name, arr, sets in (("round", table.rnd, None), ("k", table.k, None), ("hand_a", None, table.hand_a),
                            ("hand_b", None, table.hand_b), ("pot", table.pot, None), ("prizes", None, table.prizes),
                            ("diff", table.diff, None), ("value", table.value, None)):
        if sets is None:
            cols[name] = pa.array(arr)
            continue
        codes, lut = sets
        lens = np.array([len(s) for s in lut], np.int32)
        flat_lut = np.array([c for s in lut for c in s], np.int8)
        first = np.zeros(len(lut) + 1, np.int64)
        np.cumsum(lens, out=first[1:])
        n_of = lens[codes]
        offsets = np.zeros(len(codes) + 1, np.int32)
        np.cumsum(n_of, out=offsets[1:])
        # each row's cards: its set's slice of flat_lut
        pos = np.repeat(first[codes] - offsets[:-1], n_of) + np.arange(offsets[-1])
        cols[name] = pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat_lut[pos], type=pa.int8()))
    for side, strat in (("a", table.sa), ("b", table.sb)):
        for c in range(1, table.n + 1):
            cols[f"{side}_{c}"] = pa.array(strat[:, c - 1])
    out = pa.table(cols)
    return out.replace_schema_metadata(schema_meta)


def _parquet(table: ExportTable, fh) -> None:
    try:
        import pyarrow as pa  # noqa: F401
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError("parquet export needs pyarrow: pip install 'gops-solver[export]'") from None
    # the schema metadata pandas would add (the file reads back as the same DataFrame), and the rules
    meta = _pandas_metadata(table)
    meta[b"gops.rules"] = json.dumps(table.rules).encode()
    first = _arrow_table(table.rows(slice(0, _CHUNK_ROWS)), meta)
    with pq.ParquetWriter(fh, first.schema) as writer:
        writer.write_table(first)
        for lo in range(_CHUNK_ROWS, len(table), _CHUNK_ROWS):
            writer.write_table(_arrow_table(table.rows(slice(lo, lo + _CHUNK_ROWS)), meta))


def _pandas_metadata(table: ExportTable) -> dict:
    import pyarrow as pa
    head = table_frame(table.rows(slice(0, 1)))
    return dict(pa.Table.from_pandas(head, preserve_index=False).schema.metadata or {})


def _npz(table: ExportTable, fh) -> None:
    arrays = {"round": table.rnd, "k": table.k, "pot": table.pot, "diff": table.diff, "value": table.value}
    arrays.update({f"a_{c}": table.sa[:, c - 1] for c in range(1, table.n + 1)})
    arrays.update({f"b_{c}": table.sb[:, c - 1] for c in range(1, table.n + 1)})
    for col, (codes, lut) in zip(_SETS, (table.hand_a, table.hand_b, table.prizes)):
        arrays[col] = np.array([_mask(s) for s in lut], dtype=np.uint16)[codes] if len(lut) else \
            np.zeros(len(codes), np.uint16)
    arrays["rules"] = np.array(json.dumps(table.rules))
    np.savez_compressed(fh, **arrays)


def write_table(table: ExportTable, out, fmt: str) -> int:
    """Write an export table to a file atomically, or CSV to a binary stream; the number of bytes written.

    Parameters
    ----------
    table : ExportTable
        As returned by :func:`equilibrium_table`.
    out : str, path-like, or binary file object
        A path (written through a temporary file, fsync, rename) or a
        stream such as ``sys.stdout.buffer`` (CSV only).
    fmt : {"csv", "parquet", "npz"}

    Raises
    ------
    ValueError
        Unknown format, a binary format asked of a stream, or the path cannot be written.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    if hasattr(out, "write"):
        if fmt != "csv":
            raise ValueError(f"{fmt} is a binary format and is not written to standard output: give a file with --out")
        size = 0
        for part in _csv_chunks(table):
            out.write(part)
            size += len(part)
        out.flush()
        return size
    if fmt == "csv":
        def dump(fh):
            for part in _csv_chunks(table):
                fh.write(part)
        return _atomic_write(out, dump)
    if fmt == "parquet":
        return _atomic_write(out, lambda fh: _parquet(table, fh))
    return _atomic_write(out, lambda fh: _npz(table, fh))


def write(frame, path, fmt: str) -> int:
    """Write an export frame to ``path`` atomically (temporary file, fsync, rename).

    Parameters
    ----------
    frame : pandas.DataFrame
        As returned by :func:`to_frame`.
    path : str or path-like
    fmt : {"csv", "parquet", "npz"}

    Raises
    ------
    ValueError
        Unknown format, or the path cannot be written.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    return write_table(frame_table(frame), path, fmt)


def _atomic_write(path, dump) -> int:
    """Run ``dump(binary file object)`` into ``path`` with :func:`~.storage.atomic_write`; the bytes written.

    A regular file is replaced only once the whole new one is on disk (its
    writer lock held); an existing FIFO, a character device or ``-``
    (standard output) is streamed into (-1: the size is not known);
    anything else is refused in one line.
    """
    from gops_solver.engine.storage import atomic_write
    return atomic_write(path, dump, stdout=True)
