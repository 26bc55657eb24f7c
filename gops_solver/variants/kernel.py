"""Jitted backward induction of one level of a variant game.

The value of a position before the fill is the average, over the filled
row (or revealed prize), of the value of the stage game whose entries are
the next level's values (:mod:`.space` names the axes). A cell where A's
bid total is higher takes A's best choice of prize (the largest next value),
one where B's is higher B's (the smallest); a tied cell takes the tie
transition. Stage games are solved by :func:`~gops_solver.stage.solve_stage`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..stage import STAGE_OK, solve_stage, stage_work_size


@njit(cache=True)
def _read(vnext, c, p, d, lim, win):
    """Next-level value at diff ``d`` (win) clamped to the stored range."""
    if not win:
        return vnext[c, p, 0]
    i = d + lim
    if i < 0:
        i = 0
    elif i > 2 * lim:
        i = 2 * lim  # only the terminal level is read past its range: its ends are the saturated payoffs
    return vnext[c, p, i]


@njit(cache=True)
def entry(H, P, vnext, lim_next, win, c, q, i, j, d):
    """Stage-game entry for A's bid ``i`` and B's bid ``j`` in class ``c``, decision state ``q``.

    Under ``points`` the entry is the rest of the game's margin (the points
    this round hands out plus the next value); under ``win`` the next value
    at the new difference ``d``.
    """
    s = H.sign[c, i, j]
    nc = H.nxt[c, i, j]
    if s == 0:
        return _read(vnext, nc, P.tie_idx[q], d, lim_next, win)
    best = np.inf if s < 0 else -np.inf
    for o in range(P.opt_ptr[q], P.opt_ptr[q + 1]):
        g = P.opt_gain[o] if s > 0 else -P.opt_gain[o]
        if win:
            v = _read(vnext, nc, P.opt_idx[o], d + g, lim_next, True)
        else:
            v = g + vnext[nc, P.opt_idx[o], 0]
        if (s > 0 and v > best) or (s < 0 and v < best):
            best = v
    return best


@njit(cache=True, parallel=True)
def level_kernel(H, P, vnext, lim_next, lim, win, out):
    """Fill ``out`` (shape (C, P, 2 lim + 1), modified in place) from ``vnext``.

    Returns
    -------
    int
        Number of stage games that failed (0 on success; failed slots are NaN).
    """
    C, na, nb = H.sign.shape
    npre = P.rev_ptr.shape[0] - 1
    nd = out.shape[2]
    fails = np.zeros(C * npre, np.int64)
    for job in prange(C * npre):
        c = job // npre
        p = job % npre
        M = np.empty((na, nb))
        x = np.empty(na)
        y = np.empty(nb)
        work = np.empty(stage_work_size(na, nb))
        for di in range(nd):
            d = di - lim
            acc = 0.0
            for r in range(P.rev_ptr[p], P.rev_ptr[p + 1]):
                q = P.rev_idx[r]
                for i in range(na):
                    for j in range(nb):
                        M[i, j] = entry(H, P, vnext, lim_next, win, c, q, i, j, d)
                v, st = solve_stage(M, na, nb, x, y, work)
                if st != STAGE_OK:
                    fails[job] += 1
                    v = np.nan
                acc += P.rev_prob[r] * v
            out[c, p, di] = acc
    return fails.sum()
