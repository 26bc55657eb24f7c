"""Pivots per stage game under four entering rules, on real stage games of every level.

    NUMBA_NUM_THREADS=1 python benchmarks/pricing_pivots.py 11 [discard|carry] [--samples 20000]

Solves the whole ``points`` game in this process, then draws stage games of
each level in runs of the kernel's own order (``points_floor._draw`` and
``_build``) and solves each with a pivot-counting copy of the simplex of
``stage._simplex`` (the same scaled tableau and Harris ratio test, no
Bland switch) under four entering rules:

- ``dantzig``: the most negative reduced cost (the rule ``stage._simplex``
  and ``stagebatch.solve_batch`` use);
- ``first+dantzig``: the first pivot on the column whose largest entry is
  least (the greatest first step), then Dantzig;
- ``first+devex``: that first pivot, then Devex pricing (P. M. J. Harris
  1973, Math. Programming 5:1-28);
- ``greatest``: at every pivot the column of greatest objective gain (a
  ratio test on every column: the fewest pivots of the four, the dearest).

For each level and rule it prints the mean pivots per game (saddle points
excluded), the mean support size of the column player's strategy (no rule
can take fewer pivots) and the mean over groups of eight consecutive games
of their largest count: eight games share one tableau in
``stagebatch.solve_batch``, which pivots until its slowest lane is done.

Fewer pivots did not make the level kernel faster (4 December): with the
first pivot on the minimax column and Devex from 8 columns in both solvers
(lanes still equal to ``solve_stage`` bit for bit), the n = 12
discard/points kernel (``benchmarks/kernel_levels.py``, two threads, three
rounds alternated with the old code and each rule alone) stayed within the
machine's noise of the old one, so the solvers keep Dantzig's rule. Time is
measured by ``benchmarks/kernel_levels.py``, never by this script.
"""

import argparse
import sys

import numpy as np
from numba import njit

import points_floor as pf
from kernel_levels import timed_induction

import gops_solver.engine.induction as induction
from gops_solver import Rules
from gops_solver.game.constants import PIVOT_TOL
from gops_solver.game.encoding import full_space

RULES = ("dantzig", "first+dantzig", "first+devex", "greatest")


@njit(cache=True)
def _count(M, m, n, rule):
    """``(pivots, support size)`` of the column player's solution; ``(0, 1)`` for a saddle point."""
    lo = np.inf
    hi = -np.inf
    maximin = -np.inf
    for i in range(m):
        r = np.inf
        for j in range(n):
            lo = min(lo, M[i, j])
            hi = max(hi, M[i, j])
            r = min(r, M[i, j])
        maximin = max(maximin, r)
    minimax = np.inf
    jstar = 0
    for j in range(n):
        c = -np.inf
        for i in range(m):
            c = max(c, M[i, j])
        if c < minimax:
            minimax = c
            jstar = j
    if minimax - maximin <= 1e-12:
        return 0, 1
    w = n + 1
    T = np.empty((m + 1, w))
    rlab = np.empty(m)
    wd = np.ones(n)
    inv_span = 1.0 / (hi - lo)
    for i in range(m):
        for j in range(n):
            T[i, j] = (M[i, j] - lo) * inv_span + 1.0
        T[i, n] = 1.0
        rlab[i] = n + i
    clab = np.arange(n).astype(np.float64)
    for j in range(n):
        T[m, j] = -1.0
    T[m, n] = 0.0
    pivots = 0
    while True:
        c = -1
        if pivots == 0 and rule in (1, 2):
            c = jstar
        elif rule == 2:
            best = 0.0
            for j in range(n):
                if T[m, j] < -PIVOT_TOL:
                    v = T[m, j] * T[m, j] / wd[j]
                    if v > best:
                        best = v
                        c = j
        elif rule == 3:
            gain = -1.0
            for j in range(n):
                if T[m, j] < -PIVOT_TOL:
                    b = np.inf
                    for i in range(m):
                        if T[i, j] > PIVOT_TOL:
                            b = min(b, max(T[i, n], 0.0) / T[i, j])
                    if -T[m, j] * b > gain:
                        gain = -T[m, j] * b
                        c = j
        else:
            rc = -PIVOT_TOL
            for j in range(n):
                if T[m, j] < rc:
                    rc = T[m, j]
                    c = j
        if c < 0:
            break
        pivots += 1
        if pivots > 50 * (m + n):
            return -1, 0
        bound = np.inf
        for i in range(m):
            if T[i, c] > PIVOT_TOL:
                bound = min(bound, (max(T[i, n], 0.0) + PIVOT_TOL) / T[i, c])
        r = -1
        piv = 0.0
        for i in range(m):
            a = T[i, c]
            if a > PIVOT_TOL and max(T[i, n], 0.0) <= bound * a and a > piv:
                r = i
                piv = a
        if r < 0:
            return -1, 0
        inv_p = 1.0 / piv
        for j in range(w):
            T[r, j] *= inv_p
        T[r, c] = inv_p
        wc = wd[c]
        for j in range(n):
            wd[j] = max(wd[j], T[r, j] * T[r, j] * wc)
        wd[c] = max(inv_p * inv_p * wc, 1.0)
        for i in range(m + 1):
            if i != r:
                f = T[i, c]
                for j in range(w):
                    T[i, j] -= f * T[r, j]
                T[i, c] = -f * inv_p
        rlab[r], clab[c] = clab[c], rlab[r]
    support = 0
    for i in range(m):
        if rlab[i] < n and T[i, n] > PIVOT_TOL:
            support += 1
    return pivots, support


@njit(cache=True)
def _count_all(mats, dims, rule, out):
    for t in range(len(mats)):
        m, n = dims[t, 0], dims[t, 1]
        if m >= 2 and n >= 2 and not (m == 2 and n == 2):  # solve_batch's shapes
            out[t, 0], out[t, 1] = _count(mats[t], m, n, rule)
        else:
            out[t, 0] = -2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("tie", nargs="?", default="discard", choices=("discard", "carry"))
    ap.add_argument("--samples", type=int, default=20000)
    args = ap.parse_args(argv)
    space = full_space(Rules(n=args.n, tie=args.tie, objective="points"))
    tables, _ = timed_induction(space)
    print("| level | games solved | rule | pivots | support | largest of 8 |")
    print("|---|---|---|---|---|---|")
    for k in range(3, args.n + 1):
        games = induction.level_solves(space, k)
        if games == 0:
            continue
        N = min(args.samples, games)
        dims, mats = pf.drawn_games(space, tables, k, N)
        for rule, name in enumerate(RULES):
            out = np.zeros((N, 2), np.int64)
            _count_all(mats, dims, rule, out)
            batch = out[out[:, 0] >= 0, 0]  # the games solve_batch takes, saddle points included
            mixed = out[out[:, 0] > 0]
            g = batch[: len(batch) // 8 * 8].reshape(-1, 8).max(axis=1).mean() if len(batch) >= 8 else float("nan")
            print(f"| {k} | {games:,} | {name} | {mixed[:, 0].mean():.2f} | {mixed[:, 1].mean():.2f} | {g:.2f} |",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
