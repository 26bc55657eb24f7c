"""Jitted backward induction of one level of a variant game.

The value of a position before the fill is the average, over the filled
row (or revealed prize), of the value of the stage game whose entries are
the next level's values (:mod:`.space` names the axes). A cell where A's
bid total is higher takes A's best choice of prize (the largest next value),
one where B's is higher B's (the smallest); a tied cell takes the tie
transition. Stage games are solved by :func:`~gops_solver.lp.stage.solve_stage`.

Work saved, all exact:

- stage games are solved once per decision state (after the fill), not once
  per fill of every prize state before it;
- exchanging the players negates the value, so one class of each mirror
  pair is solved (and a self-mirror class at positive diffs only);
- under ``win`` only reachable diffs are solved (their size and parity are
  fixed by the prizes handed out), and a diff the remaining prizes cannot
  overturn takes the end payoff without a game;
- a game equal entry for entry to the previous diff's is not solved again.

Memory: the build of a stage game reads one next-level row per cell, rows
scattered over a table of hundreds of MB. Decision states are visited
grouped by the prize state they lead to, so consecutive states re-read the
same rows from cache; and under ``win`` a cell with one entry is read by a
precomputed offset plus the diff (a gather fused with the repeat check).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gops_solver.lp.stage import STAGE_OK, solve_stage, stage_work_size


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


@njit(cache=True)
def _slot(reach, dec, par, d, win):
    """0: unreachable diff, 1: decided (end payoff), 2: a stage game is needed."""
    if not win:
        return 2
    ad = abs(d)
    if ad > reach or (par >= 0 and (d - par) & 1):
        return 0
    if ad >= dec:
        return 1
    return 2


@njit(cache=True)
def _same(M, Mp, na, nb):
    for i in range(na):
        for j in range(nb):
            if M[i, j] != Mp[i, j]:
                return False
    return True


@njit(cache=True)
def _cells(H, P, npre_next, c, q, crow, cgain, cptr):
    """List, per cell of the stage game of class ``c`` at decision state ``q``, the next-level rows it reads.

    Cell ``k = i * nb + j`` reads rows ``crow[cptr[k]:cptr[k + 1]]`` of the
    flattened next table (one per prize the winner may take; one for a tie)
    at diff offset ``cgain`` (A's gain): so :func:`_fill` builds the game at
    every diff without looking the transitions up again.
    """
    na, nb = H.sign.shape[1], H.sign.shape[2]
    k = 0
    cptr[0] = 0
    for i in range(na):
        for j in range(nb):
            s = H.sign[c, i, j]
            nc = H.nxt[c, i, j]
            if s == 0:
                crow[k] = nc * npre_next + P.tie_idx[q]
                cgain[k] = 0
                k += 1
            else:
                for o in range(P.opt_ptr[q], P.opt_ptr[q + 1]):
                    crow[k] = nc * npre_next + P.opt_idx[o]
                    cgain[k] = P.opt_gain[o] if s > 0 else -P.opt_gain[o]
                    k += 1
            cptr[i * nb + j + 1] = k


@njit(cache=True)
def _fill(H, c, vflat, nd_next, lim_next, win, crow, cgain, cptr, d, M):
    """Build the stage game at diff ``d`` from :func:`_cells`' lists (the same entries as :func:`entry`)."""
    na, nb = M.shape
    for i in range(na):
        for j in range(nb):
            k = i * nb + j
            s = H.sign[c, i, j]
            best = np.inf if s < 0 else -np.inf
            for u in range(cptr[k], cptr[k + 1]):
                base = crow[u] * nd_next
                if win:
                    x = d + cgain[u] + lim_next
                    if x < 0:
                        x = 0
                    elif x > 2 * lim_next:
                        x = 2 * lim_next  # only the terminal level is read past its range
                    v = vflat[base + x]
                else:
                    v = cgain[u] + vflat[base]
                if s == 0:
                    best = v
                elif (s > 0 and v > best) or (s < 0 and v < best):
                    best = v
            M[i, j] = best


@njit(cache=True)
def _offsets(nd_next, lim_next, crow, cgain, cptr, ncell, off):
    """Flat read offset at diff 0 of every cell into ``off``, for :func:`_gather`.

    Returns ``(dlo, dhi)``: the diffs at which no read leaves its row (no
    clamping at the ends), an empty range (``dlo > dhi``) if a cell has
    several entries.
    """
    gmin = cgain[0]
    gmax = cgain[0]
    for k in range(ncell):
        if cptr[k + 1] - cptr[k] != 1:
            return 0, -1
        u = cptr[k]
        off[k] = crow[u] * nd_next + cgain[u] + lim_next
        gmin = min(gmin, cgain[u])
        gmax = max(gmax, cgain[u])
    return -lim_next - gmin, lim_next - gmax


@njit(cache=True)
def _gather(vflat, off, ncell, d, Mf, Mpf, have):
    """``Mf[k] = vflat[off[k] + d]``: the game at diff ``d`` when :func:`_offsets` applies.

    Returns True when ``have`` and every entry equals the previous game's ``Mpf``.
    """
    same = have
    for k in range(ncell):
        v = vflat[off[k] + d]
        Mf[k] = v
        if v != Mpf[k]:
            same = False
    return same


@njit(cache=True)
def _visit_order(P):
    """Decision states sorted by the next prize state they lead to (stable).

    The stage games of states leading to the same prize state read the same
    next-level rows, so visiting them in a row keeps those rows in cache.
    """
    nq = P.tie_idx.shape[0]
    key = np.empty(nq, np.int64)
    for q in range(nq):
        key[q] = P.opt_idx[P.opt_ptr[q]] if P.opt_ptr[q + 1] > P.opt_ptr[q] else P.tie_idx[q]
    return np.argsort(key, kind="mergesort")


@njit(cache=True, parallel=True)
def level_kernel(H, P, D, K, vnext, out):
    """Fill ``out`` (shape (C, P, 2 lim + 1), modified in place) from ``vnext``.

    ``H`` (:class:`~.space.HandLevel`), ``P`` (:class:`~.space.PrizeLevel`),
    ``D`` (:class:`~.space.DiffLevel`) and ``K`` (:class:`~.space.LevelConst`)
    describe the level. Unreachable slots are NaN; decided ones hold the end
    payoff.

    Returns
    -------
    fails : int
        Stage games that failed (their slots are NaN).
    solves : int
        Stage games solved (set-up games less repeats of the previous diff's).
    """
    C, na, nb = H.sign.shape
    npre = P.rev_ptr.shape[0] - 1
    nq = P.tie_idx.shape[0]
    nd = out.shape[2]
    nd_next = vnext.shape[2]
    vflat = vnext.reshape(-1)
    lim = K.lim
    maxopt = 1
    for q in range(nq):
        maxopt = max(maxopt, P.opt_ptr[q + 1] - P.opt_ptr[q])
    ntodo = D.todo.shape[0]
    order = _visit_order(P)
    fails = np.zeros(ntodo, np.int64)
    solves = np.zeros(ntodo, np.int64)
    for job in prange(ntodo):
        c = D.todo[job]
        selfm = K.mirror and D.mir[c] == c
        G = np.empty((nq, nd))
        M = np.empty((na, nb))
        Mp = np.empty((na, nb))
        x = np.empty(na)
        y = np.empty(nb)
        work = np.empty(stage_work_size(na, nb))
        crow = np.empty(na * nb * maxopt, np.int64)
        cgain = np.empty(na * nb * maxopt, np.int64)
        cptr = np.empty(na * nb + 1, np.int64)
        off = np.empty(na * nb, np.int64)
        Mf = M.reshape(-1)
        Mpf = Mp.reshape(-1)
        for qq in range(nq):
            q = order[qq]
            have = False
            prev = 0.0
            listed = False
            dlo = 0
            dhi = -1  # the diffs built by _gather (none until _offsets says)
            for di in range(nd):
                G[q, di] = np.nan
            for di in range(nd):
                d = di - lim
                kind = _slot(D.post_reach[q], D.post_dec[q], D.post_par[q], d, K.win)
                if kind == 0 or (selfm and d < 0):
                    continue
                if kind == 1:
                    G[q, di] = K.hi if d > 0 else K.lo
                    continue
                if selfm and d == 0:
                    G[q, di] = 0.0  # a symmetric position: the value is its own negative
                    continue
                if not listed:
                    _cells(H, P, vnext.shape[1], c, q, crow, cgain, cptr)
                    listed = True
                    if K.win:
                        dlo, dhi = _offsets(nd_next, K.lim_next, crow, cgain, cptr, na * nb, off)
                if dlo <= d <= dhi:
                    same = _gather(vflat, off, na * nb, d, Mf, Mpf, have)
                else:
                    _fill(H, c, vflat, nd_next, K.lim_next, K.win, crow, cgain, cptr, d, M)
                    same = have and _same(M, Mp, na, nb)
                if same:
                    G[q, di] = prev
                    continue
                v, st = solve_stage(M, na, nb, x, y, work)
                solves[job] += 1
                if st != STAGE_OK:
                    fails[job] += 1
                    v = np.nan
                G[q, di] = v
                prev = v
                have = True
                M, Mp = Mp, M
                Mf, Mpf = Mpf, Mf
            if selfm:
                for di in range(lim):
                    G[q, di] = -G[q, nd - 1 - di]
        for p in range(npre):
            for di in range(nd):
                d = di - lim
                kind = _slot(D.pre_reach[p], D.pre_dec[p], D.pre_par[p], d, K.win)
                if kind == 0:
                    out[c, p, di] = np.nan
                elif kind == 1:
                    out[c, p, di] = K.hi if d > 0 else K.lo
                else:
                    acc = 0.0
                    for r in range(P.rev_ptr[p], P.rev_ptr[p + 1]):
                        acc += P.rev_prob[r] * G[P.rev_idx[r], di]
                    out[c, p, di] = acc
    if K.mirror:
        for job in prange(ntodo):
            c = D.todo[job]
            m = D.mir[c]
            if m != c:
                for p in range(npre):
                    for di in range(nd):
                        out[m, p, nd - 1 - di] = -out[c, p, di]
    return fails.sum(), solves.sum()


@njit(cache=True, parallel=True)
def verify_kernel(H, P, D, K, vnext, stored, slots, resid_out, expl_out, games_out):
    """Recompute the flat slots ``slots`` of a level table ``stored`` from ``vnext``.

    An independent path to :func:`level_kernel`'s values: every stage game of
    every slot is built and solved afresh (no mirror, no reuse of an equal
    game), and the solver's strategies are checked against every pure reply.
    ``resid_out[i]`` receives ``|recomputed - stored|`` (inf when exactly one
    of them is empty), ``expl_out[i]`` the largest exploitability
    ``max(max_i (M y)_i - v, v - min_j (x^T M)_j)`` met, ``games_out[i]`` the
    stage games solved (all modified in place).
    """
    C, na, nb = H.sign.shape
    npre = P.rev_ptr.shape[0] - 1
    nd = stored.shape[2]
    for s in prange(slots.shape[0]):
        f = slots[s]
        c = f // (npre * nd)
        p = (f // nd) % npre
        di = f % nd
        d = di - K.lim
        M = np.empty((na, nb))
        x = np.empty(na)
        y = np.empty(nb)
        work = np.empty(stage_work_size(na, nb))
        expl = 0.0
        games = 0
        kind = _slot(D.pre_reach[p], D.pre_dec[p], D.pre_par[p], d, K.win)
        if kind == 0:
            val = np.nan
        elif kind == 1:
            val = K.hi if d > 0 else K.lo
        else:
            val = 0.0
            for r in range(P.rev_ptr[p], P.rev_ptr[p + 1]):
                q = P.rev_idx[r]
                if K.win and abs(d) >= D.post_dec[q]:
                    v = K.hi if d > 0 else K.lo
                else:
                    for i in range(na):
                        for j in range(nb):
                            M[i, j] = entry(H, P, vnext, K.lim_next, K.win, c, q, i, j, d)
                    v, st = solve_stage(M, na, nb, x, y, work)
                    games += 1
                    if st != STAGE_OK:
                        v = np.nan
                        expl = np.inf
                    else:
                        for j in range(nb):
                            col = 0.0
                            for i in range(na):
                                col += x[i] * M[i, j]
                            expl = max(expl, v - col)
                        for i in range(na):
                            row = 0.0
                            for j in range(nb):
                                row += M[i, j] * y[j]
                            expl = max(expl, row - v)
                val += P.rev_prob[r] * v
        got = stored[c, p, di]
        if np.isnan(val) and np.isnan(got):
            resid_out[s] = 0.0
        elif np.isnan(val) or np.isnan(got):
            resid_out[s] = np.inf
        else:
            resid_out[s] = abs(val - got)
        expl_out[s] = expl
        games_out[s] = games
