"""``gops explore --response/--model``: a response to a model of B shown beside the equilibrium."""

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from gops_solver import Rules, exploit, solve
from gops_solver.analysis.strategies import make_strategy
from gops_solver.cli.commands import cli
from gops_solver.explore.server import Explorer, create_app

TOL = 1e-9
#: n = 4, B has played 4 and 3 (what `highest` plays); A holds 1 and 3, the prize 4 is up and 1 is hidden
LATE = {"cards": "4", "hand_a": "1,3", "hand_b": "1,2", "pot": "4", "prizes": "1", "diff": "1"}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("resp")
    out = {}
    for p in (0.0, 1.0):
        path = folder / f"r{p:g}.gops"
        exploit(Rules(4), "highest", p=p).save(path)
        out[p] = str(path)
    return out


def position(response, params):
    client = TestClient(create_app(Explorer(rules=Rules(4), response=response)))
    r = client.get("/api/position", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_the_best_response_takes_the_prize_the_model_gives_away(saved):
    # `highest` bids 2 now and 1 last: 3 now wins the 4 and the last round ties (+4); 1 now loses it (-3)
    got = position(make_strategy(saved[1.0]), LATE)["response"]
    assert got["bids"] == {"1": 0.0, "3": 1.0} and got["model"] == "highest" and got["p"] == 1.0
    assert got["note"] is None


def test_the_zero_weight_response_guarantees_the_value_at_each_position(saved):
    # R(0) is an equilibrium strategy: against every bid of B its stage payoff is at least the value
    resp = make_strategy(saved[0.0])
    for params in (LATE, {"cards": "4", "hand_a": "1,2,3,4", "hand_b": "1,2,3,4", "pot": "3", "prizes": "1,2,4",
                          "diff": "0"},
                   {"cards": "4", "hand_a": "2,3,4", "hand_b": "1,3,4", "pot": "2", "prizes": "1,4", "diff": "-3"}):
        pos = position(resp, params)
        bids, stage, value = pos["response"]["bids"], pos["stage"], pos["query"]["value"]
        assert sorted(map(int, bids)) == sorted(map(int, params["hand_a"].split(",")))
        assert abs(sum(bids.values()) - 1) < TOL
        for j, _ in enumerate(stage["cards_b"]):
            payoff = sum(bids[str(a)] * stage["matrix"][i][j] for i, a in enumerate(stage["cards_a"]))
            assert payoff >= value - 1e-7, (params, j, payoff, value)


def test_other_rules_or_no_response_say_so(saved):
    resp = make_strategy(saved[1.0])
    other = position(resp, {**LATE, "tie": "discard"})["response"]
    assert other["bids"] is None and "computed for n=4 tie=carry" in other["note"]
    assert position(None, LATE)["response"] is None


@pytest.mark.parametrize("args, needle", [
    (["--p", "0.5"], "--p goes with --model"),
    (["--model", "match", "--cards", "13"], "up to --cards 8"),
    (["--model", "nosuch", "--cards", "4"], "unknown strategy"),
    (["--model", "match", "--response", "x.gops"], "one of --response FILE and --model M"),
    (["--response", "missing.gops"], "missing.gops"),
])
def test_bad_input_is_one_line(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["explore", "--no-browser", *args])
    assert r.exit_code == 2 and needle in r.output and "Traceback" not in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1


def test_a_file_that_is_not_a_response_or_for_other_rules_is_refused(saved, tmp_path):
    sol = tmp_path / "c4.gops"
    solve(Rules(4)).save(sol)
    r = CliRunner().invoke(cli, ["explore", "--no-browser", "--response", str(sol)])
    assert r.exit_code == 2 and "holds a solution, not a strategy: give it with --solution" in r.output, r.output
    r = CliRunner().invoke(cli, ["explore", "--no-browser", "--response", saved[1.0], "--cards", "5"])
    assert r.exit_code == 2 and "computed for n=4" in r.output, r.output


@pytest.fixture(scope="module")
def model_explorer():
    # what gops explore --cards 4 --tie discard --model match --p 0.5 serves: the response computed at start
    from gops_solver.cli._explore import _model_response
    rules = Rules(4, "discard")
    return Explorer(rules=rules, response=_model_response(rules, "match", 0.5, None))


def test_a_response_computed_at_start_is_shown(model_explorer):
    client = TestClient(create_app(model_explorer))
    params = {**LATE, "tie": "discard"}
    r = client.get("/api/position", params=params)
    assert r.status_code == 200, r.text
    got = r.json()["response"]
    assert got["model"] == "match" and got["p"] == 0.5 and got["note"] is None
    assert sorted(got["bids"]) == ["1", "3"] and abs(sum(got["bids"].values()) - 1) < TOL
    # and under other rules it says for which rules it was computed
    other = client.get("/api/position", params={**LATE, "tie": "carry"}).json()["response"]
    assert other["bids"] is None and "computed for n=4 tie=discard" in other["note"]


@pytest.mark.parametrize("endpoint", ["/api/position", "/api/query", "/api/step", "/api/first"])
def test_hostile_parameters_never_get_an_internal_error(model_explorer, endpoint):
    # every reply is a result or a 4xx message: an "internal error" (5xx) is a defect
    client = TestClient(create_app(model_explorer))
    base = {**LATE, "tie": "discard", "bid_a": "1", "bid_b": "1"}
    for key in ("cards", "tie", "hand_a", "pot", "prizes", "diff", "bid_a", "next", "open_prizes", "match"):
        for value in ("", "x", "-1", "99", "1e400", "nan", "1,1"):
            r = client.get(endpoint, params={**base, key: value})
            assert r.status_code < 500, (key, value, r.text)
            assert r.status_code == 200 or r.json()["error"], (key, value, r.text)
