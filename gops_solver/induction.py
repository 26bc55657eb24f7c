"""Backward induction, one level (hand size) at a time, inside numba.

``R[k][h, s, c, d]`` is the value, before the next prize is revealed, of
hand pattern ``h`` with prize set ``s`` hidden, carried pot ``cvals[c]`` and
score difference ``d - dmax[k]`` (``win`` only; under ``points`` values are
additive in the difference, so the table stores the future margin alone).
Level k is computed from level k - 1 only: each entry averages, over the
prize revealed next, the value of that round's stage game, whose entries are
level k - 1 values (RULES.md, "States, values and strategies").

Tables are flat and hold canonical patterns only (``swap[h] >= h``, see
:class:`~.encoding.Layout`): exchanging the players negates the value and the
difference, ``R[swap[h], s, c, -d] = -R[h, s, c, d]``, so :func:`lookup`
reads the other half through the mirror.
"""

from __future__ import annotations

import numpy as np
from numba import njit, objmode, prange

from .encoding import LUT_OFF, classes, decode, successor
from .stage import StageSolveError, highs_stage, solve_stage, stage_work_size

MAXC = 13  # most classes a player can have (13 cards)
WORK = stage_work_size(MAXC, MAXC)


@njit(cache=True)
def lookup(R, canon, offset, ncarry, nsets, nd, dmax, h, s, c, d):
    """``R[h, s, c, d]`` of a flat level table (NaN outside the stored space).

    ``d`` is the score difference itself (0 under ``points``).
    """
    p = canon[h]
    sign = 1.0
    if p < 0:
        p = -1 - p
        sign = -1.0
        d = -d
    if c >= ncarry[p] or s >= nsets or d > dmax or d < -dmax:
        return np.nan
    return sign * R[offset[p] + (s * ncarry[p] + c) * nd + d + dmax]


@njit(cache=True)
def stage_entry(k, o, pot, d, ci, s_prev, sum_prev, succ, random_order, carry, win,
                cvals_prev, dmax_prev, R_prev, canon_prev, offset_prev, ncarry_prev, nsets_prev,
                tmax, t_lo, t_hi):
    """Value for A of one cell of a stage game: the bids' outcome ``o`` is known.

    ``sum_prev`` is the sum of the prizes hidden after this reveal and
    ``s_prev`` their set's index at level k - 1. Under ``points`` the
    difference is left out (callers add it). Under ``win`` a game ends with
    payoff ``term(final difference)``, read from the level-0 table, which is
    ``t_lo`` / ``t_hi`` for differences beyond -tmax / tmax (see ``StateSpace``).
    """
    if k == 1 and not win:
        return float(o * pot)  # last round: a tie discards the pot under both tie rules
    c2 = 0
    if o == 0 and carry and k > 1:
        c2 = pot if random_order else ci + 1
    if succ < 0 or c2 >= len(cvals_prev):
        return np.nan  # outside the tabulated space (callers fall back)
    nd = 2 * dmax_prev + 1
    if not win:
        return o * pot + lookup(R_prev, canon_prev, offset_prev, ncarry_prev, nsets_prev, nd, dmax_prev,
                                succ, s_prev, c2, 0)
    dd = d + o * pot
    rem = sum_prev + cvals_prev[c2]
    if dd - rem >= tmax:
        return t_hi  # decided: every final difference lies where the end payoff is flat
    if dd + rem <= -tmax:
        return t_lo
    return lookup(R_prev, canon_prev, offset_prev, ncarry_prev, nsets_prev, nd, dmax_prev, succ, s_prev, c2, dd)


@njit(cache=True)
def stage_structure(tokens, u, lut, lut_off):
    """The shape of a pattern's stage games: ``(na, nb, succ, outc)``.

    ``na`` x ``nb`` classes of interchangeable cards (:func:`~.encoding.classes`);
    ``succ[a, b]`` / ``outc[a, b]``: the successor pattern's index and the
    outcome (+1, 0, -1 for A) when A bids from class a and B from class b.
    """
    tmp = np.empty(16, dtype=np.int64)
    cls_a = np.empty(MAXC, dtype=np.int64)
    cls_b = np.empty(MAXC, dtype=np.int64)
    na, nb = classes(tokens, u, cls_a, cls_b)
    succ = np.empty((MAXC, MAXC), dtype=np.int64)
    outc = np.empty((MAXC, MAXC), dtype=np.int64)
    for a in range(na):
        for b in range(nb):
            succ[a, b], outc[a, b] = successor(tokens, u, cls_a[a], cls_b[b], lut, lut_off, tmp)
    return na, nb, succ, outc


@njit(cache=True)
def reveal(q, mask, values, set_rank, set_sum, random_order, seq_next, hidden_sum_k):
    """The ``q``-th possible reveal at level k: ``(prize, s_prev, sum_prev)``; prize 0 if there is none.

    Random order: prize ``values[q]`` when it is among the hidden prizes
    ``mask``, with the index and the sum of the set left hidden at level
    k - 1. Fixed order: ``q = 0`` only, the next prize of the sequence.
    """
    if random_order:
        if not (mask >> q) & 1:
            return 0, 0, 0
        m2 = mask & ~(1 << q)
        return values[q], set_rank[m2], set_sum[m2]
    return seq_next, 0, hidden_sum_k - seq_next


@njit(parallel=True, cache=True)
def level_kernel(k, ps, canonical, offset, ncarry, pat_u, pat_code, lut, lut_off,
                 random_order, carry, win,
                 sets_k, set_rank, set_sum, values, seq_next, hidden_sum_k,
                 cvals_k, min_ties_k, union_cap, dmax_k, diff_reach,
                 cvals_prev, dmax_prev, R_prev, canon_prev, offset_prev, ncarry_prev, nsets_prev,
                 R_out, games_out, fails_out, use_highs, failed_game, term, mirror):
    """Fill the flat level-k table ``R_out`` for the stored positions ``ps``.

    ``R_out`` is modified in place; ``games_out[i]`` / ``fails_out[i]``
    receive the number of stage games solved for ``ps[i]`` and of those whose
    solver did not report success; ``failed_game`` receives (rows, columns,
    entries...) of one failure. ``term`` is the end payoff (``win``);
    ``mirror`` says the tables hold one of each mirror-image pair.
    """
    nsets = len(sets_k)
    tmax = len(term) // 2
    t_lo = term[0]
    t_hi = term[2 * tmax]
    nd = 2 * dmax_k + 1
    for i in prange(len(ps)):
        p_out = ps[i]
        h = canonical[p_out]
        u = pat_u[h]
        tokens = np.empty(16, dtype=np.int64)
        decode(u, pat_code[h], tokens)
        na, nb, succ, outc = stage_structure(tokens, u, lut, lut_off)
        sym = mirror and _is_symmetric(tokens, u)
        M = np.empty((MAXC, MAXC), dtype=np.float64)
        x = np.empty(MAXC, dtype=np.float64)
        y = np.empty(MAXC, dtype=np.float64)
        work = np.empty(WORK, dtype=np.float64)
        cap = union_cap - u
        nc = ncarry[p_out]
        base = offset[p_out]
        games = 0
        fails = 0
        for si in range(nsets):
            mask = sets_k[si]
            S = set_sum[mask] if random_order else hidden_sum_k
            for ci in range(nc):
                if min_ties_k[si, ci] > cap:
                    continue  # this carry needs more ties than the hands allow
                c = cvals_k[ci]
                if win:
                    dlim = min(S + c + tmax - 1, diff_reach - S - c, dmax_k)
                    if dlim < 0:
                        continue
                    dlo = 0 if sym else -dlim
                else:
                    dlim = 0
                    dlo = 0
                row = base + (si * nc + ci) * nd + dmax_k
                for d in range(dlo, dlim + 1):
                    if sym and d == 0:
                        R_out[row] = 0.0  # symmetric position: value 0
                        continue
                    acc = 0.0
                    npots = 0
                    for q in range(len(values) if random_order else 1):
                        p, s_prev, sum_prev = reveal(q, mask, values, set_rank, set_sum, random_order,
                                                     seq_next, hidden_sum_k)
                        if p == 0:
                            continue
                        pot = c + p
                        for a in range(na):
                            for b in range(nb):
                                M[a, b] = stage_entry(k, outc[a, b], pot, d, ci, s_prev, sum_prev,
                                                      succ[a, b], random_order, carry, win,
                                                      cvals_prev, dmax_prev, R_prev, canon_prev,
                                                      offset_prev, ncarry_prev, nsets_prev, tmax, t_lo, t_hi)
                        if use_highs:
                            with objmode(v="float64", st="int64"):
                                v, st = _highs_value(M, na, nb)
                        else:
                            v, st = solve_stage(M, na, nb, x, y, work)
                        games += 1
                        if st != 0 or not np.isfinite(v):
                            fails += 1
                            # keep one failing game for the error report
                            failed_game[0] = na
                            failed_game[1] = nb
                            for a in range(na):
                                for b in range(nb):
                                    failed_game[2 + a * nb + b] = M[a, b]
                        acc += v
                        npots += 1
                    val = acc / npots
                    R_out[row + d] = val
                    if sym:
                        R_out[row - d] = -val  # the mirror of a symmetric pattern is itself
        games_out[i] = games
        fails_out[i] = fails


@njit(cache=True)
def _is_symmetric(tokens, u):
    """True when exchanging the players leaves the pattern unchanged (all tokens shared)."""
    for t in range(u):
        if tokens[t] != 2:
            return False
    return True


_SERIAL = []


def _serial_kernel():
    """:func:`level_kernel` compiled serially and uncached, for the HiGHS backend.

    numba cannot run object-mode blocks (the HiGHS call) inside a cached
    parallel loop, so checking runs use this single-threaded twin.
    """
    if not _SERIAL:
        py_func = getattr(level_kernel, "py_func", None)  # None when NUMBA_DISABLE_JIT=1
        _SERIAL.append(njit(cache=False)(py_func) if py_func is not None else level_kernel)
    return _SERIAL[0]


def _highs_value(M, na, nb):
    """HiGHS value of ``M[:na, :nb]`` and a status code, for the checking backend."""
    try:
        return float(highs_stage(M[:na, :nb].copy()).value), 0
    except StageSolveError:
        return np.nan, 1


def level_work(space, k: int) -> int:
    """Exact number of stage games level k will solve.

    Mirrors the loops of :func:`level_kernel`, vectorised over patterns.
    """
    if k == 0:
        return 0
    lay = space.layouts[k]
    us = space.patterns.level_u[k][lay.canonical].astype(np.int64)
    sym = (space.patterns.level_swap[k][lay.canonical] == lay.canonical) & space.mirror
    if space.random_order:
        S = space.prize_sets.set_sum[space.sets[k]][:, None]
    else:
        S = np.full((1, 1), space.hidden_sum(k))
    c = space.cvals[k][None, :]
    if space.win:
        dlim = np.minimum(np.minimum(S + c + space.tmax - 1, space.diff_reach - S - c), space.dmax[k])
        full = np.where(dlim >= 0, 2 * dlim + 1, 0)
        half = np.where(dlim >= 0, dlim, 0)  # symmetric patterns: d > 0 only
    else:
        full = np.ones_like(S + c)
        half = np.zeros_like(S + c)
    mt = space.min_ties[k].astype(np.int64)
    total = 0
    for u in np.unique(us):
        valid = mt <= space.union_cap - u
        n_plain = int(np.count_nonzero(~sym & (us == u)))
        n_sym = int(np.count_nonzero(sym & (us == u)))
        total += n_plain * int((full * valid).sum()) + n_sym * int((half * valid).sum())
    pots = k if space.random_order else 1
    return total * pots


def level0_table(space) -> np.ndarray:
    """The table after the last round: the end payoff ``term(d)`` under ``win``, 0 under ``points``.

    Level 0 has one pattern (empty hands) and one prize set; every carry
    entry holds the same payoffs (the last round discards a tied pot). Only
    ``|d| < tmax`` is ever read (:func:`stage_entry` settles the rest as
    decided), so other entries stay 0 and a single game's table is all 0,
    as in solution files written before matches existed.
    """
    R = np.zeros(space.size(0))
    if space.win:
        lay = space.layouts[0]
        dmax, t = space.dmax[0], space.tmax
        d = np.arange(-dmax, dmax + 1)
        row = np.where(np.abs(d) < t, space.term[np.clip(d, -t, t) + t], 0.0)
        R[:] = np.tile(row, lay.size // lay.nd)
    return R


def run_induction(space, progress=None, start_tables=None, on_level=None, keep_all=True,
                  chunks_per_level=64, use_highs=False):
    """Compute every level table of ``space`` bottom-up.

    Parameters
    ----------
    space : StateSpace
    progress : callable, optional
        ``progress(level, games_done_in_chunk)`` after every chunk of work.
    start_tables : list of ndarray, optional
        Tables of levels 0..j already computed (resume; only the last one is
        read); induction continues at level j + 1.
    on_level : callable, optional
        ``on_level(k, table)`` after each finished level (checkpoints).
    keep_all : bool
        Keep every level in memory (the returned list); otherwise a level is
        dropped (``None``) once the next one is done, so memory holds two
        levels at a time and ``on_level`` must store them.

    Returns
    -------
    tables : list of ndarray or None
        ``tables[k]`` is the flat table of level k (length ``space.size(k)``).
    games : int
        Stage games solved.
    """
    pats = space.patterns
    tables = list(start_tables) if start_tables else [level0_table(space)]
    if space.random_order:
        set_rank, set_sum, values = space.prize_sets.set_rank, space.prize_sets.set_sum, space.prize_sets.values
    else:
        set_rank = set_sum = np.zeros(1, np.int64)
        values = np.zeros(0, np.int64)
    kernel = _serial_kernel() if use_highs else level_kernel
    games_total = 0
    L = len(space.items)
    failed = np.zeros(2 + MAXC * MAXC)
    for k in range(len(tables), space.kmax + 1):
        lay, prev = space.layouts[k], space.layouts[k - 1]
        R = np.full(lay.size, np.nan)
        seq_next = int(space.seq[L - k]) if not space.random_order else 0
        hidden_k = space.hidden_sum(k) if not space.random_order else 0
        ps = np.arange(len(lay.canonical), dtype=np.int64)
        # chunks of a few hundred patterns: progress updates and Ctrl-C land
        # between chunks (a running kernel cannot be interrupted)
        n_chunks = max(1, min(len(ps) // 16, max(chunks_per_level, len(ps) // 256)))
        for part in np.array_split(ps, n_chunks):
            if len(part) == 0:
                continue
            games = np.zeros(len(part), np.int64)
            fails = np.zeros(len(part), np.int64)
            kernel(k, part, lay.canonical, lay.offset, lay.ncarry, pats.level_u[k], pats.level_code[k],
                   pats.lut, LUT_OFF, space.random_order, space.carry, space.win,
                   space.sets[k], set_rank, set_sum, values, seq_next, hidden_k,
                   space.cvals[k], space.min_ties[k], space.union_cap, space.dmax[k], space.diff_reach,
                   space.cvals[k - 1], space.dmax[k - 1], tables[k - 1], prev.canon, prev.offset, prev.ncarry,
                   len(space.sets[k - 1]), R, games, fails, use_highs, failed, space.term, space.mirror)
            if fails.any():
                na, nb = int(failed[0]), int(failed[1])
                game = failed[2:2 + na * nb].reshape(na, nb).tolist()
                raise StageSolveError(f"{int(fails.sum())} stage games at level {k} were not solved "
                                      f"to optimality (one of them: {game!r}); this is a solver bug, please report it")
            games_total += int(games.sum())
            if progress is not None:
                progress(k, int(games.sum()))
        tables.append(R)
        if on_level is not None:
            on_level(k, R)
        if not keep_all and k >= 2:
            tables[k - 1] = None
    return tables, games_total
