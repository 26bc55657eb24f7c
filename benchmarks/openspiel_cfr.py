"""How far is an OpenSpiel CFR run from the exact equilibrium? (README "OpenSpiel baselines")

Runs OpenSpiel's CFR on its turn-based ``goofspiel`` and, at a few
iteration counts, prints the NashConv of CFR's average policy, its value
for player 0 against the exact equilibrium (player 1), and the game's exact
value, next to the exact policy's own NashConv.

    python benchmarks/openspiel_cfr.py --cards 4 --iterations 1 10 100
"""

import argparse
import time

from open_spiel.python.algorithms import cfr, exploitability, expected_game_score

from gops_solver import Rules, solve
from gops_solver.analysis.openspiel import load_game, policy


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=4)
    ap.add_argument("--returns", choices=["point_difference", "win_loss"], default="point_difference")
    ap.add_argument("--iterations", type=int, nargs="+", default=[1, 10, 100])
    args = ap.parse_args(argv)
    rules = Rules(args.cards, tie="discard", objective="points" if args.returns == "point_difference" else "win")
    game = load_game(rules)
    t0 = time.perf_counter()
    sol = solve(rules)
    exact = policy(sol, game)
    print(f"game        {game}")
    print(f"exact       value {sol.value:+.6f}  NashConv {exploitability.nash_conv(game, exact):.2e}  "
          f"({time.perf_counter() - t0:.1f} s, solve and NashConv)")
    solver = cfr.CFRSolver(game)
    done, t0 = 0, time.perf_counter()
    print("iterations  NashConv   value vs exact  seconds")
    for it in sorted(args.iterations):
        for _ in range(it - done):
            solver.evaluate_and_update_policy()
        done = it
        avg = solver.average_policy()
        nc = exploitability.nash_conv(game, avg)
        v = expected_game_score.policy_value(game.new_initial_state(), [avg, exact])[0]
        print(f"{it:>10}  {nc:9.6f}  {v:+14.6f}  {time.perf_counter() - t0:7.1f}")


if __name__ == "__main__":
    main()
