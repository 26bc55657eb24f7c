"""The arena's figures: exact scoring, environment step rates, and exploitability beside OpenSpiel's.

    python benchmarks/arena.py                  # every part (a few minutes), then render docs/performance.md
    python benchmarks/arena.py --parts score steps

Parts:

* ``score``: ``gops score`` of a Markov agent (a function of the state) at
  n = 8 discard/points, exactly (its result against the equilibrium and
  every heuristic, and its exploitability); the game is solved first,
  outside the timing, and numba's compilation is warmed at n = 4.
* ``steps``: rounds per second of one process playing random legal bids,
  in ``gops_solver.env.parallel_env`` and in OpenSpiel's ``goofspiel``
  (simultaneous-move form, the chance node that reveals the prize
  applied inside the round), n = 8, the same loop.
* ``exploit``: exploitability of the uniform policy at growing n: OpenSpiel's
  ``exploitability.exploitability`` (a tree walk over every history) against
  ``gops score`` of the same strategy as a Markov agent (exact through
  ``evaluate``); OpenSpiel runs in a child process, stopped after
  ``--limit`` seconds. Where both walk the history tree (n <= 4, and n = 5
  under a fixed order) the score of OpenSpiel's own CFR policy (two
  iterations) is checked against OpenSpiel's figure to 1e-9.

Raw figures go to ``benchmarks/arena.json``; the rows of
``benchmarks/results.json`` that this script owns are replaced, and the
performance page is rendered again.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "benchmarks" / "arena.json"
RESULTS = ROOT / "benchmarks" / "results.json"
COMMAND = "python benchmarks/arena.py"
#: agreement asked of the two exploitabilities (the issue's tolerance)
AGREE = 1e-9
#: address space OpenSpiel's child may take (bytes)
MEMORY_CAP = 6 * 2**30


def near_pot(view):
    """A Markov agent: the card closest to the pot (the lower one on a tie)."""
    return {min(view.hand, key=lambda c: (abs(c - view.pot), c)): 1.0}


def part_score(n=8):
    from gops_solver import Rules, solve
    from gops_solver.env.score import score_agent
    score_agent(near_pot, Rules(n=4, tie="discard"))  # numba compiles here, not in the timing
    rules = Rules(n=n, tie="discard")
    t0 = time.perf_counter()
    sol = solve(rules)
    solve_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    got = score_agent(near_pot, rules, sol)
    seconds = time.perf_counter() - t0
    if got.failure or got.method != "exact":
        raise RuntimeError(f"scoring failed: {got.failure or got.method}")
    return {"n": n, "tie": "discard", "objective": "points", "score_s": seconds, "solve_s": solve_s,
            "opponents": len(got.against), "exploitability": got.exploitability,
            "vs_equilibrium": got.against["equilibrium"].value}


def _env_rate(n, steps, seed=0):
    import numpy as np
    from gops_solver.env import parallel_env
    env = parallel_env(n=n, tie="discard")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, _, term, trunc, _ = env.step(acts)
        done += 1
        if all(term.values()) or all(trunc.values()):
            obs, _ = env.reset(seed=int(rng.integers(2**31)))
    return done / (time.perf_counter() - t0)


def _openspiel_rate(n, steps, seed=0):
    import numpy as np
    import pyspiel
    game = pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": "random", "imp_info": False,
                                           "returns_type": "point_difference"})
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            continue
        state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in (0, 1)])
        done += 1
        if state.is_terminal():
            state = game.new_initial_state()
    return done / (time.perf_counter() - t0)


def part_steps(n=8, steps=20_000):
    _env_rate(n, 200)  # imports and first calls outside the timing
    _openspiel_rate(n, 200)
    return {"n": n, "steps": steps, "env_steps_per_s": _env_rate(n, steps),
            "openspiel_steps_per_s": _openspiel_rate(n, steps)}


def _openspiel_child(n, order):
    """(internal) OpenSpiel's exploitability of its uniform policy, timed; one JSON line."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability
    from gops_solver import Rules
    from gops_solver.analysis.openspiel import load_game
    game = load_game(Rules(n=n, tie="discard", order=order))
    t0 = time.perf_counter()
    e = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    print(json.dumps({"exploitability": e, "seconds": time.perf_counter() - t0}))


def _memory_cap():
    # OpenSpiel's walk keeps every history it visits: a shared machine must not be swapped out by it
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _openspiel_exploit(n, order, limit):
    try:
        out = subprocess.run([sys.executable, __file__, "--child", f"{n}:{order}"], capture_output=True, text=True,
                             timeout=limit, cwd=ROOT, preexec_fn=_memory_cap)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        if "MemoryError" in out.stderr or "bad_alloc" in out.stderr:
            return {"exploitability": None, "seconds": None, "memory": True}
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cfr_check(n, order):
    """OpenSpiel's CFR (two iterations): gops score's exploitability of its policy against OpenSpiel's."""
    from open_spiel.python.algorithms import cfr, exploitability
    from gops_solver import Rules
    from gops_solver.analysis.openspiel import load_game
    from gops_solver.env.score import score_agent
    rules = Rules(n=n, tie="discard", order=order)
    game = load_game(rules)
    solver = cfr.CFRSolver(game)
    for _ in range(2):
        solver.evaluate_and_update_policy()
    pol = solver.average_policy()
    t0 = time.perf_counter()
    theirs = exploitability.exploitability(game, pol)
    theirs_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = score_agent(pol, rules, opponents=())
    ours_s = time.perf_counter() - t0
    diff = abs(ours.openspiel_exploitability - theirs)
    if diff > AGREE:
        raise RuntimeError(f"n={n} {order}: gops score {ours.openspiel_exploitability!r}, OpenSpiel {theirs!r}")
    return {"n": n, "order": order, "openspiel": theirs, "openspiel_s": theirs_s, "ours": ours.openspiel_exploitability,
            "ours_s": ours_s, "method": ours.method, "diff": diff}


def part_exploit(limit):
    from gops_solver import Rules
    from gops_solver.env.score import score_agent
    rows, cfr_rows = [], []
    score_agent("uniform", Rules(n=3, tie="discard"))  # numba compiles here, not in the timing
    for n, order in [(3, "random"), (4, "random"), (5, "ascending"), (5, "random"), (6, "random"), (7, "random"),
                     (8, "random")]:
        rules = Rules(n=n, tie="discard", order=order)
        t0 = time.perf_counter()
        got = score_agent("uniform", rules, opponents=("equilibrium",))
        ours_s = time.perf_counter() - t0  # the solve included: it is part of answering
        # OpenSpiel pays half the margin under point_difference: the same units as its exploitability
        row = {"n": n, "order": order, "ours": got.exploitability * 0.5, "ours_s": ours_s}
        theirs = _openspiel_exploit(n, order, limit) if n <= 5 else None
        if theirs is not None:
            row.update(openspiel=theirs["exploitability"], openspiel_s=theirs["seconds"])
            if abs(theirs["exploitability"] - row["ours"]) > AGREE:
                raise RuntimeError(f"uniform at n={n} {order}: ours {row['ours']!r}, OpenSpiel {theirs!r}")
        elif n <= 5:
            row.update(openspiel=None, openspiel_s=None, stopped_after_s=limit)
        rows.append(row)
        print(json.dumps(row), flush=True)
    for n, order in [(4, "random"), (5, "ascending")]:
        cfr_rows.append(_cfr_check(n, order))
        print(json.dumps(cfr_rows[-1]), flush=True)
    return {"uniform": rows, "cfr": cfr_rows}


def _load_average():
    try:
        return [round(x, 1) for x in os.getloadavg()]
    except OSError:
        return None


def result_rows(raw, machine, date):
    """The rows of results.json for the raw figures (see render_performance.render); each names the command
    that measured it (``raw[part + "_command"]``)."""
    rows = []
    if "score" in raw:
        s = raw["score"]
        rows.append({"case": "n=8 discard/points, a Markov agent (a function of the state)",
                     "measure": "gops score, exact: against the equilibrium, 6 heuristics, and exploitability",
                     "value": round(s["score_s"], 2), "unit": "s",
                     "detail": f"the game solved first, outside the timing, in {s['solve_s']:.2f} s; "
                               f"{s['opponents']} exact match-ups and a best reply",
                     "command": raw["score_command"], "machine": raw.get("score_machine", machine), "date": date})
    if "steps" in raw:
        s = raw["steps"]
        rows.append({"case": "n=8 discard/points, random legal bids",
                     "measure": "gops_solver.env.parallel_env rounds per second, one process",
                     "value": int(round(s["env_steps_per_s"], -1)), "unit": "steps/s",
                     "detail": f"OpenSpiel goofspiel (simultaneous, C++ behind pyspiel) "
                               f"{s['openspiel_steps_per_s']:,.0f} steps/s in the same run, the same loop",
                     "command": raw["steps_command"], "machine": raw.get("steps_machine", machine), "date": date})
    if "exploit" in raw:
        for r in raw["exploit"]["uniform"]:
            if r.get("openspiel_s") is not None:
                theirs = f"OpenSpiel's exploitability.exploitability {r['openspiel_s']:.2f} s, equal to 1e-9"
            elif r.get("stopped_after_s") is not None:
                theirs = f"OpenSpiel's exploitability.exploitability stopped unfinished after {r['stopped_after_s']} s"
            else:
                theirs = "OpenSpiel's not run: its walk at n = 5 under a random order did not finish"
            rows.append({"case": f"n={r['n']} discard/points, order {r['order']}, the uniform policy",
                         "measure": "exploitability, gops score (exact, evaluate; the solve included)",
                         "value": round(r["ours_s"], 2), "unit": "s",
                         "detail": f"{r['ours']:.6f} in OpenSpiel's units; {theirs}",
                         "command": raw["exploit_command"], "machine": raw.get("exploit_machine", machine), "date": date})
        for r in raw["exploit"]["cfr"]:
            rows.append({"case": f"n={r['n']} discard/points, order {r['order']}, OpenSpiel CFR policy (2 iterations)",
                         "measure": "exploitability, gops score on the history tree",
                         "value": round(r["ours_s"], 2), "unit": "s",
                         "detail": f"{r['ours']:.6f}; OpenSpiel's exploitability.exploitability "
                                   f"{r['openspiel_s']:.2f} s, difference {r['diff']:.1e}",
                         "command": raw["exploit_command"], "machine": raw.get("exploit_machine", machine), "date": date})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", nargs="+", choices=["score", "steps", "exploit"], default=["score", "steps", "exploit"])
    ap.add_argument("--limit", type=float, default=90.0, help="seconds OpenSpiel's exploitability may take [90]")
    ap.add_argument("--machine", default=None, help="key of the machine in results.json (else one is described)")
    ap.add_argument("--rows-only", action="store_true",
                    help="measure nothing: rebuild the rows of results.json from benchmarks/arena.json")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        n, order = args.child.split(":")
        _openspiel_child(int(n), order)
        return 0
    raw = json.loads(RAW.read_text()) if RAW.exists() else {}
    load = _load_average()
    command = " ".join([COMMAND] + (argv if argv is not None else sys.argv[1:]))
    for part in args.parts if not args.rows_only else ():
        raw[part] = {"score": part_score, "steps": part_steps}[part]() if part != "exploit" else part_exploit(args.limit)
        raw[part + "_load_average"] = load
        raw[part + "_command"] = command
        raw[part + "_machine"] = args.machine or f"ref2-arena-load{round(load[0])}"
        print(part, json.dumps(raw[part]), flush=True)
    data = json.loads(RESULTS.read_text())
    machine = args.machine
    if machine is None:  # one key per load level: rows measured under other loads keep their own description
        machine = "ref2-arena" if args.rows_only else f"ref2-arena-load{round(load[0])}"
        if not args.rows_only:
            data["machines"][machine] = (f"x86_64, 2 cores, 24 GB, Python {platform.python_version()}, shared with "
                                         f"other jobs (load average {load[0] if load else '?'} at the start)")
    date = raw.get("date", datetime.date.today().isoformat()) if args.rows_only else datetime.date.today().isoformat()
    if not args.rows_only:
        raw["date"] = date
        raw["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        RAW.write_text(json.dumps(raw, indent=1) + "\n")
    fresh = result_rows({k: v for k, v in raw.items() if k.split("_")[0] in args.parts}, machine, date)
    owned = {(r["case"], r["measure"]) for r in fresh}
    data["results"] = [r for r in data["results"] if (r["case"], r["measure"]) not in owned] + fresh
    RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "render_performance.py")], check=True, cwd=ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
