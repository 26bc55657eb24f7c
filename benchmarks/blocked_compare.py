"""Blocked solves against the in-memory solver, side by side (README, "Blocked solves").

Runs ``gops solve`` in fresh processes, alternating the modes so that other load
on the machine falls on all of them alike, and reports per mode the wall time,
the CPU time of the whole process tree and its peak resident memory (the sum
over the tree, sampled every 0.1 s; Dask workers included):

    memory    gops solve ...                      (every level in memory)
    file      gops solve ... --out FILE.gops      (every level in memory, levels streamed to the file;
                                                   the in-memory solve where the whole table does not fit)
    blocked   gops solve ... --out DIR --memory M (one process, block by block)
    workers2  gops solve ... --out DIR --workers 2 (a local Dask cluster)

Usage: python benchmarks/blocked_compare.py --cards 10 --tie discard --objective win
       [--memory 1GB] [--reps 2] [--modes memory,blocked,workers2] [--record MACHINE]

``--record MACHINE`` adds one row per mode to ``benchmarks/results.json``: the
median wall time, and for the other modes their medians (wall and CPU) over the in-memory one
(``memory`` if it ran, else ``file``).
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time

import psutil


def run(cmd):
    t0 = time.perf_counter()
    proc = psutil.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak = 0
    cpu = {}
    while proc.poll() is None:
        try:
            tree = [proc] + proc.children(recursive=True)
            rss = 0
            for p in tree:
                try:
                    rss += p.memory_info().rss
                    t = p.cpu_times()
                    cpu[p.pid] = t.user + t.system  # live processes only: no reaped child counted twice
                except psutil.NoSuchProcess:
                    pass
            peak = max(peak, rss)
        except psutil.NoSuchProcess:
            pass
        time.sleep(0.1)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode})")
    return wall, sum(cpu.values()), peak, json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, default=10)
    ap.add_argument("--tie", default="discard")
    ap.add_argument("--objective", default="win")
    ap.add_argument("--memory", default="1GB")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--modes", default="memory,blocked,workers2")
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the rows to benchmarks/results.json")
    a = ap.parse_args()
    base = [sys.executable, "-m", "gops_solver", "solve", "--cards", str(a.cards), "--tie", a.tie,
            "--objective", a.objective, "--json", "-q"]
    rows = []
    for rep in range(a.reps):
        for mode in a.modes.split(","):
            tmp = tempfile.mkdtemp(prefix="gops-bench-")
            extra = {"memory": [], "file": ["--out", f"{tmp}/sol.gops"], "blocked": ["--out", f"{tmp}/st", "--memory", a.memory],
                     "workers2": ["--out", f"{tmp}/st", "--workers", "2"]}[mode]
            wall, cpu, peak, res = run(base + extra)
            shutil.rmtree(tmp, ignore_errors=True)
            rows.append({"mode": mode, "rep": rep, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                         "peak_rss_mb": round(peak / 2**20), "value": res["value"], "stage_games": res["stage_games"]})
            print(json.dumps(rows[-1]), flush=True)
    base_mode = "memory" if "memory" in a.modes.split(",") else "file"
    ref = [r["wall_s"] for r in rows if r["mode"] == base_mode]
    ref_cpu = [r["cpu_s"] for r in rows if r["mode"] == base_mode]
    summary = []
    for mode in a.modes.split(","):
        w = [r["wall_s"] for r in rows if r["mode"] == mode]
        c = [r["cpu_s"] for r in rows if r["mode"] == mode]
        line = {"mode": mode, "median_wall_s": sorted(w)[len(w) // 2], "median_cpu_s": sorted(c)[len(c) // 2],
                "max_peak_rss_mb": max(r["peak_rss_mb"] for r in rows if r["mode"] == mode)}
        if ref:
            line["wall_over_memory"] = round(sorted(w)[len(w) // 2] / sorted(ref)[len(ref) // 2], 3)
            line["cpu_over_memory"] = round(sorted(c)[len(c) // 2] / sorted(ref_cpu)[len(ref_cpu) // 2], 3)
        print(json.dumps(line), flush=True)
        summary.append(line)
    if a.record:
        import os
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from _results import record
        case = f"n={a.cards} {a.tie}/{a.objective}"
        cmd = (f"python benchmarks/blocked_compare.py --cards {a.cards} --tie {a.tie} --objective {a.objective} "
               f"--memory {a.memory} --reps {a.reps} --modes {a.modes}")
        out = []
        for line in summary:
            runs = ", ".join(f"{r['wall_s']} s (CPU {r['cpu_s']} s)" for r in rows if r["mode"] == line["mode"])
            detail = f"runs {runs} (modes alternated); peak {line['max_peak_rss_mb']} MB"
            out.append({"case": f"{case}, {line['mode']}", "measure": "solve wall time (fresh process, median)",
                        "value": line["median_wall_s"], "unit": "s", "detail": detail, "command": cmd})
            if ref and line["mode"] != base_mode:
                out.append({"case": f"{case}, {line['mode']} over in memory", "measure": "wall time ratio (medians)",
                            "value": line["wall_over_memory"], "unit": "x", "detail": detail, "command": cmd})
                out.append({"case": f"{case}, {line['mode']} over in memory", "measure": "CPU time ratio (medians)",
                            "value": line["cpu_over_memory"], "unit": "x", "detail": detail, "command": cmd})
        record(out, a.record)


if __name__ == "__main__":
    main()
