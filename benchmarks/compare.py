"""Two checkouts side by side: the same gops commands, old and new interleaved, one table.

    git worktree add /tmp/gops-old <commit>
    python benchmarks/compare.py --old /tmp/gops-old --new . [--runs 5] [--cases solve10,query13]

Each run is a fresh process (``python -c`` calling the click group of the
checkout on ``PYTHONPATH``), so wall time includes start-up and loading
numba's cached compilation; one unmeasured warm-up run per checkout fills the
cache first. Runs alternate old, new, old, new ... so a machine whose speed
drifts (other jobs) affects both alike; the ratio is taken pair by pair and
its median reported. CPU seconds and peak memory are the children's own
(``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = {
    "solve10": ("n=10 carry points solve", ["solve", "-n", "10", "--tie", "carry", "--objective", "points", "-q"]),
    "solve9win": ("n=9 discard win solve", ["solve", "-n", "9", "--tie", "discard", "--objective", "win", "-q"]),
    "eval9": ("n=9 carry uniform evaluate", ["evaluate", "--strategy", "uniform", "-n", "9", "--tie", "carry",
                                            "-q"]),
    "query13": ("deep n=13 query (6 cards left, win)",
                ["query", "--hand-a", "2,5,8,J,Q,K", "--hand-b", "3,4,9,10,Q,K", "--pot", "7", "--prizes",
                 "1,6,9,12,13", "--diff", "3", "--objective", "win"]),
}

_RUNNER = "import sys; from gops_solver.cli.commands import cli; cli(sys.argv[1:])"


def run_once(checkout: str, args: list) -> dict:
    """One fresh process of ``gops ARGS`` from ``checkout``: wall s, cpu s, peak MB."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _RUNNER, *args], cwd=checkout, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args)} failed in {checkout}:\n{err[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


def compare(old: str, new: str, case: str, runs: int) -> dict:
    """Interleaved runs of one case; medians and the median of pairwise ratios new/old."""
    _, args = CASES[case]
    run_once(old, args)  # warm-up: numba's cache, the OS's file cache
    run_once(new, args)
    pairs = []
    for i in range(runs):
        pairs.append((run_once(old, args), run_once(new, args)))
        print(f"{case} pair {i + 1}/{runs}: old {pairs[-1][0]['wall']:.2f} s, new {pairs[-1][1]['wall']:.2f} s",
              file=sys.stderr, flush=True)

    def med(side, key):
        return statistics.median(p[side][key] for p in pairs)

    return {"case": case, "old_wall": med(0, "wall"), "new_wall": med(1, "wall"), "old_cpu": med(0, "cpu"),
            "new_cpu": med(1, "cpu"), "old_peak": med(0, "peak_mb"), "new_peak": med(1, "peak_mb"),
            "ratio_wall": statistics.median(n["wall"] / o["wall"] for o, n in pairs),
            "ratio_cpu": statistics.median(n["cpu"] / o["cpu"] for o, n in pairs),
            "spread": (min(n["wall"] / o["wall"] for o, n in pairs), max(n["wall"] / o["wall"] for o, n in pairs))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="checkout of the old commit")
    ap.add_argument("--new", default=".", help="checkout of the new commit [.]")
    ap.add_argument("--runs", type=int, default=5, help="measured pairs per case [5]")
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    a = ap.parse_args(argv)
    print("| case | old wall s | new wall s | new/old wall (min-max) | old cpu s | new cpu s | new/old cpu "
          "| old peak MB | new peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in a.cases.split(","):
        r = compare(a.old, a.new, case, a.runs)
        print(f"| {CASES[case][0]} | {r['old_wall']:.2f} | {r['new_wall']:.2f} | {r['ratio_wall']:.3f} "
              f"({r['spread'][0]:.2f}-{r['spread'][1]:.2f}) | {r['old_cpu']:.2f} | {r['new_cpu']:.2f} "
              f"| {r['ratio_cpu']:.3f} | {r['old_peak']:.0f} | {r['new_peak']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
