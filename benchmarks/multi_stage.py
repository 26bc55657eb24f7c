"""Stage equilibria of the 3-4 player games: the jitted kernel against pygambit, side by side.

    python benchmarks/multi_stage.py                 # 3x3, 3x4, 3x5, 4x3, 4x4 games, 40 each
    python benchmarks/multi_stage.py --games 100 --seed 2

For each size, the same random integer games (payoffs 0..5, as degenerate
as GOPS stage games tend to be) go to both: the kernel's steps 1-2 of the
selection rule (:func:`gops_solver.multi.kernel.stage_equilibrium`) and
pygambit's logit tracer (:func:`gops_solver.multi.equilibrium.logit_equilibrium`),
interleaved game by game so machine load hits both alike. Prints the
seconds of each, how many games had a unique pure equilibrium, how many
the kernel certified, and how many profiles agree to 1e-4.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from gops_solver.multi.equilibrium import EquilibriumError, logit_equilibrium
from gops_solver.multi.kernel import KERNEL_FAILED, KERNEL_PURE, SELECT_LOGIT, make_work, stage_equilibrium


def run(m, k, games, rng):
    wk = make_work(m, k)
    out = np.empty((m, k))
    t_kernel = t_gambit = 0.0
    pure = certified = agree = gambit_failed = 0
    for _ in range(games):
        U = rng.integers(0, 6, (m,) + (k,) * m).astype(float)
        flat = np.ascontiguousarray(U.reshape(m, -1))
        t0 = time.perf_counter()
        status = stage_equilibrium(flat, m, k, 1e-9, 1e-6, wk, out, SELECT_LOGIT)[0]
        t_kernel += time.perf_counter() - t0
        if status == KERNEL_PURE:
            pure += 1
            continue
        certified += status != KERNEL_FAILED
        t0 = time.perf_counter()
        try:
            ref = logit_equilibrium(U)
        except EquilibriumError:
            gambit_failed += 1
            continue
        finally:
            t_gambit += time.perf_counter() - t0
        if status != KERNEL_FAILED and max(np.abs(out[i] - ref[i]).max() for i in range(m)) <= 1e-4:
            agree += 1
    return (f"| {m} | {k} | {games} | {pure} | {certified} | {gambit_failed} | {agree} | "
            f"{t_kernel:.3f} s | {t_gambit:.3f} s |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    run(3, 2, 2, rng)  # compile (or load the cache) outside the timings
    print("| players | cards | games | unique pure | kernel certified | pygambit failed | agree to 1e-4 "
          "| kernel | pygambit (mixed only) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m, k in ((3, 3), (3, 4), (3, 5), (4, 3), (4, 4)):
        print(run(m, k, args.games, rng), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
