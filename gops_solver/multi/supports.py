"""Equilibria from the equal-payoff conditions, with classes of players that play alike.

Two methods the selection rule (:mod:`.equilibrium`) falls back on where the
logit tracers give no certified equilibrium, or none where exchangeable
players play alike:

- :func:`symmetric_equilibrium_near`: the Nash program of Mangasarian and
  Stone, for n players, solved by scipy's SLSQP from a given profile;
- :func:`support_equilibrium`: support enumeration, smallest supports first,
  Newton's method on each tuple's equal-payoff conditions;
- :func:`symmetric_equilibrium_search`: the same Nash program from a fixed
  list of starts, where a degenerate symmetric game defeats both.

Both share one support (or one mix) per class of exchangeable players
(:func:`.equilibrium.exchangeable_classes`), so what they return is
symmetric in those players; with no classes they are the plain methods.
Both use the exact derivatives of the cards' payoffs (:func:`_class_payoffs`).
"""

from __future__ import annotations

import itertools

import numpy as np

from .constants import DEVIATION_TOL, POLISH_MOVE, PURE_TOL, SUPPORT_TUPLES
from .kernel import _pair_payoffs, make_work  # the tracer's own table of pair payoffs
from .payoffs import deviation_gain

__all__ = ["support_equilibrium", "symmetric_equilibrium_near", "symmetric_equilibrium_search"]


def _class_layout(m, classes):
    """``owner[i]``: the first player of ``i``'s class; ``reps``: those first players; ``slot[r]``: ``r``'s rank."""
    owner = list(range(m))
    for c in classes:
        for j in c:
            owner[j] = c[0]
    reps = sorted(set(owner))
    return owner, reps, {r: t for t, r in enumerate(reps)}


def support_equilibrium(U, classes=(), max_supports=SUPPORT_TUPLES):
    """The first mixed equilibrium found by enumerating supports, smallest first; classes play alike.

    A symmetric game has a symmetric equilibrium (Nash 1951), but on a
    degenerate game every logit tracer can stall short of it and the
    library's may end on an asymmetric one. Here each class of exchangeable
    players gets one support (with no classes, each player its own: plain
    support enumeration, the step before simplicial subdivision); the tuples
    of supports are tried in order of total size, then lexicographically
    (cards ascending, classes in player order), skipping all-pure tuples
    (the pure steps come before). On each, Newton's method (from the
    uniform mix on the supports; where no tuple gives an equilibrium, a
    second round from mixes leaning to card 0, 1, ... in turn) solves the
    equal-payoff conditions, ``u_r(a) = v_r`` for ``a`` in ``r``'s support
    and the mixes summing to 1; the first solution with nonnegative
    probabilities and no better card outside the supports is returned.
    Deterministic, so reproducible; it can miss an equilibrium Newton does
    not reach from its start.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    classes : list of tuple of int
        Classes of players that play alike (:func:`.equilibrium.exchangeable_classes` of ``U``), or none.
    max_supports : int
        The most support tuples tried.

    Returns
    -------
    list of numpy.ndarray or None
        The profile (exchangeable players play alike), or None if none was
        found within ``max_supports`` tuples.
    """
    m, k = U.shape[0], U.shape[1]
    owner, reps, slot = _class_layout(m, classes)
    R = len(reps)
    tuples = _support_tuples(k, R, max_supports)
    flat, wk = np.ascontiguousarray(U.reshape(m, -1)), make_work(m, k)
    for lean in (None, *range(k)):  # a second round starts Newton leaning to each card in turn
        for tup in tuples:
            if lean is not None and not any(lean in s for s in tup):
                continue
            found = _support_solution(U, flat, wk, tup, owner, reps, slot, lean)
            if found is not None:
                return found
    return None


def _support_tuples(k, R, limit):
    """The first ``limit`` tuples of ``R`` supports of ``k`` cards, not all pure: by total size, then lexicographically.

    Built one total size at a time, so a 4-player 5-card game (31^4 tuples) never lists them all.
    """
    by_size = {s: list(itertools.combinations(range(k), s)) for s in range(1, k + 1)}
    out = []
    for total in range(R + 1, R * k + 1):
        batch = []
        for sizes in itertools.product(range(1, k + 1), repeat=R):
            if sum(sizes) == total:
                batch.extend(itertools.product(*(by_size[s] for s in sizes)))
        out.extend(sorted(batch))
        if len(out) >= limit:
            break
    return out[:limit]


def _class_payoffs(flat, profile, owner, reps, slot, wk):
    """Each class's card payoffs and their derivatives in each class's mix, at a profile where classes play alike.

    From the kernel's one-pass table of pair payoffs (:func:`.kernel._pair_payoffs`):
    ``wk.w[r, j, a, b]`` is ``r``'s payoff for card ``a`` when ``j`` bids ``b``
    and the rest mix, so ``u_r`` is linear in every other player's mix.

    Parameters
    ----------
    flat : numpy.ndarray, shape (m, k ** m)
        The stage game in the kernel's layout.
    profile : sequence of numpy.ndarray, each shape (k,)
    owner, reps, slot
        :func:`_class_layout`.
    wk : KernelWork
        Scratch space (:func:`.kernel.make_work`).

    Returns
    -------
    u : numpy.ndarray, shape (R, k)
        ``u[c, a]``: the payoff of card ``a`` to class ``c``'s first player ``reps[c]``.
    D : numpy.ndarray, shape (R, R, k, k)
        ``D[c, d, a, b]``: the derivative of ``u[c, a]`` in class ``d``'s probability of card ``b`` (the
        sum of the tables of the players of ``d`` other than ``reps[c]``).
    """
    m, k = wk.u.shape
    _pair_payoffs(flat, np.array(profile), m, k, wk)
    R = len(reps)
    D = np.zeros((R, R, k, k))
    for c, r in enumerate(reps):
        for j in range(m):
            if j != r:
                D[c, slot[owner[j]]] += wk.w[r, j]
    return wk.u[reps].copy(), D


def _support_solution(U, flat, wk, supports, owner, reps, slot, lean=None, iters=15, tol=1e-12):
    """Newton's method on the equal-payoff conditions of one tuple of class supports; the profile or None.

    Newton starts from the uniform mix on each support, or with ``lean`` set
    from mixes giving that card half the weight (where a support holds it).
    Unknowns: each class's probabilities on its support, then one ``v`` per
    class; the Jacobian is exact (:func:`_class_payoffs`).
    """
    m, k = U.shape[0], U.shape[1]
    sizes = [len(s) for s in supports]
    cuts = np.cumsum([0] + sizes)
    rows = np.cumsum([0] + [s + 1 for s in sizes])
    R, N = len(reps), int(cuts[-1])
    cols = [list(s) for s in supports]
    # the index arrays of each Jacobian block, built once per tuple (np.ix_ per Newton step cost a third of the time)
    own = [rows[c] + np.arange(sizes[c]) for c in range(R)]
    blocks = [[np.ix_(cols[c], cols[d]) for d in range(R)] for c in range(R)]

    def start(s):
        if lean not in s or len(s) == 1:
            return np.full(len(s), 1.0 / len(s))
        return np.where(np.array(s) == lean, 0.5, 0.5 / (len(s) - 1))

    def profile(z):
        mixes = []
        for c in range(R):
            p = np.zeros(k)
            p[cols[c]] = z[cuts[c]:cuts[c + 1]]
            mixes.append(p)
        return [mixes[slot[owner[i]]] for i in range(m)]

    def system(z):
        """The residual and its Jacobian at ``z``."""
        u, D = _class_payoffs(flat, profile(z), owner, reps, slot, wk)
        res = np.empty(rows[-1])
        J = np.zeros((rows[-1], N + R))
        for c in range(R):
            res[own[c]] = u[c, cols[c]] - z[N + c]
            for d in range(R):
                J[own[c], cuts[d]:cuts[d + 1]] = D[c, d][blocks[c][d]]
            J[own[c], N + c] = -1.0
            res[rows[c + 1] - 1] = z[cuts[c]:cuts[c + 1]].sum() - 1.0
            J[rows[c + 1] - 1, cuts[c]:cuts[c + 1]] = 1.0
        return res, J

    z = np.concatenate([start(s) for s in supports] + [np.zeros(R)])
    u, _ = _class_payoffs(flat, profile(z), owner, reps, slot, wk)
    z[N:] = [u[c, cols[c]].mean() for c in range(R)]
    scale = max(1.0, float(np.abs(U).max()))
    for _ in range(iters):
        res, J = system(z)
        if np.max(np.abs(res)) <= tol * scale:
            break
        z = z - np.linalg.lstsq(J, res, rcond=None)[0]
        if not np.all(np.isfinite(z)) or np.abs(z[:N]).max() > 10.0:
            return None
    else:
        return None
    if np.min(z[:N]) < -1e-9:
        return None
    prof = [np.clip(p, 0.0, None) for p in profile(z)]
    prof = [p / p.sum() for p in prof]
    return prof if deviation_gain(U, prof) <= PURE_TOL * scale else None


def symmetric_equilibrium_near(U, start, classes, max_move=POLISH_MOVE):
    """A symmetric equilibrium beside ``start``, from the Nash program among symmetric profiles.

    Where the logit branch of a degenerate symmetric game stalls short of
    its limit (regret a few 1e-6), Newton on the last point's supports can
    fail too (the limit is not isolated). The program of Mangasarian and
    Stone (1964, J. Math. Anal. Appl. 9:348-355), for n players: minimise
    ``sum_i (v_i - u_i(p))`` subject to ``u_i(a, p_-i) <= v_i`` for every
    card ``a`` and each ``p_i`` a distribution; its optimum 0 is reached
    exactly at the equilibria. Here one distribution (and one ``v``) serves
    a whole class of exchangeable players, so every point is symmetric;
    scipy's SLSQP solves it from ``start``, deterministically.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    start : numpy.ndarray, shape (m, k)
        A profile where exchangeable players play alike (the kernel's last point of the branch).
    classes : list of tuple of int
        :func:`.equilibrium.exchangeable_classes` of ``U``.
    max_move : float
        The largest change of any probability accepted.

    Returns
    -------
    list of numpy.ndarray or None
        The profile, if its deviation gain is at most ``DEVIATION_TOL`` and
        it moved no probability by more than ``max_move``; None otherwise.
    """
    from scipy.optimize import minimize

    m, k = U.shape[0], U.shape[1]
    owner, reps, slot = _class_layout(m, classes)
    R = len(reps)
    flat, wk = np.ascontiguousarray(U.reshape(m, -1)), make_work(m, k)

    def profile(z):
        x = z[:R * k].reshape(R, k)
        return [x[slot[owner[i]]] for i in range(m)]

    def gaps(z):  # v_c - u_c(a): nonnegative when no card beats the class's bound
        u, _ = _class_payoffs(flat, profile(z), owner, reps, slot, wk)
        return (z[R * k:, None] - u).ravel()

    def gaps_jac(z):
        _, D = _class_payoffs(flat, profile(z), owner, reps, slot, wk)
        J = np.zeros((R * k, R * k + R))
        for c in range(R):
            J[c * k:(c + 1) * k, :R * k] = -D[c].transpose(1, 0, 2).reshape(k, R * k)
            J[c * k:(c + 1) * k, R * k + c] = 1.0
        return J

    def objective(z):  # sum_c v_c - p_c . u_c
        x = z[:R * k].reshape(R, k)
        u, D = _class_payoffs(flat, profile(z), owner, reps, slot, wk)
        grad = np.empty(R * k + R)
        grad[:R * k] = -(u + np.einsum("ca,cdab->db", x, D)).ravel()
        grad[R * k:] = 1.0
        return float(z[R * k:].sum() - (x * u).sum()), grad

    sums = np.kron(np.eye(R), np.ones(k))  # each class's mix sums to 1
    start = np.asarray(start, dtype=np.float64)
    z0 = np.concatenate([start[r] for r in reps] + [np.zeros(R)])
    z0[R * k:] = _class_payoffs(flat, profile(z0), owner, reps, slot, wk)[0].max(axis=1)
    res = minimize(objective, z0, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * (R * k) + [(None, None)] * R,
                   constraints=[{"type": "ineq", "fun": gaps, "jac": gaps_jac},
                                {"type": "eq", "fun": lambda z: sums @ z[:R * k] - 1.0,
                                 "jac": lambda z: np.hstack([sums, np.zeros((R, R))])}],
                   options={"ftol": 1e-15, "maxiter": 500})
    if not np.all(np.isfinite(res.x)):
        return None
    found = [np.clip(p, 0.0, None) for p in profile(res.x)]
    found = [p / p.sum() for p in found]
    if max(float(np.abs(found[r] - start[r]).max()) for r in reps) > max_move:
        return None
    if not deviation_gain(U, found) <= DEVIATION_TOL:
        return None
    return found


#: most starts :func:`symmetric_equilibrium_search` tries (k ** classes + 1 grows fast with 4 players)
SEARCH_STARTS = 256


def symmetric_equilibrium_search(U, classes, max_starts=SEARCH_STARTS):
    """A symmetric equilibrium from the Nash program among symmetric profiles, tried from a fixed list of starts.

    The last resort of the symmetric steps. On some degenerate symmetric
    games (two cards equal for their holders' own payoffs but not for the
    others') the symmetric logit branch stalls, no pure profile where
    classes bid alike is an equilibrium, and Newton on the equal-payoff
    conditions meets a singular system on every support tuple; yet a
    symmetric equilibrium exists (Nash 1951). The Nash program of
    :func:`symmetric_equilibrium_near` has no such singularity: here it is
    solved without a limit on the move from the uniform profile, then from
    profiles leaning to one card per class (0.85 on it, the rest spread
    evenly: every tuple of cards, the first class's card slowest), and the
    first profile certified to ``DEVIATION_TOL`` is returned.
    Deterministic, so reproducible.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    classes : list of tuple of int
        :func:`.equilibrium.exchangeable_classes` of ``U`` (not empty).
    max_starts : int
        The most starts tried.

    Returns
    -------
    list of numpy.ndarray or None
        One mix per player (exchangeable players' equal), or None when no start gives one.
    """
    m, k = U.shape[0], U.shape[1]
    owner, reps, _ = _class_layout(m, classes)
    lean = 0.85 if k > 1 else 1.0
    rest = (1.0 - lean) / max(k - 1, 1)
    starts = itertools.chain([None], itertools.product(range(k), repeat=len(reps)))
    for start in itertools.islice(starts, max_starts):
        prof = np.full((m, k), 1.0 / k)
        if start is not None:
            for r, a in zip(reps, start):
                prof[r] = rest
                prof[r, a] = lean
            prof = prof[owner]  # exchangeable players start alike
        found = symmetric_equilibrium_near(U, prof, classes, max_move=np.inf)
        if found is not None:
            return found
    return None
