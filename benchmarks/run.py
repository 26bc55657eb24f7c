"""The benchmark suite: one command, one table.

    python benchmarks/run.py                # the quick suite (n = 4..9, a few minutes)
    python benchmarks/run.py --suite targets  # the full-deck targets (about 15 minutes)
    python benchmarks/run.py --suite large    # n=11 discard win, n=12 carry points (about 20 minutes)
    python benchmarks/run.py --suite full-deck-carry  # n=13 carry points (about 45 minutes)
    python benchmarks/run.py --suite NAME --out table.md

Every solve runs in a fresh Python process so its wall time includes start-up
and loading numba's cached compilation, and its peak memory is its own
(``ru_maxrss``). ``--cold`` points numba at an empty cache first, so the
first case also pays for compilation. The stage-solver row times the numba
kernel and scipy's HiGHS on the same stage games, sampled from real states
of a solved game, in one run.
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

ROOT = Path(__file__).resolve().parent.parent

SUITES = {
    "quick": [(n, "carry", "points") for n in range(4, 10)] + [(n, "discard", "points") for n in range(4, 10)]
             + [(8, "carry", "win"), (9, "discard", "win")],
    "targets": [(9, "discard", "win"), (10, "discard", "win"), (8, "carry", "win"), (11, "carry", "points"),
                (13, "discard", "points")],
    "large": [(11, "discard", "win"), (12, "carry", "points")],
    "full-deck-carry": [(13, "carry", "points")],
    "win": [(n, "discard", "win") for n in (9, 10, 11)],
}


def _child(spec: str) -> None:
    """Solve one case in this process and print one JSON line (internal).

    The solve streams its levels to a solution file (as ``gops solve --out``
    does), then the file is opened and queried at a state with all but one
    card left, whose stage game reads the second-largest level.
    """
    import resource
    import shutil
    n, tie, objective = spec.split(":")
    n = int(n)
    folder = tempfile.mkdtemp(prefix="gops-bench-")
    t0 = time.perf_counter()
    from gops_solver import Rules, load, solve
    sol = solve(Rules(n, tie, objective), out=os.path.join(folder, "s.gops"))
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t1 = time.perf_counter()
    stored = load(os.path.join(folder, "s.gops"))
    t2 = time.perf_counter()
    if n >= 2:  # A holds 2..n, B holds 1..n-1, the A is revealed, 3..n hidden
        q = stored.query(range(2, n + 1), range(1, n), pot=1, prizes=range(3, n + 1))
    else:
        q = stored.query([1], [1], pot=1)
    t3 = time.perf_counter()
    size = os.path.getsize(os.path.join(folder, "s.gops"))
    shutil.rmtree(folder)
    print(json.dumps({"n": n, "tie": tie, "objective": objective, "value": sol.value, "states": sol.states,
                      "stage_games": sol.stage_games, "solve_s": sol.seconds, "wall_s": wall, "peak_bytes": peak,
                      "file_bytes": size, "load_s": t2 - t1, "query_ms": (t3 - t2) * 1e3, "query_value": q.value}))


def run_case(n, tie, objective, env=None) -> dict:
    """Run one solve in a fresh process; returns its figures."""
    out = subprocess.run([sys.executable, __file__, "--child", f"{n}:{tie}:{objective}"], capture_output=True,
                         text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"case {n}:{tie}:{objective} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def stage_ratio(n=7, samples=400, seed=0) -> dict:
    """numba vs HiGHS per stage game, on stage games of real states of an n-card game."""
    import numpy as np
    from gops_solver import Rules, solve
    from gops_solver.engine.solution import query_state
    from gops_solver.game.rules import validate_state
    from gops_solver.lp.stage import highs_stage, solve_matrix_game
    sys.path.insert(0, str(ROOT / "tests"))
    from naive import random_state
    rng = np.random.default_rng(seed)
    rules = Rules(n, "carry", "points")
    sol = solve(rules)
    games = []
    while len(games) < samples:
        st = random_state(rng, n, rules.tie, rules.objective, "random")
        if len(st["hand_a"]) < 2:
            continue
        ds = validate_state(rules, st["hand_a"], st["hand_b"], st["pot"], st["prizes"], st["diff"])
        games.append(query_state(rules, ds, sol.space, sol.tables).matrix)
    from benchmarks.stage_speed import time_numba_batch  # noqa: E402
    numba_us = time_numba_batch(games)
    t0 = time.perf_counter()
    worst = 0.0
    for M in games:
        worst = max(worst, abs(highs_stage(M).value - solve_matrix_game(M).value))
    highs_us = (time.perf_counter() - t0) / len(games) * 1e6  # includes one numba wrapper call, tiny
    sizes = [M.shape[0] * M.shape[1] for M in games]
    return {"games": len(games), "mean_cells": float(np.mean(sizes)), "numba_us": numba_us, "highs_us": highs_us,
            "ratio": highs_us / numba_us, "max_abs_diff": worst}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="quick", choices=sorted(SUITES))
    ap.add_argument("--out", default=None, help="also write the table to this file")
    ap.add_argument("--cold", action="store_true", help="start from an empty numba cache (first case compiles)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args.child)
    env = dict(os.environ)
    if args.cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="gops-numba-")
    lines = [f"benchmark `{args.suite}` on {datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}", "",
             "| rules | n | states | stage games | wall s | peak MB | stage games/s | file MB | load s | query ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for n, tie, objective in SUITES[args.suite]:
        r = run_case(n, tie, objective, env)
        line = (f"| {tie} {objective} | {n} | {r['states']:,} | {r['stage_games']:,} | {r['wall_s']:.2f} | "
                f"{r['peak_bytes'] / 2**20:,.0f} | {r['stage_games'] / max(r['solve_s'], 1e-9):,.0f} | "
                f"{r['file_bytes'] / 2**20:,.1f} | {r['load_s']:.2f} | {r['query_ms']:.1f} |")
        lines.append(line)
        print(line, flush=True)
    s = stage_ratio()
    extra = ["", f"stage solver on {s['games']} stage games of real 7-card states (mean {s['mean_cells']:.1f} cells): "
                 f"numba {s['numba_us']:.2f} µs, HiGHS {s['highs_us']:.0f} µs per game, "
                 f"ratio {s['ratio']:,.0f}x, largest value difference {s['max_abs_diff']:.1e}"]
    print("\n".join(extra))
    lines += extra
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
