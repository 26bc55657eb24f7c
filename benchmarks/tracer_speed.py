"""The n-player stage-equilibrium kernel on real stage games, against a baseline kernel, side by side.

    python benchmarks/tracer_speed.py build 3:6:discard:4,5 3:7:carry:4     # sample stage games (minutes)
    python benchmarks/tracer_speed.py compare --baseline main               # time and compare both kernels

``build`` solves the levels below the requested hand sizes of a 3- or
4-player ``points`` game (``players:n:tie:k,k,...``) with the level solver
(:mod:`gops_solver.multi.levels`, the kernel of this checkout) and saves up
to ``--games`` randomly drawn equilibrium stage games of each requested
level (built by :func:`gops_solver.multi.levelkernel.build_stage`, as the
solver builds them) into ``--dir``, one ``.npz`` per game.

``compare`` loads every saved game and runs
:func:`gops_solver.multi.kernel.stage_equilibrium` of this checkout and of a
baseline (``--baseline``: a git revision or the path of a ``kernel.py``;
loaded under another module name) on the same games, each kernel over a
whole game set in one jitted loop, alternating ``--repeat`` times (the best
run of each counts, so machine load hits both alike). Per game set
(players, cards) it prints the microseconds per game of both and their
ratio, the mean continuation steps of both tracers (mixed games), how many
games change status, and the largest difference between the selected
profiles and the players' values where both certified an equilibrium, and
between the traced endpoints (before the polish); then lists each game that
changes status or whose profiles differ by more than ``--report``.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

if __package__ in (None, ""):
    # Run as a script from a source checkout: make the package importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gops_solver import Rules
from gops_solver.multi import kernel as current
from gops_solver.multi.constants import DEVIATION_TOL, PURE_TOL
from gops_solver.multi.levelkernel import PrevLevel, build_stage
from gops_solver.multi.levels import LevelInduction

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "benchmarks" / "results" / "stage_games"


def build(spec: str, games: int, seed: int, out_dir: Path) -> None:
    """Solve the levels below the requested ones and save random stage games of each."""
    players, n, tie, ks = spec.split(":")
    m, n = int(players), int(n)
    ks = sorted(int(k) for k in ks.split(","))
    rules = Rules(n, tie=tie, objective="points", players=m)
    ind = LevelInduction(rules)
    rng = np.random.default_rng(seed)
    prev = PrevLevel(np.zeros((1, 1, m)), np.zeros((1, 1, m)))
    for k in range(1, ks[-1] + 1):
        tab = ind.tables[k]
        P, S = len(ind.patterns[k]), len(ind.slots[k])
        if k in ks:
            states = rng.choice(P * S, size=min(games, P * S), replace=False)
            Usec = np.empty((m, k ** m))
            U = np.empty((len(states), m, k ** m))
            for g, q in enumerate(states):
                build_stage(tab, prev, q // S, q % S, m, k, ind.carry, Usec, U[g])
            path = out_dir / f"m{m}_k{k}_n{n}_{tie}.npz"
            np.savez_compressed(path, U=U, m=m, k=k, n=n, tie=tie, states=states)
            print(f"{path.name}: {len(states)} of {P * S} states", flush=True)
        if k == ks[-1]:
            break
        out = ind.solve_level(k, prev)
        prev = PrevLevel(out.sec, out.eq)


def load_baseline(baseline: str):
    """The baseline kernel module: a ``kernel.py`` path, or that file at a git revision."""
    path = Path(baseline)
    if not path.is_file():
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", baseline], check=True,
                             capture_output=True, text=True).stdout.strip()
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:gops_solver/multi/kernel.py"],
                                check=True, capture_output=True, text=True).stdout
        path = ROOT / "benchmarks" / "results" / f"baseline_kernel_{rev}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        # numba cannot reload cached functions of a module imported from a path, and
        # the module's relative imports must name the package
        source = source.replace("cache=True", "cache=False").replace("from .", "from gops_solver.multi.")
        path.write_text(source)
    spec = importlib.util.spec_from_file_location("baseline_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def batch_runner(kern):
    """A jitted loop of ``kern.stage_equilibrium`` (and one of ``kern.trace_logit``) over a game set."""
    stage_equilibrium, trace_logit, profile_values = kern.stage_equilibrium, kern.trace_logit, kern.profile_values

    if len(inspect.signature(stage_equilibrium.py_func).parameters) == 8:  # since the pure selection: its code
        @njit
        def solve_one(U, m, k, wk, out):
            return stage_equilibrium(U, m, k, PURE_TOL, DEVIATION_TOL, wk, out, 1)  # SELECT_LOGIT
    else:
        @njit
        def solve_one(U, m, k, wk, out):
            return stage_equilibrium(U, m, k, PURE_TOL, DEVIATION_TOL, wk, out)

    @njit
    def run(Us, m, k, wk, status, profiles, values, gains):
        for g in range(Us.shape[0]):
            st, _, _, gain = solve_one(Us[g], m, k, wk, profiles[g])
            status[g] = st
            gains[g] = gain
            if st != 0:
                values[g] = profile_values(Us[g], profiles[g], m, k, wk)

    @njit
    def steps(Us, m, k, wk, out, traced):
        for g in range(Us.shape[0]):
            out[g] = trace_logit(Us[g], m, k, wk)
            traced[g] = wk.p

    return run, steps


def compare(kernels, Us, m, k, repeat):
    """Time every kernel on the game set ``Us``; their results and best seconds."""
    G = Us.shape[0]
    results, best = [], []
    for kern in kernels:
        run, steps = batch_runner(kern)
        res = dict(status=np.empty(G, dtype=np.int64), profiles=np.empty((G, m, k)), values=np.full((G, m), np.nan),
                   gains=np.empty(G), steps=np.empty(G, dtype=np.int64), traced=np.empty((G, m, k)))
        wk = kern.make_work(m, k)
        run(Us[:2], m, k, wk, res["status"], res["profiles"], res["values"], res["gains"])  # compile
        steps(Us, m, k, wk, res["steps"], res["traced"])
        results.append((run, wk, res))
        best.append(np.inf)
    for _ in range(repeat):
        for q, (run, wk, res) in enumerate(results):
            t0 = time.perf_counter()
            run(Us, m, k, wk, res["status"], res["profiles"], res["values"], res["gains"])
            best[q] = min(best[q], time.perf_counter() - t0)
    return [r[2] for r in results], best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="sample stage games of real GOPS states")
    b.add_argument("specs", nargs="+", help="players:n:tie:k[,k...], e.g. 3:6:discard:4,5")
    b.add_argument("--games", type=int, default=1000, help="games per level and source (default 1000)")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    c = sub.add_parser("compare", help="time this checkout's kernel against a baseline on the saved games")
    c.add_argument("--baseline", default="main", help="git revision or path of a kernel.py (default main)")
    c.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    c.add_argument("--repeat", type=int, default=3, help="timed runs of each kernel (the best counts)")
    c.add_argument("--limit", type=int, default=0, help="at most this many games per set (0: all)")
    c.add_argument("--report", type=float, default=1e-6,
                   help="list the games whose selected profiles differ by more than this (default 1e-6)")
    args = ap.parse_args(argv)
    if args.cmd == "build":
        args.dir.mkdir(parents=True, exist_ok=True)
        for spec in args.specs:
            build(spec, args.games, args.seed, args.dir)
        return 0
    sets = {}
    for path in sorted(args.dir.glob("m*_k*.npz")):
        with np.load(path) as f:
            sets.setdefault((int(f["m"]), int(f["k"])), []).append(f["U"])
    base = load_baseline(args.baseline)
    print("| players | cards | games | mixed | baseline us/game | new us/game | ratio | steps base/new "
          "| status changes | max profile diff | max value diff | max traced diff | max gain base/new |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (m, k), parts in sorted(sets.items()):
        Us = np.ascontiguousarray(np.concatenate(parts))
        if args.limit:
            Us = Us[:args.limit]
        (old, new), (t_old, t_new) = compare([base, current], Us, m, k, args.repeat)
        G = Us.shape[0]
        mixed = old["status"] != current.KERNEL_PURE
        both = (old["status"] != current.KERNEL_FAILED) & (new["status"] != current.KERNEL_FAILED)
        changes = int(np.count_nonzero(old["status"] != new["status"]))
        dp = float(np.max(np.abs(old["profiles"][both] - new["profiles"][both]), initial=0.0))
        dv = float(np.max(np.abs(old["values"][both] - new["values"][both]), initial=0.0))
        traced = mixed & (old["steps"] >= 0) & (new["steps"] >= 0)
        dt = float(np.max(np.abs(old["traced"][traced] - new["traced"][traced]), initial=0.0))
        print(f"| {m} | {k} | {G} | {int(mixed.sum())} | {1e6 * t_old / G:.1f} | {1e6 * t_new / G:.1f} "
              f"| {t_old / t_new:.2f} | {old['steps'][traced].mean():.1f}/{new['steps'][traced].mean():.1f} "
              f"| {changes} | {dp:.2e} | {dv:.2e} | {dt:.2e} "
              f"| {old['gains'][both].max(initial=0):.1e}/{new['gains'][both].max(initial=0):.1e} |", flush=True)
        diff = np.abs(old["profiles"] - new["profiles"]).reshape(G, -1).max(axis=1)
        for g in np.flatnonzero((old["status"] != new["status"]) | (both & (diff > args.report))):
            print(f"    game {g}: status {old['status'][g]} -> {new['status'][g]}, steps "
                  f"{old['steps'][g]} -> {new['steps'][g]}, gain {old['gains'][g]:.2e} -> {new['gains'][g]:.2e}, "
                  f"profile diff {diff[g]:.2e}, traced diff "
                  f"{np.abs(old['traced'][g] - new['traced'][g]).max():.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
