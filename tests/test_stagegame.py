"""``gops query --matrix`` and :func:`gops_solver.analysis.stagegame.stage_game` against the naive oracle."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.analysis.stagegame import stage_game
from gops_solver.cli._format import nozero

from naive import naive_stage_matrix, random_state, prize_sequence

CASES = [(5, "carry", "points", "random"), (5, "discard", "win", "random"), (5, "carry", "win", "descending"),
         (4, "discard", "points", "ascending")]


@pytest.mark.parametrize("n, tie, objective, order", CASES)
def test_stage_game_is_the_naive_card_level_matrix(n, tie, objective, order):
    sol = solve(Rules(n, tie=tie, objective=objective, order=order))
    rng = np.random.default_rng(12)
    for _ in range(6):
        st = random_state(rng, n, tie, objective, order)
        res = sol.query(st["hand_a"], st["hand_b"], st["pot"], st["prizes"], st["diff"])
        game = stage_game(res)
        cards_a, cards_b, M = naive_stage_matrix(tie, objective, st["hand_a"], st["hand_b"], st["pot"],
                                                 st["prizes"], st["diff"], prize_sequence(n, order) is None)
        assert game.cards_a == tuple(cards_a) and game.cards_b == tuple(cards_b)
        assert np.allclose(game.payoff, M, atol=1e-9, rtol=0)
        # the query's strategies are optimal in it, at the query's value
        x = np.array([res.strategy_a[c] for c in game.cards_a])
        y = np.array([res.strategy_b[c] for c in game.cards_b])
        assert abs(x @ game.payoff @ y - res.value) <= 1e-9
        assert (x @ game.payoff >= res.value - 1e-9).all() and (game.payoff @ y <= res.value + 1e-9).all()


def test_query_matrix_text_and_json():
    args = ["query", "-n", "6", "--hand-a", "1,3,5", "--hand-b", "2,3,4", "--pot", "7", "--prizes", "1,4",
            "--diff", "-2", "--matrix"]
    runner = CliRunner()
    text = runner.invoke(cli, args)
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    head = lines.index("stage game: A's value when A bids the row card and B the column card")
    assert lines[head + 1].split() == ["A", "\\", "B", "2", "3", "4"]
    # the printed table (4 decimals) is the JSON matrix, which is the naive oracle's
    rows = {ln.split()[0]: [float(v) for v in ln.split()[1:]] for ln in lines[head + 2:head + 5]}
    js = json.loads(runner.invoke(cli, args + ["--json"]).output)
    assert js["matrix"]["rows"] == [1, 3, 5] and js["matrix"]["columns"] == [2, 3, 4]
    payoff = np.array(js["matrix"]["payoff"])
    assert np.allclose([rows["A"], rows["3"], rows["5"]], payoff, atol=5e-5)
    cards_a, cards_b, M = naive_stage_matrix("carry", "points", (1, 3, 5), (2, 3, 4), 7, (1, 4), -2, True)
    assert np.allclose(payoff, M, atol=1e-9)
    x = np.array([js["strategy_a"][k] for k in ("1", "3", "5")])
    assert (x @ payoff >= js["value"] - 1e-9).all()


def test_symmetric_values_print_as_zero():
    assert nozero(-3.33e-16) == 0.0 and str(nozero(-1e-13)) == "0.0" and nozero(2e-12) == 2e-12
    out = CliRunner().invoke(cli, ["query", "-n", "6", "--hand-a", "1,2,3,4,5,6", "--hand-b", "1,2,3,4,5,6",
                                   "--pot", "2", "--prizes", "1,3,4,5,6"]).output
    assert "value   0\n" in out
