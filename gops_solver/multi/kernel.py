"""Jitted stage-equilibrium kernel of the n-player games (the fast path of :mod:`.equilibrium`).

One call takes a stage game and applies steps 1 and 2 of the selection rule
(see :mod:`.equilibrium`): a unique pure equilibrium (under the ``pure``
selection the first one in which exchangeable players bid alike), else the limit of the
principal branch of the logit quantal response equilibria (McKelvey &
Palfrey 1995), traced here by pseudo-arclength continuation (predictor along
the tangent, Newton corrector on the hyperplane normal to it; Allgower &
Georg, *Introduction to Numerical Continuation Methods*, SIAM 2003, ch. 2),
the method gambit's ``logit_solve`` uses (Turocy 2005). The endpoint is
polished by Newton's method on the equal-payoff conditions of its support.
The corrector stops at residual 1e-6; a game whose trace fails or whose
endpoint is not certified is traced again at 1e-8.
The kernel never raises: it returns a status code, and the caller falls back
to pygambit where it is not ``KERNEL_OK``.

Layout: ``U`` has shape ``(m, K)`` with ``K = k ** m``; profile ``t``
encodes the card indices in C order, ``b_j = (t // k ** (m - 1 - j)) % k``.
Strategies are rows of a ``(m, k)`` array. The branch is traced in
``z = (y, lambda)`` with ``y_i(a) = log(p_i(a) / p_i(0))`` for ``a >= 1``
(one block of ``k - 1`` per player, ``N = m (k - 1)`` unknowns; ``p_i`` is
the softmax of ``(0, y_i)``, so every point is a profile); the logit
equations are, per player ``i``, ``y_i(a) - lambda (u_i(a) - u_i(0)) = 0``
for ``a >= 1``. Since ``u_i`` does not depend on i's own mix, each player's
own block of the Jacobian is the identity.

Cost: expected payoffs take one pass over the payoff tensor, each profile
weighted by the others' probabilities (a pass over a small tensor costs less
than averaging one axis at a time through buffers), and each corrector iterate's
Jacobian is factorised once (LU), the factors at the converged iterate
giving the tangent there as well. Log-odds rather than log-probabilities
(``m k`` unknowns and a normalisation row per player, as in earlier
versions) make the system ``m`` rows smaller; with the residual-only check
after a small Newton update, 1.5-1.8x faster on real stage games
(``benchmarks/tracer_speed.py``; docs/multiplayer.md, Speed), agreeing
with pygambit's tracer as often as before. Exchangeable players
(:func:`symmetry_classes`) share one block of unknowns.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .constants import POLISH_MOVE, SYMMETRY_TOL

__all__ = ["KERNEL_OK", "KERNEL_PURE", "KERNEL_FAILED", "SELECT_NONE", "SELECT_LOGIT", "SELECT_PURE", "KernelWork",
           "make_work", "stage_equilibrium",
           "payoffs_against", "deviation_gain_k", "profile_values", "symmetry_classes"]

#: step 1: the unique pure equilibrium (``SELECT_PURE``: the first symmetric one)
KERNEL_PURE = 1
#: step 2: the traced logit limit, certified
KERNEL_OK = 2
#: the tracer stopped (turned back, stalled, singular) or could not certify: use pygambit
KERNEL_FAILED = 0

#: Selection rules, by their code in the kernels (:data:`.equilibrium.SELECTIONS` names them):
#: no equilibria (security values only); step 1 a unique pure equilibrium, else the logit
#: limit; step 1 the first pure equilibrium in which exchangeable players bid alike, else
#: the logit limit (where there is none, both rules select the same profile)
SELECT_NONE = 0
SELECT_LOGIT = 1
SELECT_PURE = 2

#: the tracer stops when the largest regret is below this fraction of the payoff range
#: (pygambit's default stopping rule, so both stop at the same point of the branch)
_REGRET_TARGET = 1e-8
#: corrector: Newton iterations per step and residual accepted (times max(1, lambda)): only the
#: endpoint must be precise, and it is judged by its regret, so the points on the way need less
_NEWTON_ITERS = 8
_NEWTON_TOL = 1e-6
#: where a trace at _NEWTON_TOL fails or its endpoint is not certified, it is traced again at this
#: residual (the other steps lead elsewhere on some degenerate games)
_NEWTON_TOL_RETRY = 1e-8
#: a Newton update below this is taken to have converged (checked by the residual alone)
_SMALL_UPDATE = 1e-3
#: smallest and largest arclength step, and the most steps of one trace
_H_MIN = 1e-9
#: below this step the trace checks whether it stalled within _STALL_FACTOR of the target
_H_STALL = 1e-6
#: a change of orientation that persists at this step (times lambda, once lambda > 1: the
#: coordinates grow with it) is a bifurcation crossed, not a fold jumped
_H_BIF = 1e-3
_H_MAX = 1e12
_MAX_STEPS = 4000
#: successive tangents must turn by less than this (cosine): a larger turn is a jump between branches
_MIN_COS = 0.95
#: a trace that stalls within this factor of the regret target still counts as reaching it
_STALL_FACTOR = 100.0


class KernelWork(NamedTuple):
    """Scratch space of one stage game (allocated once per game size, modified in place).

    Attributes
    ----------
    strides : int64 (m,)
        ``k ** (m - 1 - j)``.
    p, u : float64 (m, k)
        Mixed profile and each card's expected payoff against it.
    w : float64 (m, m, k, k)
        ``w[i, j, a, c]``: player i's payoff from card a when j bids c (others mixed).
    digits : int64 (k ** m, m)
        Card index of each player in each profile.
    z, zp, y : float64 (N + 1,), N = m (k - 1) at most
        (one block of ``k - 1`` unknowns per class of exchangeable players)
        Point on the branch, predictor, corrector iterate.
    tan, tnew : float64 (N + 1,)
        Tangent at ``z``, tangent at ``y``.
    F : float64 (N + 1,)
        Residual.
    A : float64 (N + 1, N + 1)
        Augmented Jacobian (LU-factorised in place).
    piv : int64 (N + 1,)
        Its row interchanges.
    rep, blk : int64 (m,)
        Each player's class of exchangeable players, named by its first member,
        and the class's block of unknowns (:func:`symmetry_classes`).
    """

    strides: np.ndarray
    p: np.ndarray
    u: np.ndarray
    w: np.ndarray
    digits: np.ndarray
    z: np.ndarray
    zp: np.ndarray
    y: np.ndarray
    tan: np.ndarray
    tnew: np.ndarray
    F: np.ndarray
    A: np.ndarray
    piv: np.ndarray
    rep: np.ndarray
    blk: np.ndarray


@njit(cache=True)
def make_work(m, k):
    """Scratch space for ``m``-player games with ``k`` cards each."""
    N = m * (k - 1)
    strides = np.empty(m, dtype=np.int64)
    for j in range(m):
        strides[j] = k ** (m - 1 - j)
    K = k ** m
    digits = np.empty((K, m), dtype=np.int64)
    for t in range(K):
        for j in range(m):
            digits[t, j] = (t // strides[j]) % k
    return KernelWork(strides, np.empty((m, k)), np.empty((m, k)), np.empty((m, m, k, k)), digits,
                      np.empty(N + 1), np.empty(N + 1), np.empty(N + 1), np.empty(N + 1), np.empty(N + 1),
                      np.empty(N + 1), np.empty((N + 1, N + 1)), np.empty(N + 1, dtype=np.int64),
                      np.arange(m), np.arange(m))


@njit(cache=True)
def _others_weight(p, digits, t, m, i, j):
    """Product of the probabilities, at profile ``t``, of the cards of every player but ``i`` and ``j``."""
    q = 1.0
    for l in range(m):
        if l != i and l != j:
            q *= p[l, digits[t, l]]
    return q


@njit(cache=True)
def payoffs_against(U, p, m, k, wk):
    """``wk.u[i, a]``: player i's expected payoff from card a against the others' mixes ``p``."""
    u, digits = wk.u, wk.digits
    for i in range(m):
        for a in range(k):
            u[i, a] = 0.0
    # one pass over the profiles, each weighted by the others' probabilities (a
    # pass over these small tensors costs less than averaging one axis at a time);
    # 3 and 4 players are nested loops over the cards, so no profile is decoded
    if m == 3:
        U0, U1, U2 = U[0], U[1], U[2]
        for a in range(k):
            pa = p[0, a]
            for b in range(k):
                pb = p[1, b]
                base = (a * k + b) * k
                s = u[0, a]
                for c in range(k):
                    pc = p[2, c]
                    s += U0[base + c] * (pb * pc)
                    u[1, b] += U1[base + c] * (pa * pc)
                    u[2, c] += U2[base + c] * (pa * pb)
                u[0, a] = s
        return
    if m == 4:
        U0, U1, U2, U3 = U[0], U[1], U[2], U[3]
        for a in range(k):
            pa = p[0, a]
            for b in range(k):
                pb = p[1, b]
                for c in range(k):
                    pc = p[2, c]
                    base = ((a * k + b) * k + c) * k
                    s = u[0, a]
                    for d in range(k):
                        pd = p[3, d]
                        s += U0[base + d] * ((pb * pc) * pd)
                        u[1, b] += U1[base + d] * ((pa * pc) * pd)
                        u[2, c] += U2[base + d] * ((pa * pb) * pd)
                        u[3, d] += U3[base + d] * ((pa * pb) * pc)
                    u[0, a] = s
        return
    for t in range(digits.shape[0]):
        for i in range(m):
            u[i, digits[t, i]] += U[i, t] * _others_weight(p, digits, t, m, i, -1)


@njit(cache=True)
def _pair_payoffs(U, p, m, k, wk):
    """``wk.w[i, j, a, c]`` for i != j: i's payoff with own card a and j's card c, the rest mixed; and ``wk.u``."""
    w, digits = wk.w, wk.digits
    for i in range(m):
        for j in range(m):
            for a in range(k):
                for c in range(k):
                    w[i, j, a, c] = 0.0
    # one pass over the profiles: each adds its payoff, weighted by the mixes of
    # the players other than (i, j), to every pair's entry; that weight is the
    # same for (i, j) and (j, i), so it is computed once per unordered pair. For
    # 3 and 4 players the pass is nested loops over the cards (no profile is
    # decoded, and the pairs fixed along the innermost card sum in registers);
    # every entry still adds its terms in profile order, so the sums are the
    # same bit for bit
    if m == 3:
        U0, U1, U2 = U[0], U[1], U[2]
        for a in range(k):
            pa = p[0, a]
            for b in range(k):
                pb = p[1, b]
                base = (a * k + b) * k
                s0 = 0.0
                s1 = 0.0
                for c in range(k):
                    u0, u1, u2 = U0[base + c], U1[base + c], U2[base + c]
                    pc = p[2, c]
                    s0 += u0 * pc
                    s1 += u1 * pc
                    w[0, 2, a, c] += u0 * pb
                    w[2, 0, c, a] += u2 * pb
                    w[1, 2, b, c] += u1 * pa
                    w[2, 1, c, b] += u2 * pa
                w[0, 1, a, b] = s0
                w[1, 0, b, a] = s1
    elif m == 4:
        U0, U1, U2, U3 = U[0], U[1], U[2], U[3]
        for a in range(k):
            pa = p[0, a]
            for b in range(k):
                pb = p[1, b]
                s01, s10 = w[0, 1, a, b], w[1, 0, b, a]
                for c in range(k):
                    pc = p[2, c]
                    base = ((a * k + b) * k + c) * k
                    s02, s20 = w[0, 2, a, c], w[2, 0, c, a]
                    s12, s21 = w[1, 2, b, c], w[2, 1, c, b]
                    for d in range(k):
                        u0, u1, u2, u3 = U0[base + d], U1[base + d], U2[base + d], U3[base + d]
                        pd = p[3, d]
                        q = pc * pd
                        s01 += u0 * q
                        s10 += u1 * q
                        q = pb * pd
                        s02 += u0 * q
                        s20 += u2 * q
                        q = pb * pc
                        w[0, 3, a, d] += u0 * q
                        w[3, 0, d, a] += u3 * q
                        q = pa * pd
                        s12 += u1 * q
                        s21 += u2 * q
                        q = pa * pc
                        w[1, 3, b, d] += u1 * q
                        w[3, 1, d, b] += u3 * q
                        q = pa * pb
                        w[2, 3, c, d] += u2 * q
                        w[3, 2, d, c] += u3 * q
                    w[0, 2, a, c], w[2, 0, c, a] = s02, s20
                    w[1, 2, b, c], w[2, 1, c, b] = s12, s21
                w[0, 1, a, b], w[1, 0, b, a] = s01, s10
    else:
        for t in range(digits.shape[0]):
            for i in range(m):
                for j in range(m):
                    if j != i:
                        w[i, j, digits[t, i], digits[t, j]] += U[i, t] * _others_weight(p, digits, t, m, i, j)
    for i in range(m):
        j = 1 if i == 0 else 0
        for a in range(k):
            s = 0.0
            for c in range(k):
                s += w[i, j, a, c] * p[j, c]
            wk.u[i, a] = s


@njit(cache=True)
def _gain(p, u, m, k):
    """Largest gain of a pure deviation from ``p`` given each card's payoff ``u``."""
    gain = 0.0
    for i in range(m):
        top = u[i, 0]
        mean = 0.0
        for a in range(k):
            top = max(top, u[i, a])
            mean += p[i, a] * u[i, a]
        gain = max(gain, top - mean)
    return gain


@njit(cache=True)
def deviation_gain_k(U, p, m, k, wk):
    """Largest gain of a pure deviation from ``p`` (fills ``wk.u``)."""
    payoffs_against(U, p, m, k, wk)
    return _gain(p, wk.u, m, k)


@njit(cache=True)
def profile_values(U, p, m, k, wk):
    """Each player's expected payoff under the profile ``p``, shape (m,)."""
    payoffs_against(U, p, m, k, wk)
    out = np.zeros(m)
    for i in range(m):
        for a in range(k):
            out[i] += p[i, a] * wk.u[i, a]
    return out


@njit(cache=True)
def _lu(A, piv, n):
    """LU factorisation with partial pivoting of ``A[:n, :n]``, in place (``P A = L U``, unit ``L``).

    ``piv[c]``: the row swapped with row c at column c. Returns False when
    a pivot is (numerically) zero.
    """
    scale = 0.0
    for r in range(n):
        for c in range(n):
            scale = max(scale, abs(A[r, c]))
    if scale == 0.0:
        return False
    for c in range(n):
        pr = c
        big = abs(A[c, c])
        for r in range(c + 1, n):
            if abs(A[r, c]) > big:
                big = abs(A[r, c])
                pr = r
        piv[c] = pr
        if big <= 1e-14 * scale:
            return False
        if pr != c:
            for q in range(n):
                A[c, q], A[pr, q] = A[pr, q], A[c, q]
        inv = 1.0 / A[c, c]
        for r in range(c + 1, n):
            f = A[r, c] * inv
            A[r, c] = f
            if f != 0.0:
                for q in range(c + 1, n):
                    A[r, q] -= f * A[c, q]
    return True


@njit(cache=True)
def _lu_sign(A, piv, n):
    """Sign (+1 or -1) of the determinant of the matrix factorised by :func:`_lu`."""
    sign = 1
    for c in range(n):
        if piv[c] != c:
            sign = -sign
        if A[c, c] < 0.0:
            sign = -sign
    return sign


@njit(cache=True)
def _lu_solve(A, piv, b, n):
    """Solve ``A x = b`` with the factors of :func:`_lu`; ``b`` is overwritten with ``x``."""
    for c in range(n):
        pr = piv[c]
        if pr != c:
            b[c], b[pr] = b[pr], b[c]
    for r in range(1, n):
        s = b[r]
        for q in range(r):
            s -= A[r, q] * b[q]
        b[r] = s
    for c in range(n - 1, -1, -1):
        s = b[c]
        for q in range(c + 1, n):
            s -= A[c, q] * b[q]
        b[c] = s / A[c, c]


@njit(cache=True)
def _residual(U, z, m, k, wk, A):
    """Logit equations at ``z`` into ``wk.F[:N]`` (``wk.p``, ``wk.u`` at ``z``); their Jacobian into ``A[:N]``.

    ``A`` of size 0 skips the Jacobian.
    """
    d = k - 1
    rep, blk = wk.rep, wk.blk
    N = _unknowns(blk, m, k)
    lam = z[N]
    p, u = wk.p, wk.u
    for i in range(m):
        # p_i = softmax(0, y_i), shifted by the largest log-odds against overflow
        # (exchangeable players read the same block: they play alike, bit for bit)
        o = blk[i] * d
        top = 0.0
        for a in range(d):
            top = max(top, z[o + a])
        p[i, 0] = np.exp(-top)
        s = p[i, 0]
        for a in range(1, k):
            p[i, a] = np.exp(z[o + a - 1] - top)
            s += p[i, a]
        for a in range(k):
            p[i, a] /= s
    jacobian = A.shape[0] > 0
    if jacobian:
        _pair_payoffs(U, p, m, k, wk)
    else:
        payoffs_against(U, p, m, k, wk)
    for i in range(m):
        if rep[i] != i:
            continue  # a class's equations are its first member's
        o = blk[i] * d
        for a in range(1, k):
            wk.F[o + a - 1] = z[o + a - 1] - lam * (u[i, a] - u[i, 0])
    if not jacobian:
        return
    # d F_(i,a) / d y_(j,b) = delta - lam p_j(b) [(w_ij(a, b) - u_i(a)) - (w_ij(0, b) - u_i(0))]
    # (d p_j(c) / d y_j(b) = p_j(c) (delta_cb - p_j(b))); i's own block is the identity
    # (the other members of i's class add their terms to i's own block)
    w = wk.w
    for i in range(m):
        if rep[i] != i:
            continue
        for a in range(1, k):
            r = blk[i] * d + a - 1
            for c in range(N):
                A[r, c] = 0.0
            A[r, r] = 1.0
            for j in range(m):
                if j == i:
                    continue
                o = blk[j] * d
                for b in range(1, k):
                    A[r, o + b - 1] -= lam * p[j, b] * ((w[i, j, a, b] - u[i, a]) - (w[i, j, 0, b] - u[i, 0]))
            A[r, N] = -(u[i, a] - u[i, 0])


@njit(cache=True)
def _unknowns(blk, m, k):
    """Unknowns of the branch but lambda: ``k - 1`` per class of exchangeable players."""
    top = 0
    for i in range(m):
        top = max(top, blk[i])
    return (top + 1) * (k - 1)


@njit(cache=True)
def _exchangeable(U, m, k, strides, i, j):
    """True when swapping players ``i`` and ``j`` (cards and payoffs) moves no payoff by more than ``SYMMETRY_TOL``."""
    si, sj = strides[i], strides[j]
    for t in range(U.shape[1]):
        bi = (t // si) % k
        bj = (t // sj) % k
        t2 = t + (bj - bi) * si + (bi - bj) * sj  # the profile with b_i and b_j exchanged
        for l in range(m):
            l2 = j if l == i else (i if l == j else l)
            if abs(U[l, t] - U[l2, t2]) > SYMMETRY_TOL:
                return False
    return True


@njit(cache=True)
def symmetry_classes(U, m, k, wk):
    """Classes of exchangeable players of ``U`` into ``wk.rep`` and ``wk.blk`` (modified in place).

    Exchangeability is transitive (swaps compose), so a player joins the
    class of the first earlier player it can swap with. The logit branch of
    a game symmetric in some players is symmetric in them, so it is traced
    among profiles where they play alike (one block of unknowns per class):
    where the symmetric branch meets an asymmetric one (a pitchfork),
    rounding cannot then pick a side, and exchangeable players get equal
    values (the symmetry the canonical storage relies on).
    """
    nb = 0
    for j in range(m):
        wk.rep[j] = j
        for i in range(j):
            if wk.rep[i] == i and _exchangeable(U, m, k, wk.strides, i, j):
                wk.rep[j] = i
                break
        if wk.rep[j] == j:
            wk.blk[j] = nb
            nb += 1
        else:
            wk.blk[j] = wk.blk[wk.rep[j]]


@njit(cache=True)
def _symmetrise(v, rep, m, k):
    """Average the rows of ``v`` (m, k) over each class of exchangeable players, in place."""
    for r in range(m):
        if rep[r] != r:
            continue
        size = 0
        for i in range(m):
            if rep[i] == r:
                size += 1
        if size == 1:
            continue
        for a in range(k):
            s = 0.0
            for i in range(m):
                if rep[i] == r:
                    s += v[i, a]
            s /= size
            for i in range(m):
                if rep[i] == r:
                    v[i, a] = s


@njit(cache=True)
def _step(U, m, k, wk, h, tol):
    """Newton corrector from the predictor ``wk.zp`` back onto the branch (into ``wk.y``), then the tangent there.

    The iterates stay on the hyperplane through the predictor normal to
    ``wk.tan``. The Jacobian at the last iterate, bordered by ``wk.tan``, is
    the matrix of the tangent too, so one factorisation serves both; after a
    small update the last factorised iterate is the one before.

    Returns
    -------
    ok : bool
        The corrector converged and the Jacobian at ``wk.y`` is regular; the
        unit tangent there is in ``wk.tnew``, ``wk.p`` and ``wk.u`` are at ``wk.y``.
    iters : int
        Newton steps taken.
    """
    N = _unknowns(wk.blk, m, k)
    y, zp, tan, F = wk.y, wk.zp, wk.tan, wk.F
    A, piv = wk.A, wk.piv
    for c in range(N + 1):
        y[c] = zp[c]
    small = False
    for it in range(_NEWTON_ITERS + 1):
        if small:
            # after a small update Newton has most likely converged: the residual
            # alone says so, and the factors of the iterate before (as close to y
            # as that update) give the tangent, saving a Jacobian and its LU
            _residual(U, y, m, k, wk, A[:0])
            res = 0.0
            for r in range(N):
                res = max(res, abs(F[r]))
            if res <= tol * max(1.0, abs(y[N])):
                break
        _residual(U, y, m, k, wk, A)
        res = 0.0
        for r in range(N):
            res = max(res, abs(F[r]))
        proj = 0.0
        for c in range(N + 1):
            A[N, c] = tan[c]
            proj += tan[c] * (y[c] - zp[c])
        if not _lu(A, piv, N + 1):
            return False, it
        if res <= tol * max(1.0, abs(y[N])) and it > 0:
            break
        if it == _NEWTON_ITERS:
            return False, it
        for r in range(N):
            F[r] = -F[r]
        F[N] = -proj
        _lu_solve(A, piv, F, N + 1)
        step = 0.0
        for c in range(N + 1):
            y[c] += F[c]
            step = max(step, abs(F[c]))
        if not np.isfinite(step) or step > h:
            return False, it + 1
        small = step <= _SMALL_UPDATE
    _unit_tangent(A, piv, N, wk.tnew)
    return True, it


@njit(cache=True)
def _unit_tangent(A, piv, N, out):
    """Unit solution of ``B t = e_N`` for the factorised ``B`` (the Jacobian bordered by the previous tangent)."""
    for c in range(N + 1):
        out[c] = 0.0
    out[N] = 1.0
    _lu_solve(A, piv, out, N + 1)
    norm = 0.0
    for c in range(N + 1):
        norm += out[c] * out[c]
    norm = np.sqrt(norm)
    for c in range(N + 1):
        out[c] /= norm


@njit(cache=True)
def _normalise(p, m, k):
    for i in range(m):
        s = 0.0
        for a in range(k):
            s += p[i, a]
        for a in range(k):
            p[i, a] /= s


@njit(cache=True)
def trace_logit(U, m, k, wk, tol=_NEWTON_TOL):
    """Trace the principal logit branch from the uniform profile until the regret target.

    The corrector brings each point to residual ``tol`` (times
    ``max(1, lambda)``). Returns the number of steps (>= 0) with the
    endpoint's profile in ``wk.p`` (normalised), or a negative code if the
    trace fails: -1 steps too small, -2 too many steps, -3 lambda turned
    negative, -4 singular at the start.
    """
    symmetry_classes(U, m, k, wk)
    N = _unknowns(wk.blk, m, k)
    lo = U[0, 0]
    hi = U[0, 0]
    for i in range(m):
        for t in range(U.shape[1]):
            lo = min(lo, U[i, t])
            hi = max(hi, U[i, t])
    target = _REGRET_TARGET * (hi - lo)
    z, zp, y, tan, tnew, A = wk.z, wk.zp, wk.y, wk.tan, wk.tnew, wk.A
    for c in range(N):
        z[c] = 0.0
        tan[c] = 0.0
    z[N] = 0.0
    tan[N] = 1.0
    _residual(U, z, m, k, wk, A)
    if _gain(wk.p, wk.u, m, k) <= target:
        return 0
    for c in range(N + 1):
        A[N, c] = tan[c]
    if not _lu(A, wk.piv, N + 1):
        return -4
    # the branch's orientation: det [J; t'] keeps this sign along it (Allgower &
    # Georg, sec. 2.1), through folds in lambda too
    orientation = _lu_sign(A, wk.piv, N + 1)
    _unit_tangent(A, wk.piv, N, tan)
    h = 0.1
    for step_no in range(_MAX_STEPS):
        if h < _H_STALL:
            # at lambda ~ 1e6 the probabilities underflow and the corrector stalls
            # just short of the target (tiny steps, rejected as soon as they double);
            # an endpoint within _STALL_FACTOR of it goes on to the polish
            _residual(U, z, m, k, wk, A[:0])
            if _gain(wk.p, wk.u, m, k) <= _STALL_FACTOR * target:
                _normalise(wk.p, m, k)
                return step_no
            if h < _H_MIN:
                return -1
        for c in range(N + 1):
            zp[c] = z[c] + h * tan[c]
        ok, iters = _step(U, m, k, wk, h, tol)
        if ok:
            cos = 0.0
            for c in range(N + 1):
                cos += tnew[c] * tan[c]
            ok = cos >= _MIN_COS
        # the new tangent solves [J; t_old'] t = e_N, so it never turns back; where
        # det [J; t'] changed sign the step either jumped across a fold onto the
        # returning leg (smaller steps avoid that) or crossed a bifurcation (a
        # symmetric game's branch meeting an asymmetric one: every step across it
        # flips the sign). A flip that persists at _H_BIF (scaled) is taken for a
        # bifurcation and crossed straight on, along the branch it was following
        if ok and _lu_sign(wk.A, wk.piv, N + 1) != orientation:
            if h > _H_BIF * max(1.0, z[N]):
                ok = False
            else:
                orientation = -orientation
        if not ok:
            h *= 0.5
            continue
        for c in range(N + 1):
            z[c] = y[c]
            tan[c] = tnew[c]
        if z[N] < 0.0:
            return -3
        if _gain(wk.p, wk.u, m, k) <= target:  # wk.p, wk.u are at y
            _normalise(wk.p, m, k)
            return step_no + 1
        if iters <= 2:
            h = min(2.0 * h, _H_MAX)
    return -2


@njit(cache=True)
def polish_support(U, p, m, k, support_tol, wk, out):
    """Newton's method on the equal-payoff conditions of ``p``'s support.

    Unknowns: the probabilities on the support (``p[i, a] > support_tol``);
    equations: every support card of a player earns the same, and each
    mix sums to 1. Writes the refined profile into ``out``; False if Newton
    fails or a probability leaves [0, 1].
    """
    idx = np.empty((m, k), dtype=np.int64)  # unknown number of (i, a), or -1 off the support
    n = 0
    for i in range(m):
        for a in range(k):
            out[i, a] = 0.0
            if p[i, a] > support_tol:
                idx[i, a] = n
                out[i, a] = p[i, a]
                n += 1
            else:
                idx[i, a] = -1
    A = np.empty((n, n))
    b = np.empty(n)
    piv = np.empty(n, dtype=np.int64)
    for _ in range(30):
        _pair_payoffs(U, out, m, k, wk)
        A[:, :] = 0.0
        res = 0.0
        r = 0
        for i in range(m):
            first = -1
            for a in range(k):
                if idx[i, a] < 0:
                    continue
                if first < 0:
                    first = a
                    s = 0.0  # the mix sums to 1
                    for c in range(k):
                        if idx[i, c] >= 0:
                            s += out[i, c]
                            A[r, idx[i, c]] = 1.0
                    b[r] = -(s - 1.0)
                else:  # card a earns what the first support card earns
                    b[r] = -(wk.u[i, a] - wk.u[i, first])
                    for j in range(m):
                        if j == i:
                            continue
                        for c in range(k):
                            if idx[j, c] >= 0:
                                A[r, idx[j, c]] = wk.w[i, j, a, c] - wk.w[i, j, first, c]
                res = max(res, abs(b[r]))
                r += 1
        if res <= 1e-14:
            break
        if not _lu(A, piv, n):
            return False
        _lu_solve(A, piv, b, n)
        for i in range(m):
            for a in range(k):
                if idx[i, a] >= 0:
                    out[i, a] += b[idx[i, a]]
    for i in range(m):
        s = 0.0
        for a in range(k):
            if not (out[i, a] >= -1e-12):  # also catches NaN
                return False
            out[i, a] = max(out[i, a], 0.0)
            s += out[i, a]
        for a in range(k):
            out[i, a] /= s
    return True


@njit(cache=True)
def _pure_equilibrium(U, t, m, k, strides, tol):
    """True when no player gains more than ``tol`` by a pure deviation from the pure profile ``t``."""
    for i in range(m):
        s = strides[i]
        base = t - ((t // s) % k) * s
        top = U[i, base]
        for a in range(1, k):
            top = max(top, U[i, base + a * s])
        if U[i, t] < top - tol:
            return False
    return True


@njit(cache=True)
def _bid_alike(t, m, k, strides, rep):
    """True when every player of the pure profile ``t`` bids the same card index as its class's first player."""
    for i in range(m):
        r = rep[i]
        if r != i and (t // strides[i]) % k != (t // strides[r]) % k:
            return False
    return True


@njit(cache=True)
def stage_equilibrium(U, m, k, pure_tol, dev_tol, wk, out, selection):
    """Steps 1-2 of the selection rule on one stage game.

    Parameters
    ----------
    U : float64 (m, k ** m)
    m, k : int
    pure_tol, dev_tol : float
        ``PURE_TOL`` and ``DEVIATION_TOL`` of :mod:`.constants`.
    wk : KernelWork
    out : float64 (m, k)
        The selected profile (modified in place).
    selection : int
        ``SELECT_LOGIT``: step 1 takes a pure equilibrium only if it is the
        only one. ``SELECT_PURE``: step 1 takes the first pure equilibrium
        (in the order of the profile index: player 1 most significant,
        lowest cards first) in which exchangeable players bid alike.

    Returns
    -------
    status : int
        ``KERNEL_PURE``, ``KERNEL_OK`` or ``KERNEL_FAILED``.
    pure_count : int
        Number of pure equilibria.
    first_pure : int
        The lexicographically first pure equilibrium's profile index, or -1.
    gain : float
        Deviation gain of ``out`` (meaningful unless failed).
    """
    K = U.shape[1]
    strides = wk.strides
    count = 0
    first = -1
    for t in range(K):
        if _pure_equilibrium(U, t, m, k, strides, pure_tol):
            count += 1
            if first < 0:
                first = t
    chosen = first if count == 1 else -1
    if count > 1 and selection == SELECT_PURE:
        # a unique pure equilibrium is its own image under any swap of
        # exchangeable players; among several, the first symmetric one
        symmetry_classes(U, m, k, wk)
        for t in range(first, K):
            if _bid_alike(t, m, k, strides, wk.rep) and _pure_equilibrium(U, t, m, k, strides, pure_tol):
                chosen = t
                break
    if chosen >= 0:
        out[:, :] = 0.0
        for i in range(m):
            out[i, (chosen // strides[i]) % k] = 1.0
        return KERNEL_PURE, count, first, deviation_gain_k(U, out, m, k, wk)
    for tol in (_NEWTON_TOL, _NEWTON_TOL_RETRY):
        gain = _traced_equilibrium(U, m, k, dev_tol, wk, out, tol)
        if gain <= dev_tol:
            return KERNEL_OK, count, first, gain
    return KERNEL_FAILED, count, first, gain


@njit(cache=True)
def _traced_equilibrium(U, m, k, dev_tol, wk, out, tol):
    """Step 2 with the corrector at residual ``tol``: the polished endpoint into ``out``; its deviation gain (inf: no endpoint)."""
    if trace_logit(U, m, k, wk, tol) < 0:
        return np.inf
    traced = wk.p.copy()
    gain = deviation_gain_k(U, traced, m, k, wk)
    for i in range(m):
        for a in range(k):
            out[i, a] = traced[i, a]
    # Newton on the endpoint's support gives the limit itself (the tracer stops
    # at regret 1e-8 of the range); kept where it improves the gain and stays
    # beside the endpoint: on degenerate games Newton can run off to another
    # equilibrium of the same support, and whether it does would then hang on
    # rounding (an endpoint that is not certified itself takes any certified polish)
    polished = np.empty((m, k))
    for support_tol in (1e-6, 1e-4):
        if polish_support(U, traced, m, k, support_tol, wk, polished):
            _symmetrise(polished, wk.rep, m, k)  # rep: trace_logit's classes; Newton's rounding may differ by player
            g = deviation_gain_k(U, polished, m, k, wk)
            move = 0.0
            for i in range(m):
                for a in range(k):
                    move = max(move, abs(polished[i, a] - traced[i, a]))
            if g < gain and (move <= POLISH_MOVE or not gain <= dev_tol):
                gain = g
                for i in range(m):
                    for a in range(k):
                        out[i, a] = polished[i, a]
                break
    return gain
