"""Time the phases of a 3- or 4-player ``win`` solve level by level (listing, hashing, solving, copying).

    python benchmarks/win_phases.py 3 6 discard            # security values only
    python benchmarks/win_phases.py 3 6 discard --equilibrium
    python benchmarks/win_phases.py 3 7 discard --equilibrium --selection pure

Runs :class:`gops_solver.multi.winlevels.WinLevelInduction` the way its
``solve`` does (``list_states``, then ``solve_level`` for each hand size,
whose ``phase`` hook marks the end of each pass) and prints for each level
its states, the live ones (not decided), the distinct stage games and the
seconds of each pass: ``hash`` (build and fingerprint every game; on a
level solved state by state, ``unshared`` in the output, the sample of
:meth:`WinLevelInduction._worth_sharing` and the marking of decided states),
``share`` (group them), ``solve`` (the representatives), ``redo`` (what
the kernel flagged, HiGHS and pygambit) and ``copy``. Wall-clock seconds
on all numba threads; the listing of the states is timed first. At the end
it prints the values at the start (security and, with ``--equilibrium``,
equilibrium values, averaged over the first prize), the largest deviation
gain and how many states each step of the selection rule settled. To compare two
commits, run it from each checkout in turn (``PYTHONPATH=path/to/worktree``).
"""
import argparse
import time

import numpy as np

from gops_solver import Rules
from gops_solver.multi.winkernel import METHOD_DECIDED
from gops_solver.multi.winlevels import WinLevelInduction


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", type=int)
    ap.add_argument("cards", type=int)
    ap.add_argument("tie", choices=("carry", "discard"))
    ap.add_argument("--equilibrium", action="store_true", help="solve the equilibria too")
    ap.add_argument("--selection", choices=("logit", "pure"), default="logit", help="equilibrium selection rule")
    a = ap.parse_args(argv)
    rules = Rules(a.cards, tie=a.tie, objective="win", players=a.players)
    ind = WinLevelInduction(rules, equilibrium=a.equilibrium, selection=a.selection)
    t0 = time.perf_counter()
    ind.list_states()
    print(f"listing {time.perf_counter() - t0:.2f} s, {sum(len(c) for c in ind.codes.values()):,} states", flush=True)
    for k in range(1, a.cards + 1):
        marks = {"start": time.perf_counter()}
        distinct = ind.distinct_games
        ind.solve_level(k, phase=lambda name: marks.__setitem__(name, time.perf_counter()))
        out = ind.values[k]
        live = int(np.count_nonzero(out.method != METHOD_DECIDED))
        names = list(marks)
        times = " ".join(f"{b}={marks[b] - marks[a]:.2f}" for a, b in zip(names, names[1:]))
        print(f"k={k} states={len(out.gain):,} live={live:,} {'distinct' if ind.shared[k] else 'unshared'}="
              f"{ind.distinct_games - distinct:,} {times}",
              flush=True)
    sec, eq = super(WinLevelInduction, ind).start()  # the levels are solved: read, do not solve again
    print("security at the start", " ".join(f"{v:.6f}" for v in sec))
    if a.equilibrium:
        print("equilibrium at the start", " ".join(f"{v:.6f}" for v in eq))
        print(f"largest deviation gain {ind.max_gain:.1e}; states by selection step:",
              ", ".join(f"{name} {count:,}" for name, count in ind.methods.items() if count))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
