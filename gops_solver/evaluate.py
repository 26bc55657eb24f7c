"""Exact evaluation of strategies over actual hands (no sampling).

Heuristics may look at card values, so the solver's pattern tables do not
apply here. States are packed into one int64 (:func:`~.strategies.decision_key`
with the carried pot in the pot field): A's hand, B's hand and the hidden
prizes as bitmasks, the carry and the score difference. A level is a sorted
array of keys; one round maps level k to level k - 1, the children merged
in hash tables. Hands are relabelled (ranks, or one hand within the gaps of
the other) when the strategies in play allow it (:func:`_relabelling`).

* :func:`margin_distribution` -- both strategies fixed: the exact
  distribution of the final margin, pushed forward round by round, hence
  the expected margin and P(win), P(draw), P(loss).
* :func:`best_response_tables` -- A's strategy fixed, B best-responds: the
  states A's strategy can reach (B may bid anything) are enumerated
  forwards, then B's minimal value for A is computed backwards, level by
  level. B's replies are pure (the lowest best card), so the play-out
  against them is again :func:`margin_distribution`.

Any prize order: random (each hidden prize equally likely to come next) or
a fixed, public sequence.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from .rules import Rules
from .strategies import (CODE_EQUILIBRIUM, CODE_TABLE, CODE_TABLE_NODIFF, Strategy, View, _popcount, cards_of,
                         decision_key, make_strategy, policy, policy_rows, unpack_key)

MODE_FIXED, MODE_REACH, MODE_BEST = 0, 1, 2


@njit(cache=True)
def _to_ranks(ha, hb):
    """Both hands with each card replaced by its rank in their union (1 = lowest).

    Play depends on bids only through comparisons, so when neither strategy
    looks at card values the relabelled state has the same future.
    """
    ra = 0
    rb = 0
    r = 0
    u = ha | hb
    for v in range(13):
        if (u >> v) & 1:
            ra |= ((ha >> v) & 1) << r
            rb |= ((hb >> v) & 1) << r
            r += 1
    return ra, rb


@njit(cache=True)
def _into_gaps(hx, hy):
    """``hy`` with each card not in ``hx`` moved as low as it can go in its gap between cards of ``hx``.

    Every comparison between the two hands, and within ``hy``, is kept, and
    ``hx`` is untouched: when only ``hx``'s player looks at card values,
    the relabelled state has the same future.
    """
    out = 0
    free = 0  # lowest free bit of the current gap
    for v in range(13):
        if (hx >> v) & 1:
            if (hy >> v) & 1:
                out |= 1 << v  # a card both hold stays
            free = v + 1
        elif (hy >> v) & 1:
            out |= 1 << free
            free += 1
    return out


#: how states relabel hands (see :func:`_child`)
KEEP, RANKS, B_IN_A_GAPS, A_IN_B_GAPS = 0, 1, 2, 3


@njit(cache=True)
def _child(ha, hb, pm2, a, b, pot, d, k, carry_rule, keep_diff, relabel):
    """Key of the state after A bids ``a`` and B bids ``b``, and the points A gains now.

    ``relabel``: ``KEEP`` the card values, store both hands as ``RANKS`` in
    their union (:func:`_to_ranks`), or move one player's cards down within
    the gaps of the other's (:func:`_into_gaps`).
    """
    o = 1 if a > b else (-1 if a < b else 0)
    c2 = pot if (o == 0 and carry_rule and k > 1) else 0
    d2 = d + o * pot
    ha2, hb2 = ha & ~(1 << (a - 1)), hb & ~(1 << (b - 1))
    if relabel == RANKS:
        ha2, hb2 = _to_ranks(ha2, hb2)
    elif relabel == B_IN_A_GAPS:
        hb2 = _into_gaps(ha2, hb2)
    elif relabel == A_IN_B_GAPS:
        ha2 = _into_gaps(hb2, ha2)
    key = decision_key(ha2, hb2, pm2, c2, d2 if keep_diff else 0)
    return key, o * pot


_EMPTY = -1  # free slot of a hash table (packed keys are >= 0)


@njit(cache=True)
def _slot(key, mask):
    """Home slot of ``key`` in a power-of-two hash table.

    The state is hashed (Fibonacci hashing) and the diff, the key's low
    byte, added: the children of one state's diffs, which come one after
    the other, then land in the same cache lines.
    """
    h = np.int64((np.uint64(key >> 8) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20))
    return (h + (key & 255)) & mask


@njit(cache=True)
def _find(hk, key):
    """Slot of ``key`` in the open-addressing table ``hk``, or of the free slot where it would go."""
    mask = len(hk) - 1
    i = _slot(key, mask)
    while hk[i] != key and hk[i] != _EMPTY:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _next_value(key, next_keys, next_vals):
    """Value of ``key`` in a hash table built by :func:`_hashed` (NaN when absent)."""
    if len(next_keys) == 0:
        return np.nan
    i = _find(next_keys, key)
    return next_vals[i] if next_keys[i] == key else np.nan


@njit(cache=True)
def _terminal(imm, d, keep_diff, win):
    """Value for A of a finished game (``imm`` already added to ``d`` when diff is kept)."""
    if not keep_diff:
        return float(imm)
    if win:
        return 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
    return float(d)


@njit(cache=True)
def _cell(ha, hb, pm2, a, b, pot, d, k, carry_rule, keep_diff, relabel, win, next_keys, next_vals):
    """Value for A after bids ``a``, ``b`` (future value plus, without diff, the points won now)."""
    key, imm = _child(ha, hb, pm2, a, b, pot, d, k, carry_rule, keep_diff, relabel)
    if k == 1:
        return _terminal(imm, d + imm, keep_diff, win)
    v = _next_value(key, next_keys, next_vals)
    return v if keep_diff else v + imm


@njit(cache=True)
def _best_reply(ha, hb, pm2, pot, d, k, n, pa, carry_rule, keep_diff, relabel, win, next_keys, next_vals):
    """B's lowest card minimising A's expected value against A's distribution ``pa``; and that value."""
    best = np.inf
    bbest = -1
    for b in range(1, n + 1):
        if not (hb >> (b - 1)) & 1:
            continue
        s = 0.0
        for a in range(1, n + 1):
            if pa[a - 1] > 0.0:
                s += pa[a - 1] * _cell(ha, hb, pm2, a, b, pot, d, k, carry_rule, keep_diff, relabel, win,
                                           next_keys, next_vals)
        if s < best - 1e-12:
            best = s
            bbest = b
    return bbest, best


@njit(cache=True)
def _add(hk, hv, key, p):
    """Add ``p`` to ``key``'s entry of the open-addressing table ``hk``/``hv``; 1 if the key is new."""
    i = _find(hk, key)
    if hk[i] == key:
        hv[i] += p
        return 0
    hk[i] = key
    hv[i] = p
    return 1


@njit(cache=True)
def _rehash(hk, hv, hk2, hv2):
    for i in range(len(hk)):
        if hk[i] != _EMPTY:
            _add(hk2, hv2, hk[i], hv[i])


@njit(cache=True)
def _reveals(pm, k, n, seq, qs):
    """Prizes that may be revealed with ``k`` cards in hand into ``qs``; their number.

    Random order (``seq`` empty): every hidden prize of ``pm``, each as
    likely. Fixed order: the sequence's next prize.
    """
    if len(seq) > 0:
        qs[0] = seq[n - k]
        return 1
    m = 0
    for q in range(1, n + 1):
        if (pm >> (q - 1)) & 1:
            qs[m] = q
            m += 1
    return m


@njit(cache=True)
def _expand(keys, probs, start, end, n, seq, carry_rule, keep_diff, relabel, win,
            code_a, eq_a, tka, tpa, code_b, eq_b, tkb, tpb, mode_b, next_keys, next_vals,
            reuse, hk, hv, used):
    """Children of ``keys[start:end]`` added into the hash table ``hk``/``hv`` (``used`` entries)
    until it is half full.

    ``reuse``: neither side's distribution depends on the diff, so states
    that differ only in the diff (adjacent in sorted ``keys``) share them.

    ``mode_b``: ``MODE_FIXED`` (B plays ``code_b``), ``MODE_REACH`` (B may
    bid any card; probabilities are not tracked) or ``MODE_BEST`` (B's best
    reply read from ``next_*``). The diff is kept in the keys, except in
    ``MODE_REACH`` without ``keep_diff`` (B's best reply will not need it).
    Returns ``(next start, entries used, status)``.
    """
    PA = np.empty((13, 13))  # distributions per revealed prize, kept while the state repeats
    PB = np.empty((13, 13))
    qs = np.empty(13, np.int64)
    half = len(hk) // 2  # linear probing stays fast below this load
    last = -1
    i = start
    while i < end:
        ha, hb, pm, c, d = unpack_key(keys[i])
        k = _popcount(ha)
        if used + k * k * k > half:
            break
        same = reuse and (keys[i] >> 8) == last
        last = keys[i] >> 8
        nq = _reveals(pm, k, n, seq, qs)
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            pot = c + q
            pa = PA[q - 1]
            pb = PB[q - 1]
            if not same:
                st = _distributions(ha, hb, pm2, pot, d, k, n, carry_rule, keep_diff, relabel, win, code_a, eq_a,
                                    tka, tpa, code_b, eq_b, tkb, tpb, mode_b, next_keys, next_vals, pa, pb)
                if st != 0:
                    return i, used, st
            for a in range(1, n + 1):
                if pa[a - 1] <= 0.0:
                    continue
                for b in range(1, n + 1):
                    if pb[b - 1] <= 0.0:
                        continue
                    key, _ = _child(ha, hb, pm2, a, b, pot, d, k, carry_rule, keep_diff or mode_b != MODE_REACH, relabel)
                    used += _add(hk, hv, key, probs[i] * pa[a - 1] * pb[b - 1] / nq)
        i += 1
    return i, used, 0


@njit(parallel=True, cache=True)
def _expand_chunks(keys, probs, starts, ends, n, seq, carry_rule, keep_diff, relabel, win,
                   code_a, eq_a, tka, tpa, code_b, eq_b, tkb, tpb, mode_b, next_keys, next_vals,
                   reuse, HK, HV, used):
    """:func:`_expand` on the chunks ``keys[starts[p]:ends[p]]`` in parallel, chunk p into the
    table row ``HK[p]``/``HV[p]``; ``starts`` and ``used`` are advanced in place. A status."""
    status = np.zeros(len(starts), np.int64)
    for p in prange(len(starts)):
        starts[p], used[p], status[p] = _expand(keys, probs, starts[p], ends[p], n, seq, carry_rule, keep_diff,
                                                relabel, win, code_a, eq_a, tka, tpa, code_b, eq_b, tkb, tpb,
                                                mode_b, next_keys, next_vals, reuse, HK[p], HV[p], used[p])
    return status.max()


@njit(cache=True)
def _distributions(ha, hb, pm2, pot, d, k, n, carry_rule, keep_diff, relabel, win, code_a, eq_a, tka, tpa,
                   code_b, eq_b, tkb, tpb, mode_b, next_keys, next_vals, pa, pb):
    """A's and B's bid distributions at one decision (``pa``, ``pb`` modified in place); a status."""
    st = policy(code_a, ha, hb, pm2, pot, d, n, eq_a, tka, tpa, pa)
    if st != 0:
        return st
    if mode_b == MODE_FIXED:
        return policy(code_b, hb, ha, pm2, pot, -d, n, eq_b, tkb, tpb, pb)
    for b in range(n):
        pb[b] = 1.0 if (hb >> b) & 1 else 0.0
    if mode_b == MODE_BEST:
        bb, _ = _best_reply(ha, hb, pm2, pot, d if keep_diff else 0, k, n, pa, carry_rule, keep_diff, relabel, win,
                            next_keys, next_vals)
        for b in range(n):
            pb[b] = 0.0
        pb[bb - 1] = 1.0
    return 0


@njit(parallel=True, cache=True)
def _values(keys, n, seq, carry_rule, keep_diff, relabel, win, code_a, eq_a, tka, tpa, next_keys, next_vals, out):
    """Value for A of each state in ``keys`` when B best-responds (``out`` modified in place), in
    parallel; a status."""
    status = np.zeros(len(keys), np.int64)
    for i in prange(len(keys)):
        pa = np.empty(13)
        qs = np.empty(13, np.int64)
        ha, hb, pm, c, d = unpack_key(keys[i])
        k = _popcount(ha)
        acc = 0.0
        nq = _reveals(pm, k, n, seq, qs)
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            pot = c + q
            st = policy(code_a, ha, hb, pm2, pot, d, n, eq_a, tka, tpa, pa)
            if st == 0:
                _, v = _best_reply(ha, hb, pm2, pot, d, k, n, pa, carry_rule, keep_diff, relabel, win, next_keys,
                                  next_vals)
                if np.isnan(v):
                    st = 4
                acc += v
            if st != 0:
                status[i] = st
                break
        out[i] = acc / nq
    return status.max() if len(keys) else 0


@njit(cache=True)
def _strip_diff(keys):
    out = np.empty_like(keys)
    for i in range(len(keys)):
        ha, hb, pm, c, d = unpack_key(keys[i])
        out[i] = decision_key(ha, hb, pm, c, 0)
    return out


@njit(cache=True)
def _queries(keys, n, seq, seat_b):
    """Decision keys (own view) a strategy is asked at from the states ``keys``."""
    qs = np.empty(13, np.int64)
    cnt = 0
    for i in range(len(keys)):
        cnt += 1 if len(seq) > 0 else _popcount(unpack_key(keys[i])[2])
    out = np.empty(cnt, np.int64)
    m = 0
    for i in range(len(keys)):
        ha, hb, pm, c, d = unpack_key(keys[i])
        nq = _reveals(pm, _popcount(ha), n, seq, qs)
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            if seat_b:
                out[m] = decision_key(hb, ha, pm2, c + q, -d)
            else:
                out[m] = decision_key(ha, hb, pm2, c + q, d)
            m += 1
    return out


class _Seat:
    """A strategy in one seat, with the lookup table it reads at the current level.

    A Python strategy is called once per decision it meets there. The
    equilibrium under ``points`` ignores the score, so its stage games are
    solved once per decision without the score and looked up for every
    score (an order of magnitude fewer stage games in a play-out).
    """

    def __init__(self, strategy: Strategy, rules: Rules, seat_b: bool):
        self.s, self.n, self.seat_b = strategy, rules.n, seat_b
        self.seq = _seq(rules)
        self.code = strategy.code
        if strategy.code == CODE_EQUILIBRIUM and not strategy.uses_diff:
            self.code = CODE_TABLE_NODIFF
        self.keys, self.probs = np.zeros(0, np.int64), np.zeros((0, 13))

    def prepare(self, level_keys):
        """Fill the lookup table for every decision met from the states ``level_keys``."""
        if self.code == CODE_TABLE_NODIFF:
            q = np.unique(_strip_diff(_queries(level_keys, self.n, self.seq, self.seat_b)))
            probs = np.zeros((len(q), 13))
            _check(policy_rows(CODE_EQUILIBRIUM, q, self.n, self.s.eq, probs))
            self.keys, self.probs = q, probs
        if self.code != CODE_TABLE:
            return
        q = np.unique(_queries(level_keys, self.n, self.seq, self.seat_b))
        probs = np.zeros((len(q), 13))
        for i, key in enumerate(q):
            own, opp, pm, pot, diff = unpack_key(key)
            view = View(cards_of(own, self.n), cards_of(opp, self.n), int(pot), cards_of(pm, self.n), int(diff))
            for c, p in self.s.distribution(view, self.n).items():
                probs[i, c - 1] = p
        self.keys, self.probs = q, probs

    @property
    def args(self):
        return self.code, self.s.eq, self.keys, self.probs


_STATUS = {1: "the equilibrium tables lack a state", 2: "a stage game failed to solve",
           3: "a Python strategy's table lacks a decision", 4: "a successor value is missing"}


def _check(st):
    if st != 0:
        raise RuntimeError(f"evaluation failed: {_STATUS.get(int(st), st)}; this is a bug, please report it")


def _seq(rules):
    """The prize sequence of a fixed order for the kernels; empty for the random order."""
    return np.zeros(0, np.int64) if rules.random_order else np.asarray(rules.sequence, np.int64)


def _relabelling(sa, sb):
    """How states may relabel hands (see :func:`_child`), from what the strategies in play look at.

    With ``sb`` None, B best-responds (or may bid anything), which depends on
    comparisons only. A player's cards may be relabelled when that player's
    strategy sees only card order and the other's does not read the
    opponent's card values (user functions may).
    """
    a_rank, b_rank = sa.s.rank_only, sb is None or sb.s.rank_only
    if a_rank and b_rank:
        return RANKS
    if b_rank and sa.s.code != CODE_TABLE:
        return B_IN_A_GAPS
    if a_rank and sb.s.code != CODE_TABLE:
        return A_IN_B_GAPS
    return KEEP


def _step(keys, probs, rules, sa, sb, mode_b, keep_diff, next_keys, next_vals):
    """All children of one level, merged: sorted keys and their probabilities; see :func:`_expand`.

    The parents are cut into one chunk per thread, each filling its own
    hash table (all tables double when one is half full); the tables are
    merged at the end.
    """
    n = rules.n
    chunks = max(1, min(_chunk_count(), len(keys) // _MIN_CHUNK))
    bounds = np.linspace(0, len(keys), chunks + 1).astype(np.int64)
    starts, ends = bounds[:-1].copy(), bounds[1:].copy()
    slots = _first_slots(len(keys) // chunks)
    HK, HV = np.full((chunks, slots), _EMPTY, np.int64), np.zeros((chunks, slots))
    used = np.zeros(chunks, np.int64)
    a_args, b_args = sa.args, (sb.args if sb is not None else sa.args)
    relabel = _relabelling(sa, sb)
    # may states that differ only in the diff share their bid distributions?
    reuse = not sa.s.uses_diff and {MODE_FIXED: sb is not None and not sb.s.uses_diff,
                                     MODE_REACH: True, MODE_BEST: not keep_diff}[mode_b]
    while True:
        _check(_expand_chunks(keys, probs, starts, ends, n, _seq(rules), rules.tie == "carry", keep_diff, relabel,
                              rules.objective == "win", *a_args, *b_args, mode_b, next_keys, next_vals,
                              reuse, HK, HV, used))
        if np.array_equal(starts, ends):
            break
        HK2, HV2 = np.full((chunks, 2 * slots), _EMPTY, np.int64), np.zeros((chunks, 2 * slots))
        for p in range(chunks):
            _rehash(HK[p], HV[p], HK2[p], HV2[p])
        HK, HV, slots = HK2, HV2, 2 * slots
    full = HK != _EMPTY
    out, vals = HK[full], HV[full]
    del HK, HV
    order = np.argsort(out, kind="stable")
    out, vals = out[order], vals[order]
    if chunks == 1:
        return out, vals
    # a child reached from two chunks: add its probabilities
    first = np.flatnonzero(np.r_[True, out[1:] != out[:-1]])
    return out[first], np.add.reduceat(vals, first)


def _start(n):
    full = (1 << n) - 1
    return np.array([decision_key(full, full, full, 0, 0)], np.int64), np.ones(1)


_MIN_CHUNK = 4096  # parents per thread below which one thread does a level


_MAX_CHUNKS = 4  # each chunk's table may hold most of a level's children: memory grows with chunks


def _chunk_count():
    """Chunks a large level is cut into: one per numba thread, at most :data:`_MAX_CHUNKS`."""
    return min(numba.get_num_threads(), _MAX_CHUNKS)


def _table(slots):
    """An empty hash table of ``slots`` (a power of two) entries."""
    return np.full(slots, _EMPTY, np.int64), np.zeros(slots)


def _slots_for(n_keys):
    """Slots that keep ``n_keys`` keys at most half full."""
    return 1 << max(10, int(2 * n_keys).bit_length())


def _first_slots(n_parents):
    """First size of a level's table of children (it doubles as it fills)."""
    return _slots_for(2 * n_parents)


def _hashed(keys, vals):
    """Hash table (at most half full) of a level's values, for :func:`_next_value`."""
    if len(keys) == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    hk, hv = _table(_slots_for(len(keys)))
    _rehash(keys, vals, hk, hv)
    return hk, hv


def margin_distribution(rules, sa, sb, mode_b=MODE_FIXED, best_tables=None, keep_diff=True, tick=None):
    """Exact distribution of the final margin A - B: ``{margin: probability}``.

    ``tick()``, if given, is called after each round.
    """
    keys, probs = _start(rules.n)
    for k in range(rules.n, 0, -1):
        sa.prepare(keys)
        if sb is not None:
            sb.prepare(keys)
        nk, nv = _hashed(*best_tables[k - 1]) if best_tables is not None else (np.zeros(0, np.int64), np.zeros(0))
        keys, probs = _step(keys, probs, rules, sa, sb, mode_b, keep_diff, nk, nv)
        if tick is not None:
            tick()
    return {int(unpack_key(key)[4]): float(p) for key, p in zip(keys, probs)}


def best_response_tables(rules, sa, keep_diff, tick=None):
    """B's best-response values against A's fixed strategy, per level: ``[(keys, values)]``.

    ``tick()``, if given, is called after each level of each of the two passes.
    """
    n = rules.n
    keys, _ = _start(n)
    levels = [None] * (n + 1)
    levels[n] = keys
    for k in range(n, 1, -1):
        sa.prepare(levels[k])
        # B may bid anything: B's seat only needs typed placeholders
        levels[k - 1], _ = _step(levels[k], np.ones(len(levels[k])), rules, sa, None, MODE_REACH, keep_diff,
                                 np.zeros(0, np.int64), np.zeros(0))
        if tick is not None:
            tick()
    tables = [(np.zeros(0, np.int64), np.zeros(0))] * (n + 1)
    for k in range(1, n + 1):
        sa.prepare(levels[k])
        vals = np.empty(len(levels[k]))
        nk, nv = _hashed(*tables[k - 1])
        _check(_values(levels[k], n, _seq(rules), rules.tie == "carry", keep_diff, _relabelling(sa, None),
                       rules.objective == "win", *sa.args, nk, nv, vals))
        tables[k] = (levels[k], vals)
        if tick is not None:
            tick()
    return tables


@dataclass
class Outcome:
    """Exact figures of one match-up, from A's (the evaluated strategy's) side.

    Attributes
    ----------
    margin : float
        Expected final score A - B.
    win, draw, loss : float
        Probabilities that A wins, draws, loses.
    value : float
        Expected payoff under the objective (``margin`` or ``win - loss``).
    distribution : dict
        Final margin -> probability.
    """

    margin: float
    win: float
    draw: float
    loss: float
    value: float
    distribution: dict

    @classmethod
    def from_distribution(cls, dist, objective):
        """Figures of a final-margin distribution ``{margin: probability}`` under ``objective``."""
        margin = sum(m * p for m, p in dist.items())
        w = sum(p for m, p in dist.items() if m > 0)
        dr = sum(p for m, p in dist.items() if m == 0)
        lo = sum(p for m, p in dist.items() if m < 0)
        return cls(margin, w, dr, lo, margin if objective == "points" else w - lo, dict(sorted(dist.items())))

    def to_dict(self) -> dict:
        """JSON-ready figures (without the distribution)."""
        return {"margin": self.margin, "win": self.win, "draw": self.draw, "loss": self.loss, "value": self.value}


@dataclass
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    rules : Rules
    strategy, against : str
    vs_opponent : Outcome
        The strategy (seat A) against ``against`` (seat B).
    vs_best_response : Outcome
        The strategy against its best response (B maximising its own
        objective: minimising A's ``value``).
    game_value : float
        Value of the game (0: the game is symmetric).
    exploitability : float
        ``game_value - vs_best_response.value`` (>= 0): what a best
        responder takes from the strategy beyond what the equilibrium concedes.
    seconds : float
    """

    rules: Rules
    strategy: str
    against: str
    vs_opponent: Outcome
    vs_best_response: Outcome
    game_value: float
    exploitability: float
    seconds: float

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"rules": self.rules.to_dict(), "strategy": self.strategy, "against": self.against,
                "vs_opponent": self.vs_opponent.to_dict(), "vs_best_response": self.vs_best_response.to_dict(),
                "game_value": self.game_value, "exploitability": self.exploitability,
                "seconds": round(self.seconds, 3)}


def check_rules(rules):
    """Raise ``TypeError``/``ValueError`` unless :func:`evaluate` and :func:`simulate` take ``rules``."""
    if not isinstance(rules, Rules):
        raise TypeError("evaluate() takes a Rules object: evaluate('match', Rules(n=6))")
    if rules.match != "single":
        raise ValueError(f"evaluate and simulate play single games, not a {rules.match} match: drop --match")


def needs_solution(*specs) -> bool:
    """Whether one of the strategy specs (names or :class:`Strategy`) is the equilibrium."""
    return any(isinstance(s, str) and s.strip().lower() == "equilibrium" for s in specs) or \
        any(isinstance(s, Strategy) and s.code == CODE_EQUILIBRIUM for s in specs)


def _solution_for(rules, solution, *specs):
    """The solution the ``equilibrium`` among ``specs`` plays (solved here if needed and not given)."""
    if solution is None and needs_solution(*specs):
        from .solution import solve
        solution = solve(rules)
    if solution is not None and solution.rules != rules:
        raise ValueError(f"the solution is for {solution.rules.describe()}, not {rules.describe()}: "
                         f"pass a matching solution")
    return solution


def evaluation_steps(rules: Rules) -> int:
    """Number of ``progress`` calls an :func:`evaluate` of ``rules`` makes (rounds of its four passes)."""
    return 4 * rules.n - 1


def evaluate(strategy, rules: Rules, against="equilibrium", solution=None, progress=None) -> Evaluation:
    """Exact expected margin, win/draw/loss and exploitability of a strategy.

    Parameters
    ----------
    strategy, against : str or Strategy
        See :func:`~.strategies.make_strategy`. ``strategy`` sits in seat A.
    rules : Rules
        Any tie rule, objective and prize order (single games).
    solution : Solution, optional
        A solution of ``rules`` for the ``equilibrium`` strategy (solved
        here when needed and not given).
    progress : callable, optional
        Called with no argument after each round of each pass:
        :func:`evaluation_steps` calls in all (the middle rounds take most
        of the time).

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        Unknown strategy, a match format, or a solution of other rules.
    """
    check_rules(rules)
    t0 = time.perf_counter()
    solution = _solution_for(rules, solution, strategy, against)
    sa_s = make_strategy(strategy, solution)
    sb_s = make_strategy(against, solution)
    n = rules.n
    vs = margin_distribution(rules, _Seat(sa_s, rules, False), _Seat(sb_s, rules, True), tick=progress)
    keep_diff = rules.objective == "win" or sa_s.uses_diff
    sa = _Seat(sa_s, rules, False)
    tables = best_response_tables(rules, sa, keep_diff, tick=progress)
    br_value = float(tables[n][1][0])
    br = margin_distribution(rules, sa, None, MODE_BEST, tables, keep_diff, tick=progress)
    out_vs = Outcome.from_distribution(vs, rules.objective)
    out_br = Outcome.from_distribution(br, rules.objective)
    if abs(out_br.value - br_value) > 1e-9 * max(1.0, abs(br_value)):
        raise RuntimeError(f"best-response value {br_value} and its play-out {out_br.value} disagree; "
                           f"this is a bug, please report it")
    # both seats hold the same cards and see the same prizes, so the game is symmetric: value 0,
    # which the solution, when there is one, confirms
    game_value = float(solution.value) if solution is not None else 0.0
    return Evaluation(rules, sa_s.name, sb_s.name, out_vs, out_br, game_value, game_value - br_value,
                      time.perf_counter() - t0)


# ---------------------------------------------------------------------------
# simulation
# ---------------------------------------------------------------------------

@njit(cache=True)
def _sample(p, n, r):
    acc = 0.0
    last = -1
    for v in range(n):
        if p[v] > 0.0:
            acc += p[v]
            last = v
            if r < acc:
                return v + 1
    return last + 1  # rounding: the last card with positive probability


@njit(cache=True)
def _simulate(games, seed, n, seq, carry_rule, code_a, eq_a, tka, tpa, code_b, eq_b, tkb, tpb, margins):
    """Play ``games`` games with numba's generator seeded by ``seed``; ``margins`` modified in place.

    ``seq``: the fixed prize order, or empty for a fresh random order each game. A negative
    ``seed`` continues the generator's stream, so a long run can be played in chunks.
    """
    if seed >= 0:
        np.random.seed(seed)
    pa = np.empty(13)
    pb = np.empty(13)
    for g in range(games):
        order = seq if len(seq) > 0 else np.random.permutation(n) + 1
        full = (1 << n) - 1
        ha, hb, pm = full, full, full
        c, d = 0, 0
        for r in range(n):
            q = order[r]
            pm &= ~(1 << (q - 1))
            pot = c + q
            st = policy(code_a, ha, hb, pm, pot, d, n, eq_a, tka, tpa, pa)
            if st != 0:
                return st
            st = policy(code_b, hb, ha, pm, pot, -d, n, eq_b, tkb, tpb, pb)
            if st != 0:
                return st
            a = _sample(pa, n, np.random.random())
            b = _sample(pb, n, np.random.random())
            ha &= ~(1 << (a - 1))
            hb &= ~(1 << (b - 1))
            if a > b:
                d += pot
                c = 0
            elif a < b:
                d -= pot
                c = 0
            else:
                c = pot if (carry_rule and r < n - 1) else 0
        margins[g] = d
    return 0


def _simulate_python(games, rng, rules, sa, sb):
    """Play games calling the strategies from Python (for user strategies), drawing from ``rng``."""
    n = rules.n
    margins = np.empty(games, np.int64)
    for g in range(games):
        order = rules.sequence if rules.sequence is not None else rng.permutation(n) + 1
        ha, hb, hidden = set(range(1, n + 1)), set(range(1, n + 1)), set(range(1, n + 1))
        c = d = 0
        for r in range(n):
            q = int(order[r])
            hidden.discard(q)
            pot = c + q
            bids = []
            for s, own, opp, dd in ((sa, ha, hb, d), (sb, hb, ha, -d)):
                dist = s.distribution(View(tuple(sorted(own)), tuple(sorted(opp)), pot, tuple(sorted(hidden)), dd), n)
                cards = list(dist)
                bids.append(int(cards[rng.choice(len(cards), p=np.array([dist[x] for x in cards]) /
                                                 sum(dist.values()))]))
            a, b = bids
            ha.discard(a)
            hb.discard(b)
            if a != b:
                d += pot if a > b else -pot
                c = 0
            else:
                c = pot if (rules.tie == "carry" and r < n - 1) else 0
        margins[g] = d
    return margins


@dataclass
class Simulation:
    """Result of :func:`simulate`: sample means with 95% confidence intervals.

    Intervals are normal approximations: ``mean +- 1.96 * sd / sqrt(games)``
    for the margin, ``p +- 1.96 * sqrt(p (1 - p) / games)`` for the rates.
    """

    rules: Rules
    a: str
    b: str
    games: int
    seed: int
    margin: float
    margin_ci: tuple
    win: float
    win_ci: tuple
    draw: float
    draw_ci: tuple
    loss: float
    loss_ci: tuple
    seconds: float

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"rules": self.rules.to_dict(), "a": self.a, "b": self.b, "games": self.games, "seed": self.seed,
                "margin": self.margin, "margin_ci": list(self.margin_ci), "win": self.win, "win_ci": list(self.win_ci),
                "draw": self.draw, "draw_ci": list(self.draw_ci), "loss": self.loss, "loss_ci": list(self.loss_ci),
                "seconds": round(self.seconds, 3)}


def _floats(pair):
    return tuple(float(v) for v in pair)


#: games per chunk of a simulation: about 0.1-1 s in numba (Ctrl-C waits for the chunk), ~100 kB of margins
_SIM_CHUNK = 1 << 14
_SIM_CHUNK_PY = 256


def simulate(a, b, rules: Rules, games: int, seed: int = 0, solution=None, progress=None) -> Simulation:
    """Play ``games`` games of ``a`` (seat A) against ``b``; reproducible by ``seed``.

    Built-in strategies and the equilibrium play inside numba (its
    generator seeded with ``seed``); when a user strategy takes part, the
    games are played from Python with ``numpy.random.default_rng(seed)``.
    Games are played in chunks (the same stream of draws as one run), so
    memory stays small, Ctrl-C is answered within a chunk, and
    ``progress(games_in_chunk)`` is called after each.

    Raises
    ------
    ValueError
        Non-positive ``games``, unknown strategies, a match format.
    """
    check_rules(rules)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games={games!r} must be a positive whole number")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"seed={seed!r} must be a whole number in 0..2**32-1")
    t0 = time.perf_counter()
    solution = _solution_for(rules, solution, a, b)
    sa, sb = make_strategy(a, solution), make_strategy(b, solution)
    G = int(games)
    python = CODE_TABLE in (sa.code, sb.code)
    rng = np.random.default_rng(int(seed)) if python else None
    e = np.zeros(0, np.int64), np.zeros((0, 13))
    total = total_sq = wins = draws = 0  # Python ints: exact however many games
    done = 0
    while done < G:
        size = min(G - done, _SIM_CHUNK_PY if python else _SIM_CHUNK)
        if python:
            margins = _simulate_python(size, rng, rules, sa, sb)
        else:
            margins = np.empty(size, np.int64)
            _check(_simulate(size, int(seed) if done == 0 else -1, rules.n, _seq(rules), rules.tie == "carry",
                             sa.code, sa.eq, *e, sb.code, sb.eq, *e, margins))
        total += int(margins.sum())
        total_sq += int((margins * margins).sum())
        wins += int(np.count_nonzero(margins > 0))
        draws += int(np.count_nonzero(margins == 0))
        done += size
        if progress is not None:
            progress(size)
    m = total / G
    # sample standard deviation (ddof 1) from exact integer sums
    half = 1.96 * np.sqrt(max(G * total_sq - total * total, 0) / (G * (G - 1))) / np.sqrt(G) if G > 1 \
        else float("inf")

    def rate(count):
        p = count / G
        h = 1.96 * np.sqrt(p * (1 - p) / G)
        return p, (p - h, p + h)

    w, wci = rate(wins)
    dr, dci = rate(draws)
    lo, lci = rate(G - wins - draws)
    return Simulation(rules, sa.name, sb.name, G, int(seed), m, (m - half, m + half), w, _floats(wci), dr, _floats(dci),
                      lo, _floats(lci),
                      time.perf_counter() - t0)
