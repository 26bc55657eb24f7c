"""Throughput on real blocks of the 13-card game: the figure behind ``gops info``'s plans.

Solves every block below one prize set S of the n = 13 game (all subsets of S,
level by level, exactly as a blocked solve does), one thread, and reports per
level the blocks, stage games, CPU seconds and stage games per core-second.
CPU time (not wall) is reported so that other jobs on the machine do not skew it.

Usage: NUMBA_NUM_THREADS=1 python benchmarks/n13_blocks.py TIE OBJECTIVE OUT [PRIZES [FROM]]
       (PRIZES: the set S, default 2,3,5,7,8,10,11,13 -- a level-8 block; FROM: re-measure
       levels FROM and up of an OUT written before, whose lower blocks are reused)
"""
import itertools
import json
import sys
import time

from gops_solver import Rules
from gops_solver.engine.blocked import count_states, solve_block, store_manifest
from gops_solver.engine._blockstore import BlockStore
from gops_solver.engine.induction import level0_table
from gops_solver.engine.solution import full_space


def main():
    tie, obj, out = sys.argv[1], sys.argv[2], sys.argv[3]
    top = [int(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "2,3,5,7,8,10,11,13").split(",")]
    start = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    rules = Rules(n=13, tie=tie, objective=obj)
    space = full_space(rules)
    store = BlockStore.create(out, store_manifest(rules, space))
    store.write_block(0, 0, level0_table(space))
    ps = space.prize_sets
    rows = []
    for k in range(start, len(top) + 1):
        games = blocks = 0
        c0 = time.process_time()
        w0 = time.perf_counter()
        for sub in itertools.combinations(top, k):
            rank = int(ps.set_rank[ps.mask(sub)])
            data, g = solve_block(space, k, rank, store.read_block)
            store.write_block(k, rank, data, g)
            games += g
            blocks += 1
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        rows.append({"k": k, "blocks": blocks, "stage_games": games, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
                     "games_per_cpu_s": round(games / cpu) if cpu else None,
                     "block_mb": round(8 * store.block_len[k] / 1e6, 2)})
        print(json.dumps(rows[-1]), flush=True)
    heavy = [r for r in rows if r["k"] >= 6]
    g, c = sum(r["stage_games"] for r in heavy), sum(r["cpu_s"] for r in heavy)
    print(json.dumps({"levels_6_up_games_per_cpu_s": round(g / c) if c else None}), flush=True)


if __name__ == "__main__":
    main()
