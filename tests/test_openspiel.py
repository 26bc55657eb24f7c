"""OpenSpiel baselines: the exact policy's NashConv, by OpenSpiel's own code, is 0."""

import json

import pytest
from click.testing import CliRunner

import pyspiel  # noqa: E402  (the [openspiel] extra; CI installs it)
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

from gops_solver import Rules, solve  # noqa: E402
from gops_solver.cli.commands import cli  # noqa: E402
from gops_solver.analysis.openspiel import load_game, policy, rules_for  # noqa: E402


def _game(order, returns, n=4):
    return pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": order, "returns_type": returns,
                                           "imp_info": False})


@pytest.mark.parametrize("order, returns", [("random", "point_difference"), ("random", "win_loss"),
                                            ("descending", "point_difference")])
def test_exact_policy_has_zero_nash_conv_and_uniform_does_not(order, returns):
    game = pyspiel.convert_to_turn_based(_game(order, returns))
    rules = rules_for(game)
    assert rules == Rules(4, tie="discard", objective="points" if returns == "point_difference" else "win",
                          order=order)
    sol = solve(rules)
    assert exploitability.nash_conv(game, policy(sol, game)) <= 1e-6
    assert exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game)) > 0.5


def test_simultaneous_game_policy_answers_both_players():
    game = _game("random", "point_difference")
    pol = policy(solve(Rules(4, tie="discard")), game)
    state = game.new_initial_state()
    state.apply_action(3)  # the 4 is shown first
    q = solve(Rules(4, tie="discard")).query([1, 2, 3, 4], [1, 2, 3, 4], 4, [1, 2, 3])
    for p, strat in ((0, q.strategy_a), (1, q.strategy_b)):
        got = pol.action_probabilities(state, p)
        assert got == pytest.approx({c - 1: v for c, v in strat.items()}, abs=1e-12)


def test_policy_refuses_other_rules():
    game = _game("random", "win_loss")
    with pytest.raises(ValueError, match="tie='discard', objective='win'"):
        policy(solve(Rules(4, tie="discard")), game)
    with pytest.raises(ValueError, match="imp_info"):
        rules_for(pyspiel.load_game("goofspiel", {"num_cards": 4, "imp_info": True}))
    with pytest.raises(ValueError, match="discards tied prizes"):
        load_game(Rules(4))


def test_export_openspiel_file_loads_as_a_tabular_policy_with_zero_nash_conv(tmp_path):
    out = tmp_path / "p.json"
    res = CliRunner().invoke(cli, ["export", "-n", "4", "--tie", "discard", "--format", "openspiel",
                                   "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    table = pyspiel.TabularPolicy({k: [tuple(x) for x in v] for k, v in doc["policy"].items()})
    assert table.size() == json.loads(res.output)["rows"]
    game = load_game(Rules(4, tie="discard"))
    assert doc["game"] == str(game)

    entries = table.policy_table()  # a copy of the C++ table: take it once

    class FromFile(os_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            p = state.current_player() if player_id is None else player_id
            return dict(entries[state.information_state_string(p)])

    assert exploitability.nash_conv(game, FromFile(game, [0, 1])) <= 1e-6
