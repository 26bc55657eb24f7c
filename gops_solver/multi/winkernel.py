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

Two kernels work on one level: :func:`expand_level` collects the distinct
successors of its states in a hash set (the states of the level below),
and :func:`solve_win_level` solves every state in parallel, in three
passes: decided positions (one leader nobody can catch) take their payoffs
directly and the others' stage games (:func:`build_win_stage`) are hashed;
one state per distinct pair of games is solved by
:func:`.levelkernel.solve_built`, the ``points`` levels' own code; the
others copy its values once their games are found equal bit for bit
(:class:`WinPlan`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..hashtable import EMPTY, find
from .levelkernel import make_scratch, solve_built

__all__ = ["WinStates", "WinBelow", "WinPlan", "PASS_HASH", "PASS_SOLVE", "PASS_COPY", "METHOD_DECIDED", "FLAG_MISSING",
           "decided", "expand_level", "grow_set", "build_win_stage", "solve_win_level"]

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
    sec, eq : float64 (N', m)
        Security and equilibrium values of its states, canonical order
        (empty while the states are being listed).
    """

    codes: np.ndarray
    base: np.ndarray
    slot_hsum: np.ndarray
    run_start: np.ndarray
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
def _successor(tab, here, below, P, s, t, m, carry_rule, keys, nk, pos):
    """Where profile t of state (P, s, ``keys``) leads (``Induction.stage`` under ``win``).

    Writes the next state's score keys by canonical position into ``nk`` and
    player i's canonical position there into ``pos[i]`` (modified in place).

    Returns
    -------
    base_code : int
        The next state's code without its slot: ``(Q * S' + s') * B ** m +
        keys`` is ``base_code + s' * B ** m``.
    c : int
        1 when the pot is carried (a tie under ``carry``), else 0: the
        slot row ``succ[s, c]`` of the next prizes.
    """
    w = tab.win[P, t]
    pot = tab.slot_pot[s]
    c = 1 if (w < 0 and carry_rule) else 0
    remaining = pot * c + here.slot_hsum[s]
    top = -(1 << 62)
    for i in range(m):
        score = keys[i] + (pot if i == w else 0)
        nk[i] = score  # by player for now
        top = max(top, score)
    Q = tab.nxt[P, t]
    run = below.run_start[Q]
    for i in range(m):
        nk[i] = max(nk[i] - top, -remaining - 1)
    # canonical order: by mask (the pattern's order), then score key, then the
    # current position, as the recursion's stable sort has it (equal players
    # are interchangeable only up to the rounding of the traced equilibria)
    for i in range(m):
        first = run[tab.inv[P, t, i]]
        p = first
        for j in range(m):
            if j != i and run[tab.inv[P, t, j]] == first and (nk[j] < nk[i] or (nk[j] == nk[i] and j < i)):
                p += 1
        pos[i] = p
    B = below.base[0]
    code = 0
    for j in range(m):
        for i in range(m):
            if pos[i] == j:
                code = code * B - nk[i]
    BM = B ** m
    return Q * below.slot_hsum.shape[0] * BM + code, c


@njit(cache=True)
def _insert(hk, code):
    """Put ``code`` in the open-addressing set ``hk`` (modified in place); 1 if it was not there."""
    i = find(hk, code)
    if hk[i] == code:
        return 0
    hk[i] = code
    return 1


@njit(cache=True)
def grow_set(hk, hk2):
    """Move every code of the set ``hk`` into the larger empty set ``hk2`` (modified in place)."""
    for i in range(hk.shape[0]):
        if hk[i] != EMPTY:
            _insert(hk2, hk[i])


@njit(cache=True)
def expand_level(tab, here, below, m, carry_rule, lo, hk, count):
    """Put the successors of a level's states ``lo, lo + 1, ...`` in the set ``hk`` (hand size >= 2).

    ``tab`` and ``here`` describe the level (:class:`.levelkernel.LevelTables`,
    :class:`WinStates`); ``below`` numbers the level below (its codes and
    values are not read). Decided states have no successors. ``hk`` is an
    open-addressing set of codes (:mod:`gops_solver.hashtable`: power-of-two
    length, free slots ``EMPTY``) holding ``count`` codes, modified in
    place; it is kept at most half full, so the kernel stops before a state
    whose successors might not fit.

    Returns
    -------
    next : int
        The first state not expanded (``len(here.codes)`` when done: else
        grow the set with :func:`grow_set` and call again from there).
    count : int
        Codes in the set.
    """
    K = tab.digits.shape[0]
    BM = below.base[0] ** m
    limit = hk.shape[0] // 2
    keys = np.empty(m, dtype=np.int64)
    nk = np.empty(m, dtype=np.int64)
    pos = np.empty(m, dtype=np.int64)
    N = here.codes.shape[0]
    for q in range(lo, N):
        P, s = _decode(here.codes[q], here, m, keys)
        if decided(keys, tab.slot_pot[s] + here.slot_hsum[s], m) >= 0:
            continue
        C = tab.chances[s]
        if count + K * C > limit:
            return q, count
        for t in range(K):
            base, c = _successor(tab, here, below, P, s, t, m, carry_rule, keys, nk, pos)
            for r in range(C):
                count += _insert(hk, base + tab.succ[s, c, r] * BM)
    return N, count


@njit(cache=True)
def build_win_stage(tab, here, below, P, s, keys, m, carry_rule, Usec, Ueq):
    """Both stage games of a ``win`` state into ``Usec``, ``Ueq`` (m, k ** m) (modified in place).

    Entry ``[i, t]``: player i's expected payoff after profile t, the average
    over the next prize of their values in the level below; at the last
    round the final payoff (1 to the top score, shared equally by a tie).

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
    BM = below.base[0] ** m
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
        base, c = _successor(tab, here, below, P, s, t, m, carry_rule, keys, nk, pos)
        for r in range(C):
            code = base + tab.succ[s, c, r] * BM
            q = np.searchsorted(below.codes, code)
            if q >= below.codes.shape[0] or below.codes[q] != code:
                return False
            for i in range(m):
                Usec[i, t] += below.sec[q, pos[i]]
                Ueq[i, t] += below.eq[q, pos[i]]
        for i in range(m):
            Usec[i, t] /= C
            Ueq[i, t] /= C
    return True


class WinPlan(NamedTuple):
    """Which states of a level solve their stage games and which copy another's.

    Many ``win`` states have bit-for-bit the same stage games (the
    continuation values take few distinct values: 948 distinct games among
    the 33,176 two-card states of 3 players n = 5 discard): each game is
    solved once, and the selection rule, a deterministic function of the
    game, gives every copy the same answer.

    Attributes
    ----------
    hashes : int64 (N,)
        A 64-bit hash of each state's two stage games (written by the
        ``PASS_HASH`` pass; meaningless for decided states).
    rep : int64 (N,)
        The state whose games are solved for state q (``rep[q] == q``: q's
        own; -1 for decided states). Set by the caller from ``hashes``.
    """

    hashes: np.ndarray
    rep: np.ndarray


#: pass of :func:`solve_win_level`: decided states' payoffs, hashes of the others' stage games
PASS_HASH = 0
#: pass: solve the states with ``rep[q] == q``
PASS_SOLVE = 1
#: pass: the others copy their representative's values after checking the games are equal bit for bit
PASS_COPY = 2


@njit(cache=True)
def _mix(h, U):
    """FNV-1a over the bit patterns of a float64 array (uint64 arithmetic wraps)."""
    bits = U.ravel().view(np.uint64)
    for x in bits:
        h = (h ^ x) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def _same_bits(A, B):
    a = A.ravel().view(np.uint64)
    b = B.ravel().view(np.uint64)
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True, parallel=True)
def solve_win_level(tab, here, below, m, k, carry_rule, with_equilibrium, stage_pass, plan, out):
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
    with_equilibrium : bool
        False solves the security games only.
    stage_pass : int
        ``PASS_HASH`` (decided states get their payoffs and ``method``
        ``METHOD_DECIDED``; the others' games are hashed), ``PASS_SOLVE``
        (the representatives are solved) or ``PASS_COPY`` (the others take
        their representative's results when the games are equal bit for
        bit, else are solved themselves).
    plan : WinPlan
    out : LevelOut
        Arrays over the level's states: ``sec``, ``eq`` (N, m), ``gain``,
        ``method``, ``flags`` (N,). ``method`` is the kernel's status or
        ``METHOD_DECIDED``; ``flags`` adds ``FLAG_MISSING``.
    """
    n_chunks = min(out.gain.size, 256)
    # the chunk's work happens in a called function: numba's parfor lowering
    # loses writes made through a named tuple's fields directly in the loop body
    for ch in prange(n_chunks):
        _solve_chunk(tab, here, below, m, k, carry_rule, with_equilibrium, stage_pass, plan, out, ch, n_chunks)


@njit(cache=True)
def _solve_chunk(tab, here, below, m, k, carry_rule, with_equilibrium, stage_pass, plan, out, ch, n_chunks):
    """States ``ch, ch + n_chunks, ...`` of one level, with this chunk's scratch space."""
    K = tab.digits.shape[0]
    Usec = np.empty((m, K))
    Ueq = np.empty((m, K))
    Vsec = np.empty((m, K))
    Veq = np.empty((m, K))
    sc = make_scratch(m, k)
    keys = np.empty(m, dtype=np.int64)
    for q in range(ch, out.gain.shape[0], n_chunks):
        r = plan.rep[q]
        if (stage_pass == PASS_SOLVE and r != q) or (stage_pass == PASS_COPY and (r == -1 or r == q)):
            continue
        P, s = _decode(here.codes[q], here, m, keys)
        if stage_pass == PASS_HASH:
            top = decided(keys, tab.slot_pot[s] + here.slot_hsum[s], m)
            if top >= 0:  # no stage game: the leader takes 1 whatever is bid
                for i in range(m):
                    out.sec[q, i] = 1.0 if i == top else 0.0
                    out.eq[q, i] = 1.0 if i == top else 0.0
                out.gain[q] = 0.0
                out.method[q] = METHOD_DECIDED
                out.flags[q] = 0
                continue
        if not build_win_stage(tab, here, below, P, s, keys, m, carry_rule, Usec, Ueq):
            out.flags[q] = FLAG_MISSING
            continue
        if stage_pass == PASS_HASH:
            plan.hashes[q] = np.int64(_mix(_mix(np.uint64(14695981039346656037), Usec), Ueq))
            out.method[q] = 0
            out.flags[q] = 0
            continue
        if stage_pass == PASS_COPY:
            P2, s2 = _decode(here.codes[r], here, m, keys)
            build_win_stage(tab, here, below, P2, s2, keys, m, carry_rule, Vsec, Veq)
            if _same_bits(Usec, Vsec) and _same_bits(Ueq, Veq):
                for i in range(m):
                    out.sec[q, i] = out.sec[r, i]
                    out.eq[q, i] = out.eq[r, i]
                out.gain[q] = out.gain[r]
                out.method[q] = out.method[r]
                out.flags[q] = out.flags[r]
                continue
            # a hash collision: q solves its own games (still in Usec, Ueq)
        flag, method, gain = solve_built(Usec, Ueq, m, k, with_equilibrium, tab.digits, sc, out.sec[q], out.eq[q])
        out.method[q] = method
        out.gain[q] = gain
        out.flags[q] = flag
