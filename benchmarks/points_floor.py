"""How much of the `points` level kernel is the stage solver itself: the floor under a faster kernel.

    NUMBA_NUM_THREADS=1 python benchmarks/points_floor.py 12 [discard|carry] [--samples 20000]

Runs the whole induction in this process with the level kernel timed per
level (``kernel_levels.timed_induction``), then, level by level, draws stage
games from those the kernel solved, in runs of 50 in the kernel's own order
(a stored pattern that is not its own mirror and a place in the kernel's
order of reveals drawn uniformly, then that reveal's carries and the next
reveals),
builds them with the kernel's own builder (``tables.stage_matrix``) and
times ``stage.solve_stage`` alone on them in a tight loop (batches of 500
games, which stay in cache, best of three passes each). The exact count of
games the level solves (``induction.level_solves``: under carry, equal games
once per pattern) times that time per game is what solving alone costs; the
rest of the kernel's time is building the games, reading the level below and
the loops. The share says how far any change
outside the stage solver can take the kernel.

``--dominance`` also times the same games with weakly dominated rows and
columns removed before the simplex (a pre-pass the solver does not make:
this measures whether it should), and checks that the values agree.
"""

import argparse
import time

import numpy as np
from numba import njit

import gops_solver.engine.induction as induction
from gops_solver import Rules
from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
from gops_solver.game.encoding import decode, full_space
from gops_solver.lp.stage import solve_stage
from gops_solver.engine.tables import (WORK, game_axes, is_symmetric, level_axes, level_table, reveal_order, stage_matrix,
                                stage_structure)
from kernel_levels import timed_induction  # run as a script: benchmarks/ is on the path


@njit(cache=True)
def _draw(game, level, draws, seed, dims):
    """Fill columns 2-5 of ``dims`` (pattern, prize set, carry, reveal) with ``draws`` games in runs of the kernel's order.

    Each run starts at a pattern (stored, not its own mirror) and a place in
    the kernel's order of reveals drawn uniformly (``tables.reveal_order``),
    and takes the games the kernel solves next for that pattern (each
    reveal's carries the hands allow, then the next reveals) up to ``_RUN``
    games: consecutive games of the kernel are alike, and the solver's
    branches are predicted accordingly.
    """
    np.random.seed(seed)
    npat = len(level.canonical)
    nsets = len(level.sets)
    nrev = level.rev_prize.shape[1]
    order = reveal_order(level)
    tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    t = 0
    while t < draws:
        p_out = np.random.randint(npat)
        h = level.canonical[p_out]
        u = level.pat_u[h]
        decode(u, level.pat_code[h], tokens)
        if game.mirror and is_symmetric(tokens, u):
            continue  # value 0, no game solved
        start = np.random.randint(nsets * nrev)
        run = 0
        for step in range(nsets * nrev):
            q = order[(start + step) % (nsets * nrev)]
            s = q // nrev
            j = q - s * nrev
            for ci in range(level.ncarry[p_out]):
                if level.min_ties[s, ci] > game.union_cap - u:
                    continue  # a carry these hands cannot reach
                if t < draws and run < _RUN:
                    dims[t, 2] = p_out
                    dims[t, 3] = s
                    dims[t, 4] = ci
                    dims[t, 5] = j
                    t += 1
                    run += 1
            if run >= _RUN or t >= draws:
                break


@njit(cache=True)
def _build(game, level, prev, dims, mats):
    """Build the drawn games into ``mats`` from the finished level below, as the kernel does; their sizes into ``dims[:, :2]``."""
    tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    for t in range(len(dims)):
        h = level.canonical[dims[t, 2]]
        u = level.pat_u[h]
        decode(u, level.pat_code[h], tokens)
        stage = stage_structure(tokens, u, game.lut, game.lut_off)
        dims[t, 0] = stage.na
        dims[t, 1] = stage.nb
        si, ci, j = dims[t, 3], dims[t, 4], dims[t, 5]
        c = level.cvals[ci]
        stage_matrix(game, prev, level.k, stage, c + level.rev_prize[si, j], 0, ci, level.rev_set[si, j],
                     level.rev_sum[si, j], mats[t])


def drawn_games(space, tables, k, draws):
    """``(dims, mats)``: ``draws`` stage games of level ``k`` (:func:`_draw`, seeded by ``k``), built (:func:`_build`).

    ``dims`` rows are (rows, columns, pattern, prize set, carry, reveal);
    ``mats[t]`` is game ``t``, ``MAX_CARDS`` square, its corner ``dims[t, :2]``.
    """
    game = game_axes(space)
    level = level_axes(space, k)
    prev = level_table(space, k - 1, tables[k - 1])
    dims = np.zeros((draws, 6), np.int64)
    mats = np.zeros((draws, MAX_CARDS, MAX_CARDS))
    _draw(game, level, draws, k, dims)
    _build(game, level, prev, dims, mats)
    return dims, mats


@njit(cache=True)
def _dominance_solve(M, m, n, x, y, work, R, live_r, live_c):
    """``solve_stage`` after removing weakly dominated rows and columns, repeatedly (exact comparisons).

    A row no better than another against every live column, or a column no
    better for the minimiser than another against every live row, can be
    dropped without changing the value (each removal keeps every optimal
    strategy of the smaller game optimal in the larger one), so the smaller
    game's answer is an answer; values agree with the plain solve.
    """
    for i in range(m):
        live_r[i] = True
    for j in range(n):
        live_c[j] = True
    mm, nn = m, n
    changed = True
    while changed:
        changed = False
        for i in range(m):
            if not live_r[i] or mm == 1:
                continue
            for i2 in range(m):
                if i2 == i or not live_r[i2]:
                    continue
                dominated = True
                for j in range(n):
                    if live_c[j] and M[i2, j] < M[i, j]:
                        dominated = False
                        break
                if dominated:
                    live_r[i] = False
                    mm -= 1
                    changed = True
                    break
        for j in range(n):
            if not live_c[j] or nn == 1:
                continue
            for j2 in range(n):
                if j2 == j or not live_c[j2]:
                    continue
                dominated = True
                for i in range(m):
                    if live_r[i] and M[i, j2] > M[i, j]:
                        dominated = False
                        break
                if dominated:
                    live_c[j] = False
                    nn -= 1
                    changed = True
                    break
    if mm == m and nn == n:
        return solve_stage(M, m, n, x, y, work)
    a = 0
    for i in range(m):
        if live_r[i]:
            b = 0
            for j in range(n):
                if live_c[j]:
                    R[a, b] = M[i, j]
                    b += 1
            a += 1
    return solve_stage(R, mm, nn, x, y, work)


@njit(cache=True)
def _solve_all(mats, dims, passes, dominance=False, values=None):
    """Solve every game ``passes`` times (after the dominance pre-pass if asked); sum of values, failures."""
    x = np.empty(MAX_CARDS)
    y = np.empty(MAX_CARDS)
    work = np.empty(WORK)
    R = np.empty((MAX_CARDS, MAX_CARDS))
    live_r = np.empty(MAX_CARDS, dtype=np.bool_)
    live_c = np.empty(MAX_CARDS, dtype=np.bool_)
    total = 0.0
    bad = 0
    for _ in range(passes):
        for t in range(len(mats)):
            if dominance:
                v, st = _dominance_solve(mats[t], dims[t, 0], dims[t, 1], x, y, work, R, live_r, live_c)
            else:
                v, st = solve_stage(mats[t], dims[t, 0], dims[t, 1], x, y, work)
            if values is not None:
                values[t] = v
            total += v
            bad += st != 0
    return total, bad


def _best_of_three(mats, dims, dominance):
    """Seconds of the fastest of three passes over the batch."""
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        _solve_all(mats, dims, 1, dominance)
        best = min(best, time.perf_counter() - t0)
    return best


#: games per run of the kernel's order (:func:`_draw`)
_RUN = 50
#: games per timed batch: 500 padded 13 x 13 games are 0.7 MB, in L2 like the kernel's scratch game
_BATCH = 500


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("tie", nargs="?", default="discard", choices=("discard", "carry"))
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--dominance", action="store_true",
                    help="also time the drawn games with weakly dominated rows and columns removed first")
    args = ap.parse_args()
    space = full_space(Rules(n=args.n, tie=args.tie, objective="points"))
    tables, seconds = timed_induction(space)
    print(f"n = {args.n} {args.tie}/points, one stage-solver thread, {args.samples} games drawn per level")
    extra = " dominance removed first s | ratio |" if args.dominance else ""
    print("| level | stage games solved | mean cells | kernel s | solving alone s | share |" + extra)
    print("|---|---|---|---|---|---|" + ("---|---|" if args.dominance else ""))
    tot_k = tot_s = tot_d = 0.0
    for k in range(2, args.n + 1):
        games = induction.level_solves(space, k)
        if games == 0:
            continue
        N = min(args.samples, games)
        dims, mats = drawn_games(space, tables, k, N)
        _solve_all(mats[:2], dims[:2], 1)
        _solve_all(mats[:2], dims[:2], 1, True)
        spent = spent_d = 0.0
        worst = 0.0
        for b0 in range(0, N, _BATCH):
            # a batch fits in L2, as the kernel's one game does: time its passes once it is in cache
            sl = slice(b0, b0 + _BATCH)
            plain = np.empty(len(mats[sl]))
            _, bad = _solve_all(mats[sl], dims[sl], 1, False, plain)
            if bad:
                raise SystemExit(f"level {k}: {bad} drawn games not solved")
            spent += _best_of_three(mats[sl], dims[sl], False)
            if args.dominance:
                reduced = np.empty(len(mats[sl]))
                _, bad = _solve_all(mats[sl], dims[sl], 1, True, reduced)
                if bad:
                    raise SystemExit(f"level {k}: {bad} drawn games not solved after dominance")
                worst = max(worst, float(np.max(np.abs(plain - reduced))))
                # alternate the two ways on the batch so that both see the same cache and clock
                spent_d += _best_of_three(mats[sl], dims[sl], True)
        if worst > 1e-9:
            raise SystemExit(f"level {k}: values after dominance differ by {worst:.1e}")
        alone = spent / N * games
        with_dom = spent_d / N * games
        tot_k += seconds[k]
        tot_s += alone
        tot_d += with_dom
        cells = float(np.mean(dims[:, 0] * dims[:, 1]))
        extra = f" {with_dom:.2f} | {with_dom / alone:.2f} |" if args.dominance else ""
        print(f"| {k} | {games:,} | {cells:.1f} | {seconds[k]:.2f} | {alone:.2f} | {alone / seconds[k]:.2f} |" + extra)
    extra = f" {tot_d:.2f} | {tot_d / tot_s:.2f} |" if args.dominance else ""
    print(f"| all | | | {tot_k:.2f} | {tot_s:.2f} | {tot_s / tot_k:.2f} |" + extra)


if __name__ == "__main__":
    main()
