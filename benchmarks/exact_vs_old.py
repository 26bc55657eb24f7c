"""Every `win` table of this checkout against an older checkout's, entry by entry (no value changes).

    git worktree add /tmp/gops-old <commit>
    python benchmarks/exact_vs_old.py --old /tmp/gops-old [--max-cards 10] [--dask-max-cards 8]

For each n <= ``--max-cards``, both tie rules and the random and descending
prize orders, the older checkout solves in memory, and this one solves in
memory, as a block store (one process) and, up to ``--dask-max-cards``, as a
block store on a local Dask cluster of two workers. Each solve runs in a
process of its own with its checkout on ``PYTHONPATH`` and writes its level
tables to an ``.npz`` (a block store's blocks put back in the in-memory
layout); the tables are then compared: the same NaN pattern (states that do
not occur) and every value within ``--tol`` (1e-12). The largest difference
per case and the solve times go to ``benchmarks/exact_vs_old.json`` (``--record
MACHINE`` adds the summary row to ``benchmarks/results.json``); the exit status
is 1 if any case differs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# the solve and the dump run inside the checkout under test: only calls both versions have
DUMP = """
import sys, numpy as np
from gops_solver import Rules, solve
n, tie, order, mode, path, work = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
rules = Rules(int(n), tie=tie, objective="win", order=order)
if mode == "memory":
    sol = solve(rules)
    tables = [np.asarray(sol.tables[k]) for k in range(int(n) + 1)]
else:
    from gops_solver.engine.blocked import pattern_major
    client = None
    if mode == "dask":
        from distributed import Client, LocalCluster
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"))
    sol = solve(rules, out=work, memory="200MB", client=client)
    tables = [pattern_major(sol.space, k, [sol.store.read_block(k, r) for r in range(sol.store.nsets[k])])
              for k in range(int(n) + 1)]
    if client is not None:
        client.close()
np.savez(path, **{f"L{k}": t for k, t in enumerate(tables)})
"""


def _dump(checkout, n, tie, order, mode, scratch):
    """Solve in ``checkout`` and return (path of the tables, seconds)."""
    path = scratch / f"{Path(checkout).name}-{n}-{tie}-{order}-{mode}.npz"
    work = scratch / f"store-{n}-{tie}-{order}-{mode}"
    env = dict(os.environ, PYTHONPATH=str(checkout))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", DUMP, str(n), tie, order, mode, str(path), str(work)], env=env,
                   check=True, cwd=scratch)
    return path, time.perf_counter() - t0


def _difference(a_path, b_path):
    """(largest |a - b| over the entries both hold, whether the NaN patterns agree, entries compared)."""
    worst, entries = 0.0, 0
    with np.load(a_path) as a, np.load(b_path) as b:
        if sorted(a.files) != sorted(b.files):
            return float("inf"), False, 0
        for key in a.files:
            x, y = a[key], b[key]
            if x.shape != y.shape or not np.array_equal(np.isnan(x), np.isnan(y)):
                return float("inf"), False, entries
            ok = ~np.isnan(x)
            entries += int(ok.sum())
            if ok.any():
                worst = max(worst, float(np.max(np.abs(x[ok] - y[ok]))))
    return worst, True, entries


def _row(result) -> dict:
    """The performance page's row of a comparison (benchmarks/results.json)."""
    rows = result["rows"]
    big = max(rows, key=lambda r: r["entries"])
    return {"case": f"n<={max(r['n'] for r in rows)} win tables against the commit before the sure-win shortcut and "
                    f"compressed blocks ({result['old']}), both ties, random and descending orders",
            "measure": "largest |difference| over every entry",
            "value": max(r["max_abs_difference"] for r in rows), "unit": "",
            "detail": f"{result['failed']} of {result['cases']} cases differ: in memory and as a block store for every "
                      f"n, on a local Dask cluster of 2 workers to n = {max(r['n'] for r in rows if r['mode'] == 'dask')}; "
                      f"the same states everywhere; {big['entries']:,} entries at n = {big['n']} "
                      f"{big['tie']}/{big['order']}; rows in benchmarks/exact_vs_old.json",
            "command": "python benchmarks/exact_vs_old.py --old <git worktree of the old commit>"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the older checkout (a git worktree)")
    ap.add_argument("--new", default=str(ROOT))
    ap.add_argument("--max-cards", type=int, default=10)
    ap.add_argument("--dask-max-cards", type=int, default=8)
    ap.add_argument("--tol", type=float, default=1e-12)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "exact_vs_old.json"))
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the summary row to benchmarks/results.json")
    args = ap.parse_args(argv)
    old_commit = subprocess.run(["git", "-C", args.old, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    new_commit = subprocess.run(["git", "-C", args.new, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    rows, failed = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for n in range(1, args.max_cards + 1):
            for tie in ("carry", "discard"):
                for order in ("random", "descending"):
                    ref, t_old = _dump(args.old, n, tie, order, "memory", scratch)
                    modes = ["memory", "blocked"] + (["dask"] if n <= args.dask_max_cards else [])
                    for mode in modes:
                        got, t_new = _dump(args.new, n, tie, order, mode, scratch)
                        worst, same_nan, entries = _difference(ref, got)
                        ok = same_nan and worst <= args.tol
                        failed += not ok
                        rows.append({"n": n, "tie": tie, "order": order, "mode": mode, "entries": entries,
                                     "max_abs_difference": worst, "same_nan_pattern": same_nan, "ok": ok,
                                     "old_seconds": round(t_old, 2), "new_seconds": round(t_new, 2)})
                        print(f"n={n:2d} {tie:7s} {order:10s} {mode:7s} entries {entries:>11,d}  "
                              f"max |diff| {worst:.3g}  {'ok' if ok else 'DIFFERS'}  "
                              f"(old {t_old:.1f} s, new {t_new:.1f} s)", flush=True)
                        got.unlink()
                    ref.unlink()
    result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "old": old_commit, "new": new_commit,
              "objective": "win", "tol": args.tol, "cases": len(rows), "failed": failed, "rows": rows}
    tmp_out = f"{args.out}.tmp"
    with open(tmp_out, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp_out, args.out)
    print(f"{len(rows) - failed} of {len(rows)} cases equal to {args.tol:g}; written to {args.out}")
    if args.record:
        sys.path.insert(0, str(ROOT))
        from benchmarks._results import record
        record([_row(result)], args.record)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
