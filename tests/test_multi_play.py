"""``gops simulate|play --players 3|4``: equilibrium bots, heuristics, the terminal game."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules
from gops_solver.cli.commands import cli
from gops_solver.multi import solve_multi
from gops_solver.multi.simulate import play_game, simulate_multi


def test_simulation_means_add_up_and_are_reproducible():
    # under win the payoffs of a game add up to 1 (a shared first place
    # splits it), so the seats' means do too; the same seed gives the same run
    sol = solve_multi(Rules(3, objective="win", players=3))
    a = simulate_multi(sol, "equilibrium,uniform,highest", 300, seed=5)
    b = simulate_multi(sol, ["equilibrium", "uniform", "highest"], 300, seed=5)
    assert a == b
    assert sum(a.mean) == pytest.approx(1.0)
    assert all(0 < se < 0.1 for se in a.stderr)
    # under points with ties discarded nothing is lost but the tied pots: the
    # scores of a game add up to at most 1 + 2 + 3
    sol = solve_multi(Rules(3, tie="discard", players=3))
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert sum(play_game(sol, ["equilibrium", "lowest", "match"], rng)) <= 6


def test_equilibrium_self_play_matches_the_solved_values():
    # three equilibrium bots under points: each one's mean estimates its
    # equilibrium value at the start (the solution's own figure), within 4 standard errors
    sol = solve_multi(Rules(3, tie="carry", players=3))
    res = simulate_multi(sol, ["equilibrium"] * 3, 2000, seed=1)
    for mu, se, v in zip(res.mean, res.stderr, sol.values):
        assert abs(mu - v) <= 4 * se + 1e-9


def test_cli_simulate_json_and_bad_seats():
    runner = CliRunner()
    out = runner.invoke(cli, ["simulate", "--players", "3", "--cards", "2", "--games", "50", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["seats"] == ["equilibrium", "uniform", "uniform"] and data["games"] == 50
    bad = runner.invoke(cli, ["simulate", "--players", "3", "--cards", "2", "--seats", "equilibrium,uniform"])
    assert bad.exit_code == 2 and "2 seats given for 3 players" in bad.output
    bad = runner.invoke(cli, ["simulate", "--players", "3", "--cards", "2", "--seats", "a,b,c"])
    assert bad.exit_code == 2 and "unknown strategy" in bad.output


def test_cli_play_against_equilibrium_bots():
    # n = 2, ascending prizes: the first prize is 1, then 2. The player bids a
    # card they do not hold first (asked again), then 2 and 1.
    runner = CliRunner()
    out = runner.invoke(cli, ["play", "--players", "3", "--cards", "2", "--order", "ascending", "--seed", "3",
                              "--json"], input="5\n2\n1\n")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    assert [r["pot"] for r in data["rounds"]][0] == 1
    assert [r["bids"][0] for r in data["rounds"]] == [2, 1]
    assert len(data["payoffs"]) == 3
    # JSON lines as the two-player play: a start line, one line per round, an end line with the whole game
    lines = [json.loads(x) for x in out.stdout.strip().splitlines()]
    assert [x["type"] for x in lines] == ["start", "round", "round", "end"]
    assert lines[0]["seed"] == 3 and lines[0]["seats"] == ["you", "equilibrium", "equilibrium"]
    assert [x["bids"] for x in lines[1:3]] == [r["bids"] for r in data["rounds"]]
    # the end of input at a prompt: an end line that says so, exit 0
    cut = runner.invoke(cli, ["play", "--players", "3", "--cards", "2", "--order", "ascending", "--seed", "3",
                              "--json"], input="2\n")
    assert cut.exit_code == 0
    last = json.loads(cut.stdout.strip().splitlines()[-1])
    assert last["type"] == "end" and last["abandoned"] == "end of input" and last["round"] == 2
    text = runner.invoke(cli, ["play", "--players", "4", "--cards", "1", "--seed", "0"], input="1\n")
    assert text.exit_code == 0, text.output
    # one card each: everyone bids 1, a four-way tie, nobody scores
    assert "payoffs  P1 0.000000  P2 0.000000  P3 0.000000  P4 0.000000" in text.output
