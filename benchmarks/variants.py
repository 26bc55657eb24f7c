"""Reach of the variants: solve time, CPU time and peak memory per case, as a Markdown table.

    python benchmarks/variants.py                       # the representative cases of the README
    python benchmarks/variants.py --case 2:10:carry:points --case o3:9:discard:win

A case is ``VARIANT:n:tie:objective`` with VARIANT ``2`` (two-card bids) or
``oM`` (M open prizes); the order is random. Each case runs in its own
process (so peak memory is that case's), rows print as they finish, and a
case past ``--limit`` seconds is stopped and reported as such. CPU seconds
are the solve's process time over all threads: on a shared machine wall
time is inflated by the other users, CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import time

# the floors: two-card bids n = 10, open prizes m = 2 and 3 at n = 9, every tie x objective
DEFAULT = [f"{v}:{n}:{tie}:{obj}" for obj in ("points", "win") for v, n in (("o2", 9), ("o3", 9), ("2", 10))
           for tie in ("discard", "carry")]


def _rules(case):
    from gops_solver import Rules
    variant, n, tie, objective = case.split(":")
    kw = {"bid_cards": 2} if variant == "2" else {"open_prizes": int(variant[1:])}
    return Rules(n=int(n), tie=tie, objective=objective, **kw)


def _run(case, queue):
    from gops_solver import solve
    from gops_solver.variants.solution import projected_variant
    rules = _rules(case)
    w = projected_variant(rules)
    solve(_rules("2:4:" + case.split(":", 3)[2] + ":" + case.split(":")[3]))  # compile outside the timing
    t0, c0 = time.perf_counter(), time.process_time()
    sol = solve(rules)
    queue.put({"case": case, "value": sol.value, "seconds": time.perf_counter() - t0,
               "cpu": time.process_time() - c0, "games": sol.stage_games, "solves": sol.solves,
               "entries": w["total_bytes"] // 8,
               "classes": sum(w["classes"]), "pairs": sum(w["hand_pairs"]),
               "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", default=None)
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per case [600]")
    args = ap.parse_args()
    print("| variant | n | tie | objective | value | stage games (solved) | hand classes / pairs | wall s | CPU s "
          "| peak MB |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|", flush=True)
    for case in args.case or DEFAULT:
        v, n, tie, obj = case.split(":")
        name = "two-card" if v == "2" else f"open m={v[1:]}"
        q = mp.Queue()
        p = mp.Process(target=_run, args=(case, q))
        p.start()
        p.join(args.limit)
        if p.is_alive():
            p.terminate()
            p.join()
            print(f"| {name} | {n} | {tie} | {obj} | stopped | | | > {args.limit:.0f} | | |", flush=True)
            continue
        if q.empty():
            print(f"| {name} | {n} | {tie} | {obj} | failed (exit {p.exitcode}) | | | | | |", flush=True)
            continue
        r = q.get()
        print(f"| {name} | {n} | {tie} | {obj} | {r['value']:.6f} | {r['games']:,} ({r['solves']:,}) | {r['classes']:,} / {r['pairs']:,} "
              f"| {r['seconds']:.1f} | {r['cpu']:.1f} | {r['rss_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
