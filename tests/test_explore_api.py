"""The explorer's JSON API through FastAPI's TestClient: the same object and the
same one-line errors as ``gops query``, successors checked against RULES.md."""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from hypothesis import given, settings, HealthCheck, strategies as hs

from gops_solver import Rules, solve, validate_state
from gops_solver.cli.commands import cli
from gops_solver.explore import positions
from gops_solver.explore.server import Explorer, Jobs, create_app
from gops_solver.analysis.answer import answer_query

SHARED = {"cards": "6", "tie": "carry", "objective": "points", "order": "random", "hand_a": "1,3,5",
          "hand_b": "2,3,4", "pot": "7", "prizes": "1,4", "diff": "-2"}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    path = tmp_path_factory.mktemp("sol") / "c6.gops"
    solve(Rules(6)).save(path)
    return str(path)


@pytest.fixture(scope="module")
def client(stored):
    from gops_solver import load
    return TestClient(create_app(Explorer(load(stored), stored)), follow_redirects=False)


@pytest.fixture(scope="module")
def live():
    return TestClient(create_app(Explorer(rules=Rules(6))), follow_redirects=False)


def cli_query(params, solution=None):
    args = ["query"] + (["--solution", solution] if solution else [])
    for k, v in params.items():
        args.append(f"--{k.replace('_', '-')}={v}")
    return CliRunner().invoke(cli, args + ["--json"], prog_name="gops")


POSITIONS = [
    SHARED,
    {"cards": "6", "tie": "discard", "objective": "win", "order": "random", "hand_a": "2,6", "hand_b": "1,5",
     "pot": "3", "prizes": "4", "diff": "1"},
    {"cards": "5", "tie": "carry", "objective": "points", "order": "descending", "hand_a": "1,2,4",
     "hand_b": "3,4,5", "pot": "3", "prizes": "2,1", "diff": "4"},
    {"cards": "5", "tie": "carry", "objective": "win", "order": "3,1,5,2,4", "hand_a": "1,5", "hand_b": "2,3",
     "pot": "7", "prizes": "4", "diff": "-1"},
    {"cards": "4", "tie": "carry", "objective": "points", "order": "random", "hand_a": "A,3", "hand_b": "2,4",
     "pot": "4", "prizes": "1", "diff": "0", "match": "session", "game": "3", "match_score": "-4"},
]


@pytest.mark.parametrize("params", POSITIONS)
def test_api_query_is_exactly_the_cli_json(live, params):
    r = live.get("/api/query?" + urlencode(params))
    c = cli_query(params)
    assert c.exit_code == 0, c.output
    assert r.status_code == 200
    assert r.text == c.stdout.strip()  # the same object, printed the same way


def test_api_query_with_stored_solution_is_the_cli_json(client, stored):
    r = client.get("/api/query?" + urlencode(SHARED))
    c = cli_query(SHARED, stored)
    assert r.status_code == 200 and c.exit_code == 0
    assert r.text == c.stdout.strip()
    # the shareable URL of the issue: value and strategies of that exact position
    d = json.loads(r.text)
    assert d["state"] == {"hand_a": [1, 3, 5], "hand_b": [2, 3, 4], "pot": 7, "prizes": [1, 4], "diff": -2}


BAD = [
    {**SHARED, "hand_b": "2,3"},                        # hands differ in size
    {**SHARED, "pot": "x"},                             # click type error
    {**SHARED, "pot": "40"},                            # impossible pot
    {**SHARED, "cards": "66"},                          # deck size
    {**SHARED, "tie": "sometimes"},                     # click choice
    {**SHARED, "order": "1,1,2,3,4,5"},                 # not a permutation
    {**SHARED, "prizes": "1,4,6"},                      # wrong number of hidden prizes
    {**SHARED, "diff": "99"},                           # unreachable diff
    {**SHARED, "hand_a": "1,3,Z"},                      # not a card
    {**SHARED, "foo": "1"},                             # unknown option
    {**SHARED, "game": "2"},                            # match position without a match
    {**SHARED, "match": "session", "match_score": "a-b-c"},
    {"cards": "6", "hand_b": "1"},                      # missing option
]


@pytest.mark.parametrize("params", BAD)
def test_bad_parameters_get_400_with_the_cli_message(live, params):
    r = live.get("/api/query?" + urlencode(params))
    c = cli_query(params)
    assert c.exit_code == 2
    line = c.stderr.strip()
    assert "\n" not in line and line.startswith("error: ")
    assert r.status_code == 400
    assert r.json() == {"error": line[len("error: "):]}


def test_stored_solution_mismatch_gets_the_cli_message(client, stored):
    params = {**SHARED, "tie": "discard", "hand_a": "2,3,5"}
    r = client.get("/api/query?" + urlencode(params))
    c = cli_query(params, stored)
    assert r.status_code == 400 and c.exit_code == 2
    assert r.json()["error"] == c.stderr.strip()[len("error: "):]
    assert "holds a solution for n=6 tie=carry" in r.json()["error"]


def test_the_address_cannot_name_a_file(client):
    r = client.get("/api/query?" + urlencode({**SHARED, "solution": "/etc/passwd"}))
    assert r.status_code == 400 and "drop solution" in r.json()["error"]


def test_too_large_a_live_solve_is_refused_not_started(live):
    full = ",".join(map(str, range(1, 14)))
    r = live.get("/api/query?" + urlencode({"cards": 13, "hand_a": full, "hand_b": full, "pot": 1,
                                            "prizes": ",".join(map(str, range(2, 14)))}))
    assert r.status_code == 400
    assert "gops explore --solution" in r.json()["error"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hs.dictionaries(hs.sampled_from(["cards", "tie", "objective", "order", "hand_a", "hand_b", "pot",
                                        "prizes", "diff", "match", "game", "match_score", "draw", "x"]),
                       hs.one_of(hs.text(max_size=8), hs.integers(-20, 20).map(str),
                                 hs.sampled_from(["1,2", "A,K", "3", "", "-", "best-of-3", "carry", "win"])),
                       max_size=9))
def test_garbage_never_crashes_the_server(live, params):
    params.setdefault("cards", "4")
    for path in ("/api/query", "/api/position", "/api/step", "/api/first"):
        r = live.get(path + "?" + urlencode(params))
        assert r.status_code in (200, 400), (path, params, r.text)
        assert "error" in r.json() if r.status_code == 400 else True
    assert live.get("/api/query?" + urlencode(SHARED)).status_code == 200  # still serving


def test_index_redirects_to_a_full_default_position(live, client):
    for c, n in ((live, 6), (client, 6)):
        r = c.get("/")
        assert r.status_code == 307
        target = r.headers["location"]
        assert f"cards={n}" in target and "hand_a=" in target
        assert c.get(target).status_code == 200
        assert c.get("/api/query" + target[1:]).status_code == 200
    r = live.get("/?cards=4&tie=discard&order=descending")
    loc = r.headers["location"]
    assert "cards=4" in loc and "tie=discard" in loc and "order=descending" in loc
    assert live.get("/api/query" + loc[1:]).status_code == 200


@pytest.mark.parametrize("n", range(1, 14))
@pytest.mark.parametrize("order", ["random", "descending", "shuffled"])
@pytest.mark.parametrize("stored", [False, True])
def test_default_positions_are_valid(n, order, stored):
    if order == "shuffled":
        order = ",".join(str((i * 5) % n + 1) for i in range(n)) if n % 5 else "ascending"
    for tie in ("carry", "discard"):
        rules = Rules(n, tie=tie, order=order)
        p = positions.default_position(rules, stored)
        st = validate_state(rules, p["hand_a"], p["hand_b"], p["pot"], p["prizes"], p["diff"])
        assert st.k == (n if stored or n <= positions.DEFAULT_LIVE_HAND else positions.DEFAULT_LIVE_HAND)


def naive_step(rules, hand_a, hand_b, pot, prizes, diff, a, b, nxt):
    """RULES.md, written out: the higher bid takes the pot; a tie carries it (carry, not in the
    last round) or discards it; the next prize joins what was carried."""
    if a > b:
        diff += pot
    elif b > a:
        diff -= pot
    carried = pot if a == b and rules.tie == "carry" and len(hand_a) > 1 else 0
    if len(hand_a) == 1:
        return None, diff
    return (sorted(set(hand_a) - {a}), sorted(set(hand_b) - {b}), nxt + carried,
            [p for p in prizes if p != nxt]), diff


@pytest.mark.parametrize("tie", ["carry", "discard"])
def test_step_follows_the_rules(tie):
    rules = Rules(6, tie=tie)
    st = validate_state(rules, [1, 3, 5], [2, 3, 4], 6, [1, 4], -2)
    for a in st.hand_a:
        for b in st.hand_b:
            for nxt in st.prizes:
                out = positions.step(rules, st, a, b, nxt)
                (ha, hb, pot, pr), diff = naive_step(rules, st.hand_a, st.hand_b, st.pot, st.prizes, st.diff, a, b, nxt)
                assert out["position"] == {"hand_a": ",".join(map(str, ha)), "hand_b": ",".join(map(str, hb)),
                                           "pot": str(pot), "prizes": ",".join(map(str, pr)), "diff": str(diff)}
    last = validate_state(rules, [4], [4], 6, [], 1)
    assert positions.step(rules, last, 4, 4) == {"outcome": "tie", "taken": 0, "carried": 0, "final_diff": 1}
    with pytest.raises(ValueError, match="A does not hold 2"):
        positions.step(rules, st, 2, 3, 1)
    with pytest.raises(ValueError, match="cannot come next"):
        positions.step(rules, st, 1, 2, 6)


def test_fixed_order_steps_to_the_orders_next_prize():
    rules = Rules(5, order="3,1,5,2,4")
    st = validate_state(rules, [1, 5], [2, 3], 7, [4], -1)
    out = positions.step(rules, st, 5, 3)
    assert out["position"]["pot"] == "4" and out["position"]["diff"] == "6"
    with pytest.raises(ValueError, match="prize 4 cannot come next: choose one of 2"):
        positions.step(rules, validate_state(Rules(5, order="3,1,5,2,4"), [1, 2, 5], [2, 3, 4], 5, [2, 4], 0),
                       1, 2, 4)


@pytest.mark.parametrize("params", [SHARED, POSITIONS[1], POSITIONS[2]])
def test_stage_matrix_cells_are_the_successor_values(live, params):
    """Each heatmap cell is the value of its successor (averaged over the next prize, random
    order), read back through /api/step and /api/query: the matrix and the stepping agree."""
    pos = live.get("/api/position?" + urlencode(params)).json()
    stage = pos["stage"]
    for i, a in enumerate(stage["cards_a"]):
        for j, b in enumerate(stage["cards_b"]):
            vals = []
            for nxt in pos["next_prizes"]:
                s = live.get("/api/step?" + urlencode({**params, "bid_a": a, "bid_b": b, "next": nxt})).json()
                vals.append(live.get("/api/query?" + s["params"]).json()["value"])
            assert stage["matrix"][i][j] == pytest.approx(sum(vals) / len(vals), abs=1e-9)
    # the supports are the cards played, and a supported row earns the value against B's mix
    q = pos["query"]
    assert stage["support_a"] == [c for c in stage["cards_a"] if q["strategy_a"][str(c)] > 1e-9]
    y = [q["strategy_b"][str(c)] for c in stage["cards_b"]]
    for i, a in enumerate(stage["cards_a"]):
        if a in stage["support_a"]:
            assert sum(m * p for m, p in zip(stage["matrix"][i], y)) == pytest.approx(q["value"], abs=1e-9)


def test_last_round_cells_are_the_final_outcomes(live):
    params = {"cards": "6", "objective": "win", "hand_a": "3", "hand_b": "5", "pot": "6", "prizes": "", "diff": "2"}
    pos = live.get("/api/position?" + urlencode(params)).json()
    assert pos["last_round"] and pos["next_prizes"] == []
    assert pos["stage"]["matrix"] == [[-1.0]]  # B's 5 beats A's 3 and takes 6: final diff 2 - 6 < 0
    s = live.get("/api/step?" + urlencode({**params, "bid_a": 3, "bid_b": 5})).json()
    assert s == {"outcome": "B", "taken": 6, "carried": 0, "final_diff": -4}


def test_first_round_rows_are_the_opening_queries(client, stored):
    r = client.get("/api/first?cards=6")
    assert r.status_code == 200
    d = r.json()
    assert [row["prize"] for row in d["rows"]] == list(range(1, 7))
    from gops_solver import load
    sol = load(stored)
    for row in d["rows"]:
        q = sol.query(range(1, 7), range(1, 7), row["prize"], [c for c in range(1, 7) if c != row["prize"]])
        assert row["strategy"] == pytest.approx([q.strategy_a[c] for c in range(1, 7)], abs=1e-12)
        assert sum(row["strategy"]) == pytest.approx(1.0)
    # the game's value is the average over the first prize (RULES.md)
    assert d["value"] == pytest.approx(sum(row["value"] for row in d["rows"]) / 6, abs=1e-12)


def test_first_round_live_solves_the_game_once(live):
    r = live.get("/api/first?" + urlencode({"cards": 5, "tie": "discard", "order": "ascending"}))
    assert r.status_code == 200
    d = r.json()
    assert [row["prize"] for row in d["rows"]] == [1]  # a fixed order has one first prize
    assert d["value"] == pytest.approx(solve(Rules(5, tie="discard", order="ascending")).value, abs=1e-12)


def test_best_of_match_positions_are_served(live):
    # no objective: a best-of match is played to win, by the server as by the CLI
    params = {"cards": "4", "match": "best-of-3", "draw": "half", "hand_a": "1,3",
              "hand_b": "2,3", "pot": "4", "prizes": "1", "diff": "-2", "match_score": "1.5-0.5"}
    r = live.get("/api/query?" + urlencode(params))
    c = cli_query(params)
    assert r.status_code == 200 and r.text == c.stdout.strip()


def test_sub_game_solve_reports_progress():
    seen = []
    answer_query("1,2,3,5,6,8", "2,3,4,5,7,8", 7, "1,4,5,6,8", 0, cards=8,
                 progress=lambda level, games, done=False: seen.append((level, games)))
    assert sorted({lv for lv, _ in seen}) == list(range(1, 6))  # every level of the 6-card sub-game
    assert all(g >= 0 for _, g in seen) and sum(g for _, g in seen) > 0
    jobs = Jobs()
    j = jobs.start("solving", 5)
    jobs.callback(j)(3, 120)
    snap = jobs.snapshot()
    assert snap[0]["level"] == 3 and snap[0]["games"] == 120 and snap[0]["levels"] == 5
    jobs.finish(j)
    assert jobs.snapshot() == []


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gops_explore_serves_on_localhost(stored):
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    proc = subprocess.Popen([sys.executable, "-c", "from gops_solver.cli.commands import main; main()", "explore", "--solution", stored,
                             "--port", str(port), "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith(f"gops explore serving http://127.0.0.1:{port}/"), (line, proc.stderr.read())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/query?" + urlencode(SHARED)) as r:
            assert json.loads(r.read())["state"]["pot"] == 7
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_gops_explore_bad_input_is_one_line(tmp_path):
    r = CliRunner().invoke(cli, ["explore", "--solution", str(tmp_path / "none.gops"), "--no-browser"])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1


def test_gops_explore_port_in_use_is_one_line():
    import socket
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        r = CliRunner().invoke(cli, ["explore", "--cards", "4", "--port", str(port), "--no-browser"])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}") and r.stderr.count("\n") == 1


def test_progress_is_visible_while_a_sub_game_solves():
    # a 7-card sub-game: solved by the serial kernel every worker compiles anyway, slowly enough to watch its levels
    ex = Explorer(rules=Rules(8))
    params = [("hand_a", "1,2,3,4,5,6,7"), ("hand_b", "2,3,4,5,6,7,8"), ("pot", "1"),
              ("prizes", "3,4,5,6,7,8"), ("diff", "0")]
    seen = []
    worker = threading.Thread(target=lambda: seen.append(("answer", ex.answer(params).result.value)))
    worker.start()
    while worker.is_alive():
        seen.extend(ex.jobs.snapshot())
        time.sleep(0.002)
    worker.join()
    jobs = [j for j in seen if isinstance(j, dict)]
    assert jobs and jobs[0]["what"].startswith("solving the sub-game below this position (7 cards)")
    assert jobs[0]["levels"] == 6
    assert max(j["level"] for j in jobs) >= 1 and max(j["games"] for j in jobs) > 0
    assert ex.jobs.snapshot() == []  # finished jobs leave the list
    assert seen[-1][0] == "answer"


# -- the variants: every two-player game solve accepts ---------------------------------------------
FULL5 = "1,2,3,4,5"
VARIANTS = [
    # (rules, query parameters, keyword arguments of solution.query)
    (Rules(5, bid_cards=2), {"cards": "5", "bid_cards": "2", "hand_a": "1,3,4", "hand_b": "2,3,5", "pot": "2",
                             "prizes": "1,4,5", "diff": "-1"},
     dict(hand_a=[1, 3, 4], hand_b=[2, 3, 5], pot=2, prizes=[1, 4, 5], diff=-1)),
    (Rules(5, bid_cards=2, tie="discard", objective="win"),
     {"cards": "5", "bid_cards": "2", "tie": "discard", "objective": "win", "hand_a": FULL5, "hand_b": FULL5,
      "pot": "4", "prizes": "1,2,3,5", "diff": "0"},
     dict(hand_a=[1, 2, 3, 4, 5], hand_b=[1, 2, 3, 4, 5], pot=4, prizes=[1, 2, 3, 5], diff=0)),
    (Rules(5, open_prizes=2), {"cards": "5", "open_prizes": "2", "hand_a": "2,4,5", "hand_b": "1,3,5",
                               "pot": "0", "row": "2,5", "prizes": "4", "diff": "3"},
     dict(hand_a=[2, 4, 5], hand_b=[1, 3, 5], pot=0, prizes=[4], diff=3, row=[2, 5])),
    (Rules(5, open_prizes=3, order="descending"),
     {"cards": "5", "open_prizes": "3", "order": "descending", "hand_a": FULL5, "hand_b": FULL5, "pot": "0",
      "row": "3,4,5", "prizes": "2,1", "diff": "0"},
     dict(hand_a=[1, 2, 3, 4, 5], hand_b=[1, 2, 3, 4, 5], pot=0, prizes=[2, 1], diff=0, row=[3, 4, 5])),
    (Rules(4), {"cards": "4", "hand_a": "1,2,4", "hand_b": "2,3,4", "pot": "1", "row": "3", "prizes": "2,4",
                "diff": "0"},
     dict(hand_a=[1, 2, 4], hand_b=[2, 3, 4], pot=1, prizes=[2, 4], diff=0, row=[3])),
    (Rules(3, match="best-of-3", draw="half", objective="win", tiebreak="total-score"),
     {"cards": "3", "match": "best-of-3", "draw": "half", "tiebreak": "total-score", "hand_a": "1,2,3",
      "hand_b": "1,2,3", "pot": "2", "prizes": "1,3", "diff": "0", "game": "2", "match_score": "1-0",
      "match_total": "2"},
     dict(hand_a=[1, 2, 3], hand_b=[1, 2, 3], pot=2, prizes=[1, 3], diff=0, game=2, match_score=(1, 0, 2))),
]


@pytest.fixture(scope="module")
def variant_solutions():
    return {rules: solve(rules) for rules, _, _ in VARIANTS}


@pytest.mark.parametrize("case", range(len(VARIANTS)), ids=[r.describe() for r, _, _ in VARIANTS])
def test_api_answers_each_variant_as_its_solution_does(variant_solutions, case):
    rules, params, where = VARIANTS[case]
    c = TestClient(create_app(Explorer(rules=Rules(6))), follow_redirects=False)
    want = variant_solutions[rules].query(**where)
    got = c.get("/api/query?" + urlencode(params)).json()
    assert got["rules"] == rules.to_dict()  # the rules asked for, not the server's
    assert got["value"] == pytest.approx(want.value, abs=1e-9)
    label = positions.bid_label
    for side, strat in (("strategy_a", want.strategy_a), ("strategy_b", want.strategy_b)):
        assert got[side] == pytest.approx({label(b): p for b, p in strat.items()}, abs=1e-9)
    pos = c.get("/api/position?" + urlencode(params)).json()
    assert pos["query"] == got and pos["variant"] is True
    stage = pos["stage"]
    assert stage["cards_a"] == [label(b) for b in want.strategy_a]
    assert stage["cards_b"] == [label(b) for b in want.strategy_b]
    assert len(stage["matrix"]) == len(want.strategy_a)
    # the stage matrix against B's optimal mix gives every bid in A's support the value
    y = [want.strategy_b[b] for b in want.strategy_b]
    for i, b in enumerate(want.strategy_a):
        if want.strategy_a[b] > 1e-6:
            assert sum(m * q for m, q in zip(stage["matrix"][i], y)) == pytest.approx(want.value, abs=1e-7)
    if rules.open_prizes > 1:
        assert pos["query"]["state"]["row"] == sorted(where["row"])
        assert stage["choices"] == {f"{label(a)}|{label(b)}": r for (a, b), r in want.choices.items()}
    if rules.bid_cards == 2 and len(where["hand_a"]) > 1:
        assert all("+" in b for b in stage["cards_a"])


@pytest.mark.parametrize("case", range(len(VARIANTS)), ids=[r.describe() for r, _, _ in VARIANTS])
def test_variant_api_query_is_exactly_the_cli_json(case):
    _, params, _ = VARIANTS[case]
    c = TestClient(create_app(Explorer(rules=Rules(6))), follow_redirects=False)
    r = c.get("/api/query?" + urlencode(params))
    cli_out = cli_query(params)
    assert cli_out.exit_code == 0, cli_out.output
    assert r.status_code == 200 and r.text == cli_out.stdout.strip()


def test_two_card_first_round_is_the_opening(variant_solutions):
    rules = VARIANTS[0][0]
    c = TestClient(create_app(Explorer(rules=Rules(6))), follow_redirects=False)
    first = c.get("/api/first?cards=5&bid_cards=2").json()
    opening = variant_solutions[rules].opening()
    assert first["value"] == pytest.approx(opening.value, abs=1e-12)
    assert first["cards"] == [positions.bid_label(b) for b in opening.decisions[0].result.strategy_a]
    assert [r["prize"] for r in first["rows"]] == [str(d.pot) for d in opening.decisions]
    for row, d in zip(first["rows"], opening.decisions):
        assert row["strategy"] == pytest.approx(list(d.result.strategy_a.values()), abs=1e-12)


def test_variant_default_position_opens_at_the_start():
    c = TestClient(create_app(Explorer(rules=Rules(6))), follow_redirects=False)
    r = c.get("/?cards=5&open_prizes=2")
    assert r.status_code == 307
    q = dict(__import__("urllib.parse").parse.parse_qsl(r.headers["location"][2:]))
    assert (q["open_prizes"], q["row"], q["prizes"], q["pot"]) == ("2", "1,2", "3,4,5", "0")
    assert c.get("/api/position?" + r.headers["location"][2:]).status_code == 200


def test_stored_variant_file_is_served(variant_solutions, tmp_path):
    rules, params, where = VARIANTS[2]
    path = tmp_path / "open.gops"
    variant_solutions[rules].save(path)
    from gops_solver import load
    c = TestClient(create_app(Explorer(load(path), str(path))), follow_redirects=False)
    bare = {k: v for k, v in params.items() if k not in ("cards", "open_prizes")}
    got = c.get("/api/query?" + urlencode(bare)).json()
    assert got["value"] == pytest.approx(variant_solutions[rules].query(**where).value, abs=1e-12)
    r = c.get("/api/query?" + urlencode({**bare, "open_prizes": "3"}))
    assert r.status_code == 400 and "contradicts --open-prizes 3" in r.json()["error"]
    # stepping is for the classic game: one line saying what to do instead
    r = c.get("/api/step?" + urlencode({**bare, "bid_a": "2", "bid_b": "1"}))
    assert r.status_code == 400 and "edit the position" in r.json()["error"]


VARIANT_BAD = [
    ({"bid_cards": "3"}, "bid_cards"),
    ({"bid_cards": "x"}, "bid-cards"),
    ({"open_prizes": "9"}, "open_prizes"),
    ({"open_prizes": "2"}, "row"),                          # open prizes without their row
    ({"bid_cards": "2", "row": "3,4"}, "row"),              # a row of two without open prizes
    ({"tiebreak": "coin"}, "tiebreak"),
    ({"tiebreak": "extra-game"}, "tiebreak"),               # needs a best-of match with draw half
    ({"match_total": "2"}, "match_total"),
    ({"bid_cards": "2", "hand_a": "1,2,9"}, "9"),
    ({"players": "3"}, "players=3"),                        # 3-4 players: not shown, never answered as two
    ({"players": "4", "bid_cards": "2"}, "players=4"),
]


@pytest.mark.parametrize("extra,word", VARIANT_BAD)
def test_bad_variant_parameters_get_400_naming_them(extra, word):
    c = TestClient(create_app(Explorer(rules=Rules(6))), follow_redirects=False)
    q = {"cards": "5", "hand_a": "1,2,3", "hand_b": "1,2,3", "pot": "4", "prizes": "4,5", "diff": "0", **extra}
    for path in ("/api/query", "/api/position"):
        r = c.get(path + "?" + urlencode(q))
        assert r.status_code == 400, (path, r.text)
        err = r.json()["error"]  # the parameter, or its command-line option (the page's fields are those options)
        assert (word in err or word.replace("_", "-") in err) and "\n" not in err
