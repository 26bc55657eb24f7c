"""Reach of the 3- and 4-player solver: one table, each case in a fresh process.

    python benchmarks/multi_reach.py                    # 3 players n = 3, 4 and 4 players n = 3 (a few minutes)
    python benchmarks/multi_reach.py --cases 3:5:carry:points:security 4:4:carry:points:both --timeout 600
    python benchmarks/multi_reach.py --cases 3:5:discard:win:both --solver both   # recursion, then level solver

A case is ``players:n:tie:objective:what`` with ``what`` ``both`` (security
values and equilibrium), ``pure`` (both, under ``--selection pure``) or
``security``. Each runs ``gops solve --players``
with ``--json`` under a wall-clock limit; the table gives the wall time
(start-up included), the states and the largest deviation gain, or why it
stopped. Wall and CPU seconds (user + system of the child, all its
threads: the level kernel of ``points`` games runs on every core) are
measured by ``resource.getrusage``, the peak resident memory by the child
itself at exit; "stage games" counts the decision states whose stage games
were solved (positions decided under ``win`` need none).

``--solver recursion`` solves whole games with the memoised recursion
(``solve_multi(..., levels=False)``, what ``win`` games used before the
level solver); ``both`` runs each case with the recursion, then with the
level solvers (the default), one after the other.
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


# the child reports its own peak resident memory (kB on Linux) on stderr as it exits
_PEAK = ("import atexit, resource, sys; atexit.register(lambda: print('peak-rss', "
         "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)); ")
# the recursion's solve, printing what `gops solve --players --json` prints
_RECURSION = ("import json, sys; from gops_solver import Rules; from gops_solver.multi import solve_multi; "
              "p, n, t, o, w = sys.argv[1:]; "
              "sol = solve_multi(Rules(int(n), tie=t, objective=o, players=int(p)), equilibrium=w != 'security', "
              "levels=False, selection='pure' if w == 'pure' else 'logit'); "
              "print(json.dumps({'states': sol.states, 'stage_games': sol.stage_games, "
              "'max_deviation_gain': sol.max_deviation_gain}))")


def run_case(case: str, timeout: float, solver: str = "levels") -> str:
    players, n, tie, objective, what = case.split(":")
    if solver == "recursion":
        cmd = [sys.executable, "-c", _PEAK + _RECURSION, players, n, tie, objective, what]
    else:
        cmd = [sys.executable, "-c", _PEAK + "from gops_solver.cli.commands import main; main()", "solve", "--players", players,
               "--cards", n, "--tie", tie, "--objective", objective, "--json"] + \
              (["--security-only"] if what == "security" else []) + (["--selection", "pure"] if what == "pure" else [])
    head = f"| {players} | {n} | {tie} | {objective} | {what} | {solver} |"
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"{head} not finished in {timeout:.0f} s | | | | | |"
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if proc.returncode != 0:
        line = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return f"{head} failed after {wall:.0f} s: {line} | | | | | |"
    out = json.loads(proc.stdout)
    gain = f"{out['max_deviation_gain']:.1e}" if what != "security" else "-"
    peak = [line.split()[1] for line in proc.stderr.splitlines() if line.startswith("peak-rss ")]
    memory = f"{int(peak[-1]) / 1024:,.0f} MiB" if peak else "?"
    return (f"{head} {wall:.1f} s | {cpu:.1f} s | {memory} | "
            f"{out['states']:,} | {out.get('stage_games', out['states']):,} | {gain} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=DEFAULT)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--solver", choices=("levels", "recursion", "both"), default="levels",
                    help="whole games by the level solvers (default), the memoised recursion, or both in turn")
    args = ap.parse_args(argv)
    solvers = ("recursion", "levels") if args.solver == "both" else (args.solver,)
    print("| players | n | tie | objective | solved | solver | wall | CPU | peak memory | states | stage games "
          "| max deviation gain |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case in args.cases:
        for solver in solvers:
            print(run_case(case, args.timeout, solver), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
