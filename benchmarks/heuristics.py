"""Markdown table of every heuristic against the equilibrium, exact (gops evaluate).

    python benchmarks/heuristics.py --cards 6 7 8 9 10 --tie carry discard [--objective points|win] [--out table.md]

One row per (n, tie, heuristic): expected margin and win/draw/loss of the
heuristic (seat A) against the equilibrium (under ``win`` also its payoff
P(win) - P(loss)), its exploitability in the objective's units (what a best
reply takes from it; the game value is 0) and the seconds the evaluation
took (the solve is not counted; numba's compilation is, on the first row,
unless the cache is warm).
Rows are printed as they finish, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import sys
import time

from gops_solver import Rules, solve
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.strategies import HEURISTICS

HEADER = ("| n | tie | heuristic | margin vs eq. | win | draw | loss | exploitability | seconds |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|")
#: under win the payoff is P(win) - P(loss), shown in its own column
HEADER_WIN = ("| n | tie | heuristic | margin vs eq. | win | draw | loss | win - loss | exploitability | seconds |\n"
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, nargs="+", default=[6, 7, 8])
    ap.add_argument("--tie", nargs="+", default=["carry", "discard"])
    ap.add_argument("--objective", default="points")
    ap.add_argument("--strategies", nargs="+", default=list(HEURISTICS))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = open(args.out, "w") if args.out else sys.stdout
    win = args.objective == "win"
    print(HEADER_WIN if win else HEADER, file=out, flush=True)
    for n in args.cards:
        for tie in args.tie:
            rules = Rules(n, tie, args.objective)
            sol = solve(rules)
            for h in args.strategies:
                t0 = time.perf_counter()
                e = evaluate(h, rules, solution=sol)
                o = e.vs_opponent
                value = f"{o.value:+.3f} | " if win else ""
                print(f"| {n} | {tie} | {h} | {o.margin:+.3f} | {o.win:.3f} | {o.draw:.3f} | {o.loss:.3f} | {value}"
                      f"{e.exploitability:.3f} | {time.perf_counter() - t0:.1f} |", file=out, flush=True)


if __name__ == "__main__":
    main()
