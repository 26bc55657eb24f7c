"""Gambit files: the game tree (gops export --format efg) and a stage game (gops query --matrix --format nfg),
written by pygambit and read back by pygambit, whose own LP solver finds the solver's value; the solver's
equilibrium, loaded into Gambit's tree, leaves no player any regret there."""

import json

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.game.cards import format_card, parse_card

gbt = pytest.importorskip("pygambit")


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _state_of(rules, labels):
    """Replay an information set's labels (``prize c``, ``bid c``) into the decision state it is at:
    (hand A, hand B, pot, hidden prizes, diff). A B information set's own last label (A's bid) is not replayed."""
    n = rules.n
    hands = [list(range(1, n + 1)), list(range(1, n + 1))]
    hidden, carry, diff, rnd, prize, bids = set(range(1, n + 1)), 0, 0, 0, None, []
    for label in labels:
        kind, card = label.split(" ")
        card = parse_card(card)
        if kind == "prize":
            prize = card
            continue
        if prize is None:  # a fixed order reveals without a chance move
            prize = rules.sequence[rnd]
        bids.append(card)
        if len(bids) == 2:
            a, b = bids
            pot = carry + prize
            diff += pot if a > b else -pot if b > a else 0
            carry = pot if a == b and rules.tie == "carry" else 0
            hands[0].remove(a)
            hands[1].remove(b)
            hidden.discard(prize)
            bids, prize, rnd = [], None, rnd + 1
    if prize is None:  # a fixed order reveals without a chance move
        prize = rules.sequence[rnd]
    return hands[0], hands[1], carry + prize, sorted(hidden - {prize}), diff


@pytest.mark.parametrize("rules", [Rules(n=3), Rules(n=3, tie="discard", objective="win"),
                                   Rules(n=3, tie="carry", order="2,3,1")],
                         ids=lambda r: r.describe())
def test_the_efg_game_tree_holds_our_equilibrium_and_value(rules, tmp_path):
    path = tmp_path / "g.efg"
    res = run("export", "--format", "efg", "--cards", rules.n, "--tie", rules.tie, "--objective", rules.objective,
              "--order", rules.order_name, "--out", path)
    assert res.exit_code == 0, res.output + res.stderr
    game = gbt.read_efg(str(path))
    sol = solve(rules)
    # Gambit's own solver (sequence-form LP) on the tree it read back finds the game's value
    lp = gbt.nash.lp_solve(game, rational=False)
    assert abs(float(lp.equilibrium.payoffs["A"]) - sol.value) <= 1e-9
    # our equilibrium at every information set of both players: no player gains by deviating anywhere
    ours = game.mixed_behavior_profile()
    assert ours.max_regret() > 1e-2  # the uniform profile it starts from is far from an equilibrium
    for seat, player in enumerate("AB"):
        for history in game.get_infosets(player):
            labels = history.actions[:-1] if player == "B" else history.actions
            hand_a, hand_b, pot, hidden, diff = _state_of(rules, labels)
            q = sol.query(hand_a, hand_b, pot, hidden, diff)
            strategy = q.strategy_a if seat == 0 else q.strategy_b
            hand = hand_a if seat == 0 else hand_b
            ours.set_mixed_action(gbt.H.path(*history.actions),
                                  {f"bid {format_card(c)}": float(strategy.get(c, 0.0)) for c in hand})
    assert ours.max_regret() <= 1e-9
    assert abs(float(ours.payoffs["A"]) - sol.value) <= 1e-9


@pytest.mark.parametrize("args", [
    ["--cards", 5, "--hand-a", "1,3,5", "--hand-b", "2,3,4", "--pot", 3, "--prizes", "1,5", "--diff", 2],
    ["--cards", 6, "--objective", "win", "--tie", "discard", "--hand-a", "2,4,5,6", "--hand-b", "1,3,4,6",
     "--pot", 4, "--prizes", "1,3,6", "--diff", -1],
])
def test_the_nfg_stage_game_has_the_states_value(args, tmp_path):
    res = run("query", *args, "--matrix", "--format", "nfg")
    assert res.exit_code == 0, res.output + res.stderr
    path = tmp_path / "s.nfg"
    path.write_text(res.stdout)
    game = gbt.read_nfg(str(path))
    ans = json.loads(run("query", *args, "--matrix", "--json").stdout)
    assert game.get_strategies("A") == [f"bid {format_card(c)}" for c in ans["matrix"]["rows"]]
    assert game.get_strategies("B") == [f"bid {format_card(c)}"
                                                               for c in ans["matrix"]["columns"]]
    lp = gbt.nash.lp_solve(game, rational=False)
    assert abs(ans["value"]) > 0.1  # a state whose value is not the trivial 0
    assert abs(float(lp.equilibrium.payoffs["A"]) - ans["value"]) <= 1e-9


@pytest.mark.parametrize("args,says", [
    (["export", "--format", "efg", "--cards", 5, "--out", "x.efg"], "has 1,728,000 terminal histories ((n!)^3)"),
    (["export", "--format", "efg", "--cards", 6, "--order", "ascending", "--out", "x.efg"], "has 518,400 terminal"),
    (["export", "--format", "efg", "--cards", 3, "--rounds", 1, "--out", "x.efg"], "drop --rounds/--level"),
    (["query", "--cards", 4, "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 3, "--prizes", 4, "--format", "nfg"],
     "give --matrix, without --json"),
])
def test_gambit_files_refused_in_one_line(args, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = run(*args)
    assert res.exit_code == 2 and says in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert not (tmp_path / "x.efg").exists()
