"""Exact solver for small zero-sum matrix games (the stage games of GOPS).

Two backends share one contract:

* :func:`solve_stage` -- a jitted kernel that other numba kernels call inside
  ``prange`` loops, millions of times, with caller-owned scratch space. It
  never allocates, never raises and returns a status code.
* :func:`highs_stage` -- scipy's HiGHS linear-programming solver, the slow,
  independent reference used by the tests and benchmarks.

:func:`solve_matrix_game` is the validated public entry point for both.

Conventions: the row player maximises, the column player minimises, and the
value ``v`` of ``M`` satisfies ``max_x min_y x^T M y = v = min_y max_x x^T M y``
(von Neumann's minimax theorem, 1928).

The general case is the linear programme of the "pivot method" for games in
T. S. Ferguson, *Game Theory*, Part II, Section 4 ("Solving Finite Games":
the reduction to a linear programme and the pivot method; UCLA lecture notes,
2nd ed. 2014); equivalently Dantzig, "A proof of the equivalence of the
programming problem and the game problem" (1951). After shifting ``M`` to a
matrix ``A`` with positive entries (so the value is positive), the column
player's problem is::

    maximise sum(q)  subject to  A q <= 1,  q >= 0,

whose optimum is ``1 / value(A)`` with ``y = q / sum(q)``; the dual variables
``p`` of the ``m`` constraints solve ``minimise sum(p) s.t. A^T p >= 1`` and
give the row strategy ``x = p / sum(p)``. The kernel runs the simplex method
on Tucker's condensed tableau (``(m+1) x (n+1)``, no explicit slack columns),
reading ``y`` from the right-hand column and ``x`` from the bottom row.

Which optimal strategy
----------------------
A stage game may have many optimal strategies; the equilibrium plays the one
this module's :func:`solve_stage` returns, a deterministic function of the
matrix (documented for users in docs/rules.md, "Which optimal strategy the
solver plays"; pinned by tests/test_golden.py):

1. Fast paths, in order. One row: the first column of least payoff. One
   column: the first row of greatest payoff. Saddle point (``minimax -
   maximin <= GUARANTEE_TOL``): the first row of greatest row minimum
   against the first column of least column maximum. 2 x 2 without a saddle
   point: the equalising closed form.
2. Simplex on ``A = (M - lo) / (hi - lo) + 1``. First pivot: the minimax
   column (``jstar`` above) enters. Then Dantzig's rule: the most negative
   reduced cost below ``-PIVOT_TOL`` enters, the lowest index on an exact
   tie. Leaving row: Harris's two-pass test; the bound is the least
   ``(max(rhs, 0) + PIVOT_TOL) / a`` over rows with ``a > PIVOT_TOL``, and
   among the rows with ``max(rhs, 0) <= bound * a`` the largest ``a``
   leaves, the lowest index on an exact tie. After more than ``m + n``
   consecutive degenerate pivots (step ``<= PIVOT_TOL``), Bland's rule for
   good: smallest label entering, smallest row label among Harris's
   candidates leaving.
3. Read-out: ``x`` from the bottom row, ``y`` from the right-hand column,
   entries ``<= PIVOT_TOL`` dropped, each normalised.
4. If the certificate fails: ``_polish`` (the supports' equalising
   systems), then attempt 1 (the transposed game ``-M^T``, first pivot the
   maximin row), attempt 2 (Bland from the start on ``M``), attempt 3
   (Bland from the start on ``-M^T``).

The SIMD batch of :mod:`._lanes` repeats attempt 0 bit for bit and hands
every other case to :func:`solve_stage`. :func:`highs_stage` is a reference
for values only: its strategies are whatever optimum HiGHS lands on.
"""

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import register_jitable

from gops_solver.game.constants import GUARANTEE_TOL, HIGHS_FEAS_TOL, PIVOT_TOL

__all__ = [
    "STAGE_OK",
    "STAGE_ITER_LIMIT",
    "STAGE_NOT_OPTIMAL",
    "StageResult",
    "StageSolveError",
    "highs_stage",
    "solve_matrix_game",
    "solve_stage",
    "stage_work_size",
]

#: The solve succeeded and passed the final guarantee check.
STAGE_OK = 0
#: The simplex hit its pivot cap (see ``_PIVOTS_PER_DIM``); outputs are unusable.
STAGE_ITER_LIMIT = 1
#: The final guarantee check failed (non-finite input or numerical trouble).
STAGE_NOT_OPTIMAL = 2

_STATUS_NAMES = {
    STAGE_OK: "STAGE_OK",
    STAGE_ITER_LIMIT: "STAGE_ITER_LIMIT",
    STAGE_NOT_OPTIMAL: "STAGE_NOT_OPTIMAL",
}

#: Pivot cap per row+column of the game. Dantzig's rule takes about
#: ``min(m, n)`` pivots here (12 on average, 21 at most, on random 13 x 13
#: integer games); the cap only exists so that a numerical pathology cannot
#: hang a kernel that runs a billion solves.
_PIVOTS_PER_DIM = 50

_BACKENDS = ("numba", "highs")


class StageSolveError(RuntimeError):
    """A stage-game solver reported failure (status code or LP status)."""


class StageResult(NamedTuple):
    """Solution of a zero-sum matrix game.

    Attributes
    ----------
    value : float
        The value of the game to the (maximising) row player.
    row : numpy.ndarray, shape (m,)
        An optimal mixed strategy of the row player.
    col : numpy.ndarray, shape (n,)
        An optimal mixed strategy of the column player.
    """

    value: float
    row: np.ndarray
    col: np.ndarray


@register_jitable
def stage_work_size(mmax: int, nmax: int) -> int:
    """Length of the float64 scratch array that :func:`solve_stage` needs.

    Plain Python when called from Python (no compile on import or first use)
    and compiled into the kernels that call it, so they can size per-thread
    buffers too.

    Parameters
    ----------
    mmax, nmax : int
        The largest numbers of rows and columns that will be solved with the
        buffer. A buffer of this length serves every ``m <= mmax``,
        ``n <= nmax``.

    Returns
    -------
    int
        ``(mmax + 1) * (nmax + 1)`` tableau entries plus ``mmax + nmax``
        basis labels.
    """
    return (mmax + 1) * (nmax + 1) + mmax + nmax


@njit(cache=True, error_model="numpy")
def _certify(M, m, n, x, y):
    """Value and status of the strategy pair ``(x, y)`` on ``M[:m, :n]``.

    ``lo = min_j (x^T M)_j`` is what ``x`` guarantees and ``hi = max_i (M y)_i``
    is what ``y`` concedes, so the true value lies in ``[lo, hi]``. Reporting
    the midpoint makes both guarantees hold to ``(hi - lo) / 2`` and bounds
    the error of the value by the same amount: the pair is accepted when that
    is at most ``GUARANTEE_TOL`` (absolute, deliberately not scaled by
    ``max|M|``: GOPS entries are at most a few hundred, where the measured
    gap stays below 5e-12 on millions of random games).
    """
    lo = np.inf
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += x[i] * M[i, j]
        if np.isnan(s):
            return np.nan, STAGE_NOT_OPTIMAL
        if s < lo:
            lo = s
    hi = -np.inf
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += M[i, j] * y[j]
        if np.isnan(s):
            return np.nan, STAGE_NOT_OPTIMAL
        if s > hi:
            hi = s
    # A non-finite entry of M shows up above as a NaN (0 * inf) or as an
    # infinite lo or hi, which fails this comparison.
    if hi - lo <= 2.0 * GUARANTEE_TOL:
        return 0.5 * (lo + hi), STAGE_OK
    return 0.5 * (lo + hi), STAGE_NOT_OPTIMAL


@njit(cache=True, error_model="numpy")
def solve_stage(M, m, n, x, y, work):
    """Solve the zero-sum game ``M[:m, :n]`` exactly (jitted kernel).

    The row player maximises, the column player minimises. Fast paths, in
    order: a single row or column, a pure saddle point, the 2 x 2 closed
    form; otherwise the simplex method on Tucker's condensed tableau
    (Ferguson, *Game Theory*, Part II, Sec. 4), entering the minimax
    column first and then by Dantzig's rule, with Harris's two-pass ratio
    test, and a permanent switch to Bland's rule (which cannot cycle; Bland
    1977, Math. Oper. Res. 2(2):103-107) after a streak of degenerate
    pivots. Every answer is checked before it is returned (see
    ``_certify``); in the rare case that the check fails, the simplex is
    retried on the transposed game and with Bland's rule from the start
    before failure is reported.

    Parameters
    ----------
    M : numpy.ndarray, shape (>= m, >= n), float64
        Payoffs to the row player. Only ``M[:m, :n]`` is read; never
        modified.
    m, n : int
        Numbers of rows and columns of the game, ``>= 1``.
    x : numpy.ndarray, shape (>= m,), float64
        Out: an optimal mixed strategy of the row player in ``x[:m]``.
    y : numpy.ndarray, shape (>= n,), float64
        Out: an optimal mixed strategy of the column player in ``y[:n]``.
    work : numpy.ndarray, shape (>= stage_work_size(m, n),), float64
        Scratch space, modified in place; allocate once and reuse.

    Returns
    -------
    value : float
        The value of the game.
    status : int
        ``STAGE_OK``; ``STAGE_ITER_LIMIT`` if the pivot cap was hit;
        ``STAGE_NOT_OPTIMAL`` if the final check failed (NaN or inf in
        ``M``, ``m < 1`` or ``n < 1``, numerical trouble). On any other
        status than ``STAGE_OK`` neither ``value`` (possibly NaN) nor ``x``
        and ``y`` may be used.

    Notes
    -----
    On success ``x`` and ``y`` are probability vectors (exact zeros off
    their supports) with ``min_j (x^T M)_j >= value - GUARANTEE_TOL`` and
    ``max_i (M y)_i <= value + GUARANTEE_TOL``; hence ``value`` is within
    ``GUARANTEE_TOL`` of the true value.
    """
    if m < 1 or n < 1:
        return np.nan, STAGE_NOT_OPTIMAL
    for i in range(m):
        x[i] = 0.0
    for j in range(n):
        y[j] = 0.0

    # A single row or column always has a pure solution.
    if m == 1:
        jbest = 0
        for j in range(1, n):
            if M[0, j] < M[0, jbest]:
                jbest = j
        x[0] = 1.0
        y[jbest] = 1.0
        return _certify(M, m, n, x, y)
    if n == 1:
        ibest = 0
        for i in range(1, m):
            if M[i, 0] > M[ibest, 0]:
                ibest = i
        x[ibest] = 1.0
        y[0] = 1.0
        return _certify(M, m, n, x, y)

    # One pass: row minima, column maxima (kept in y for now), extremes.
    for j in range(n):
        y[j] = M[0, j]
    maximin = -np.inf
    lo = np.inf
    istar = 0
    for i in range(m):
        rmin = M[i, 0]
        for j in range(n):
            a = M[i, j]
            if a < rmin:
                rmin = a
            if a > y[j]:
                y[j] = a
        if rmin > maximin:
            maximin = rmin
            istar = i
        if rmin < lo:
            lo = rmin
    minimax = y[0]
    hi = y[0]
    jstar = 0
    for j in range(1, n):
        if y[j] < minimax:
            minimax = y[j]
            jstar = j
        if y[j] > hi:
            hi = y[j]
    for j in range(n):
        y[j] = 0.0

    # maximin <= minimax always (no arithmetic involved). A gap within the
    # guarantee tolerance means (istar, jstar) is a saddle point up to
    # rounding: the pure pair guarantees both ends of the gap.
    if minimax - maximin <= GUARANTEE_TOL:
        x[istar] = 1.0
        y[jstar] = 1.0
        return _certify(M, m, n, x, y)

    if m == 2 and n == 2:
        # No saddle point, so a - b, d - c, a - c, d - b all share the sign
        # of the determinant-like denominator den; each player mixes to make
        # the opponent indifferent (Ferguson, Part II, Sec. 2, 2 x 2 games).
        a = M[0, 0]
        b = M[0, 1]
        c = M[1, 0]
        d = M[1, 1]
        den = (a - b) + (d - c)
        x[0] = (d - c) / den
        x[1] = (a - b) / den
        y[0] = (d - b) / den
        y[1] = (a - c) / den
        value, status = _certify(M, m, n, x, y)
        if status == STAGE_OK:
            return value, status
        # A near-saddle (tiny den) can lose the closed form to rounding;
        # the simplex below gets a second go.

    # Attempt 0 is the fast path and almost always the last. Nearly singular
    # games (seen only in synthetic stress tests: a few in 10,000 nearly
    # rank-one matrices) can fail the check; a different pivot path
    # then usually succeeds: the transposed game -M^T reads each strategy
    # from the other side of the tableau, and Bland's rule from the start
    # visits other bases.
    cap = _PIVOTS_PER_DIM * (m + n)
    for attempt in range(4):
        streak = m + n if attempt < 2 else -1
        transpose = attempt % 2 == 1
        # The first pivot brings in the pure strategy of least worst case (the
        # minimax column; of -M^T, the maximin row): 0.6-0.9 fewer pivots a game
        # on stage games drawn from levels 7-9 of n = 12 than Dantzig's first
        # pick, which is column 0 (every reduced cost starts at -1).
        value, status = _simplex(
            M, m, n, x, y, work, lo, hi, streak, cap, transpose, np.int64(istar if transpose else jstar)  # int64: one specialisation, not one for a literal 0
        )
        if status == STAGE_OK:
            break
        if status == STAGE_NOT_OPTIMAL and attempt == 0:
            # The pivots found the right supports but rounding spoilt the
            # strategies: re-solve the supports' equalising systems directly.
            value, status = _polish(M, m, n, x, y, work)
            if status == STAGE_OK:
                break
    return value, status


@njit(cache=True, error_model="numpy")
def _solve_support(M, rows, cols, k, transpose, out, work):
    """Solve the equalising system of one player on a k x k support.

    For the row player (``transpose`` False): find ``p`` over ``rows`` and
    ``v`` with ``sum_i p_i M[rows_i, cols_j] = v`` for every j and
    ``sum p = 1``; for the column player the same on ``M^T``. Gaussian
    elimination with partial pivoting, which is backward stable: the
    residuals, i.e. the guarantees, come out at rounding level even when the
    simplex tableau has drifted. Writes ``p`` to ``out[:k]``; returns ``v``
    (NaN if the system is singular).
    """
    s = k + 1
    # work[:s*s] is the matrix (row-major), work[s*s:s*s+s] the right-hand side
    for r in range(k):
        for c in range(k):
            if transpose:
                work[r * s + c] = M[rows[r], cols[c]]  # column player: rows of M
            else:
                work[r * s + c] = M[rows[c], cols[r]]
        work[r * s + k] = -1.0
        work[s * s + r] = 0.0
    for c in range(k):
        work[k * s + c] = 1.0
    work[k * s + k] = 0.0
    work[s * s + k] = 1.0
    for col in range(s):
        piv = col
        best = abs(work[col * s + col])
        for r in range(col + 1, s):
            a = abs(work[r * s + col])
            if a > best:
                best = a
                piv = r
        if best <= PIVOT_TOL:
            return np.nan
        if piv != col:
            for c in range(s):
                t = work[col * s + c]
                work[col * s + c] = work[piv * s + c]
                work[piv * s + c] = t
            t = work[s * s + col]
            work[s * s + col] = work[s * s + piv]
            work[s * s + piv] = t
        for r in range(col + 1, s):
            f = work[r * s + col] / work[col * s + col]
            if f != 0.0:
                for c in range(col, s):
                    work[r * s + c] -= f * work[col * s + c]
                work[s * s + r] -= f * work[s * s + col]
    for r in range(s - 1, -1, -1):
        t = work[s * s + r]
        for c in range(r + 1, s):
            t -= work[r * s + c] * out[c]
        out[r] = t / work[r * s + r]
    return out[k]


@njit(cache=True, error_model="numpy")
def _polish(M, m, n, x, y, work):
    """Recompute ``x`` and ``y`` from their supports (square supports only)."""
    rows = np.empty(m, dtype=np.int64)
    cols = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(m):
        if x[i] > 0.0:
            rows[k] = i
            k += 1
    kc = 0
    for j in range(n):
        if y[j] > 0.0:
            cols[kc] = j
            kc += 1
    if k != kc or k == 0:
        return np.nan, STAGE_NOT_OPTIMAL
    out = np.empty(k + 1)
    for attempt in range(2):
        v = _solve_support(M, rows, cols, np.int64(k), attempt == 1, out, work)
        if np.isnan(v):
            return np.nan, STAGE_NOT_OPTIMAL
        tot = 0.0
        for r in range(k):
            if out[r] < -GUARANTEE_TOL:
                return np.nan, STAGE_NOT_OPTIMAL
            tot += max(out[r], 0.0)
        for r in range(k):
            p = max(out[r], 0.0) / tot
            if attempt == 0:
                x[rows[r]] = p
            else:
                y[cols[r]] = p
    return _certify(M, m, n, x, y)


@njit(cache=True, error_model="numpy")
def _simplex(M, m, n, x, y, work, lo, hi, max_streak, max_pivots, transpose, first=-1):
    """General case of :func:`solve_stage`; ``lo < hi`` are min and max of M.

    Solves ``M[:m, :n]`` or, if ``transpose``, the same game seen by the
    column player, ``-M[:m, :n]^T`` (``n x m``); either way ``x`` and ``y``
    receive the strategies of the row and column players of ``M`` and the
    answer is checked on ``M``. Dantzig's rule gives way to Bland's after
    more than ``max_streak`` consecutive degenerate pivots (from the start
    if ``max_streak < 0``); more than ``max_pivots`` pivots return
    ``STAGE_ITER_LIMIT``. The tests use these knobs to reach every path.
    ``first >= 0`` names the column of the game solved that enters at the
    first pivot, unless Bland's rule is on from the start (every reduced
    cost starts at -1, so any column may).

    Tableau layout in ``work`` for the ``mm x nn`` game solved (row-major,
    stride ``nn + 1``): rows ``0..mm-1`` are the constraints ``A q <= 1``
    with the right-hand side in column ``nn``; row ``mm`` holds the negated
    objective (reduced costs) and, in the corner, the objective value.
    Labels ``0..nn-1`` name the column player's variables ``q_j``, labels
    ``nn..nn+mm-1`` the row player's (the slacks, whose duals are ``p_i``).
    Row labels follow the tableau, then column labels.
    """
    # Self-contained (the tests call it directly): zero the outputs here too.
    for i in range(m):
        x[i] = 0.0
    for j in range(n):
        y[j] = 0.0
    if transpose:
        mm = n
        nn = m
        xs = y  # the row player of -M^T is the column player of M
        ys = x
    else:
        mm = m
        nn = n
        xs = x
        ys = y
    w = nn + 1
    size = (mm + 1) * w
    # 2-D views (no copy, no allocation): indexing T[i, j] with loop indices
    # lets LLVM vectorise the pivot update, which flat offsets into `work` do
    # not (their wrap-around checks block it).
    T = work[:size].reshape((mm + 1, w))
    rlab = work[size:size + mm]
    clab = work[size + mm:size + mm + nn]

    # Map M affinely onto [1, 2]: entries positive (value > 0, the rhs 1 is
    # feasible at q = 0) and of unit scale, so the absolute PIVOT_TOL means
    # the same thing for the points and the win objectives.
    inv_span = 1.0 / (hi - lo)
    if transpose:
        # Entries of -M^T run from -hi to -lo.
        for i in range(mm):
            for j in range(nn):
                T[i, j] = (hi - M[j, i]) * inv_span + 1.0
    else:
        for i in range(mm):
            for j in range(nn):
                T[i, j] = (M[i, j] - lo) * inv_span + 1.0
    for i in range(mm):
        T[i, nn] = 1.0
        rlab[i] = nn + i
    for j in range(nn):
        T[mm, j] = -1.0
        clab[j] = j
    T[mm, nn] = 0.0

    bland = max_streak < 0
    streak = 0
    pivots = 0
    while True:
        # Entering column: a negative reduced cost.
        c = -1
        if pivots == 0 and first >= 0 and not bland:
            c = first
        elif bland:
            cbest = np.inf
            for j in range(nn):
                if T[mm, j] < -PIVOT_TOL and clab[j] < cbest:
                    cbest = clab[j]
                    c = j
        else:
            rc = -PIVOT_TOL
            for j in range(nn):
                if T[mm, j] < rc:
                    rc = T[mm, j]
                    c = j
        if c < 0:
            break
        if pivots >= max_pivots:
            return np.nan, STAGE_ITER_LIMIT
        pivots += 1

        # Leaving row: Harris's two-pass ratio test. Pass 1 finds the step
        # bound with every right-hand side relaxed by PIVOT_TOL; pass 2 picks,
        # among the rows whose ratio is within that bound, the largest pivot
        # (or, under Bland, the smallest label). Preferring large pivots
        # among near-ties is what keeps rounding noise (near-duplicate rows
        # or columns) from becoming a pivot. Rounding can leave a right-hand
        # side a hair below zero; it counts as zero.
        bound = np.inf
        for i in range(mm):
            a = T[i, c]
            if a > PIVOT_TOL:
                rhs = T[i, nn]
                if rhs < 0.0:
                    rhs = 0.0
                t = (rhs + PIVOT_TOL) / a
                if t < bound:
                    bound = t
        r = -1
        best_piv = 0.0
        best_lab = np.inf
        step = 0.0
        for i in range(mm):
            a = T[i, c]
            if a > PIVOT_TOL:
                rhs = T[i, nn]
                if rhs < 0.0:
                    rhs = 0.0
                if rhs <= bound * a:
                    if bland:
                        take = rlab[i] < best_lab
                    else:
                        take = a > best_piv
                    if take:
                        r = i
                        best_piv = a
                        best_lab = rlab[i]
                        step = rhs / a
        if r < 0:
            # Unbounded is impossible for a positive A: numerical trouble.
            return np.nan, STAGE_NOT_OPTIMAL

        # Degenerate pivots do not move the objective; a long streak of them
        # is where Dantzig's rule may cycle, so switch to Bland for good.
        if step <= PIVOT_TOL:
            streak += 1
            if streak > max_streak:
                bland = True
        else:
            streak = 0

        # Tucker pivot: p -> 1/p, pivot row /= p, pivot column -> -col/p,
        # everything else a -= (row entry)(column entry)/p.
        inv_p = 1.0 / T[r, c]
        for j in range(w):
            T[r, j] *= inv_p
        T[r, c] = inv_p
        for i in range(mm + 1):
            if i != r:
                f = T[i, c]
                for j in range(w):
                    T[i, j] -= f * T[r, j]
                T[i, c] = -f * inv_p
        tmp = rlab[r]
        rlab[r] = clab[c]
        clab[c] = tmp

    # Basic q_j (row labels < nn) take the right-hand side; nonbasic slacks
    # (column labels >= nn) give the duals p_i in the objective row. Both sum
    # to 1 / value(A) in [1/2, 1], so entries below PIVOT_TOL are rounding
    # noise around a degenerate zero: drop them, then normalise.
    sx = 0.0
    for j in range(nn):
        k = int(clab[j])
        if k >= nn:
            p = T[mm, j]
            if p > PIVOT_TOL:
                xs[k - nn] = p
                sx += p
    sy = 0.0
    for i in range(mm):
        k = int(rlab[i])
        if k < nn:
            q = T[i, nn]
            if q > PIVOT_TOL:
                ys[k] = q
                sy += q
    if not (sx > 0.0 and sy > 0.0):  # pragma: no cover
        # Defensive: both sums equal the objective value sum(q) >= 1/2 after
        # the first pivot (which always happens); only arithmetic gone wrong
        # lands here, and x = 0 must not reach _certify.
        return np.nan, STAGE_NOT_OPTIMAL
    inv = 1.0 / sx
    for i in range(mm):
        xs[i] *= inv
    inv = 1.0 / sy
    for j in range(nn):
        ys[j] *= inv
    return _certify(M, m, n, x, y)


def _as_matrix(M) -> np.ndarray:
    """Validate a payoff matrix; return it as C-contiguous float64 (copied if needed)."""
    arr = np.asarray(M)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_
    ):
        raise TypeError(
            f"M must be a real numeric matrix, got dtype {arr.dtype}; "
            "pass numbers (e.g. np.asarray(M, dtype=float))"
        )
    if np.iscomplexobj(arr):
        raise TypeError("M must be real, got complex entries; pass M.real if intended")
    if arr.ndim != 2:
        raise ValueError(
            f"M must be 2-D (rows x columns), got shape {arr.shape}; "
            "write a single row as [[a, b, ...]]"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"M must have at least one row and one column, got shape {arr.shape}"
        )
    out = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError("M contains NaN or inf; every payoff must be a finite number")
    return out


def highs_stage(M) -> StageResult:
    """Solve a zero-sum matrix game with scipy's HiGHS (reference backend).

    Solves the row player's LP ``max v s.t. (x^T M)_j >= v for all j,
    sum(x) = 1, x >= 0`` and reads the column strategy from its duals
    (Ferguson, *Game Theory*, Part II, Sec. 4).

    Parameters
    ----------
    M : array_like, shape (m, n)
        Payoffs to the (maximising) row player; finite real numbers.

    Returns
    -------
    StageResult
        Value and optimal strategies (tiny negative entries from the LP
        solver clipped to zero and renormalised).

    Raises
    ------
    ValueError, TypeError
        If ``M`` is not a finite, non-empty, real 2-D array.
    StageSolveError
        If HiGHS does not report an optimal solution, or the strategies
        fail to guarantee the value within ``GUARANTEE_TOL``.
    """
    from scipy.optimize import linprog

    A = _as_matrix(M)
    m, n = A.shape
    # Variables (x_1..x_m, v); minimise -v.
    c = np.zeros(m + 1)
    c[m] = -1.0
    A_ub = np.hstack([-A.T, np.ones((n, 1))])  # v - (x^T M)_j <= 0
    A_eq = np.ones((1, m + 1))
    A_eq[0, m] = 0.0
    bounds = [(0.0, None)] * m + [(None, None)]
    # HiGHS defaults to 1e-7 feasibility tolerances; the oracle must be at
    # least as tight as the 1e-9 contract it checks.
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=bounds,
        method="highs",
        options={
            "primal_feasibility_tolerance": HIGHS_FEAS_TOL,
            "dual_feasibility_tolerance": HIGHS_FEAS_TOL,
        },
    )
    if res.status != 0 or not res.success:
        raise StageSolveError(
            f"HiGHS failed on a {m}x{n} game (status {res.status}: {res.message})"
        )
    # d(-v)/d(b_ub_j) = -y_j: the marginals are minus the column strategy.
    x = _clip_normalise(res.x[:m])
    y = _clip_normalise(-res.ineqlin.marginals)
    value = float(-res.fun)
    _check_guarantee(A, value, x, y, "highs")
    return StageResult(value, x, y)


def _clip_normalise(p: np.ndarray) -> np.ndarray:
    """Drop an LP solver's rounding-level negatives and rescale to sum 1."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, None)
    total = p.sum()
    return p / total if total > 0.0 else np.full_like(p, np.nan)


def _check_guarantee(A, value, x, y, backend):
    """Raise StageSolveError unless x and y guarantee `value` (NaN fails)."""
    lo = float((x @ A).min())
    hi = float((A @ y).max())
    if not (lo >= value - GUARANTEE_TOL and hi <= value + GUARANTEE_TOL):
        raise StageSolveError(
            f"{backend} strategies miss the value {value!r} of a {A.shape[0]}x"
            f"{A.shape[1]} game: row guarantees {lo!r}, column concedes {hi!r}"
        )


def check_backend(name) -> None:
    """Raise ``ValueError`` unless ``name`` is a stage-solver backend (``numba`` or ``highs``)."""
    if name not in ("numba", "highs"):
        raise ValueError(f"unknown stage solver {name!r}: use numba or highs")


def solve_matrix_game(M, backend="numba") -> StageResult:
    """Solve a zero-sum matrix game (validated public API).

    Parameters
    ----------
    M : array_like, shape (m, n)
        Payoffs to the row player, who maximises; the column player
        minimises. Finite real numbers, ``m, n >= 1``.
    backend : {"numba", "highs"}
        ``"numba"`` runs the jitted kernel :func:`solve_stage`; ``"highs"``
        runs :func:`highs_stage` (scipy's HiGHS LP solver).

    Returns
    -------
    StageResult
        ``value`` (exact to ``GUARANTEE_TOL``), ``row`` (shape ``(m,)``) and
        ``col`` (shape ``(n,)``) optimal mixed strategies.

    Raises
    ------
    ValueError
        If ``M`` is not 2-D, is empty, contains NaN/inf, or ``backend`` is
        unknown.
    TypeError
        If ``M`` is not real-numeric.
    StageSolveError
        If the backend reports failure.

    Examples
    --------
    >>> solve_matrix_game([[1, -1], [-1, 1]]).value  # matching pennies
    0.0
    """
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use 'numba' or 'highs'")
    A = _as_matrix(M)
    if backend == "highs":
        return highs_stage(A)
    m, n = A.shape
    x = np.empty(m)
    y = np.empty(n)
    work = np.empty(stage_work_size(m, n))
    value, status = solve_stage(A, m, n, x, y, work)
    if status != STAGE_OK:
        raise StageSolveError(
            f"solve_stage returned {_STATUS_NAMES.get(int(status), status)} on a "
            f"{m}x{n} game; try backend='highs' and report the matrix"
        )
    return StageResult(float(value), x, y)
