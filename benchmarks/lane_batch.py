"""Stage games eight at a time in SIMD lanes (``stagebatch.solve_batch``) against one at a time (``stage.solve_stage``).

    NUMBA_NUM_THREADS=1 python benchmarks/lane_batch.py 11 [discard|carry]

Draws stage games as ``points_floor.py`` does (runs of the kernel's own
order from every level of the ``points`` game, built by the kernel's
builder), checks that both ways give the same values bit for bit, and
times both on chunks of 500 games that stay in cache, best of three
passes, the two alternated, one thread. Games the batch leaves to
``solve_stage`` (2 x 2 and one-row shapes) count in both columns. The
kernel itself is timed side by side with ``kernel_levels.py``.

How it got here (3 December 2026): a first version, whose lanes were
plain numba loops, ran at 0.46-0.67 times the scalar speed: numba does
not vectorise a loop over eight lanes of small arrays. With the vectors
handed to LLVM directly (``gops_solver/lp/_simd.py``) it reached 0.80-0.98
(1.23 on the largest games); with the pivot column and row gathered as
vectors instead of lane by lane, 1.38; with the saddle-point test, the
strategies and the certificate done on the lanes too, 1.59 at n = 11. A batch runs as many pivots as its
slowest lane (1.25-1.35 times the mean on these games), which is what
the lanes still waste.
"""
import sys
import time

import numpy as np
from numba import njit

import gops_solver.engine.induction as induction
import points_floor as pf  # run as a script: benchmarks/ is on the path
from gops_solver import Rules
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.encoding import full_space
from gops_solver.lp.stage import solve_stage
from gops_solver.lp._lanes import LANES, batch_shape, make_batch_work, solve_batch
from gops_solver.engine.tables import WORK
from kernel_levels import timed_induction



@njit(cache=True)
def _scalar_all(mats, dims, vals):
    """``solve_stage`` on every game, values into ``vals``."""
    x = np.empty(MAX_CARDS)
    y = np.empty(MAX_CARDS)
    work = np.empty(WORK)
    for t in range(len(mats)):
        vals[t], _ = solve_stage(mats[t], dims[t, 0], dims[t, 1], x, y, work)


@njit(cache=True)
def _flush(bw, m, n, q, idx, values, status, vals):
    solve_batch(bw, m, n, q, values, status)
    for lane in range(q):
        vals[idx[lane]] = values[lane]


@njit(cache=True)
def _batch_all(mats, dims, vals):
    """The same games in batches of ``LANES`` of one shape (fast-path games by ``solve_stage``), values into ``vals``."""
    bw = make_batch_work(WORK)
    x = np.empty(MAX_CARDS)
    y = np.empty(MAX_CARDS)
    work = np.empty(WORK)
    values = np.empty(LANES)
    status = np.empty(LANES, np.int64)
    idx = np.empty(LANES, np.int64)
    q = 0
    cm = cn = -1
    for t in range(len(mats)):
        m, n = dims[t, 0], dims[t, 1]
        if q > 0 and (m != cm or n != cn):
            _flush(bw, cm, cn, q, idx, values, status, vals)
            q = 0
        M = mats[t]
        if batch_shape(m, n):
            bw.G3[:m, :n, q] = M[:m, :n]
            idx[q] = t
            q += 1
            cm, cn = m, n
            if q == LANES:
                _flush(bw, m, n, q, idx, values, status, vals)
                q = 0
        else:
            vals[t], _ = solve_stage(M, m, n, x, y, work)
    if q > 0:
        _flush(bw, cm, cn, q, idx, values, status, vals)


def main():
    n = int(sys.argv[1])
    tie = sys.argv[2] if len(sys.argv) > 2 else "discard"
    space = full_space(Rules(n=n, tie=tie, objective="points"))
    tables, _ = timed_induction(space)
    print(f"n = {n} {tie}/points, one thread, up to 20,000 games drawn per level")
    print("| level | games solved | mean cells | scalar ns/game | batched ns/game | batched / scalar speed | values equal |")
    print("|---|---|---|---|---|---|---|")
    tot_s = tot_b = 0.0
    for k in range(3, n + 1):
        games = induction.level_solves(space, k)
        if games == 0:
            continue
        N = min(20000, games)
        dims, mats = pf.drawn_games(space, tables, k, N)
        v1 = np.empty(N)
        v2 = np.empty(N)
        _scalar_all(mats, dims, v1)
        _batch_all(mats, dims, v2)
        if not np.array_equal(v1, v2):
            raise SystemExit(f"level {k}: batched values differ from solve_stage's by up to {np.max(np.abs(v1 - v2)):.1e}")
        ts = tb = 0.0
        for b0 in range(0, N, pf._BATCH):
            # a chunk of games fits in L2, as the kernel's one game does; best of three, alternated
            sl = slice(b0, b0 + pf._BATCH)
            best_s = best_b = np.inf
            for _ in range(3):
                t0 = time.perf_counter()
                _scalar_all(mats[sl], dims[sl], v1[sl])
                best_s = min(best_s, time.perf_counter() - t0)
                t0 = time.perf_counter()
                _batch_all(mats[sl], dims[sl], v2[sl])
                best_b = min(best_b, time.perf_counter() - t0)
            ts += best_s
            tb += best_b
        tot_s += ts / N * games
        tot_b += tb / N * games
        cells = float(np.mean(dims[:, 0] * dims[:, 1]))
        print(f"| {k} | {games:,} | {cells:.1f} | {ts / N * 1e9:.0f} | {tb / N * 1e9:.0f} | {ts / tb:.2f} | bit for bit |", flush=True)
    print(f"| all | | | {tot_s:.2f} s | {tot_b:.2f} s | {tot_s / tot_b:.2f} | |")


if __name__ == "__main__":
    main()
