"""Jitted level kernel of the 3- and 4-player ``points`` games (see :mod:`.levels`).

One call makes one pass over every decision state of one level (hand size
``k``) in parallel: it builds the state's two stage games from the level
below (:func:`build_stage`, the one builder), solves the
player-vs-coalition games with :func:`gops_solver.lp.stage.solve_stage` and
the n-player stage game with :func:`.kernel.stage_equilibrium`, and flags
what it could not certify (the caller re-solves those with HiGHS or
pygambit). Many states build the very same pair of games (a third of the
4-card states of 3 players n = 7 carry), so a level takes three passes
(:class:`GamePlan`): fingerprint every state's games (128 bits, two
independent 64-bit hashes), solve one state per distinct pair, then let
the others copy its results where their fingerprints agree, without
building their games again. The ``win`` levels (:mod:`.winkernel`) use the
same plan.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from gops_solver.lp.stage import STAGE_OK, solve_stage, stage_work_size
from .constants import DEVIATION_TOL, PURE_TOL
from .kernel import KERNEL_FAILED, SELECT_NONE, KernelWork, make_work, profile_values, stage_equilibrium

__all__ = ["LevelTables", "PrevLevel", "LevelOut", "StageScratch", "GamePlan", "new_plan", "pass_bounds", "pass_state",
           "build_stage", "make_scratch", "solve_built", "solve_level", "game_fingerprint", "FLAG_SECURITY",
           "FLAG_EQUILIBRIUM", "PASS_HASH", "PASS_SOLVE", "PASS_COPY", "PASS_SAMPLE", "PASS_DECIDE",
           "SAMPLE_STRIDE"]

#: a player-vs-coalition game the jitted simplex could not certify (re-solve with HiGHS)
FLAG_SECURITY = 1
#: a stage game the equilibrium kernel could not certify (re-select with pygambit)
FLAG_EQUILIBRIUM = 2

#: pass of a level: hash every state's stage games
PASS_HASH = 0
#: pass: solve the states with ``rep[q] == q``
PASS_SOLVE = 1
#: pass: the others copy their representative's results where the games' fingerprints agree
PASS_COPY = 2
#: pass (``win`` levels): hash every ``SAMPLE_STRIDE``-th state's games only, to estimate how many are equal
PASS_SAMPLE = 3
#: pass (``win`` levels): mark the decided states only; every other state solves its own games
PASS_DECIDE = 4
#: one state in this many is hashed by ``PASS_SAMPLE``
SAMPLE_STRIDE = 64


class GamePlan(NamedTuple):
    """Which states of a level solve their stage games and which copy another's.

    Distinct states often build the same stage games bit for bit (the
    continuation values of the level below repeat): each pair of games is
    solved once, and the selection rule, a deterministic function of the
    game, gives every copy the same answer.

    Attributes
    ----------
    hashes : int64 (N,)
        A 64-bit hash of each state's two stage games (written by the
        ``PASS_HASH`` pass; N states of the level, numbered ``P * S + s``
        in the ``points`` levels).
    checks : int64 (N,)
        A second, independent 64-bit hash of the same games
        (:func:`game_fingerprint`): a copy takes its representative's
        results only when both agree, a 128-bit fingerprint.
    rep : int64 (N,)
        The state whose games are solved for state q (``rep[q] == q``: q's
        own; -1: nothing to solve).
    solves : int64
        The states with ``rep[q] == q``, ascending: the ``PASS_SOLVE`` pass.
    copies : int64
        The states that copy another's results, ascending (the
        ``PASS_COPY`` pass: a copy whose fingerprint differs from its
        representative's, a collision of ``hashes``, builds and solves its
        own games).

    ``rep``, ``solves`` and ``copies`` are set by the caller from ``hashes``
    (:func:`.levels.share_games`).
    """

    hashes: np.ndarray
    checks: np.ndarray
    rep: np.ndarray
    solves: np.ndarray
    copies: np.ndarray


def new_plan(N) -> GamePlan:
    """An empty :class:`GamePlan` over N states (hashes to be written, nothing shared yet)."""
    return GamePlan(np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64), np.full(N, -1, dtype=np.int64),
                    np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))


#: blocks of representatives per chunk in the solve pass (see :func:`pass_bounds`)
SOLVE_BLOCKS_PER_CHUNK = 16


@njit(cache=True)
def solve_block(total, n_chunks):
    """Representatives per block of the solve pass over ``total`` of them (see :func:`pass_bounds`)."""
    return max(1, -(-total // (n_chunks * SOLVE_BLOCKS_PER_CHUNK)))


@njit(cache=True)
def pass_bounds(stage_pass, plan, N, ch, n_chunks):
    """``(lo, hi, step)``: the positions chunk ``ch`` of ``n_chunks`` takes in a pass (see :func:`pass_state`).

    Hashing and copying take contiguous runs (neighbouring states read
    neighbouring values of the level below; copies write their results one
    after the other). Solving takes blocks of
    consecutive representatives (:func:`solve_block`), dealt round robin to
    the chunks: each block reads neighbouring values below, and the costly
    games spread over the threads. (Taking every ``n_chunks``-th
    representative instead spread them as well, but each game then read its
    successors far from the last one's: at 3 players n = 7 ``win`` the
    builds took 2.4 times as long, measured.)
    """
    if stage_pass == PASS_SOLVE:
        total = plan.solves.shape[0]
        blk = solve_block(total, n_chunks)
        count = 0
        b = ch
        while b * blk < total:
            count += min(blk, total - b * blk)
            b += n_chunks
        return 0, count, 1
    if stage_pass == PASS_SAMPLE:
        total = -(-N // SAMPLE_STRIDE)
    else:
        total = plan.copies.shape[0] if stage_pass == PASS_COPY else N
    return ch * total // n_chunks, (ch + 1) * total // n_chunks, 1


@njit(cache=True)
def pass_state(stage_pass, plan, j, ch, n_chunks):
    """The state at position j of chunk ``ch``'s part of a pass: j itself, a representative or the j-th copy.

    In the solve pass position j of chunk ``ch`` is in the chunk's
    ``j // blk``-th block, block ``ch + (j // blk) * n_chunks`` of the
    representatives (only the last block of all may be short, and it is the
    last of its chunk).
    """
    if stage_pass == PASS_SAMPLE:
        return j * SAMPLE_STRIDE
    if stage_pass == PASS_HASH or stage_pass == PASS_DECIDE:
        return j
    if stage_pass == PASS_SOLVE:
        blk = solve_block(plan.solves.shape[0], n_chunks)
        i = j // blk
        return plan.solves[(ch + i * n_chunks) * blk + j - i * blk]
    return plan.copies[j]


@njit(cache=True)
def _splitmix(z):
    """The splitmix64 finalizer: every input bit changes about half the output bits."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _mix(h, c, U):
    """Two independent 64-bit hashes over the bit patterns of a float64 array (uint64 arithmetic wraps).

    ``h``: FNV-1a on whole words (each step a bijection, so games differing in
    one entry always differ); ``c``: a splitmix64 chain, which mixes every
    bit of every word into the whole state.
    """
    bits = U.ravel().view(np.uint64)
    for x in bits:
        h = (h ^ x) * np.uint64(1099511628211)
        c = _splitmix(c + x)
    return h, c


@njit(cache=True)
def game_fingerprint(Usec, Ueq):
    """``(hash, check)``: a 128-bit fingerprint of a state's two stage games, as two int64."""
    h, c = _mix(np.uint64(14695981039346656037), np.uint64(0x243F6A8885A308D3), Usec)
    h, c = _mix(h, c, Ueq)
    return np.int64(h), np.int64(c)


class LevelTables(NamedTuple):
    """Transitions of one level (hand size ``k``), built by :mod:`.levels`.

    Attributes
    ----------
    win : int8 (P, K)
        Winner's canonical position in pattern P at profile t, -1 for a tie.
    nxt : int32 (P, K)
        Pattern index of the next level after profile t (unused at k = 1).
    inv : int8 (P, K, m)
        ``inv[P, t, i]``: player i's canonical position in the next pattern.
    slot_pot : int64 (S,)
        The pot of each chance slot (hidden set and pot) of this level.
    succ : int32 (S, 2, C)
        Slot of the level below after carrying nothing (0) or the pot (1) and
        revealing the hidden set's r-th prize (C = 1 for a fixed order).
    chances : int64 (S,)
        Number of equally likely next prizes (0 at the last round).
    digits : int64 (K, m)
        Card index of each player in profile t.
    """

    win: np.ndarray
    nxt: np.ndarray
    inv: np.ndarray
    slot_pot: np.ndarray
    succ: np.ndarray
    chances: np.ndarray
    digits: np.ndarray


class PrevLevel(NamedTuple):
    """Values of the level below, canonical player order: ``(P', S', m)``."""

    sec: np.ndarray
    eq: np.ndarray


class LevelOut(NamedTuple):
    """Results of one level, written by :func:`solve_level`.

    Attributes
    ----------
    sec, eq : float64 (P, S, m)
        Security and equilibrium continuation values (points still to win).
    gain : float64 (P, S)
        Deviation gain of the selected stage equilibrium.
    method : int8 (P, S)
        Kernel status (1 pure, 2 logit, 0 failed).
    flags : int8 (P, S)
        ``FLAG_SECURITY | FLAG_EQUILIBRIUM`` for what the caller must redo.
    """

    sec: np.ndarray
    eq: np.ndarray
    gain: np.ndarray
    method: np.ndarray
    flags: np.ndarray


@njit(cache=True)
def build_stage(tab, prev, P, s, m, k, carry_rule, Usec, Ueq):
    """Both stage games of state (pattern P, slot s) into ``Usec``, ``Ueq`` (m, k ** m).

    Entry ``[i, t]``: player i's pot won at profile t plus their expected
    continuation (average over the next prize) in the level below.
    """
    K = tab.digits.shape[0]
    pot = tab.slot_pot[s]
    C = tab.chances[s]
    for t in range(K):
        w = tab.win[P, t]
        for i in range(m):
            Usec[i, t] = 0.0
            Ueq[i, t] = 0.0
        if C > 0:
            c = 1 if (w < 0 and carry_rule) else 0
            Q = tab.nxt[P, t]
            for r in range(C):
                s2 = tab.succ[s, c, r]
                for i in range(m):
                    j = tab.inv[P, t, i]
                    Usec[i, t] += prev.sec[Q, s2, j]
                    Ueq[i, t] += prev.eq[Q, s2, j]
            for i in range(m):
                Usec[i, t] /= C
                Ueq[i, t] /= C
        if w >= 0:
            Usec[w, t] += pot
            Ueq[w, t] += pot


@njit(cache=True)
def _coalition_matrix(U, i, m, k, digits, M):
    """Player i's payoffs as a matrix: rows i's cards, columns the others' card tuples (C order)."""
    K = digits.shape[0]
    for t in range(K):
        col = 0
        for j in range(m):
            if j != i:
                col = col * k + digits[t, j]
        M[digits[t, i], col] = U[i, t]


@njit(cache=True, parallel=True)
def solve_level(tab, prev, m, k, carry_rule, selection, stage_pass, plan, out):
    """One pass over every state of one level (modified in place: ``out``, ``plan.hashes``).

    Parameters
    ----------
    tab : LevelTables
    prev : PrevLevel
        The level below (ignored at k = 1).
    m, k : int
        Players and cards per hand.
    carry_rule : bool
        Ties carry the pot.
    selection : int
        ``SELECT_NONE`` solves the security games only; ``SELECT_LOGIT`` or
        ``SELECT_PURE`` the equilibria too, by that selection rule (:mod:`.kernel`).
    stage_pass : int
        ``PASS_HASH`` (every state's games are hashed), ``PASS_SOLVE`` (the
        representatives are solved) or ``PASS_COPY`` (the others take their
        representative's results when the games' fingerprints agree, else
        are solved themselves).
    plan : GamePlan
        Over the ``P * S`` states, numbered ``P * S + s``.
    out : LevelOut
    """
    n_chunks = min(out.gain.size, 256)
    # the chunk's work happens in a called function: numba's parfor lowering
    # loses writes made through a named tuple's fields directly in the loop body
    for ch in prange(n_chunks):
        _solve_chunk(tab, prev, m, k, carry_rule, selection, stage_pass, plan, out, ch, n_chunks)


class StageScratch(NamedTuple):
    """Scratch space of one worker solving ``m``-player, ``k``-card stage games (modified in place).

    Attributes
    ----------
    M : float64 (k, k ** (m - 1))
        One player-vs-coalition matrix.
    x, y : float64 (k,), (k ** (m - 1),)
        The simplex's strategies.
    work : float64
        The simplex's tableau (:func:`gops_solver.lp.stage.stage_work_size`).
    wk : KernelWork
        The equilibrium kernel's scratch space.
    prof : float64 (m, k)
        The selected profile.
    """

    M: np.ndarray
    x: np.ndarray
    y: np.ndarray
    work: np.ndarray
    wk: KernelWork
    prof: np.ndarray


@njit(cache=True)
def make_scratch(m, k):
    """:class:`StageScratch` for ``m``-player games with ``k`` cards each."""
    cols = k ** (m - 1)
    return StageScratch(np.empty((k, cols)), np.empty(k), np.empty(cols), np.empty(stage_work_size(k, cols)),
                        make_work(m, k), np.empty((m, k)))


@njit(cache=True)
def solve_built(Usec, Ueq, m, k, selection, digits, sc, sec_row, eq_row):
    """Solve the two stage games of one state once they are built (the ``points`` and ``win`` levels share this).

    Parameters
    ----------
    Usec, Ueq : float64 (m, k ** m)
        The stage games (:func:`build_stage` or the ``win`` builder).
    m, k : int
    selection : int
        ``SELECT_NONE`` (security values only), ``SELECT_LOGIT`` or ``SELECT_PURE``.
    digits : int64 (k ** m, m)
        Card index of each player in each profile.
    sc : StageScratch
    sec_row, eq_row : float64 (m,)
        Security and equilibrium values of the state (modified in place; NaN
        where the kernel could not certify them).

    Returns
    -------
    flag : int
        ``FLAG_SECURITY | FLAG_EQUILIBRIUM`` for what the caller must redo.
    method : int
        The equilibrium kernel's status (``KERNEL_FAILED`` when not solved).
    gain : float
        Deviation gain of the selected profile (NaN if failed, 0 without equilibria).
    """
    cols = digits.shape[0] // k
    flag = 0
    for i in range(m):
        _coalition_matrix(Usec, i, m, k, digits, sc.M)
        value, status = solve_stage(sc.M, k, cols, sc.x, sc.y, sc.work)
        if status != STAGE_OK:
            flag |= FLAG_SECURITY
            value = np.nan
        sec_row[i] = value
    if selection == SELECT_NONE:
        eq_row[:] = np.nan
        return flag, KERNEL_FAILED, 0.0
    status, _, _, gain = stage_equilibrium(Ueq, m, k, PURE_TOL, DEVIATION_TOL, sc.wk, sc.prof, selection)
    if status == KERNEL_FAILED:
        eq_row[:] = np.nan
        return flag | FLAG_EQUILIBRIUM, status, np.nan
    vals = profile_values(Ueq, sc.prof, m, k, sc.wk)
    for i in range(m):
        eq_row[i] = vals[i]
    return flag, status, gain


@njit(cache=True)
def _solve_chunk(tab, prev, m, k, carry_rule, selection, stage_pass, plan, out, ch, n_chunks):
    """Chunk ``ch`` of ``n_chunks`` of one pass over a level (:func:`pass_bounds`), with its own scratch space."""
    P_count, S_count = out.gain.shape
    K = tab.digits.shape[0]
    Usec = np.empty((m, K))
    Ueq = np.empty((m, K))
    sc = make_scratch(m, k)
    lo, hi, step = pass_bounds(stage_pass, plan, P_count * S_count, ch, n_chunks)
    for j in range(lo, hi, step):
        q = pass_state(stage_pass, plan, j, ch, n_chunks)
        P = q // S_count
        s = q % S_count
        if stage_pass == PASS_COPY:
            r = plan.rep[q]
            if plan.checks[q] == plan.checks[r]:  # and the hashes (grouped by): the same games
                P2 = r // S_count
                s2 = r % S_count
                for i in range(m):
                    out.sec[P, s, i] = out.sec[P2, s2, i]
                    out.eq[P, s, i] = out.eq[P2, s2, i]
                out.gain[P, s] = out.gain[P2, s2]
                out.method[P, s] = out.method[P2, s2]
                out.flags[P, s] = out.flags[P2, s2]
                continue
            # a collision of the first hashes: this state solves its own games
        build_stage(tab, prev, P, s, m, k, carry_rule, Usec, Ueq)
        if stage_pass == PASS_HASH:
            plan.hashes[q], plan.checks[q] = game_fingerprint(Usec, Ueq)
            continue
        flag, method, gain = solve_built(Usec, Ueq, m, k, selection, tab.digits, sc, out.sec[P, s], out.eq[P, s])
        out.method[P, s] = method
        out.gain[P, s] = gain
        out.flags[P, s] = flag
