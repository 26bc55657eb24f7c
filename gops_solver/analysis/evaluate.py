"""Exact evaluation of strategies over actual hands (no sampling).

Heuristics may look at card values, so the solver's pattern tables do not
apply here. States are packed into one int64 (:func:`~.strategies.decision_key`
with the carried pot in the pot field): A's hand, B's hand and the hidden
prizes as bitmasks, the carry and the score difference. A level is a sorted
array of keys; one round maps level k to level k - 1, the children merged
in hash tables (:mod:`~.hashtable`). Hands are relabelled (ranks, or one hand within the gaps of
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
a fixed, public sequence. The kernels take the fixed settings of one step
(a level) as a :class:`Play`, the strategies as :class:`~.strategies.Seats`
and the equilibrium's tables as one :class:`~.strategies.EqData` per seat. Sampled play is in
:mod:`~.simulate`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from gops_solver.game.constants import MAX_CARDS, REPLY_TOL, VALUE_TOL
from gops_solver.analysis._hashtable import EMPTY, add, hashed, next_value, rehash, slots_for
from gops_solver.analysis._common import (Evaluation, Outcome, check_rules, check_status,  # noqa: F401 (public here)
                                          prize_sequence, solution_for)
from gops_solver.game.rules import Rules
from gops_solver.game.statekeys import _popcount, cards_of, decision_key, unpack_key
from gops_solver.engine.induction import serial_twin
from gops_solver.analysis.strategies import (CODE_EQUILIBRIUM, CODE_TABLE, CODE_TABLE_NODIFF, PRECOMPUTED_CODES,
                                             SERIAL_MAX_CARDS, Seats,
                                             Strategy, View, check_strategy_rules, make_strategy, policy, rows_kernel)

MODE_FIXED, MODE_REACH, MODE_BEST = 0, 1, 2


class Play(NamedTuple):
    """The fixed settings of one pass over the levels, for the kernels.

    ``n`` cards; ``seq`` the fixed prize order (empty: random order);
    ``carry`` the tie rule carries; ``keep_diff`` states keep the score
    difference; ``relabel`` how hands are relabelled (:func:`_child`);
    ``win`` the objective; ``mode_b`` how B plays (:func:`_expand`);
    ``reuse`` states that differ only in the diff share their distributions;
    ``next_keys``/``next_vals`` the values of the level below as a hash table
    (:func:`~.hashtable.hashed`; empty when unused); ``term`` the payoff of
    each final margin ``d`` at ``term[d + (len(term) - 1) // 2]`` (a game of a
    match pays what its end is worth to the match; empty: the objective's payoff).
    """

    n: int
    seq: np.ndarray
    carry: bool
    keep_diff: bool
    relabel: int
    win: bool
    mode_b: int
    reuse: bool
    next_keys: np.ndarray
    next_vals: np.ndarray
    term: np.ndarray = np.zeros(0)


_NO_NEXT = np.zeros(0, np.int64), np.zeros(0)
_NO_TERM = np.zeros(0)


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
    for v in range(MAX_CARDS):
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
    for v in range(MAX_CARDS):
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


@njit(cache=True)
def _terminal(imm, d, keep_diff, win, term):
    """Value for A of a finished game (``imm`` already added to ``d`` when diff is kept; ``term``: see :class:`Play`)."""
    if not keep_diff:
        return float(imm)
    if len(term) > 0:
        return term[d + (len(term) - 1) // 2]
    if win:
        return 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
    return float(d)


@njit(cache=True)
def _cell(play, ha, hb, pm2, a, b, pot, d, k):
    """Value for A after bids ``a``, ``b`` (future value plus, without diff, the points won now)."""
    key, imm = _child(ha, hb, pm2, a, b, pot, d, k, play.carry, play.keep_diff, play.relabel)
    if k == 1:
        return _terminal(imm, d + imm, play.keep_diff, play.win, play.term)
    v = next_value(key, play.next_keys, play.next_vals)
    return v if play.keep_diff else v + imm


@njit(cache=True)
def _best_reply(play, ha, hb, pm2, pot, d, k, pa):
    """B's lowest card minimising A's expected value against A's distribution ``pa``; and that value."""
    n = play.n
    best = np.inf
    bbest = -1
    for b in range(1, n + 1):
        if not (hb >> (b - 1)) & 1:
            continue
        s = 0.0
        for a in range(1, n + 1):
            if pa[a - 1] > 0.0:
                s += pa[a - 1] * _cell(play, ha, hb, pm2, a, b, pot, d, k)
        if s < best - REPLY_TOL:
            best = s
            bbest = b
    return bbest, best


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
def _expand(play, seats, eq_a, eq_b, keys, probs, start, end, hk, hv, used):
    """Children of ``keys[start:end]`` added into the hash table ``hk``/``hv`` (``used`` entries)
    until it is half full.

    ``play.reuse``: neither side's distribution depends on the diff, so
    states that differ only in the diff (adjacent in sorted ``keys``) share
    them.

    ``play.mode_b``: ``MODE_FIXED`` (B plays its seat's strategy),
    ``MODE_REACH`` (B may bid any card; probabilities are not tracked) or
    ``MODE_BEST`` (B's best reply read from ``play.next_*``). The diff is kept in the keys, except in
    ``MODE_REACH`` without ``keep_diff`` (B's best reply will not need it).
    Returns ``(next start, entries used, status)``.
    """
    n = play.n
    PA = np.empty((MAX_CARDS, MAX_CARDS))  # distributions per revealed prize, kept while the state repeats
    PB = np.empty((MAX_CARDS, MAX_CARDS))
    qs = np.empty(MAX_CARDS, np.int64)
    half = len(hk) // 2  # linear probing stays fast below this load
    keep = play.keep_diff or play.mode_b != MODE_REACH
    last = -1
    i = start
    while i < end:
        ha, hb, pm, c, d = unpack_key(keys[i])
        k = _popcount(ha)
        if used + k * k * k > half:
            break
        same = play.reuse and (keys[i] >> 8) == last
        last = keys[i] >> 8
        nq = _reveals(pm, k, n, play.seq, qs)
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            pot = c + q
            pa = PA[q - 1]
            pb = PB[q - 1]
            if not same:
                st = _distributions(play, ha, hb, pm2, pot, d, k, seats, eq_a, eq_b, pa, pb)
                if st != 0:
                    return i, used, st
            for a in range(1, n + 1):
                if pa[a - 1] <= 0.0:
                    continue
                for b in range(1, n + 1):
                    if pb[b - 1] <= 0.0:
                        continue
                    key, _ = _child(ha, hb, pm2, a, b, pot, d, k, play.carry, keep, play.relabel)
                    used += add(hk, hv, key, probs[i] * pa[a - 1] * pb[b - 1] / nq)
        i += 1
    return i, used, 0


@njit(parallel=True, cache=True)
def _expand_chunks(play, seats, eq_a, eq_b, keys, probs, starts, ends, HK, HV, used):
    """:func:`_expand` on the chunks ``keys[starts[p]:ends[p]]`` in parallel, chunk p into the
    table row ``HK[p]``/``HV[p]``; ``starts`` and ``used`` are advanced in place. A status."""
    status = np.zeros(len(starts), np.int64)
    for p in prange(len(starts)):
        starts[p], used[p], status[p] = _expand(play, seats, eq_a, eq_b, keys, probs, starts[p], ends[p], HK[p],
                                                HV[p], used[p])
    return status.max()


@njit(cache=True)
def _distributions(play, ha, hb, pm2, pot, d, k, seats, eq_a, eq_b, pa, pb):
    """A's and B's bid distributions at one decision (``pa``, ``pb`` modified in place); a status."""
    n = play.n
    st = policy(seats.code_a, ha, hb, pm2, pot, d, n, eq_a, seats.keys_a, seats.probs_a, pa)
    if st != 0:
        return st
    if play.mode_b == MODE_FIXED:
        return policy(seats.code_b, hb, ha, pm2, pot, -d, n, eq_b, seats.keys_b, seats.probs_b, pb)
    for b in range(n):
        pb[b] = 1.0 if (hb >> b) & 1 else 0.0
    if play.mode_b == MODE_BEST:
        bb, _ = _best_reply(play, ha, hb, pm2, pot, d if play.keep_diff else 0, k, pa)
        for b in range(n):
            pb[b] = 0.0
        pb[bb - 1] = 1.0
    return 0


@njit(parallel=True, cache=True)
def _values(play, seats, eq_a, keys, out):
    """Value for A of each state in ``keys`` when B best-responds to seat A (``out`` modified in
    place), in parallel; a status."""
    n = play.n
    status = np.zeros(len(keys), np.int64)
    for i in prange(len(keys)):
        pa = np.empty(MAX_CARDS)
        qs = np.empty(MAX_CARDS, np.int64)
        ha, hb, pm, c, d = unpack_key(keys[i])
        k = _popcount(ha)
        acc = 0.0
        nq = _reveals(pm, k, n, play.seq, qs)
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            pot = c + q
            st = policy(seats.code_a, ha, hb, pm2, pot, d, n, eq_a, seats.keys_a, seats.probs_a, pa)
            if st == 0:
                _, v = _best_reply(play, ha, hb, pm2, pot, d, k, pa)
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
        out[i] = decision_key(ha, hb, pm, c, np.int64(0))  # typed: a literal 0 is a specialisation of its own
    return out


@njit(cache=True)
def _queries(keys, n, seq, seat_b):
    """Decision keys (own view) a strategy is asked at from the states ``keys``."""
    qs = np.empty(MAX_CARDS, np.int64)
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
        self.seq = prize_sequence(rules)
        self.code = strategy.code
        if strategy.code == CODE_EQUILIBRIUM and not strategy.uses_diff:
            self.code = CODE_TABLE_NODIFF
        self.keys, self.probs = np.zeros(0, np.int64), np.zeros((0, MAX_CARDS))

    def prepare(self, level_keys):
        """Fill the lookup table for every decision met from the states ``level_keys``."""
        if self.code in PRECOMPUTED_CODES:  # a precomputed strategy reads its own whole table
            self.keys, self.probs = self.s.table
            return
        if self.code == CODE_TABLE_NODIFF:
            q = np.unique(_strip_diff(_queries(level_keys, self.n, self.seq, self.seat_b)))
            probs = np.zeros((len(q), MAX_CARDS))
            check_status(rows_kernel(self.n)(CODE_EQUILIBRIUM, q, self.n, self.s.eq, probs))
            self.keys, self.probs = q, probs
        if self.code != CODE_TABLE:
            return
        q = np.unique(_queries(level_keys, self.n, self.seq, self.seat_b))
        batch = getattr(self.s, "rows", None)  # a strategy that answers many decisions at once (a model file)
        if batch is not None:
            self.keys, self.probs = q, np.asarray(batch(q), dtype=float)
            return
        probs = np.zeros((len(q), MAX_CARDS))
        for i, key in enumerate(q):
            own, opp, pm, pot, diff = unpack_key(key)
            view = View(cards_of(own, self.n), cards_of(opp, self.n), int(pot), cards_of(pm, self.n), int(diff))
            for c, p in self.s.distribution(view, self.n).items():
                probs[i, c - 1] = p
        self.keys, self.probs = q, probs

    @property
    def args(self):
        """``(code, keys, probs)`` of this seat for the kernels (lookup table of the current level)."""
        return self.code, self.keys, self.probs


_expand_chunks_serial = serial_twin(_expand_chunks, "_expand_chunks_serial")
_values_serial = serial_twin(_values, "_values_serial")
_SERIAL_TWINS = {_expand_chunks: _expand_chunks_serial, _values: _values_serial}


def _kernel(parallel, n):
    """``parallel`` or, for a deck of ``n`` <= :data:`SERIAL_MAX_CARDS` cards, its serial twin (the same values)."""
    return _SERIAL_TWINS.get(parallel, parallel) if n <= SERIAL_MAX_CARDS else parallel


def _seats(sa, sb):
    """:class:`~.strategies.Seats` and the two seats' equilibrium tables (B is a copy of A when None)."""
    sb = sb if sb is not None else sa
    return Seats(*sa.args, *sb.args), sa.s.eq, sb.s.eq


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
    if b_rank and not sa.s.reads_values:
        return B_IN_A_GAPS
    if a_rank and not sb.s.reads_values:
        return A_IN_B_GAPS
    return KEEP


def _step(keys, probs, rules, sa, sb, mode_b, keep_diff, nxt, term=_NO_TERM):
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
    HK, HV = np.full((chunks, slots), EMPTY, np.int64), np.zeros((chunks, slots))
    used = np.zeros(chunks, np.int64)
    seats, eq_a, eq_b = _seats(sa, sb)
    relabel = _relabelling(sa, sb)
    # may states that differ only in the diff share their bid distributions?
    reuse = not sa.s.uses_diff and {MODE_FIXED: sb is not None and not sb.s.uses_diff,
                                     MODE_REACH: True, MODE_BEST: not keep_diff}[mode_b]
    play = Play(n, prize_sequence(rules), rules.tie == "carry", keep_diff, relabel, rules.objective == "win",
                mode_b, reuse, *nxt, term)
    while True:
        check_status(_kernel(_expand_chunks, n)(play, seats, eq_a, eq_b, keys, probs, starts, ends, HK, HV, used))
        if np.array_equal(starts, ends):
            break
        HK2, HV2 = np.full((chunks, 2 * slots), EMPTY, np.int64), np.zeros((chunks, 2 * slots))
        for p in range(chunks):
            rehash(HK[p], HV[p], HK2[p], HV2[p])
        HK, HV, slots = HK2, HV2, 2 * slots
    full = HK != EMPTY
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


def _first_slots(n_parents):
    """First size of a level's table of children (it doubles as it fills)."""
    return slots_for(2 * n_parents)


def _chunk_count():
    """Chunks a large level is cut into: one per numba thread, at most :data:`_MAX_CHUNKS`."""
    return min(numba.get_num_threads(), _MAX_CHUNKS)


def margin_distribution(rules, sa, sb, mode_b=MODE_FIXED, best_tables=None, keep_diff=True, tick=None,
                        term=None):
    """Exact distribution of the final margin A - B: ``{margin: probability}``.

    ``tick()``, if given, is called after each round. ``term``: the end payoffs the
    ``best_tables`` were computed with (see :func:`best_response_tables`).
    """
    term = _NO_TERM if term is None else np.asarray(term, np.float64)
    keys, probs = _start(rules.n)
    for k in range(rules.n, 0, -1):
        sa.prepare(keys)
        if sb is not None:
            sb.prepare(keys)
        nxt = hashed(*best_tables[k - 1]) if best_tables is not None else _NO_NEXT
        keys, probs = _step(keys, probs, rules, sa, sb, mode_b, keep_diff, nxt, term)
        if tick is not None:
            tick()
    return {int(unpack_key(key)[4]): float(p) for key, p in zip(keys, probs)}


def best_response_tables(rules, sa, keep_diff, tick=None, term=None, levels=None):
    """B's best-response values against A's fixed strategy, per level: ``[(keys, values)]``.

    ``tick()``, if given, is called after each level of each of the two passes.
    ``term``: the payoff to A of each final margin ``d``, at ``term[d + (len(term) - 1) // 2]``
    (needs ``keep_diff``; a game of a match pays its continuation value); None: the objective's payoff.
    ``levels``: the states A's strategy reaches (:func:`reach_levels`), when already known.
    """
    n = rules.n
    if levels is None:
        levels = reach_levels(rules, sa, keep_diff, tick)
    term = _NO_TERM if term is None else np.asarray(term, np.float64)
    if len(term) and (not keep_diff or len(term) != 2 * rules.total + 1):
        raise ValueError(f"term gives the payoff of each final margin -{rules.total}..{rules.total} "
                         f"({2 * rules.total + 1} values) and needs keep_diff")
    tables = [(np.zeros(0, np.int64), np.zeros(0))] * (n + 1)
    for k in range(1, n + 1):
        sa.prepare(levels[k])
        vals = np.empty(len(levels[k]))
        play = Play(n, prize_sequence(rules), rules.tie == "carry", keep_diff, _relabelling(sa, None),
                    rules.objective == "win", MODE_BEST, False, *hashed(*tables[k - 1]), term)
        seats, eq_a, _ = _seats(sa, None)
        check_status(_kernel(_values, rules.n)(play, seats, eq_a, levels[k], vals))
        tables[k] = (levels[k], vals)
        if tick is not None:
            tick()
    return tables


def reach_levels(rules, sa, keep_diff, tick=None):
    """The states A's strategy ``sa`` can reach, B bidding anything: level k's sorted keys at ``[k]``.

    ``tick()``, if given, is called after each level.
    """
    n = rules.n
    keys, _ = _start(n)
    levels = [None] * (n + 1)
    levels[n] = keys
    for k in range(n, 1, -1):
        sa.prepare(levels[k])
        # B may bid anything: B's seat only needs typed placeholders
        levels[k - 1], _ = _step(levels[k], np.ones(len(levels[k])), rules, sa, None, MODE_REACH, keep_diff,
                                 _NO_NEXT)
        if tick is not None:
            tick()
    return levels


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
        Any two-player game: any tie rule, objective and prize order, every
        match format (:func:`~._match_eval.evaluate_match`: match figures, B's
        best reply knowing the match position), two-card bids and open prizes (whose strategies are
        ``equilibrium``, ``uniform``, ``highest`` and ``lowest``, evaluated
        by :func:`~._variant_matchup.evaluate_variant` up to the decks it
        names).
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
        Unknown strategy, 3-4 players, or a solution of other rules.
    """
    engine = check_rules(rules)
    if engine == "match":  # a chain of games over match positions
        from gops_solver.analysis._match_eval import evaluate_match
        solution = solution_for(rules, solution, strategy, against)
        return evaluate_match(strategy, rules, against, solution, progress, match_kernels())
    if engine == "variant":  # two-card bids, open prizes: the exact recursion over actual cards
        from gops_solver.analysis._variant_matchup import evaluate_variant, strategy_name
        solution = solution_for(rules, solution, "equilibrium")  # its value is the game value
        return evaluate_variant(strategy_name(strategy), solution, strategy_name(against))
    t0 = time.perf_counter()
    solution = solution_for(rules, solution, strategy, against)
    sa_s = make_strategy(strategy, solution)
    sb_s = make_strategy(against, solution)
    check_strategy_rules(sa_s, rules)
    check_strategy_rules(sb_s, rules)
    n = rules.n
    vs = margin_distribution(rules, _Seat(sa_s, rules, False), _Seat(sb_s, rules, True), tick=progress)
    keep_diff = rules.objective == "win" or sa_s.uses_diff
    sa = _Seat(sa_s, rules, False)
    tables = best_response_tables(rules, sa, keep_diff, tick=progress)
    br_value = float(tables[n][1][0])
    br = margin_distribution(rules, sa, None, MODE_BEST, tables, keep_diff, tick=progress)
    out_vs = Outcome.from_distribution(vs, rules.objective)
    out_br = Outcome.from_distribution(br, rules.objective)
    if abs(out_br.value - br_value) > VALUE_TOL * max(1.0, abs(br_value)):
        raise RuntimeError(f"best-response value {br_value} and its play-out {out_br.value} disagree; "
                           f"this is a bug, please report it")
    # both seats hold the same cards and see the same prizes, so the game is symmetric: value 0,
    # which the solution, when there is one, confirms
    game_value = float(solution.value) if solution is not None else 0.0
    return Evaluation(rules, sa_s.name, sb_s.name, out_vs, out_br, game_value, game_value - br_value,
                      time.perf_counter() - t0)


def play_out(strategy, against, rules: Rules, solution=None) -> Outcome:
    """Exact figures of ``strategy`` (seat A) against ``against`` (seat B): :func:`evaluate`'s first
    pass alone, with no best reply (a single classic game).

    Raises
    ------
    ValueError
        Unknown strategies, or rules other than a single classic two-player game.
    """
    if check_rules(rules) != "classic":
        raise ValueError(f"play_out takes a single classic game, not {rules.describe()}: use evaluate")
    solution = solution_for(rules, solution, strategy, against)
    sa, sb = make_strategy(strategy, solution), make_strategy(against, solution)
    check_strategy_rules(sa, rules)
    check_strategy_rules(sb, rules)
    dist = margin_distribution(rules, _Seat(sa, rules, False), _Seat(sb, rules, True))
    return Outcome.from_distribution(dist, rules.objective)


def match_kernels():
    """The exact one-game computations a match evaluation chains (:class:`~._match_eval.GameKernels`)."""
    from gops_solver.analysis._match_eval import GameKernels

    def play(single, sa, sb):
        return margin_distribution(single, _Seat(sa, single, False), _Seat(sb, single, True))

    def reach(single, sa):
        return reach_levels(single, _Seat(sa, single, False), True)

    def best(single, sa, term, levels):
        seat = _Seat(sa, single, False)
        tables = best_response_tables(single, seat, True, term=term, levels=levels)
        dist = margin_distribution(single, seat, None, MODE_BEST, tables, True, term=term)
        return float(tables[single.n][1][0]), dist

    return GameKernels(play, reach, best)
