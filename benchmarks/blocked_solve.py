"""Run one large blocked solve in the background and log its progress (README figures).

Usage: python benchmarks/blocked_solve.py N TIE OBJECTIVE OUT MEMORY [--workers W]

Resumes from the finished blocks when OUT already holds some. Prints a
line when a level starts and every 10 minutes (stage games, elapsed, ETA
from the stage games left) and, at the end, the store's summary and the peak resident memory.
"""
import json
import resource
import sys
import time

from gops_solver import Rules
from gops_solver.engine.blocked import parse_memory, solve_blocked
from gops_solver.engine._blockstore import is_store
from gops_solver.engine.induction import level_work
from gops_solver.engine.solution import full_space


def main():
    n, tie, obj, out, mem = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], parse_memory(sys.argv[5])
    rules = Rules(n=n, tie=tie, objective=obj)
    space = full_space(rules)
    total = sum(level_work(space, k) for k in range(n + 1))
    t0 = time.time()
    state = {"games": 0, "level": 0, "start_games": 0}

    def progress(level, games, done=False):
        state["games"] += games
        if done:
            state["start_games"] = state["games"]
        # a line per level, and every 10 minutes inside the long ones
        if level != state["level"] or time.time() - state.get("printed", t0) >= 600:
            state["printed"] = time.time()
            el = time.time() - t0
            rate = (state["games"] - state["start_games"]) / el if el > 0 else 0
            eta = (total - state["games"]) / rate if rate else float("nan")
            what = "started" if level != state["level"] else "running"
            print(f"{time.strftime('%H:%M:%S')} level {level} {what}; {state['games']:,}/{total:,} stage games "
                  f"({100 * state['games'] / total:.1f}%), elapsed {el:.0f} s, ETA {eta / 60:.1f} min", flush=True)
            state["level"] = level

    info = solve_blocked(rules, out, space=space, memory=mem, progress=progress, resume=is_store(out))
    info["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    info["wall_s"] = time.time() - t0
    print(json.dumps(info), flush=True)


if __name__ == "__main__":
    main()
