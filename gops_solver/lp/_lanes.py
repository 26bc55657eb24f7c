"""Eight stage games of one shape solved at once: the simplex of :func:`~.stage.solve_stage` in SIMD lanes.

A level kernel solves many games of the same shape in a row (one hand
pattern's games differ only in the pot and the prizes left hidden). The
scalar simplex spends its time on short loops over a handful of rows and
columns. Here ``LANES`` games sit side by side in one tableau whose last
axis is the game, and every step (the entering column, the minimax
column first and then Dantzig's, both passes of Harris's ratio test, the
Tucker pivot, reading the strategies and the certificate of
:func:`~.stage._certify`, and before them the saddle-point test) works on
vectors of eight lanes
(:mod:`.simd`), with selects instead of branches.

Each lane does exactly the arithmetic of attempt 0 of
:func:`~.stage.solve_stage`: the same scaling, the same choices, the same
operations in the same order. So a lane's value equals
:func:`~.stage.solve_stage`'s bit for bit. What the batch does not handle goes
to :func:`~.stage.solve_stage` itself, from scratch, and gets exactly its
answer: the shapes its fast paths settle whatever the entries (one row or
column, 2 x 2: :func:`batch_shape`), and lanes whose degenerate streak would
switch them to Bland's rule, that reach the pivot cap, whose ratio test
finds no row, or whose certificate fails (the scalar solver then polishes
or retries). Every value returned has passed the certificate. Hence the
batch picks the same optimal strategy among many as the scalar solver (the
rule is spelt out in :mod:`.stage`'s docstring); a change here that moves a
lane off that rule moves the pinned values of tests/test_golden.py.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gops_solver.game.constants import GUARANTEE_TOL, MAX_CARDS, PIVOT_TOL
from gops_solver.lp._simd import (LANES, vadd, vand, vany, vdiv, veq, vgather, vget, vgt, viota, vle, vload, vlt, vmax0, vmul, vneg,
                   vnot, vor, vselect, vsplat, vstore, vsub)
from gops_solver.lp.stage import _PIVOTS_PER_DIM, STAGE_OK, solve_stage

__all__ = ["LANES", "BatchWork", "make_batch_work", "batch_shape", "solve_batch"]

_K = MAX_CARDS
#: row stride of the tableaux (a column more than the widest game)
_S = MAX_CARDS + 1


# Offsets into BatchWork.F. One flat array, not a dozen: numba counts every array of a named
# tuple in and out on each call that passes it (about 6 ns an array, measured).
_NG = _K * _K * LANES  # the games, first: entry (i, j) of lane l at (i * MAX_CARDS + j) * LANES + l
_OT = _NG  # the tableaux: (i, j) of lane l at _OT + (i * (MAX_CARDS + 1) + j) * LANES + l
_OCOL = _OT + _S * _S * LANES  # the pivot column of every lane
_OROW = _OCOL + _S * LANES  # the new pivot row
_ORL = _OROW + _S * LANES  # row labels
_OCL = _ORL + _K * LANES  # column labels
_OX = _OCL + _K * LANES  # the row player's strategies
_OY = _OX + _K * LANES  # the column player's
_OM = _OY + _K * LANES  # one lane's game (MAX_CARDS x MAX_CARDS), for solve_stage
_OXS = _OM + _K * _K  # solve_stage's outputs x and y
_OYS = _OXS + _K
_OWORK = _OYS + _K  # solve_stage's scratch


class BatchWork(NamedTuple):
    """Per-thread scratch of :func:`solve_batch` (allocate once with :func:`make_batch_work`).

    ``F`` holds everything, the games first: entry ``(i, j)`` of lane ``l``
    is ``F[(i * MAX_CARDS + j) * LANES + l]``. The caller writes lane
    ``l``'s game into the view ``G3[:, :, l]``.
    """

    F: np.ndarray  # the games, the tableaux and the scratch, at the offsets above
    G3: np.ndarray  # the games as (MAX_CARDS, MAX_CARDS, LANES): lane l's game is G3[:, :, l]


@njit(cache=True)
def make_batch_work(work_size):
    """A :class:`BatchWork` for games up to ``MAX_CARDS`` square; ``work_size`` as :func:`~.stage.stage_work_size`."""
    F = np.zeros(_OWORK + work_size)
    return BatchWork(F, F[:_NG].reshape((_K, _K, LANES)))


@njit(cache=True, inline="always")
def batch_shape(m, n):
    """Whether games of ``m`` rows and ``n`` columns go to :func:`solve_batch`.

    The others are those :func:`~.stage.solve_stage` settles by a fast path
    whatever their entries (one row or column, or 2 x 2 by its closed form):
    the caller solves them with :func:`~.stage.solve_stage`.
    """
    return m >= 2 and n >= 2 and not (m == 2 and n == 2)


@njit(cache=True, error_model="numpy")
def solve_batch(bw, m, n, count, values, status):
    """Solve the ``count`` games in lanes ``0 .. count - 1`` of ``bw.G3``, each ``m x n`` (:func:`batch_shape`).

    Writes ``values[l]`` and ``status[l]`` as :func:`~.stage.solve_stage`
    returns them (values equal bit for bit).
    """
    L = LANES
    F = bw.F
    mm = m
    nn = n
    w = nn + 1
    zero = vsplat(0.0)
    one = vsplat(1.0)
    tol = vsplat(PIVOT_TOL)
    lane = viota()
    valid = vlt(lane, vsplat(float(count)))

    # solve_stage's first pass: row minima, column maxima, the extremes; the first
    # row of the largest minimum and the first column of the least maximum
    maximin = vsplat(-np.inf)
    istar = zero
    lo = vsplat(np.inf)
    for i in range(m):
        rmin = vload(F, i * _K * L)
        for j in range(1, n):
            a = vload(F, (i * _K + j) * L)
            rmin = vselect(vlt(a, rmin), a, rmin)
        take = vgt(rmin, maximin)
        maximin = vselect(take, rmin, maximin)
        istar = vselect(take, vsplat(float(i)), istar)
        lo = vselect(vlt(rmin, lo), rmin, lo)
    minimax = vsplat(np.inf)
    jstar = zero
    hi = vsplat(-np.inf)
    for j in range(n):
        cmax = vload(F, j * L)
        for i in range(1, m):
            a = vload(F, (i * _K + j) * L)
            cmax = vselect(vgt(a, cmax), a, cmax)
        take = vlt(cmax, minimax)
        minimax = vselect(take, cmax, minimax)
        jstar = vselect(take, vsplat(float(j)), jstar)
        hi = vselect(vgt(cmax, hi), cmax, hi)
    # a gap within the guarantee tolerance: (istar, jstar) is a saddle point, certified below
    saddle = vand(valid, vle(vsub(minimax, maximin), vsplat(GUARANTEE_TOL)))

    # the tableau of _simplex: A mapped affinely onto [1, 2] (lanes not pivoted: all ones)
    pivoted = vand(valid, vnot(saddle))
    lo = vselect(pivoted, lo, zero)
    inv_span = vdiv(one, vselect(pivoted, vsub(hi, lo), one))
    for i in range(mm):
        for j in range(nn):
            g = vload(F, (i * _K + j) * L)
            vstore(F, _OT + (i * _S + j) * L, vselect(pivoted, vadd(vmul(vsub(g, lo), inv_span), one), one))
        vstore(F, _OT + (i * _S + nn) * L, one)
        vstore(F, _ORL + i * L, vsplat(float(nn + i)))
    for j in range(nn):
        vstore(F, _OT + (mm * _S + j) * L, vsplat(-1.0))
        vstore(F, _OCL + j * L, vsplat(float(j)))
    vstore(F, _OT + (mm * _S + nn) * L, zero)

    run = pivoted  # lanes still pivoting
    done = vnot(pivoted)  # lanes at an optimal tableau, saddle points and the empty lanes
    pivots = zero
    streak = zero
    cap = vsplat(float(_PIVOTS_PER_DIM * (m + n)))
    max_streak = vsplat(float(m + n))
    first = True
    while True:
        # entering column: the most negative reduced cost (Dantzig), the first among equals
        best = vsplat(-PIVOT_TOL)
        cvec = vsplat(-1.0)
        jv = zero  # float(j) as a vector, counted (a conversion and a broadcast per step otherwise)
        for j in range(nn):
            a = vload(F, _OT + (mm * _S + j) * L)
            take = vlt(a, best)
            best = vselect(take, a, best)
            cvec = vselect(take, jv, cvec)
            jv = vadd(jv, one)
        if first:
            # solve_stage's first pivot: the minimax column (every reduced cost is -1 yet)
            cvec = vselect(run, jstar, cvec)
            first = False
        optimal = vand(run, vlt(cvec, zero))
        done = vor(done, optimal)
        run = vand(run, vnot(optimal))
        run = vand(run, vnot(vle(cap, pivots)))  # past the pivot cap: solve_stage's own answer
        if not vany(run):
            break
        pivots = vadd(pivots, vselect(run, one, zero))
        # the pivot column (zero in lanes that do not pivot)
        cidx = vadd(vmul(cvec, vsplat(float(L))), lane)
        for i in range(mm + 1):
            vstore(F, _OCOL + i * L, vgather(F, _OT + i * _S * L, cidx, run))
        # Harris's ratio test, pass 1: the step bound with right-hand sides relaxed by PIVOT_TOL
        bound = vsplat(np.inf)
        for i in range(mm):
            a = vload(F, _OCOL + i * L)
            rhs = vmax0(vload(F, _OT + (i * _S + nn) * L))
            t = vdiv(vadd(rhs, tol), a)
            bound = vselect(vand(vgt(a, tol), vlt(t, bound)), t, bound)
        # pass 2: among the rows within the bound, the largest pivot (the first among equals)
        rvec = vsplat(-1.0)
        piv = zero
        prhs = zero
        iv = zero
        for i in range(mm):
            a = vload(F, _OCOL + i * L)
            rhs = vmax0(vload(F, _OT + (i * _S + nn) * L))
            take = vand(vand(vgt(a, tol), vle(rhs, vmul(bound, a))), vgt(a, piv))
            rvec = vselect(take, iv, rvec)
            piv = vselect(take, a, piv)
            prhs = vselect(take, rhs, prhs)
            iv = vadd(iv, one)
        run = vand(run, vnot(vlt(rvec, zero)))  # no row: numerical trouble, solve_stage reports or retries it
        # degenerate pivots in a row; past max_streak solve_stage goes on with Bland's rule
        # (lanes that stop pivoting here are not done: they go to solve_stage)
        degenerate = vle(vdiv(prhs, piv), tol)
        streak = vselect(run, vselect(degenerate, vadd(streak, one), zero), streak)
        run = vand(run, vnot(vlt(max_streak, streak)))
        # the new pivot row: p -> 1/p, the rest of the row / p (zero in lanes that do not pivot)
        inv = vdiv(one, piv)
        cvec = vselect(run, cvec, vsplat(-1.0))
        rvec = vselect(run, rvec, vsplat(-1.0))
        ridx = vadd(vmul(rvec, vsplat(float(_S * L))), lane)
        jv = zero
        for j in range(w):
            r = vmul(vgather(F, _OT + j * L, ridx, run), inv)
            vstore(F, _OROW + j * L, vselect(run, vselect(veq(cvec, jv), inv, r), zero))
            jv = vadd(jv, one)
        # Tucker pivot, every lane at once: pivot column -> -col/p, pivot row as above,
        # everything else a -= (column entry)(new row entry)
        iv = zero
        for i in range(mm + 1):
            f = vselect(run, vload(F, _OCOL + i * L), zero)
            newcol = vneg(vmul(f, inv))
            in_row = veq(rvec, iv)
            jv = zero
            for j in range(w):
                off = (i * _S + j) * L
                g = vload(F, _OROW + j * L)
                t = vsub(vload(F, _OT + off), vmul(f, g))
                t = vselect(veq(cvec, jv), newcol, t)
                vstore(F, _OT + off, vselect(in_row, g, t))
                jv = vadd(jv, one)
            iv = vadd(iv, one)
        for l in range(L):
            r = int(vget(rvec, l))
            if r >= 0:
                c = int(vget(cvec, l))
                tmp = F[_ORL + r * L + l]
                F[_ORL + r * L + l] = F[_OCL + c * L + l]
                F[_OCL + c * L + l] = tmp

    # the strategies as _simplex reads them: basic q_j from the right-hand side, nonbasic
    # slacks' duals from the objective row, entries below PIVOT_TOL dropped, then normalised
    for i in range(mm):
        vstore(F, _OX + i * L, zero)
    for j in range(nn):
        vstore(F, _OY + j * L, zero)
    sx = zero
    for j in range(nn):
        k = vload(F, _OCL + j * L)
        p = vload(F, _OT + (mm * _S + j) * L)
        take = vand(vle(vsplat(float(nn)), k), vgt(p, tol))
        sx = vadd(sx, vselect(take, p, zero))
        kv = vsplat(float(nn))
        for i in range(mm):
            hit = vand(take, veq(k, kv))
            vstore(F, _OX + i * L, vselect(hit, p, vload(F, _OX + i * L)))
            kv = vadd(kv, one)
    sy = zero
    for i in range(mm):
        k = vload(F, _ORL + i * L)
        q = vload(F, _OT + (i * _S + nn) * L)
        take = vand(vlt(k, vsplat(float(nn))), vgt(q, tol))
        sy = vadd(sy, vselect(take, q, zero))
        jv = zero
        for j in range(nn):
            hit = vand(take, veq(k, jv))
            vstore(F, _OY + j * L, vselect(hit, q, vload(F, _OY + j * L)))
            jv = vadd(jv, one)
    good = vand(done, vand(vgt(sx, zero), vgt(sy, zero)))
    inv_sx = vdiv(one, sx)
    for i in range(mm):
        vstore(F, _OX + i * L, vmul(vload(F, _OX + i * L), inv_sx))
    inv_sy = vdiv(one, sy)
    for j in range(nn):
        vstore(F, _OY + j * L, vmul(vload(F, _OY + j * L), inv_sy))
    # a saddle point's strategies are pure, as solve_stage sets them
    for i in range(mm):
        vstore(F, _OX + i * L, vselect(saddle, vselect(veq(istar, vsplat(float(i))), one, zero), vload(F, _OX + i * L)))
    for j in range(nn):
        vstore(F, _OY + j * L, vselect(saddle, vselect(veq(jstar, vsplat(float(j))), one, zero), vload(F, _OY + j * L)))
    good = vor(good, saddle)
    # the certificate of _certify: what x guarantees and what y concedes
    low = vsplat(np.inf)
    for j in range(n):
        s = zero
        for i in range(m):
            s = vadd(s, vmul(vload(F, _OX + i * L), vload(F, (i * _K + j) * L)))
        good = vand(good, veq(s, s))
        low = vselect(vlt(s, low), s, low)
    high = vsplat(-np.inf)
    for i in range(m):
        s = zero
        for j in range(n):
            s = vadd(s, vmul(vload(F, (i * _K + j) * L), vload(F, _OY + j * L)))
        good = vand(good, veq(s, s))
        high = vselect(vgt(s, high), s, high)
    good = vand(good, vle(vsub(high, low), vsplat(2.0 * GUARANTEE_TOL)))
    value = vmul(vsplat(0.5), vadd(low, high))
    flag = vselect(good, one, zero)
    for l in range(count):
        if vget(flag, l) > 0.5:
            values[l] = vget(value, l)
            status[l] = STAGE_OK
        else:
            M = F[_OM:_OM + _K * _K].reshape((_K, _K))
            for i in range(m):
                for j in range(n):
                    M[i, j] = F[(i * _K + j) * L + l]
            values[l], status[l] = solve_stage(M, m, n, F[_OXS:_OXS + _K], F[_OYS:_OYS + _K], F[_OWORK:])
