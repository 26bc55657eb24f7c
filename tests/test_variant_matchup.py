"""Variants' strategies played against each other: exact evaluation and sampled play (gops evaluate / simulate)."""

import json

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.analysis._variant_matchup import evaluate_variant, simulate_variant

TOL = 1e-9


@pytest.fixture(scope="module")
def two_card():
    return solve(Rules(n=4, bid_cards=2, objective="win"))


@pytest.fixture(scope="module")
def open_prizes():
    return solve(Rules(n=4, open_prizes=2))


@pytest.mark.parametrize("which", ["two_card", "open_prizes"])
def test_equilibrium_is_unexploitable(which, request):
    sol = request.getfixturevalue(which)
    ev = evaluate_variant("equilibrium", sol)
    # against itself it earns the game's value; a best reply takes nothing more
    assert ev.vs_opponent.value == pytest.approx(sol.value, abs=TOL)
    assert ev.vs_best_response.value == pytest.approx(sol.value, abs=TOL)
    assert ev.exploitability == pytest.approx(0, abs=TOL)
    o = ev.vs_opponent
    assert o.win + o.draw + o.loss == pytest.approx(1, abs=TOL)


@pytest.mark.parametrize("which", ["two_card", "open_prizes"])
@pytest.mark.parametrize("strategy", ["uniform", "highest", "lowest"])
def test_best_reply_is_no_better_for_a(which, strategy, request):
    sol = request.getfixturevalue(which)
    ev = evaluate_variant(strategy, sol)
    # B's best reply concedes A at most what the equilibrium concedes, which concedes at most the value
    assert ev.vs_best_response.value <= ev.vs_opponent.value + TOL
    assert ev.vs_opponent.value <= sol.value + TOL
    assert ev.exploitability == pytest.approx(sol.value - ev.vs_best_response.value, abs=TOL)


def test_highest_vs_lowest_worked():
    # n = 3, two-card bids, prizes in descending order 3, 2 (the 1 is never turned).
    # "highest" bids 2+3 (5), "lowest" 1+2 (3): A takes the 3. Round 2: A's 1
    # against B's 3: B takes the 2. Final margin 3 - 2 = +1 in every game.
    sol = solve(Rules(n=3, bid_cards=2, order="descending"))
    ev = evaluate_variant("highest", sol, against="lowest")
    assert ev.vs_opponent.margin == pytest.approx(1.0) and ev.vs_opponent.win == pytest.approx(1.0)
    sim = simulate_variant("highest", "lowest", sol, 20, seed=3)
    assert sim.margin == 1.0 and sim.win == 1.0


def test_open_prizes_winner_takes_the_largest():
    # n = 2, two open prizes {1, 2}: "highest" bids 2 against "lowest"'s 1 and takes the 2;
    # round 2 (A's 1 against B's 2) B takes the 1: margin +1.
    sol = solve(Rules(n=2, open_prizes=2))
    assert evaluate_variant("highest", sol, against="lowest").vs_opponent.margin == pytest.approx(1.0)


def test_simulation_agrees_with_exact(two_card):
    ev = evaluate_variant("uniform", two_card)
    sim = simulate_variant("uniform", "equilibrium", two_card, 400, seed=1)
    lo, hi = sim.win_ci
    assert lo <= ev.vs_opponent.win <= hi
    again = simulate_variant("uniform", "equilibrium", two_card, 400, seed=1)
    assert again.margin == sim.margin  # reproducible by the seed


def test_cli_evaluate_and_simulate(tmp_path):
    run = CliRunner().invoke
    path = tmp_path / "o.gops"
    assert run(cli, ["solve", "-n", "4", "--open-prizes", "2", "--out", str(path)]).exit_code == 0
    r = run(cli, ["evaluate", "-s", str(path), "--a", "uniform", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    exact = evaluate_variant("uniform", solve(Rules(n=4, open_prizes=2)))
    assert data["vs_opponent"]["margin"] == pytest.approx(exact.vs_opponent.margin, abs=TOL)
    r = run(cli, ["simulate", "-n", "4", "--bid-cards", "2", "--a", "equilibrium", "--b", "uniform", "--games", "50",
                  "-q"])
    assert r.exit_code == 0, r.output
    assert "games   50 of equilibrium (A) vs uniform (B)" in r.output
