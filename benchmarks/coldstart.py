"""Cold and warm start of the first commands a new user runs.

    python benchmarks/coldstart.py                      # 3 repeats, results to benchmarks/coldstart.json
    python benchmarks/coldstart.py --repeat 2 --label before --out benchmarks/coldstart_before.json

Every command runs as a subprocess of the installed ``gops`` script. A
*cold* run gets its own empty ``NUMBA_CACHE_DIR``, so it pays for compiling
every kernel it calls; the *warm* run that follows reuses that cache. An
evaluate is also run first in a cache that a solve filled (*after solve*):
the first evaluate of a user who solved first. Wall
time is measured around the subprocess, CPU time (user + system) from its
resource usage: on a shared machine the CPU time says more about the work,
the wall time is what the user waits. The load average is recorded with
each run. Prints min and median per command and writes every sample to a
JSON file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOPS = str(Path(sys.executable).with_name("gops"))

COMMANDS = {
    "solve6": ["solve", "--cards", "6", "-q"],
    "evaluate6": ["evaluate", "--cards", "6", "--a", "match", "-q"],
}
#: a command's first run in a cache that another command filled: the evaluate a user runs after the solve
AFTER = {"evaluate6": "solve6"}


def _run(args, cache):
    """Run ``gops args`` with numba's cache in ``cache``; wall and CPU seconds, and the load before it."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([GOPS, *args], capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"gops {' '.join(args)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "load1": round(load, 2), "stderr": out.stderr[-400:]}


def measure(names, repeat):
    """``repeat`` cold runs (each in a fresh cache) and one warm run after each, per command."""
    samples = {name: {"cold": [], "warm": []} for name in names}
    for _ in range(repeat):
        for name in names:
            cache = tempfile.mkdtemp(prefix="gops-numba-")
            try:
                samples[name]["cold"].append(_run(COMMANDS[name], cache))
                samples[name]["warm"].append(_run(COMMANDS[name], cache))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            if name in AFTER:
                cache = tempfile.mkdtemp(prefix="gops-numba-")
                try:
                    _run(COMMANDS[AFTER[name]], cache)
                    samples[name].setdefault(f"after {AFTER[name]}", []).append(_run(COMMANDS[name], cache))
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
    return samples


def summary(samples):
    """min and median of wall and CPU seconds per command and state."""
    rows = {}
    for name, states in samples.items():
        for state, runs in states.items():
            if runs:
                walls = [r["wall_s"] for r in runs]
                cpus = [r["cpu_s"] for r in runs]
                rows[f"{name} {state}"] = {"runs": len(runs), "wall_min": min(walls),
                                            "wall_median": statistics.median(walls), "cpu_min": min(cpus),
                                            "cpu_median": statistics.median(cpus),
                                            "load1": [r["load1"] for r in runs]}
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=sorted(COMMANDS), action="append", help="run only this command (repeatable)")
    ap.add_argument("--label", default="current", help="a name for this code state in the results")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "coldstart.json"))
    args = ap.parse_args()
    names = args.only or list(COMMANDS)
    samples = measure(names, args.repeat)
    rows = summary(samples)
    for key, r in rows.items():
        print(f"{key:16s} wall min {r['wall_min']:6.2f} s  median {r['wall_median']:6.2f} s   "
              f"cpu min {r['cpu_min']:6.2f} s  median {r['cpu_median']:6.2f} s   load {r['load1']}")
    result = {"label": args.label, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.node()} {platform.processor() or platform.machine()} {os.cpu_count()} cpus",
              "commands": {name: "gops " + " ".join(COMMANDS[name]) for name in names},
              "summary": rows, "samples": samples}
    path = Path(args.out)
    runs = json.loads(path.read_text()) if path.exists() else []
    runs.append(result)
    path.write_text(json.dumps(runs, indent=1) + "\n")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
