"""Jitted level kernel of the 3- and 4-player ``points`` games (see :mod:`.levels`).

One call solves every decision state of one level (hand size ``k``) in
parallel: it builds the state's two stage games from the level below
(:func:`build_stage`, the one builder), solves the player-vs-coalition games
with :func:`gops_solver.stage.solve_stage` and the n-player stage game with
:func:`.kernel.stage_equilibrium`, and flags what it could not certify (the
caller re-solves those with HiGHS or pygambit).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..stage import STAGE_OK, solve_stage, stage_work_size
from .constants import DEVIATION_TOL, PURE_TOL
from .kernel import KERNEL_FAILED, KernelWork, make_work, profile_values, stage_equilibrium

__all__ = ["LevelTables", "PrevLevel", "LevelOut", "StageScratch", "build_stage", "make_scratch", "solve_built",
           "solve_level", "FLAG_SECURITY", "FLAG_EQUILIBRIUM"]

#: a player-vs-coalition game the jitted simplex could not certify (re-solve with HiGHS)
FLAG_SECURITY = 1
#: a stage game the equilibrium kernel could not certify (re-select with pygambit)
FLAG_EQUILIBRIUM = 2


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
        Kernel status (1 unique pure, 2 logit, 0 failed).
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
def solve_level(tab, prev, m, k, carry_rule, with_equilibrium, out):
    """Solve every state of one level (modified in place: ``out``).

    Parameters
    ----------
    tab : LevelTables
    prev : PrevLevel
        The level below (ignored at k = 1).
    m, k : int
        Players and cards per hand.
    carry_rule : bool
        Ties carry the pot.
    with_equilibrium : bool
        False solves the security games only.
    out : LevelOut
    """
    n_chunks = min(out.gain.size, 256)
    # the chunk's work happens in a called function: numba's parfor lowering
    # loses writes made through a named tuple's fields directly in the loop body
    for ch in prange(n_chunks):
        _solve_chunk(tab, prev, m, k, carry_rule, with_equilibrium, out, ch, n_chunks)


class StageScratch(NamedTuple):
    """Scratch space of one worker solving ``m``-player, ``k``-card stage games (modified in place).

    Attributes
    ----------
    M : float64 (k, k ** (m - 1))
        One player-vs-coalition matrix.
    x, y : float64 (k,), (k ** (m - 1),)
        The simplex's strategies.
    work : float64
        The simplex's tableau (:func:`gops_solver.stage.stage_work_size`).
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
def solve_built(Usec, Ueq, m, k, with_equilibrium, digits, sc, sec_row, eq_row):
    """Solve the two stage games of one state once they are built (the ``points`` and ``win`` levels share this).

    Parameters
    ----------
    Usec, Ueq : float64 (m, k ** m)
        The stage games (:func:`build_stage` or the ``win`` builder).
    m, k : int
    with_equilibrium : bool
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
    if not with_equilibrium:
        eq_row[:] = np.nan
        return flag, KERNEL_FAILED, 0.0
    status, _, _, gain = stage_equilibrium(Ueq, m, k, PURE_TOL, DEVIATION_TOL, sc.wk, sc.prof)
    if status == KERNEL_FAILED:
        eq_row[:] = np.nan
        return flag | FLAG_EQUILIBRIUM, status, np.nan
    vals = profile_values(Ueq, sc.prof, m, k, sc.wk)
    for i in range(m):
        eq_row[i] = vals[i]
    return flag, status, gain


@njit(cache=True)
def _solve_chunk(tab, prev, m, k, carry_rule, with_equilibrium, out, ch, n_chunks):
    """States ``ch, ch + n_chunks, ...`` of one level, with this chunk's scratch space."""
    P_count, S_count = out.gain.shape
    total = P_count * S_count
    K = tab.digits.shape[0]
    Usec = np.empty((m, K))
    Ueq = np.empty((m, K))
    sc = make_scratch(m, k)
    for q in range(ch, total, n_chunks):
        P = q // S_count
        s = q % S_count
        build_stage(tab, prev, P, s, m, k, carry_rule, Usec, Ueq)
        flag, method, gain = solve_built(Usec, Ueq, m, k, with_equilibrium, tab.digits, sc, out.sec[P, s], out.eq[P, s])
        out.method[P, s] = method
        out.gain[P, s] = gain
        out.flags[P, s] = flag
