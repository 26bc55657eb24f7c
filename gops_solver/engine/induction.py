"""Backward induction, one level (hand size) at a time, inside numba.

``R[k][h, s, c, d]`` is the value, before the next prize is revealed, of
hand pattern ``h`` with prize set ``s`` hidden, carried pot ``cvals[c]`` and
score difference ``d - dmax[k]`` (``win`` only; under ``points`` values are
additive in the difference, so the table stores the future margin alone).
Level k is computed from level k - 1 only: each entry averages, over the
prize revealed next, the value of that round's stage game, whose entries are
level k - 1 values (docs/rules.md, "States, values and strategies").

Tables are flat and hold canonical patterns only (``swap[h] >= h``, see
:class:`~.encoding.Layout`): exchanging the players negates the value and the
difference, ``R[swap[h], s, c, -d] = -R[h, s, c, d]``, so
:func:`~.tables.read_value` reads the other half through the mirror. The
stage game of each entry is built by :func:`~.tables.stage_matrix`, the
builder every other reader of the tables shares (under ``points`` in two
steps with the same entries: :func:`~.tables.points_gather` reads what every
pot's game with one set left hidden shares, :func:`~.tables.points_game`
adds the pot). A pattern's games, all of one shape, are solved eight at a
time in SIMD lanes (:mod:`~.stagebatch`), with the same values bit for bit
as one at a time; under ``points`` the eight are also built at once, from
the entries of the sets they leave hidden (:func:`_build_lanes`).
"""

from __future__ import annotations

import types
from typing import NamedTuple

import llvmlite.binding as llvm
import numpy as np
from numba import config, get_num_threads, njit, objmode, prange

from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
from gops_solver.game.encoding import decode
from gops_solver.lp.stage import StageSolveError, highs_stage, solve_stage
from gops_solver.lp._simd import prefetch, vadd, vload, vmul, vpermute, vsplat, vstore
from gops_solver.lp._lanes import LANES, BatchWork, batch_shape, make_batch_work, solve_batch
from gops_solver.engine.tables import (WORK, game_axes, is_symmetric, level_axes, level_table, points_address, points_cells, points_game,
                     points_gather, points_tied, points_ties, reveal_order, saturates, stage_structure, sure_value, win_cells,
                     win_gather)


#: Solve stage games in SIMD lanes: only as compiled code on a processor with AVX-512, where it
#: was measured. Elsewhere (narrower vectors, not measured) and as plain Python (NUMBA_DISABLE_JIT,
#: which cannot run the vector intrinsics) the kernel takes the games one at a time, same values.
LANES_ON = not config.DISABLE_JIT and "+avx512f" in llvm.get_host_cpu_features().flatten().split(",")

#: The HiGHS backend (``stage_solver="highs"``) is an object-mode call that only the uncached serial
#: kernels of :func:`_serial_kernel` make: the cached kernels are compiled with it off, so a first run
#: does not compile it.
HIGHS_ON = False

#: queued additions per flush of the lanes (a flush also comes when the lanes are full)
_EVENTS = 256
#: cells of the largest game
_KK = MAX_CARDS * MAX_CARDS


class _PotLanes(NamedTuple):
    """One pattern's queue of stage games for :func:`~.stagebatch.solve_batch`.

    Under ``points`` a game goes into the next free lane and its pot is
    marked pending (``pend[pot]`` = lane). The lanes' games are built
    together when they are flushed (:func:`_build_lanes`): a game is
    ``outcome * pot`` plus what the set it leaves hidden reads from the level
    below, so a lane keeps its pot and the slot of ``ring`` that holds its
    set's entries (one slot per set among the queued games), and under the
    carry rule the values of its tied cells. Every addition to the
    pattern's sums is queued in order (``ev_vi``: the sum; ``ev_lane``: the
    lane whose value it adds, or -1 for ``ev_val``, a value known already),
    so that a flush adds them in the order the one-at-a-time kernel did:
    the sums come out the same bit for bit. Under ``win`` a lane's game is
    one difference's, copied in whole (``lane_key``: its slot in the pot's
    row of values), and a difference whose game equals the last one solved
    is queued as a copy (``ev_vi``: its slot, ``ev_lane``: the slot it copies).
    """

    bw: BatchWork
    f: np.ndarray  # floats, at the _F* offsets
    i: np.ndarray  # integers, at the _I* offsets


# The queue's arrays, packed into one float and one integer array: numba counts every array of
# a named tuple in and out on each call that passes it (about 6 ns an array, measured).
_FVAL = 0  # (LANES,) the flushed games' values
_FEV = _FVAL + LANES  # (_EVENTS,) ev_val
_FRING = _FEV + _EVENTS  # (MAX_CARDS**2 * LANES,) points: entries read from below, cell a * nb + b of slot r at (a * nb + b) * LANES + r
_FPOTS = _FRING + _KK * LANES  # (LANES,) points: each lane's pot
_FSLOTS = _FPOTS + LANES  # (LANES,) points: each lane's slot of the ring
_FTIES = _FSLOTS + LANES  # (MAX_CARDS * LANES,) points under carry: tied cell t's entry of lane l at t * LANES + l
_FN = _FTIES + MAX_CARDS * LANES
_ISTAT = 0  # (LANES,) the flushed games' statuses
_IKEY = _ISTAT + LANES  # (LANES,) lane_key: pot of each lane's game (points), its difference's slot (win)
_IEVI = _IKEY + LANES  # (_EVENTS,) ev_vi
_IEVL = _IEVI + _EVENTS  # (_EVENTS,) ev_lane
_ICNT = _IEVL + _EVENTS  # (4,) games in the lanes, queued additions, slots used, set of the last slot
_IPEND = _ICNT + 4  # (pot_len,) pend: lane of the pot's game not yet solved, or -1


@njit(cache=True)
def _pot_lanes(pot_len):
    """An empty :class:`_PotLanes` for pots below ``pot_len``."""
    ints = np.zeros(_IPEND + pot_len, dtype=np.int64)
    ints[_IPEND:] = -1
    return _PotLanes(make_batch_work(WORK), np.zeros(_FN), ints)


@njit(cache=True)
def _queue_game(lanes, W, na, nb, tv, nt, vi, pot, s_prev):
    """Queue the game of ``pot`` with set ``s_prev`` left hidden and its addition to ``acc[vi]``. True when full.

    ``W`` holds the set's entries (:func:`~.tables.points_gather`), ``tv[:nt]``
    the game's tied cells under the carry rule. The kernel reaches the
    queue only through these functions: numba's parallel loop mishandles a
    named tuple's arrays read and written in its body (measured: the sums
    came out wrong).
    """
    lane = lanes.i[_ICNT]
    r = lanes.i[_ICNT + 2]
    new = lane == 0 or lanes.i[_ICNT + 3] != s_prev  # the first game of this set among the queued ones
    if new:
        lanes.i[_ICNT + 2] = r + 1
        lanes.i[_ICNT + 3] = s_prev
    else:
        r -= 1
    # the set's entries into its slot (a loop of no rounds if it has one): a branch around
    # the loop made numba count every array of the queue in and out, 150 ns a game (measured)
    _ring_put(lanes.f, _FRING + r, W, na if new else 0, nb)
    lanes.f[_FSLOTS + lane] = r
    lanes.f[_FPOTS + lane] = pot
    for t in range(nt):
        lanes.f[_FTIES + t * LANES + lane] = tv[t]
    lanes.i[_IKEY + lane] = pot
    lanes.i[_IPEND + pot] = lane
    lanes.i[_ICNT] = lane + 1
    return _queue_add(lanes, vi, pot, 0.0) or lane + 1 == LANES


@njit(cache=True, inline="always")
def _ring_put(ring, r, W, na, nb):
    """``W[:na, :nb]`` into a slot of the ring in ``ring``: cell ``a * nb + b`` at ``(a * nb + b) * LANES + r``."""
    for a in range(na):
        for b in range(nb):
            ring[(a * nb + b) * LANES + r] = W[a, b]


@njit(cache=True)
def _queue_add(lanes, vi, pot, value):
    """Queue ``acc[vi] +=`` the value of ``pot``'s game: its pending lane's, else ``value``. True when full."""
    ne = lanes.i[_ICNT + 1]
    lanes.i[_IEVI + ne] = vi
    lanes.i[_IEVL + ne] = lanes.i[_IPEND + pot]
    lanes.f[_FEV + ne] = value
    lanes.i[_ICNT + 1] = ne + 1
    return ne + 1 == _EVENTS


@njit(cache=True)
def _build_lanes(lanes, outc, na, nb, toff, nt):
    """Build the queued ``points`` games in their lanes, all lanes at once: :func:`~.tables.points_game`'s entries.

    Cell (a, b) of lane l is ``outc[a, b] * pots[l]`` plus the entry of
    the lane's slot of ``ring``, the same two numbers added as
    :func:`~.tables.points_game` adds them; under the carry rule a tied cell
    (lane offsets ``toff[:nt]`` in the games) is the entry queued with the game.
    """
    G = lanes.bw.F
    ring = lanes.f
    pots = vload(lanes.f, _FPOTS)
    slots = vload(lanes.f, _FSLOTS)
    for a in range(na):
        for b in range(nb):
            w = vpermute(vload(ring, _FRING + (a * nb + b) * LANES), slots)
            vstore(G, (a * MAX_CARDS + b) * LANES, vadd(vmul(vsplat(float(outc[a, b])), pots), w))
    for t in range(nt):
        vstore(G, toff[t], vload(lanes.f, _FTIES + t * LANES))


@njit(cache=True)
def _solve_lanes(lanes, na, nb, failed_game):
    """Solve the games in the lanes into their values (``lanes.f[_FVAL:]``); return how many failed (one kept in ``failed_game``)."""
    bw = lanes.bw
    q = lanes.i[_ICNT]
    fails = 0
    if q > 0:
        solve_batch(bw, na, nb, q, lanes.f[_FVAL:_FVAL + LANES], lanes.i[_ISTAT:_ISTAT + LANES])
    for lane in range(q):
        if lanes.i[_ISTAT + lane] != 0 or not np.isfinite(lanes.f[_FVAL + lane]):
            fails += 1
            _keep_failed(bw.G3[:, :, lane], na, nb, failed_game)
    return fails


@njit(cache=True)
def _flush(lanes, outc, na, nb, toff, nt, acc, pot_val, failed_game):
    """Build (:func:`_build_lanes`) and solve the queued games, keep each pot's value, make the queued additions; return the failures."""
    q = lanes.i[_ICNT]
    _build_lanes(lanes, outc, np.int64(na if q > 0 else 0), nb, toff, np.int64(nt if q > 0 else 0))  # nothing to build when none queued
    fails = _solve_lanes(lanes, na, nb, failed_game)
    for lane in range(q):
        pot = lanes.i[_IKEY + lane]
        pot_val[pot] = lanes.f[_FVAL + lane]
        lanes.i[_IPEND + pot] = -1
    for e in range(lanes.i[_ICNT + 1]):
        lane = lanes.i[_IEVL + e]
        acc[lanes.i[_IEVI + e]] += lanes.f[_FVAL + lane] if lane >= 0 else lanes.f[_FEV + e]
    lanes.i[_ICNT] = 0
    lanes.i[_ICNT + 1] = 0
    lanes.i[_ICNT + 2] = 0
    return fails


@njit(cache=True)
def _win_put(lanes, M, na, nb, slot):
    """Put ``M[:na, :nb]``, the game of difference slot ``slot``, in the next lane. True when the lanes are full."""
    lane = lanes.i[_ICNT]
    G3 = lanes.bw.G3
    for a in range(na):
        for b in range(nb):
            G3[a, b, lane] = M[a, b]
    lanes.i[_IKEY + lane] = slot
    lanes.i[_ICNT] = lane + 1
    return lane + 1 == LANES


@njit(cache=True)
def _win_same(lanes, slot, src):
    """Queue slot ``slot``'s value as a copy of slot ``src``'s (an equal game). True when the queue is full."""
    ne = lanes.i[_ICNT + 1]
    lanes.i[_IEVI + ne] = slot
    lanes.i[_IEVL + ne] = src
    lanes.i[_ICNT + 1] = ne + 1
    return ne + 1 == _EVENTS


@njit(cache=True)
def _win_flush(lanes, na, nb, row, failed_game):
    """Solve the queued ``win`` games into their slots of ``row``, then make the queued copies; return the failures."""
    fails = _solve_lanes(lanes, na, nb, failed_game)
    for lane in range(lanes.i[_ICNT]):
        row[lanes.i[_IKEY + lane]] = lanes.f[_FVAL + lane]
    for e in range(lanes.i[_ICNT + 1]):
        row[lanes.i[_IEVI + e]] = row[lanes.i[_IEVL + e]]  # in order: a copy's source is set before it
    lanes.i[_ICNT] = 0
    lanes.i[_ICNT + 1] = 0
    return fails


def level_kernel(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs):
    """Fill the flat table ``R_out`` of ``level`` for its stored positions ``ps``.

    ``game``, ``level`` and ``prev`` (the finished level k - 1) are the
    named tuples of :mod:`~.tables`. ``R_out`` is modified in place;
    ``games_out[i]`` / ``fails_out[i]`` receive the number of stage games
    solved for ``ps[i]`` and of those whose solver did not report success;
    ``failed_game`` receives (rows, columns, entries...) of one failure.
    Under ``win`` ``games_out`` has a column per prize set of ``level``
    (:func:`games_array`): games won for sure are settled without an LP and
    not counted, so a block's count is known only per set.

    The work is done by one of two compiled kernels, :func:`_points_kernel`
    or :func:`_win_kernel`: a solve compiles only its objective's (about
    half of the compile work of one kernel holding both).
    :func:`run_induction` calls :func:`serial_level_kernel` instead for a
    small game.
    """
    kernel = _win_kernel if game.win else _points_kernel
    kernel(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs)


def games_array(game, level, count: int) -> np.ndarray:
    """The zeroed ``games_out`` of :func:`level_kernel` for ``count`` patterns: ``(count, sets)`` under ``win``."""
    return np.zeros((count, len(level.sets)) if game.win else count, np.int64)


def serial_level_kernel(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs):
    """:func:`level_kernel` in one thread, by the objective's serial twin (:data:`SERIAL_MAX_ENTRIES`).

    The same code compiled without ``parallel=True``: the loop over ``ps``
    runs in order, each position's values are computed as in the parallel
    kernel (no position reads another's), so the table is the same bit for
    bit.
    """
    kernel = _win_serial if game.win else _points_serial
    kernel(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs)


def _level_kernel_py(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs):
    """:func:`level_kernel` as plain Python (tests run it with the lanes off or helpers counted)."""
    kernel = _win_kernel if game.win else _points_kernel
    getattr(kernel, "py_func", kernel)(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs)


level_kernel.py_func = _level_kernel_py


@njit(cache=True)
def _reveals(level):
    """The reveals of ``level`` in :func:`~.tables.reveal_order`, spelt out once a level.

    Returns the reveal's set and prize, the set it leaves hidden and that
    set's prize sum, and (for the points loop) the next set hidden after this
    one's run (-1: none), each of length ``sets * reveals``; and the length
    of a table indexed by pot.
    """
    nsets = len(level.sets)
    nrev = level.rev_prize.shape[1]
    order = reveal_order(level)
    nrt = nsets * nrev
    o_si = np.empty(nrt, dtype=np.int64)
    o_p = np.empty(nrt, dtype=np.int64)
    o_set = np.empty(nrt, dtype=np.int64)
    o_sum = np.empty(nrt, dtype=np.int64)
    o_next = np.full(nrt, -1, dtype=np.int64)
    for t in range(nrt):
        si = order[t] // nrev
        j = order[t] - si * nrev
        o_si[t] = si
        o_p[t] = level.rev_prize[si, j]
        o_set[t] = level.rev_set[si, j]
        o_sum[t] = level.rev_sum[si, j]
    for t in range(nrt - 2, -1, -1):
        o_next[t] = o_set[t + 1] if o_set[t + 1] != o_set[t] else o_next[t + 1]
    top = 0  # the largest prize revealed (a loop: np.max compiles a generic reduction)
    for t in range(nrt):
        top = max(top, o_p[t])
    pot_len = level.cvals[-1] + top + 1
    return o_si, o_p, o_set, o_sum, o_next, pot_len


@njit(parallel=True, cache=True)
def _points_kernel(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs):
    """:func:`level_kernel` under ``points``."""
    k = level.k
    nsets = len(level.sets)
    dmax_k = level.dmax
    nd = 2 * dmax_k + 1
    nrev = level.rev_prize.shape[1]
    nrt = nsets * nrev
    o_si, o_p, o_set, o_sum, o_next, pot_len = _reveals(level)
    for i in prange(len(ps)):
        p_out = ps[i]
        h = level.canonical[p_out]
        u = level.pat_u[h]
        tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
        decode(u, level.pat_code[h], tokens)
        stage = stage_structure(tokens, u, game.lut, game.lut_off)
        na, nb = stage.na, stage.nb
        sym = game.mirror and is_symmetric(tokens, u)
        M = np.empty((MAX_CARDS, MAX_CARDS), dtype=np.float64)
        x = np.empty(MAX_CARDS, dtype=np.float64)
        y = np.empty(MAX_CARDS, dtype=np.float64)
        work = np.empty(WORK, dtype=np.float64)
        cap = game.union_cap - u
        nc = level.ncarry[p_out]
        base = level.offset[p_out]
        games = 0
        fails = 0
        # the carries each set allows, listed once: the loop over the
        # reveals (in reveal_order) then has no branch on them
        vstart = np.empty(nsets + 1, dtype=np.int64)
        vci = np.empty(nsets * nc, dtype=np.int16)
        nv = 0
        for si in range(nsets):
            vstart[si] = nv
            for ci in range(nc):
                if level.min_ties[si, ci] <= cap:
                    vci[nv] = ci
                    nv += 1
        vstart[nsets] = nv
        acc_p = np.zeros(nv, dtype=np.float64)
        # The game depends on the pattern, the set left hidden and the pot
        # alone (stage_matrix): a carry c with prize p and c' with p' where
        # c + p = c' + p' play the same game. Reveals come grouped by the
        # set they leave hidden (reveal_order), so each pot's last value
        # and the set it was solved for serve the rest of the group, and
        # what the group's games share is read from the level below once (W).
        pot_val = np.empty(pot_len, dtype=np.float64)
        pot_set = np.full(pot_len, -1, dtype=np.int64)
        W = np.empty((MAX_CARDS, MAX_CARDS), dtype=np.float64)
        base_set = -1  # the set W was read for
        pcells = np.empty((MAX_CARDS * MAX_CARDS, 3), dtype=np.int64)
        points_cells(game, prev, k, stage, pcells)
        # the pattern's games, all na x nb, eight at a time in SIMD lanes
        batched = LANES_ON and not use_highs and batch_shape(na, nb)
        # under the carry rule a tie carries the pot: the tied cells (points_tied) and their
        # places in the lanes' games
        tied = np.empty(MAX_CARDS, dtype=np.int64)
        toff = np.empty(MAX_CARDS, dtype=np.int64)
        tv = np.empty(MAX_CARDS, dtype=np.float64)
        nt = np.int64(points_tied(game, k, stage, tied))  # int64: one specialisation of the queue's functions
        for t in range(nt):
            a = tied[t] // nb
            toff[t] = (a * MAX_CARDS + tied[t] - a * nb) * LANES
        if LANES_ON:  # off: the lanes are never used, and neither they nor their simplex are compiled
            lanes = _pot_lanes(pot_len)
        if not sym:  # a symmetric pattern's value is 0: nothing to solve
            for t in range(nrt):
                si = o_si[t]
                p, s_prev = o_p[t], o_set[t]
                for vi in range(vstart[si], vstart[si + 1]):
                    ci = np.int64(vci[vi])
                    pot = level.cvals[ci] + p
                    games += 1
                    if pot_set[pot] == s_prev:
                        if not batched:
                            acc_p[vi] += pot_val[pot]
                        elif _queue_add(lanes, vi, pot, pot_val[pot]):
                            fails += _flush(lanes, stage.outc, na, nb, toff, nt, acc_p, pot_val, failed_game)
                        continue
                    if base_set != s_prev:
                        points_gather(prev, stage, pcells, s_prev, W)
                        base_set = s_prev
                        # ask for the next set's entries now: they arrive while this set's games are solved
                        s_next = o_next[t]
                        if s_next >= 0:
                            for cj in range(na * nb):
                                at = points_address(prev, pcells, cj, s_next)
                                if at >= 0:
                                    prefetch(prev.R, at)
                    pot_set[pot] = s_prev
                    if batched:
                        points_ties(game, prev, k, stage, tied, nt, pot, ci, s_prev, tv)
                        if _queue_game(lanes, W, na, nb, tv, nt, vi, pot, s_prev):
                            fails += _flush(lanes, stage.outc, na, nb, toff, nt, acc_p, pot_val, failed_game)
                        continue
                    points_game(game, prev, k, stage, pot, ci, s_prev, W, M)
                    if HIGHS_ON and use_highs:
                        v, st = _highs_solve(M, na, nb)
                    else:
                        v, st = solve_stage(M, na, nb, x, y, work)
                    if st != 0 or not np.isfinite(v):
                        fails += 1
                        _keep_failed(M, na, nb, failed_game)
                    pot_val[pot] = v
                    acc_p[vi] += v
            if batched:
                fails += _flush(lanes, stage.outc, na, nb, toff, nt, acc_p, pot_val, failed_game)
        for si in range(nsets):
            for vi in range(vstart[si], vstart[si + 1]):
                R_out[base + (si * nc + vci[vi]) * nd + dmax_k] = acc_p[vi] / nrev
        games_out[i] = games
        fails_out[i] = fails


@njit(parallel=True, cache=True)
def _win_kernel(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs):
    """:func:`level_kernel` under ``win``."""
    k = level.k
    nsets = len(level.sets)
    tmax = len(game.term) // 2
    dmax_k = level.dmax
    nd = 2 * dmax_k + 1
    nrev = level.rev_prize.shape[1]
    nrt = nsets * nrev
    o_si, o_p, o_set, o_sum, o_next, pot_len = _reveals(level)
    # games won for sure by either side are settled without an LP (sure_value)
    saturate = saturates(game.term)
    top = game.term[len(game.term) - 1]
    bot = game.term[0]
    for i in prange(len(ps)):
        p_out = ps[i]
        h = level.canonical[p_out]
        u = level.pat_u[h]
        tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
        decode(u, level.pat_code[h], tokens)
        stage = stage_structure(tokens, u, game.lut, game.lut_off)
        na, nb = stage.na, stage.nb
        sym = game.mirror and is_symmetric(tokens, u)
        M = np.empty((MAX_CARDS, MAX_CARDS), dtype=np.float64)
        x = np.empty(MAX_CARDS, dtype=np.float64)
        y = np.empty(MAX_CARDS, dtype=np.float64)
        work = np.empty(WORK, dtype=np.float64)
        cells = np.empty((MAX_CARDS * MAX_CARDS, 6), dtype=np.int64)
        cap = game.union_cap - u
        nc = level.ncarry[p_out]
        base = level.offset[p_out]
        games_out[i, :] = 0
        fails = 0
        # As under points, a carry c with prize p and c' with p' where
        # c + p = c' + p' play the same games at every difference
        # (win_cells and the range of differences depend on the pot and the
        # set left hidden alone): the reveals come grouped by the set they
        # leave hidden, and each pot's games are solved once per group.
        # Sums go straight into R_out, zeroed first where the loops write.
        for si in range(nsets):
            for ci in range(nc):
                dlo, dlim = _win_range(game, level, si, ci, cap, sym, tmax, dmax_k)
                row = base + (si * nc + ci) * nd + dmax_k
                for d in range(dlo, dlim + 1):
                    R_out[row + d] = 0.0
        pot_vals = np.empty((pot_len, nd), dtype=np.float64)
        pot_set = np.full(pot_len, -1, dtype=np.int64)
        pot_games = np.zeros(pot_len, dtype=np.int64)  # games each pot's row solved
        # the differences' games, all na x nb, eight at a time in SIMD lanes
        batched = LANES_ON and not use_highs and batch_shape(na, nb)
        if LANES_ON:
            lanes = _pot_lanes(1)
        for t in range(nrt):
            si = o_si[t]
            p, s_prev, sum_prev = o_p[t], o_set[t], o_sum[t]
            for ci in range(nc):
                dlo, dlim = _win_range(game, level, si, ci, cap, sym, tmax, dmax_k)
                if dlim < dlo:
                    continue
                pot = level.cvals[ci] + p
                if pot_set[pot] != s_prev:
                    # the differences in order: each cell's reads walk along one
                    # row below, and a game equal to the previous difference's
                    # keeps its value
                    win_cells(game, prev, k, stage, pot, ci, s_prev, sum_prev, cells)
                    v = np.nan
                    first = True
                    src = -1  # under batching: the slot of the last game queued
                    sure = 0
                    solved = 0  # games of the row not settled for sure
                    for d in range(dlo, dlim + 1):
                        changed = win_gather(game, prev, stage, cells, d, M)
                        if saturate and (changed or first):
                            # a game won for sure by either side takes the end payoff, no LP; from the
                            # first one A wins for sure on, so are all larger differences (values rise with d)
                            sure = sure_value(M, na, nb, top, bot)
                            if sure == 1:
                                for dd in range(d, dlim + 1):
                                    pot_vals[pot, dd + dmax_k] = top
                                break
                        if sure == -1:
                            pot_vals[pot, d + dmax_k] = bot
                            first = False
                            continue
                        solved += 1
                        if batched:
                            if changed or first:
                                src = d + dmax_k
                                full = _win_put(lanes, M, na, nb, src)
                            else:
                                full = _win_same(lanes, d + dmax_k, src)
                            if full:
                                fails += _win_flush(lanes, na, nb, pot_vals[pot], failed_game)
                            first = False
                            continue
                        if changed or first:
                            if HIGHS_ON and use_highs:
                                v, st = _highs_solve(M, na, nb)
                            else:
                                v, st = solve_stage(M, na, nb, x, y, work)
                            if st != 0 or not np.isfinite(v):
                                fails += 1
                                _keep_failed(M, na, nb, failed_game)
                        first = False
                        pot_vals[pot, d + dmax_k] = v
                    if batched:
                        fails += _win_flush(lanes, na, nb, pot_vals[pot], failed_game)
                    pot_games[pot] = solved
                    pot_set[pot] = s_prev
                row = base + (si * nc + ci) * nd + dmax_k
                for d in range(dlo, dlim + 1):
                    R_out[row + d] += pot_vals[pot, d + dmax_k]
                games_out[i, si] += pot_games[pot]
        for si in range(nsets):
            for ci in range(nc):
                dlo, dlim = _win_range(game, level, si, ci, cap, sym, tmax, dmax_k)
                if dlim < 0:
                    continue
                row = base + (si * nc + ci) * nd + dmax_k
                if sym:
                    R_out[row] = 0.0  # symmetric position: value 0
                for d in range(dlo, dlim + 1):
                    val = R_out[row + d] / nrev
                    R_out[row + d] = val
                    if sym:
                        R_out[row - d] = -val  # the mirror of a symmetric pattern is itself
        fails_out[i] = fails


@njit(cache=True, inline="always")
def _win_range(game, level, si, ci, cap, sym, tmax, dmax_k):
    """The differences ``dlo..dlim`` whose games set ``si`` with carry ``ci`` solves under ``win`` (empty: dlim < dlo).

    Empty if the carry needs more ties than the hands allow (``cap``); never
    beyond where the game is decided either way; a symmetric pattern solves
    ``d > 0`` only (``d = 0`` is worth 0, ``-d`` is the mirror).
    """
    if level.min_ties[si, ci] > cap:
        return 1, -1
    S = game.set_sum[level.sets[si]] if game.random_order else level.hidden_sum
    c = level.cvals[ci]
    dlim = min(S + c + tmax - 1, game.diff_reach - S - c, dmax_k)
    return (1 if sym else -dlim), dlim


@njit(cache=True)
def _highs_solve(M, na, nb):
    """Value and status of one stage game by HiGHS (checking runs), in object mode.

    The kernel calls :func:`~.stage.solve_stage` itself on its fast path:
    through one shared helper for both backends the level kernel ran 7-10 %
    slower (``benchmarks/kernel_levels.py``, n = 10 and 11, one thread).
    """
    with objmode(v="float64", st="int64"):
        v, st = _highs_value(M, na, nb)
    return v, st


@njit(cache=True, inline="always")
def _keep_failed(M, na, nb, failed_game):
    """Keep one failing game, (rows, columns, entries...), for the error report."""
    failed_game[0] = na
    failed_game[1] = nb
    for a in range(na):
        for b in range(nb):
            failed_game[2 + a * nb + b] = M[a, b]


def serial_twin(dispatcher, name, cache=True, **constants):
    """``dispatcher``'s Python function compiled again without ``parallel=True``, cached under ``name``.

    numba keeps one cache index per function (named by its qualified name
    and line), so the twin is a copy of the function object under another
    name; its cached code never mixes with the parallel kernel's.
    ``constants`` replace module globals for the twin alone: numba reads
    globals as compile-time constants, so a branch they switch off is not
    compiled at all. ``cache=False`` for a twin numba cannot cache (the
    HiGHS kernels' object-mode call). Under ``NUMBA_DISABLE_JIT`` the twin is
    the plain copy, with the same constants.
    """
    f = getattr(dispatcher, "py_func", dispatcher)
    scope = dict(f.__globals__, **constants) if constants else f.__globals__
    twin = types.FunctionType(f.__code__, scope, name, f.__defaults__, f.__closure__)
    twin.__qualname__ = name
    twin.__doc__ = f"{f.__name__} compiled serially as {name}."
    twin.__module__ = f.__module__
    return njit(cache=cache)(twin)


#: Tables of at most this many entries in all (n <= 7 carry, n <= 8 discard) are filled by the serial twins
#: (:func:`serial_level_kernel`): there the threads save little of a solve of well under a second, and the
#: parallel kernel's compile costs a first run several times what the serial one's does.
SERIAL_MAX_ENTRIES = 100_000

def is_small(space) -> bool:
    """Whether :func:`run_induction` fills ``space``'s tables by the serial twins (:data:`SERIAL_MAX_ENTRIES`)."""
    return sum(space.size(k) for k in range(space.kmax + 1)) <= SERIAL_MAX_ENTRIES


# A small game's games go one at a time (LANES_ON off, the same values bit for bit): the SIMD lanes
# save little there, and a first run then compiles neither them nor their batched simplex.
_points_serial = serial_twin(_points_kernel, "_points_serial", LANES_ON=False)
_win_serial = serial_twin(_win_kernel, "_win_serial", LANES_ON=False)

_SERIAL = {}


def _serial_kernel():
    """:func:`level_kernel` compiled serially and uncached, for the HiGHS backend.

    numba cannot run object-mode blocks (the HiGHS call) inside a cached
    parallel loop, so checking runs use these single-threaded twins (the
    objective's twin is compiled on its first call).
    """
    def serial(game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs):
        kernel = _win_kernel if game.win else _points_kernel
        if kernel not in _SERIAL:
            name = "_win_highs" if game.win else "_points_highs"
            _SERIAL[kernel] = serial_twin(kernel, name, cache=False, HIGHS_ON=True, LANES_ON=False)
        _SERIAL[kernel](game, level, prev, ps, R_out, games_out, fails_out, failed_game, use_highs)
    return serial


def _highs_value(M, na, nb):
    """HiGHS value of ``M[:na, :nb]`` and a status code, for the checking backend."""
    try:
        return float(highs_stage(M[:na, :nb].copy()).value), 0
    except StageSolveError:
        return np.nan, 1


def level_work(space, k: int) -> int:
    """Exact number of stage games of level k: one per stored state, reveal and (``win``) difference.

    Games equal to one already solved count too; :func:`level_solves` counts
    those the kernel builds.
    """
    return int(set_work(space, k).sum())


def _stored_patterns(space, k: int):
    """Hand-value counts ``u`` of level k's stored patterns, and which are their own mirror (value 0)."""
    lay = space.layouts[k]
    us = space.patterns.level_u[k][lay.canonical].astype(np.int64)
    sym = (space.patterns.level_swap[k][lay.canonical] == lay.canonical) & space.mirror
    return us, sym


def _win_dlim(space, k: int) -> np.ndarray:
    """``win``: the largest difference solved per (prize set, carry) of level k; none if negative (:func:`_win_range`)."""
    if space.random_order:
        S = space.prize_sets.set_sum[space.sets[k]][:, None]
    else:
        S = np.full((1, 1), space.hidden_sum(k))
    c = np.asarray(space.cvals[k], np.int64)[None, :]
    return np.minimum(np.minimum(S + c + space.tmax - 1, space.diff_reach - S - c), space.dmax[k])


def pattern_work(space, k: int) -> np.ndarray:
    """Stage games of level k per stored pattern, as :func:`level_work` counts them (progress bars).

    Under ``win`` the kernel solves fewer (:func:`~.tables.win_saturation`);
    these are the (state, reveal, difference) positions it settles, solved
    or not, known before the level is filled.
    """
    if k == 0:
        return np.zeros(len(space.layouts[0].canonical), np.int64)
    us, sym = _stored_patterns(space, k)
    mt = space.min_ties[k].astype(np.int64)
    if space.win:
        dlim = _win_dlim(space, k)
        full, half = np.where(dlim >= 0, 2 * dlim + 1, 0), np.where(dlim >= 0, dlim, 0)
    else:
        full, half = np.ones_like(mt), np.zeros_like(mt)
    out = np.zeros(len(us), np.int64)
    for u in np.unique(us):
        valid = mt <= space.union_cap - u
        out[(us == u) & ~sym] = int((full * valid).sum())
        out[(us == u) & sym] = int((half * valid).sum())
    return out * (k if space.random_order else 1)


def set_work(space, k: int) -> np.ndarray:
    """Stage games of level k per prize set (one block each, :mod:`~.blocked`), as :func:`level_work` counts them.

    Mirrors the loops of :func:`level_kernel`, vectorised over patterns.
    """
    if k == 0:
        return np.zeros(1, np.int64)
    us, sym = _stored_patterns(space, k)
    mt = space.min_ties[k].astype(np.int64)
    if space.win:
        dlim = _win_dlim(space, k)
        full = np.where(dlim >= 0, 2 * dlim + 1, 0)
        half = np.where(dlim >= 0, dlim, 0)  # symmetric patterns: d > 0 only
    else:
        full = np.ones_like(mt)
        half = np.zeros_like(mt)
    per_set = np.zeros(len(space.sets[k]), np.int64)
    for u in np.unique(us):
        valid = mt <= space.union_cap - u
        n_plain = int(np.count_nonzero(~sym & (us == u)))
        n_sym = int(np.count_nonzero(sym & (us == u)))
        per_set += n_plain * (full * valid).sum(axis=1) + n_sym * (half * valid).sum(axis=1)
    return per_set * (k if space.random_order else 1)


def level_solves(space, k: int) -> int:
    """Stage games level k builds for the solver: :func:`level_work` less the repeats the kernel skips.

    A game is fixed by its pattern, the set left hidden and the pot (carry
    plus revealed prize), and difference under ``win``; :func:`level_kernel`
    builds each such game once per pattern. Under the carry rule many carries
    and reveals meet at one pot; under ``discard`` the pot is the prize, which
    with the set left hidden gives back the set, so nothing repeats. (Under
    ``win`` a game equal to the previous difference's is not solved again
    either, so the solver may see fewer.) Plain numpy: ``gops info`` and a
    solve's start-up compile nothing for it.
    """
    if k == 0 or not space.carry:
        return level_work(space, k)
    us, sym = _stored_patterns(space, k)
    level = level_axes(space, k)
    cvals = np.asarray(level.cvals, np.int64)
    prize, below = np.asarray(level.rev_prize, np.int64), np.asarray(level.rev_set, np.int64)
    pot_len = int(cvals[-1]) + int(prize.max()) + 1
    # one key per (set left hidden, pot), for every (set, carry, reveal)
    keys = below[:, None, :] * pot_len + cvals[None, :, None] + prize[:, None, :]
    mt = np.asarray(level.min_ties, np.int64)[:, :, None]
    dlim = _win_dlim(space, k) if space.win else None
    total = 0
    for u in np.unique(us):
        for is_sym in (False, True):
            count = int(np.count_nonzero((sym == is_sym) & (us == u)))
            if count == 0 or (is_sym and not space.win):
                continue  # a symmetric pattern's value is 0 under points: nothing solved
            if space.win:
                n_d = np.maximum(dlim - (1 if is_sym else -dlim) + 1, 0)[:, :, None]
            else:
                n_d = np.ones((1, 1, 1), np.int64)
            n_d = np.where(mt <= space.union_cap - u, n_d, 0) * np.ones_like(keys)
            live = n_d > 0
            _, first = np.unique(keys[live], return_index=True)
            total += count * int(n_d[live][first].sum())
    return total


def level0_table(space) -> np.ndarray:
    """The table after the last round: the end payoff ``term(d)`` under ``win``, 0 under ``points``.

    Level 0 has one pattern (empty hands) and one prize set; every carry
    entry holds the same payoffs (the last round discards a tied pot). Only
    ``|d| < tmax`` is ever read (:func:`~.tables.stage_entry` settles the rest as
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


def deal(ps, threads):
    """``ps`` reordered for :func:`level_kernel`'s parallel loop on ``threads`` threads.

    ``prange`` hands each thread one contiguous share of the positions, fixed
    in advance, and neighbouring patterns cost alike (one hand size, one
    pattern shape): dealt round-robin, thread ``t`` gets every
    ``threads``-th pattern from the ``t``-th, so the shares cost alike too.
    The order does not change a value.
    """
    if threads <= 1:
        return ps
    return np.concatenate([ps[t::threads] for t in range(threads)])


def run_induction(space, progress=None, start_tables=None, on_level=None, keep_all=True,
                  chunks_per_level=64, use_highs=False):
    """Compute every level table of ``space`` bottom-up.

    Parameters
    ----------
    space : StateSpace
    progress : callable, optional
        ``progress(level, work)`` after every chunk of work: its stage games
        as :func:`pattern_work` counts them (under ``win`` more than it
        solves), so the chunks of a level add up to :func:`level_work`.
    start_tables : list of ndarray, optional
        Tables of levels 0..j already computed (resume; only the last one is
        read); induction continues at level j + 1.
    on_level : callable, optional
        ``on_level(k, table, games)`` after each finished level (checkpoints),
        with the stage games it solved.
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
    tables = list(start_tables) if start_tables else [level0_table(space)]
    game = game_axes(space)
    if use_highs:
        kernel = _serial_kernel()
    elif is_small(space):
        kernel = serial_level_kernel
    else:
        kernel = level_kernel
    games_total = 0
    failed = np.zeros(2 + MAX_CARDS * MAX_CARDS)
    for k in range(len(tables), space.kmax + 1):
        level = level_axes(space, k)
        prev = level_table(space, k - 1, tables[k - 1])
        R = np.full(space.size(k), np.nan)
        ps = np.arange(len(level.canonical), dtype=np.int64)
        work = pattern_work(space, k) if progress is not None else None
        level_games = 0
        # chunks of a few hundred patterns: progress updates and Ctrl-C land
        # between chunks (a running kernel cannot be interrupted)
        n_chunks = max(1, min(len(ps) // 16, max(chunks_per_level, len(ps) // 256)))
        threads = get_num_threads() if kernel is level_kernel else 1
        for part in np.array_split(ps, n_chunks):
            if len(part) == 0:
                continue
            part = deal(part, threads)
            games = games_array(game, level, len(part))
            fails = np.zeros(len(part), np.int64)
            kernel(game, level, prev, part, R, games, fails, failed, use_highs)
            if fails.any():
                na, nb = int(failed[0]), int(failed[1])
                game_m = failed[2:2 + na * nb].reshape(na, nb).tolist()
                raise StageSolveError(f"{int(fails.sum())} stage games at level {k} were not solved "
                                      f"to optimality (one of them: {game_m!r}); this is a solver bug, please report it")
            games_total += int(games.sum())
            level_games += int(games.sum())
            if progress is not None:
                progress(k, int(work[part].sum()))
        tables.append(R)
        if on_level is not None:
            on_level(k, R, level_games)
        if not keep_all and k >= 2:
            tables[k - 1] = None
    return tables, games_total
