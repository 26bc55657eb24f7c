"""Two ``gops`` installations on the same command, alternated, compared by CPU time.

    python benchmarks/side_by_side.py OLD_GOPS NEW_GOPS --runs 3 -- solve --cards 12 --tie discard -q

OLD_GOPS and NEW_GOPS are the ``gops`` scripts of two checkouts (e.g. the
previous release in a ``git worktree`` with its own venv). The runs alternate
(old, new, old, new, ...) after one unmeasured warm-up each (numba's cache), so
a drift of the machine's speed touches both alike; the figure is the median of
the per-pair ratios new/old of the child's CPU time (user + system), which a
busy machine disturbs less than wall time. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import time


def _run(argv) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    _run([a.old, *args])
    _run([a.new, *args])
    old, new = [], []
    for _ in range(a.runs):
        old.append(_run([a.old, *args]))
        new.append(_run([a.new, *args]))
    ratios = [n[0] / o[0] for o, n in zip(old, new)]
    out = {"command": "gops " + " ".join(args), "runs": a.runs,
           "old_cpu_s": [round(c, 3) for c, _ in old], "new_cpu_s": [round(c, 3) for c, _ in new],
           "cpu_ratio_median": round(statistics.median(ratios), 4)}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
