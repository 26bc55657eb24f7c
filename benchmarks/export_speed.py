"""``gops export`` speed: the state-by-state export against the vectorised one, same solution file.

Each side runs in its own process, imported from its own checkout: the old
code from a git worktree (``--old``, e.g. ``git worktree add --detach
/tmp/export-old layout``), the new from this one. A side first exports a
small game once (numba's cache loaded, nothing timed), then times
``table + write`` to a file for each format, ``--runs`` times, and reports
the min and median rows per second.

    python benchmarks/export_speed.py --solution n9d.gops --rounds 3 --old /tmp/export-old --old-runs 1

Appends one entry to ``benchmarks/export_speed.json`` (a list; ``--label`` names
the entry), keeping the entries already there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# one side's measurement, run as ``python -c CHILD root solution rounds runs formats``
CHILD = r"""
import json, os, sys, tempfile, time
root, path, rounds, runs, formats = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(",")
sys.path.insert(0, root)
import gops_solver
assert os.path.dirname(os.path.dirname(os.path.abspath(gops_solver.__file__))) == os.path.abspath(root), gops_solver.__file__
from gops_solver import Rules, load, solve
from gops_solver.engine import export as ex
fast = hasattr(ex, "equilibrium_table")

def once(sol, out, fmt):
    if fast:
        table = ex.equilibrium_table(sol, rounds=rounds)
        ex.write_table(table, out, fmt)
        return len(table)
    frame = ex.to_frame(sol, rounds=rounds)
    ex.write(frame, out, fmt)
    return len(frame)

with tempfile.TemporaryDirectory() as tmp:
    warm = solve(Rules(4))
    for fmt in formats:
        once(warm, os.path.join(tmp, "w." + fmt), fmt)
    sol = load(path)
    res = {}
    for fmt in formats:
        times = []
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            rows = once(sol, os.path.join(tmp, "x." + fmt), fmt)
            times.append((time.perf_counter() - t0, time.process_time() - c0))
        res[fmt] = {"rows": rows, "seconds": [t for t, _ in times], "cpu_seconds": [c for _, c in times],
                    "bytes": os.path.getsize(os.path.join(tmp, "x." + fmt))}
print(json.dumps(res))
"""


def side(root, solution, rounds, runs, formats):
    proc = subprocess.run([sys.executable, "-c", CHILD, root, solution, str(rounds), str(runs), ",".join(formats)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the export in {root} failed:\n{proc.stderr}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    for r in res.values():
        rates = [r["rows"] / t for t in r["seconds"]]
        r["rows_per_s_min"], r["rows_per_s_median"] = min(rates), statistics.median(rates)
        cpu = [r["rows"] / t for t in r["cpu_seconds"]]
        r["cpu_rows_per_s_min"], r["cpu_rows_per_s_median"] = min(cpu), statistics.median(cpu)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solution", required=True, help="a solution file written by gops solve --out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5, help="timed runs of the new export per format")
    ap.add_argument("--old", default=None, help="checkout of the old code (a git worktree); skipped when absent")
    ap.add_argument("--old-runs", type=int, default=1, help="timed runs of the old export per format (slow)")
    ap.add_argument("--formats", default="csv,parquet")
    ap.add_argument("--old-formats", default="csv", help="formats timed for the old export (slow)")
    ap.add_argument("--out", default=os.path.join(HERE, "export_speed.json"))
    ap.add_argument("--label", default="", help="what this entry measures (kept in the file)")
    args = ap.parse_args(argv)
    formats = args.formats.split(",")
    result = {"label": args.label, "solution": os.path.basename(args.solution), "rounds": args.rounds, "machine": platform.node(),
              "cpus": os.cpu_count(), "load_average": os.getloadavg(),
              "new": side(ROOT, args.solution, args.rounds, args.runs, formats)}
    if args.old:
        result["old"] = side(args.old, args.solution, args.rounds, args.old_runs, args.old_formats.split(","))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    entries = []
    if os.path.exists(args.out):
        with open(args.out) as fh:
            entries = json.load(fh)
        entries = entries if isinstance(entries, list) else [entries]  # one entry, as the first version wrote
    with open(args.out + ".tmp", "w") as fh:
        json.dump(entries + [result], fh, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"cpu time and wall time; load average {result['load_average'][0]:.1f} on {result['cpus']} cpus")
    for name in ("old", "new"):
        for fmt, r in result.get(name, {}).items():
            print(f"{name:4} {fmt:8} {r['rows']:>9,} rows  wall min {min(r['seconds']):7.2f} s  "
                  f"cpu min {min(r['cpu_seconds']):7.2f} s  rows/s (wall) min {r['rows_per_s_min']:>10,.0f} "
                  f"median {r['rows_per_s_median']:>10,.0f}  rows/s (cpu) min {r['cpu_rows_per_s_min']:>10,.0f} "
                  f"median {r['cpu_rows_per_s_median']:>10,.0f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
