"""Throughput on real blocks of the 13-card game, one core: the per-level rates behind ``gops info``'s plans.

    NUMBA_NUM_THREADS=1 python benchmarks/n13_blocks.py discard win /tmp/n13b [--prizes 2,3,5,7,8,10,11,13]
        [--from K] [--record MACHINE]

Solves every block below one prize set S of the n = 13 game (all subsets of S,
level by level, grouped as a blocked solve groups them) and reports per level the
blocks, the positions they settle (one per state, reveal and difference,
solved or settled without an LP: :func:`~gops_solver.engine.induction.set_work`,
the unit of :data:`~gops_solver.engine.projection.BLOCK_RATES`), the stage
games actually solved, the CPU seconds and the positions per CPU-second. CPU
time (not wall) is reported so that other jobs on the machine skew it less;
run it with ``NUMBA_NUM_THREADS=1`` for a one-core rate. ``--from K`` re-measures
levels K and up of an OUT written before, reusing its lower blocks.
``--record MACHINE`` adds a row per level of at least ``--min-cpu`` seconds to
``benchmarks/results.json``.
"""

import argparse
import itertools
import json
import os
import sys
import time

from gops_solver import Rules
from gops_solver.engine.blocked import block_groups, solve_blocks, store_manifest
from gops_solver.engine._blockstore import BlockStore
from gops_solver.engine.induction import level0_table, set_work
from gops_solver.engine.solution import full_space


def measure(tie, objective, out, top, start=1):
    """Rows per level ``start..len(top)``: blocks, positions, stage games, CPU and wall seconds."""
    rules = Rules(n=13, tie=tie, objective=objective)
    space = full_space(rules)
    store = BlockStore.create(out, store_manifest(rules, space))
    store.write_block(0, 0, level0_table(space))
    ps = space.prize_sets
    rows = []
    for k in range(start, len(top) + 1):
        work = set_work(space, k)
        games = blocks = positions = 0
        c0 = time.process_time()
        w0 = time.perf_counter()
        ranks = [int(ps.set_rank[ps.mask(sub)]) for sub in itertools.combinations(top, k)]
        for group in block_groups(space, k, ranks):  # as a blocked solve groups them
            data, g = solve_blocks(space, k, group, store.read_block)
            for rank, d, gg in zip(group, data, g):
                store.write_block(k, rank, d, int(gg))
                games += int(gg)
                blocks += 1
                positions += int(work[rank])
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        rows.append({"k": k, "blocks": blocks, "positions": positions, "stage_games": games,
                     "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
                     "positions_per_cpu_s": round(positions / cpu) if cpu else None,
                     "block_mb": round(8 * store.block_len[k] / 1e6, 2)})
        print(json.dumps(rows[-1]), flush=True)
    return rules, rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tie", choices=["carry", "discard"])
    ap.add_argument("objective", choices=["points", "win"])
    ap.add_argument("out", help="a scratch block store folder")
    ap.add_argument("--prizes", default="2,3,5,7,8,10,11,13", help="the prize set S [a level-8 set]")
    ap.add_argument("--from", dest="start", type=int, default=1, help="first level to measure [1]")
    ap.add_argument("--min-cpu", type=float, default=5.0, help="record levels of at least this many CPU-s [5]")
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the rows to benchmarks/results.json")
    args = ap.parse_args(argv)
    top = [int(x) for x in args.prizes.split(",")]
    rules, rows = measure(args.tie, args.objective, args.out, top, args.start)
    if args.record:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from _results import record
        threads = os.environ.get("NUMBA_NUM_THREADS", "all")
        record([{"case": f"n=13 {rules.tie}/{rules.objective} blocks, level {r['k']}",
                 "measure": f"positions settled per CPU-second ({threads} thread(s))",
                 "value": round(r["positions_per_cpu_s"] / 1e6, 3), "unit": "M/s",
                 "detail": f"{r['blocks']} blocks below prize set {args.prizes}: {r['positions']:,} positions, "
                           f"{r['stage_games']:,} stage games solved, {r['cpu_s']} CPU-s, {r['wall_s']} s wall, "
                           f"load average {os.getloadavg()[0]:.1f} at the end",
                 "command": f"NUMBA_NUM_THREADS={threads} python benchmarks/n13_blocks.py {rules.tie} "
                            f"{rules.objective} OUT --prizes {args.prizes}"}
                for r in rows if r["cpu_s"] >= args.min_cpu], args.record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
