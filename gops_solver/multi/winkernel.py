"""Jitted level kernel of the 3- and 4-player ``win`` games (see :mod:`.winlevels`).

Under ``win`` a decision state is (hand pattern, chance slot, score keys):
the pattern and slot of the ``points`` tables (:mod:`.levels`) plus each
player's deficit to the leader, clipped at ``-remaining - 1``
(:meth:`.induction.Induction.score_keys`). A level's states are the sorted
int64 **codes**

    ``code = (P * S + s) * B ** m + sum_j d_j * B ** (m - 1 - j)``

with pattern ``P``, slot ``s`` (``S`` slots in the level), and ``d_j`` minus
the score key of canonical position ``j`` (``0 <= d_j < B``). Players are
in canonical order, sorted by (mask, score key) and, among equal masks and
keys, by their current position: the same order as the recursion's
:func:`.state.canonical`, so the stage games are the same arrays.

Two kernels work on one level. :func:`expand_patterns` lists the distinct
successors of its states (the states of the level below) one pattern of
the level below at a time, as bits of a window that fits in cache, from
the (pattern, profile) pairs that lead there (:class:`Predecessors`).
:func:`solve_win_level` solves every state in parallel, in three passes:
decided positions (one leader nobody can catch) take their payoffs
directly and the others' stage games (:func:`build_win_stage`, which finds
each successor within its (pattern, slot) group of codes) are
fingerprinted; one state per distinct pair of games is solved by
:func:`.levelkernel.solve_built`, the ``points`` levels' own code; the
others copy its values where their 128-bit fingerprints agree
(:class:`.levelkernel.GamePlan`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

# numba's cache of this module's kernels is keyed by this file alone, yet their compiled code calls the
# stage solver through .levelkernel: after moving or editing those, edit this file too (or run
# python -m gops_solver.cli.devtools clean-cache), or a stale cached kernel names the old module
from .kernel import SELECT_NONE
from .levelkernel import (PASS_COPY, PASS_DECIDE, PASS_HASH, PASS_SAMPLE, PASS_SOLVE, GamePlan, game_fingerprint, make_scratch, pass_bounds,
                          pass_state, solve_built)

__all__ = ["WinStates", "WinBelow", "Predecessors", "GamePlan", "PASS_HASH", "PASS_SOLVE", "PASS_COPY",
           "METHOD_DECIDED", "FLAG_MISSING", "decided", "group_starts", "predecessors", "expand_patterns",
           "window_codes", "Decoded", "decode_level", "build_win_stage", "solve_win_level"]

#: method code of a decided position (no stage game solved)
METHOD_DECIDED = 3
#: a successor missing from the level below (a bug in the enumeration; the caller stops)
FLAG_MISSING = 4


class WinStates(NamedTuple):
    """A level's states and how they are numbered.

    Only arrays, and no nested named tuples: numba's parallel loops take
    neither scalars nor nesting in the named tuples they capture.

    Attributes
    ----------
    codes : int64 (N,)
        The states, sorted.
    base : int64 (1,)
        ``B``: a score key ``-d`` is the digit ``d`` (``B`` is the same on every level).
    slot_hsum : int64 (S,)
        Sum of the hidden prizes of each of the level's ``S`` chance slots
        (the pot is ``LevelTables.slot_pot``).
    """

    codes: np.ndarray
    base: np.ndarray
    slot_hsum: np.ndarray


class WinBelow(NamedTuple):
    """The level below: its states as in :class:`WinStates`, the order of equal masks, the values.

    Attributes
    ----------
    codes, base, slot_hsum
        As in :class:`WinStates`.
    run_start : int8 (P', m)
        First canonical position of the run of equal masks that holds position j
        of pattern P' (players with equal masks are ordered by their score keys).
    group_start : int64 (P' * S' + 1,)
        Where the codes of each (pattern, slot) group ``g = code // B ** m``
        begin (:func:`group_starts`): a lookup searches only its group's few
        codes instead of the whole level.
    sec, eq : float64 (N', m)
        Security and equilibrium values of its states, canonical order
        (empty while the states are being listed).
    """

    codes: np.ndarray
    base: np.ndarray
    slot_hsum: np.ndarray
    run_start: np.ndarray
    group_start: np.ndarray
    sec: np.ndarray
    eq: np.ndarray


@njit(cache=True)
def _decode(code, here, m, keys):
    """Pattern and slot of a state code; its score keys into ``keys`` (m,) (modified in place)."""
    B = here.base[0]
    rest = code
    for j in range(m - 1, -1, -1):
        keys[j] = -(rest % B)
        rest //= B
    S = here.slot_hsum.shape[0]
    return rest // S, rest % S


@njit(cache=True)
def decided(keys, remaining, m):
    """The sole leader's position when nobody can catch them any more (``Induction._decided``), else -1."""
    top = -1
    for i in range(m):
        if keys[i] == 0:
            if top >= 0:
                return -1
            top = i
    for i in range(m):
        if i != top and keys[i] >= -remaining:
            return -1
    return top


@njit(cache=True)
def _profile_runs(tab, below, P, t, m, first):
    """``first[i]``: the first canonical position, in the next pattern, of the run of equal masks player i joins.

    Fixed by (pattern, profile), so callers compute it once for all the
    states of a pattern; returns the next pattern ``nxt[P, t]``.
    """
    Q = tab.nxt[P, t]
    for i in range(m):
        first[i] = below.run_start[Q, tab.inv[P, t, i]]
    return Q


@njit(cache=True)
def _next_keys(keys, w, pot, floor, first, m, B, nk, pos):
    """Score-key digits of the state after a round (``Induction.stage`` under ``win``).

    Player ``w`` (-1: nobody) takes ``pot``; each key becomes the deficit to
    the new leader clipped at ``floor`` (``-remaining - 1``). Writes the new
    keys by player into ``nk`` and each player's canonical position into
    ``pos`` (modified in place) and returns the keys' part of the next
    state's code. Canonical order is by mask (``first``, from
    :func:`_profile_runs`), then score key, then the current position, as
    the recursion's stable sort has it (equal players are interchangeable
    only up to the rounding of the traced equilibria). Arguments are plain
    scalars and small arrays: this runs once per (state, profile) and a
    call with whole level tables costs several times the work.
    """
    top = -(1 << 62)
    for i in range(m):
        score = keys[i] + (pot if i == w else 0)
        nk[i] = score
        top = max(top, score)
    for i in range(m):
        nk[i] = max(nk[i] - top, floor)
    for i in range(m):
        f = first[i]
        p = f
        for j in range(m):
            if j != i and first[j] == f and (nk[j] < nk[i] or (nk[j] == nk[i] and j < i)):
                p += 1
        pos[i] = p
    code = 0
    for j in range(m):
        for i in range(m):
            if pos[i] == j:
                code = code * B - nk[i]
    return code


def group_starts(codes, groups, BM):
    """``start[g]``: the first position of ``codes`` (sorted) whose group ``code // BM`` is at least g.

    Parameters
    ----------
    codes : int64 (N,)
        A level's sorted state codes.
    groups : int
        ``P * S``, the number of (pattern, slot) groups of the level.
    BM : int
        ``B ** m``, the size of one group's code range.

    Returns
    -------
    int64 (groups + 1,)
    """
    return np.searchsorted(codes, np.arange(groups + 1, dtype=np.int64) * BM).astype(np.int64)


class Predecessors(NamedTuple):
    """Which (pattern, profile) pairs of a level lead to each pattern of the level below.

    Attributes
    ----------
    start : int64 (P' + 1,)
        Pairs leading to pattern Q' are ``pair[start[Q']:start[Q' + 1]]``.
    pair : int64 (P * K,)
        ``P * K + t``, sorted by the next pattern ``nxt[P, t]``.
    pattern_start : int64 (P + 1,)
        Where each pattern's states begin among the level's sorted codes.
    """

    start: np.ndarray
    pair: np.ndarray
    pattern_start: np.ndarray


def predecessors(tab, codes, slots, BM, patterns_below) -> Predecessors:
    """The :class:`Predecessors` of one level (its tables, sorted codes, slot count and ``B ** m``)."""
    P_count, K = tab.nxt.shape
    flat = tab.nxt.astype(np.int64).ravel()
    pair = np.argsort(flat, kind="stable").astype(np.int64)
    start = np.searchsorted(flat[pair], np.arange(patterns_below + 1, dtype=np.int64)).astype(np.int64)
    pattern_start = np.searchsorted(codes, np.arange(P_count + 1, dtype=np.int64) * slots * BM).astype(np.int64)
    return Predecessors(start, pair, pattern_start)


class Decoded(NamedTuple):
    """A level's state codes taken apart once (:func:`decode_level`).

    Attributes
    ----------
    slot : int64 (N,)
        Chance slot of each state, -1 for a decided one (no successors).
    keys : int64 (N, m)
        Score keys by canonical position.
    """

    slot: np.ndarray
    keys: np.ndarray


@njit(cache=True, parallel=True)
def decode_level(tab, here, m, dec):
    """Fill ``dec`` (:class:`Decoded`, modified in place) from the level's codes."""
    # the work happens in a called function: numba's parfor lowering loses
    # writes made through a named tuple's fields directly in the loop body
    for ch in prange(64):
        _decode_chunk(tab, here, m, dec, ch, 64)


@njit(cache=True)
def _decode_chunk(tab, here, m, dec, ch, n_chunks):
    keys = np.empty(m, dtype=np.int64)
    for q in range(ch, here.codes.shape[0], n_chunks):
        _, s = _decode(here.codes[q], here, m, keys)
        dec.slot[q] = -1 if decided(keys, tab.slot_pot[s] + here.slot_hsum[s], m) >= 0 else s
        for i in range(m):
            dec.keys[q, i] = keys[i]


@njit(cache=True)
def _mark_successors(tab, here, below, m, carry_rule, pred, dec, Q, window):
    """Set the bit of every successor in pattern Q of the level below (``window`` zeroed, modified in place).

    Bit ``s' * B ** m + keys`` of ``window`` stands for the code
    ``(Q * S' + s') * B ** m + keys``: one pattern's codes fit in a few
    hundred kilobytes, so the bits are set in cache.
    """
    K = tab.digits.shape[0]
    B = below.base[0]
    BM = B ** m
    keys = np.empty(m, dtype=np.int64)
    nk = np.empty(m, dtype=np.int64)
    pos = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    for j in range(pred.start[Q], pred.start[Q + 1]):
        P = pred.pair[j] // K
        t = pred.pair[j] % K
        _profile_runs(tab, below, P, t, m, first)
        w = tab.win[P, t]
        c = 1 if (w < 0 and carry_rule) else 0
        for q in range(pred.pattern_start[P], pred.pattern_start[P + 1]):
            s = dec.slot[q]
            if s < 0:
                continue
            for i in range(m):
                keys[i] = dec.keys[q, i]
            pot = tab.slot_pot[s]
            local = _next_keys(keys, w, pot, -(pot * c + here.slot_hsum[s]) - 1, first, m, B, nk, pos)
            for r in range(tab.chances[s]):
                b = tab.succ[s, c, r] * BM + local
                window[b >> 6] |= np.uint64(1) << np.uint64(b & 63)


@njit(cache=True)
def _popcount(x):
    """Set bits of a uint64."""
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True, parallel=True)
def expand_patterns(tab, here, below, m, carry_rule, pred, dec, Q0, windows, counts):
    """Mark the successors of a level in patterns ``Q0, Q0 + 1, ...`` of the level below, one window each.

    ``windows`` (nb, W) uint64 and ``counts`` (nb,) are modified in place:
    window b holds the successors in pattern ``Q0 + b`` as bits (see
    :func:`_mark_successors`), ``counts[b]`` how many. Patterns past the
    last are left empty. ``dec`` is the level's :class:`Decoded` states
    (decided states have no successors).
    """
    nb = windows.shape[0]
    P_below = pred.start.shape[0] - 1
    for b in prange(nb):
        windows[b, :] = 0
        counts[b] = 0
        Q = Q0 + b
        if Q >= P_below:
            continue
        _mark_successors(tab, here, below, m, carry_rule, pred, dec, Q, windows[b])
        total = 0
        for w in range(windows.shape[1]):
            total += _popcount(windows[b, w])
        counts[b] = total


@njit(cache=True, parallel=True)
def window_codes(windows, offsets, Q0, span, out):
    """Write the codes of the set bits of each window, in order, into ``out`` (modified in place).

    Window b's codes go to ``out[offsets[b]:offsets[b + 1]]``; its bit j is
    the code ``(Q0 + b) * span + j`` (``span = S' * B ** m``).
    """
    for b in prange(windows.shape[0]):
        at = offsets[b]
        origin = (Q0 + b) * span
        for w in range(windows.shape[1]):
            x = windows[b, w]
            if x == 0:
                continue
            for j in range(64):
                if (x >> np.uint64(j)) & np.uint64(1):
                    out[at] = origin + w * 64 + j
                    at += 1


@njit(cache=True)
def _find_code(codes, group_start, g, code):
    """Position of ``code`` (of group g) among a level's sorted ``codes``, -1 if absent."""
    lo = group_start[g]
    n = group_start[g + 1] - lo
    if n <= 0:
        return -1
    # a group holds up to a few hundred score-key combinations: a binary search
    # without branches on the data (the comparisons are unpredictable)
    while n > 1:
        half = n >> 1
        lo = lo + half if codes[lo + half] <= code else lo
        n -= half
    return lo if codes[lo] == code else -1


@njit(cache=True)
def build_win_stage(tab, here, below, P, s, keys, m, carry_rule, with_equilibrium, Usec, Ueq):
    """Both stage games of a ``win`` state into ``Usec``, ``Ueq`` (m, k ** m) (modified in place).

    Entry ``[i, t]``: player i's expected payoff after profile t, the average
    over the next prize of their values in the level below; at the last
    round the final payoff (1 to the top score, shared equally by a tie).
    Without equilibria (``with_equilibrium`` False) ``Ueq`` is left at 0
    above the last round: the level below has no equilibrium values to read.

    Returns
    -------
    bool
        False when a successor is missing from the level below.
    """
    K = tab.digits.shape[0]
    C = tab.chances[s]
    pot = tab.slot_pot[s]
    nk = np.empty(m, dtype=np.int64)
    pos = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    B = below.base[0]
    BM = B ** m
    S2 = below.slot_hsum.shape[0]
    for t in range(K):
        for i in range(m):
            Usec[i, t] = 0.0
            Ueq[i, t] = 0.0
        if C == 0:  # last round: the final shares
            w = tab.win[P, t]
            top = -(1 << 62)
            for i in range(m):
                top = max(top, keys[i] + (pot if i == w else 0))
            count = 0
            for i in range(m):
                if keys[i] + (pot if i == w else 0) == top:
                    count += 1
            share = 1.0 / count
            for i in range(m):
                if keys[i] + (pot if i == w else 0) == top:
                    Usec[i, t] = share
                    Ueq[i, t] = share
            continue
        Q = _profile_runs(tab, below, P, t, m, first)
        w = tab.win[P, t]
        c = 1 if (w < 0 and carry_rule) else 0
        keycode = _next_keys(keys, w, pot, -(pot * c + here.slot_hsum[s]) - 1, first, m, B, nk, pos)
        for r in range(C):
            g = Q * S2 + tab.succ[s, c, r]  # the successor's (pattern, slot) group
            q = _find_code(below.codes, below.group_start, g, g * BM + keycode)
            if q < 0:
                return False
            for i in range(m):
                Usec[i, t] += below.sec[q, pos[i]]
            if with_equilibrium:
                for i in range(m):
                    Ueq[i, t] += below.eq[q, pos[i]]
        for i in range(m):
            Usec[i, t] /= C
            Ueq[i, t] /= C
    return True


@njit(cache=True, parallel=True)
def solve_win_level(tab, here, below, m, k, carry_rule, selection, stage_pass, plan, out):
    """One pass over every state of one ``win`` level (modified in place: ``out``, ``plan.hashes``).

    Parameters
    ----------
    tab : LevelTables
        The level's pattern and slot transitions (:func:`.levels.build_levels`).
    here : WinStates
    below : WinBelow
        The level below (ignored at k = 1).
    m, k : int
        Players and cards per hand.
    carry_rule : bool
        Ties carry the pot.
    selection : int
        ``SELECT_NONE`` solves the security games only; ``SELECT_LOGIT`` or
        ``SELECT_PURE`` the equilibria too, by that selection rule (:mod:`.kernel`).
    stage_pass : int
        ``PASS_HASH`` (decided states get their payoffs and ``method``
        ``METHOD_DECIDED``; the others' games are hashed), ``PASS_SOLVE``
        (the representatives are solved) or ``PASS_COPY`` (the others take
        their representative's results when the games are equal bit for
        bit, else are solved themselves); ``PASS_SAMPLE`` hashes every
        ``SAMPLE_STRIDE``-th state only, and ``PASS_DECIDE`` only marks the
        decided states (where no games are shared, instead of ``PASS_HASH``).
    plan : GamePlan
    out : LevelOut
        Arrays over the level's states: ``sec``, ``eq`` (N, m), ``gain``,
        ``method``, ``flags`` (N,). ``method`` is the kernel's status or
        ``METHOD_DECIDED``; ``flags`` adds ``FLAG_MISSING``.
    """
    n_chunks = min(out.gain.size, 256)
    # the chunk's work happens in a called function: numba's parfor lowering
    # loses writes made through a named tuple's fields directly in the loop body
    for ch in prange(n_chunks):
        _solve_chunk(tab, here, below, m, k, carry_rule, selection, stage_pass, plan, out, ch, n_chunks)


@njit(cache=True)
def _solve_chunk(tab, here, below, m, k, carry_rule, selection, stage_pass, plan, out, ch, n_chunks):
    """Chunk ``ch`` of ``n_chunks`` of one pass over a level (:func:`.levelkernel.pass_bounds`), own scratch space."""
    K = tab.digits.shape[0]
    Usec = np.empty((m, K))
    Ueq = np.empty((m, K))
    sc = make_scratch(m, k)
    keys = np.empty(m, dtype=np.int64)
    lo, hi, step = pass_bounds(stage_pass, plan, out.gain.shape[0], ch, n_chunks)
    for j in range(lo, hi, step):
        q = pass_state(stage_pass, plan, j, ch, n_chunks)
        if stage_pass == PASS_COPY:
            r = plan.rep[q]
            if plan.checks[q] == plan.checks[r]:  # and the hashes (grouped by): the same games
                for i in range(m):
                    out.sec[q, i] = out.sec[r, i]
                    out.eq[q, i] = out.eq[r, i]
                out.gain[q] = out.gain[r]
                out.method[q] = out.method[r]
                out.flags[q] = out.flags[r]
                continue
            # a collision of the first hashes: q solves its own games
        P, s = _decode(here.codes[q], here, m, keys)
        if stage_pass == PASS_HASH or stage_pass == PASS_SAMPLE or stage_pass == PASS_DECIDE:
            top = decided(keys, tab.slot_pot[s] + here.slot_hsum[s], m)
            if top >= 0:  # no stage game: the leader takes 1 whatever is bid
                for i in range(m):
                    out.sec[q, i] = 1.0 if i == top else 0.0
                    out.eq[q, i] = 1.0 if i == top else 0.0
                out.gain[q] = 0.0
                out.method[q] = METHOD_DECIDED
                out.flags[q] = 0
                continue
            if stage_pass == PASS_DECIDE:  # a live state: solved in the solve pass, its own representative
                out.method[q] = 0
                out.flags[q] = 0
                continue
        if not build_win_stage(tab, here, below, P, s, keys, m, carry_rule, selection != SELECT_NONE, Usec, Ueq):
            out.flags[q] = FLAG_MISSING
            continue
        if stage_pass == PASS_HASH or stage_pass == PASS_SAMPLE:
            plan.hashes[q], plan.checks[q] = game_fingerprint(Usec, Ueq)
            out.method[q] = 0
            out.flags[q] = 0
            continue
        flag, method, gain = solve_built(Usec, Ueq, m, k, selection, tab.digits, sc, out.sec[q], out.eq[q])
        out.method[q] = method
        out.gain[q] = gain
        out.flags[q] = flag
