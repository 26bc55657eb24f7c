"""Reach of the 3- and 4-player solver: one table, each case in a fresh process.

    python benchmarks/multi_reach.py                    # 3 players n = 3, 4 and 4 players n = 3 (a few minutes)
    python benchmarks/multi_reach.py --cases 3:5:carry:points:security 4:4:carry:points:both --timeout 600

A case is ``players:n:tie:objective:what`` with ``what`` ``both`` (security
values and equilibrium) or ``security``. Each runs ``gops solve --players``
with ``--json`` under a wall-clock limit; the table gives the wall time
(start-up included), the states and the largest deviation gain, or why it
stopped. Wall and CPU seconds (user + system of the child, all its
threads: the level kernel of ``points`` games runs on every core) are
measured by ``resource.getrusage``; "stage games" counts the decision states
whose stage games were solved (positions decided under ``win`` need none).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

DEFAULT = [f"{p}:{n}:{t}:{o}:both" for p, n in ((3, 3), (3, 4), (4, 3))
           for t in ("carry", "discard") for o in ("points", "win")]


def run_case(case: str, timeout: float) -> str:
    players, n, tie, objective, what = case.split(":")
    cmd = [sys.executable, "-c", "from gops_solver.cli import main; main()", "solve", "--players", players, "--cards", n, "--tie", tie,
           "--objective", objective, "--json"] + (["--security-only"] if what == "security" else [])
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"| {players} | {n} | {tie} | {objective} | {what} | not finished in {timeout:.0f} s | | | | |"
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if proc.returncode != 0:
        line = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return f"| {players} | {n} | {tie} | {objective} | {what} | failed after {wall:.0f} s: {line} | | | | |"
    out = json.loads(proc.stdout)
    gain = f"{out['max_deviation_gain']:.1e}" if what == "both" else "-"
    return (f"| {players} | {n} | {tie} | {objective} | {what} | {wall:.1f} s | {cpu:.1f} s | "
            f"{out['states']:,} | {out.get('stage_games', out['states']):,} | {gain} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=DEFAULT)
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args(argv)
    print("| players | n | tie | objective | solved | wall | CPU | states | stage games | max deviation gain |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for case in args.cases:
        print(run_case(case, args.timeout), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
