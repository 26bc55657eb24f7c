"""One Solution interface: every engine's solution answers the same calls with the same result types."""

import pytest

import gops_solver as gops
from gops_solver import Rules
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.simulate import simulate
from gops_solver.engine.base import GameSolution, Opening, QueryResult
from gops_solver.engine.storage import container_kind

TWO_PLAYER = {
    "classic": Rules(n=5),
    "tiebreak": Rules(n=3, objective="win", match="best-of-3", draw="half", tiebreak="extra-game"),
    "two-card": Rules(n=5, bid_cards=2),
    "open1": Rules(n=5, open_prizes=1, tie="discard"),
    "open2": Rules(n=4, open_prizes=2),
}
#: a decision state of each game as (hand_a, hand_b, pot, prizes, diff, row); pot is the carried pot when row is given
STATES = {
    "classic": ((1, 3, 5), (2, 3, 4), 4, (1, 2), 1, None),
    "tiebreak": ((1, 3), (2, 3), 1, (2,), 0, None),
    "two-card": ((1, 3, 5), (2, 3, 4), 4, (1, 2, 3), 5, None),
    "open1": ((1, 3, 5), (2, 3, 4), 0, (1, 2), 1, (4,)),
    "open2": ((1, 3), (2, 3), 0, (), 0, (2, 3)),
}
KINDS = {"classic": "classic", "tiebreak": "match", "two-card": "variant", "open1": "classic", "open2": "variant"}


@pytest.fixture(scope="module")
def solved():
    return {name: gops.solve(r) for name, r in TWO_PLAYER.items()}


@pytest.fixture(scope="module")
def three():
    return gops.solve(Rules(n=4, players=3))


def _ask(sol, name):
    a, b, pot, prizes, diff, row = STATES[name]
    return sol.query(a, b, pot, prizes, diff, row=row)


@pytest.mark.parametrize("name", list(TWO_PLAYER))
def test_same_calls_same_types(solved, name):
    sol = solved[name]
    assert isinstance(sol, GameSolution) and sol.rules == TWO_PLAYER[name] and sol.kind == KINDS[name]
    res = _ask(sol, name)
    assert isinstance(res, QueryResult)
    a, b = STATES[name][:2]
    # card by card over the cards actually in hand; the bids' shares add up to the bid size
    assert sorted(res.cards_a) == sorted(a) and sorted(res.cards_b) == sorted(b)
    size = TWO_PLAYER[name].bid_cards
    assert sum(res.cards_a.values()) == pytest.approx(size) and sum(res.cards_b.values()) == pytest.approx(size)
    assert all(isinstance(k, tuple) for k in res.bids_a) and sum(res.bids_a.values()) == pytest.approx(1)
    assert sol.value_at(*STATES[name][:5], row=STATES[name][5]) == res.value
    # every bid in A's support earns the value against B's optimal mix
    pay = res.payoffs_a()
    for bid, p in res.strategy_a.items():
        if p > 1e-9:
            assert res.value_given_up(bid) == 0.0 and pay[bid] == pytest.approx(res.value, abs=1e-9)
    assert isinstance(res.to_dict()["value"], float)


@pytest.mark.parametrize("name", list(TWO_PLAYER))
def test_opening_averages_to_the_value(solved, name):
    sol = solved[name]
    op = sol.opening()
    assert isinstance(op, Opening) and op.value == sol.value
    assert sum(d.probability for d in op.decisions) == pytest.approx(1)
    assert sum(d.probability * d.result.value for d in op.decisions) == pytest.approx(sol.value, abs=1e-9)
    n = sol.rules.n
    for d in op.decisions:
        assert isinstance(d.result, QueryResult) and sorted(d.result.cards_a) == list(range(1, n + 1))


@pytest.mark.parametrize("name", list(TWO_PLAYER))
def test_save_and_load_round_trip(solved, name, tmp_path):
    sol = solved[name]
    path = tmp_path / "s.gops"
    sol.save(path)
    assert container_kind(path) == KINDS[name]
    back = gops.load(path)
    assert type(back) is type(sol) and back.rules == sol.rules and back.value == sol.value
    got, want = _ask(back, name), _ask(sol, name)
    assert got.value == want.value and got.strategy_a == want.strategy_a and got.strategy_b == want.strategy_b


def test_values_agree_with_the_engine_queries(solved):
    # open prizes, m = 1: row=[r] with the carried pot is the classic query of pot + r
    sol = solved["open1"]
    got = sol.query((1, 3, 5), (2, 3, 4), 0, (1, 2), 1, row=[4])
    want = sol.query((1, 3, 5), (2, 3, 4), 4, (1, 2), 1)
    assert got.value == want.value and got.strategy_a == want.strategy_a
    # the variant engine keys bids by tuples; bids_a is the same distribution
    res = _ask(solved["two-card"], "two-card")
    assert res.bids_a == res.strategy_a
    # the classic engine keys cards; cards_a is its strategy
    res = _ask(solved["classic"], "classic")
    assert res.cards_a == res.strategy_a and res.bids_a == {(c,): p for c, p in res.strategy_a.items()}


@pytest.mark.parametrize("name", ["classic", "two-card", "open2"])
def test_to_frame_rows_are_queries(solved, name):
    pytest.importorskip("pandas")
    sol = solved[name]
    frame = sol.to_frame(rounds=2)
    assert len(frame) > 0 and set(frame["round"]) == {1, 2}
    first = frame.iloc[0]
    assert first["value"] == pytest.approx(sol.opening().decisions[0].result.value, abs=1e-12)
    n = sol.rules.n
    shares = frame[[f"a_{c}" for c in range(1, n + 1)]].sum(axis=1)
    assert shares.to_numpy() == pytest.approx(min(sol.rules.bid_cards, n))


def test_three_players_refuse_two_player_calls_in_one_line(three, tmp_path):
    sol = three
    assert isinstance(sol, GameSolution) and sol.kind == "multi" and sol.rules.players == 3
    for call in (lambda: sol.value, lambda: sol.value_at((1, 2), (1, 2), 3, (4,)), sol.opening,
                 lambda: sol.to_frame(rounds=1), lambda: sol.query((1, 2), (1, 2), 3, (4,))):
        with pytest.raises(ValueError, match="not defined for 3 players") as info:
            call()
        assert "\n" not in str(info.value)
    path = tmp_path / "m.gops"
    sol.save(path)
    assert container_kind(path) == "multi"
    back = gops.load(path)
    assert type(back) is type(sol) and back.security == sol.security and back.values == sol.values
    q = back.query([[1, 2], [1, 2], [1, 2]], 6, (4,))
    assert q.values == sol.query([[1, 2], [1, 2], [1, 2]], 6, (4,)).values
    for run in (lambda: evaluate("uniform", sol.rules), lambda: simulate("uniform", "uniform", sol.rules, 10)):
        with pytest.raises(ValueError, match="defined for two players"):
            run()


def test_evaluate_and_simulate_take_the_variants(solved):
    for name in ("two-card", "open2"):
        sol = solved[name]
        ev = evaluate("uniform", sol.rules, solution=sol)
        assert ev.game_value == sol.value and ev.exploitability >= 0
        sim = simulate("uniform", "equilibrium", sol.rules, 200, seed=2, solution=sol)
        lo, hi = sim.margin_ci
        assert lo <= sim.margin <= hi and sim.games == 200
        # seeded play agrees with the exact margin within 2.5 half-widths (about five standard errors)
        exact = evaluate("uniform", sol.rules, against="equilibrium", solution=sol).vs_opponent.margin
        assert abs(sim.margin - exact) <= 2.5 * (hi - sim.margin) + 1e-9
    with pytest.raises(ValueError, match="named strategies"):
        evaluate(object(), TWO_PLAYER["two-card"], solution=solved["two-card"])


def test_old_container_formats_still_load(solved, three, tmp_path):
    """Files written before the container (classic format 2, variant format 2, 3-4 players format 1) still load."""
    import json
    for name, magic in (("classic", b"GOPSSOL\x02"), ("two-card", b"GOPSVAR\x02"), ("multi", b"GOPSMUL\x01")):
        sol = three if name == "multi" else solved[name]
        path = tmp_path / f"{name}.gops"
        sol.save(path)
        raw = path.read_bytes()
        size = int.from_bytes(raw[8:16], "little")
        header = json.loads(raw[16:16 + size])
        header["format"] = 1 if name == "multi" else 2
        del header["kind"]
        if name == "multi":  # its layout was called kind then
            header["kind"] = header.pop("layout")
        from gops_solver.engine.storage import header_bytes
        start = 20 + size + (-(20 + size) % 4096)
        head = header_bytes(header, magic=magic)
        path.write_bytes(head + raw[start:])
        back = gops.load(path)
        assert type(back) is type(sol) and back.rules == sol.rules
        if name == "multi":
            assert back.security == sol.security and back.values == sol.values
        else:
            assert back.value == sol.value


def test_game_solution_is_in_the_facade(solved, three):
    assert gops.GameSolution is GameSolution and "GameSolution" in gops.__all__
    for sol in (*solved.values(), three):
        assert isinstance(sol, gops.GameSolution)


@pytest.mark.parametrize("rules", [TWO_PLAYER["tiebreak"], Rules(n=3, objective="win", match="best-of-3", draw="half"),
                                   Rules(n=3, match="session")], ids=["tiebreak", "best-of-3", "session"])
def test_matches_are_evaluated_and_simulated_from_a_saved_file(solved, rules, tmp_path):
    """evaluate and simulate take every match format, from the API and from gops -s FILE alike."""
    import json
    from click.testing import CliRunner
    from gops_solver.cli.commands import cli
    sol = solved["tiebreak"] if rules == TWO_PLAYER["tiebreak"] else gops.solve(rules)
    ev = evaluate("uniform", rules, solution=sol)
    assert ev.exploitability > 0 and ev.game_value == pytest.approx(sol.value, abs=1e-12)
    assert evaluate("equilibrium", rules, solution=sol).exploitability == pytest.approx(0.0, abs=1e-9)
    path = tmp_path / "m.gops"
    sol.save(path)
    runner = CliRunner()
    res = runner.invoke(cli, ["evaluate", "-s", str(path), "--a", "uniform", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["vs_opponent"]["value"] == pytest.approx(ev.vs_opponent.value, abs=1e-12)
    res = runner.invoke(cli, ["simulate", "-s", str(path), "--a", "uniform", "--b", "equilibrium", "--games", "10",
                              "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["games"] == 10
    assert simulate("uniform", "uniform", rules, 10).games == 10


def test_cli_evaluates_the_variants_and_names_their_strategies(solved, tmp_path):
    from click.testing import CliRunner
    from gops_solver.cli.commands import cli
    runner = CliRunner()
    sol = solved["two-card"]
    path = tmp_path / "v.gops"
    sol.save(path)
    res = runner.invoke(cli, ["evaluate", "-s", str(path), "--a", "uniform", "--json"])
    assert res.exit_code == 0, res.output
    import json
    want = evaluate("uniform", sol.rules, solution=sol)
    got = json.loads(res.output)
    assert got["exploitability"] == pytest.approx(want.exploitability, abs=1e-12)
    assert got["vs_opponent"]["margin"] == pytest.approx(want.vs_opponent.margin, abs=1e-12)
    for cmd in (["evaluate", "--a", "greedy"], ["simulate", "--a", "greedy", "--b", "uniform", "--games", "5"]):
        res = runner.invoke(cli, [*cmd, "--cards", "4", "--bid-cards", "2"])
        assert res.exit_code == 2 and len(res.output.splitlines()) == 1, res.output
        assert "not played in the variants: use one of equilibrium, uniform, highest, lowest, match" in res.output
