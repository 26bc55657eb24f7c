"""Honest answers on every surface: a reader refuses rule options that contradict its file, the explorer's
API names the variant parameters that cannot apply, Python evaluate/simulate refuse 3-4 players, an exposed explorer
says so, 3-4 player sizes come from a formula, and every error is one line (exit 2, no traceback)."""

import itertools
import math

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from gops_solver import Rules, solve
from gops_solver.analysis.answer import answer_query, file_rules
from gops_solver.cli._explore import _check_host, _exposed
from gops_solver.cli._options import one_line as one_line_text
from gops_solver.cli.commands import cli
from gops_solver.explore.server import Explorer, create_app
from gops_solver.multi.info import count_patterns
from gops_solver.multi.state import relabel


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def one_line(r, *words):
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def c4(tmp_path_factory):
    path = tmp_path_factory.mktemp("sol") / "c4.gops"
    solve(Rules(4)).save(path)
    return str(path)


@pytest.fixture(scope="module")
def v4(tmp_path_factory):
    path = tmp_path_factory.mktemp("sol") / "v4.gops"
    solve(Rules(4, bid_cards=2)).save(path)
    return str(path)


Q = ("--hand-a", "1,2", "--hand-b", "1,2", "--pot", "1", "--prizes", "3")


# -- item: a reader refuses options that contradict its file ---------------------------------------------------
@pytest.mark.parametrize("option", [("--match", "best-of-3"), ("--match", "session"), ("--draw", "half"),
                                    ("--objective", "win"), ("--tie", "discard"), ("--cards", "5"),
                                    ("--bid-cards", "2"), ("--open-prizes", "2"), ("--tiebreak", "total-score")])
def test_query_refuses_options_that_contradict_the_file(c4, option):
    line = one_line(run("query", "-s", c4, *option, *Q), "contradicts", " ".join(option), "n=4 tie=carry")


@pytest.mark.parametrize("cmd", [("play",), ("export", "--format", "csv", "--out", "-"),
                                 ("evaluate", "--a", "uniform"),
                                 ("simulate", "--a", "uniform", "--b", "lowest", "--games", "5"),
                                 ("explore", "--no-browser", "--port", "0")])
def test_every_reader_refuses_a_contradiction(c4, cmd):
    one_line(run(*cmd, "-s", c4, "--objective", "win", input=""), "contradicts --objective win")


def test_agreeing_options_are_answered_with_the_files_rules(c4):
    r = run("query", "-s", c4, "--cards", "4", "--tie", "carry", "--match", "single", *Q)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "rules   n=4 tie=carry objective=points order=random"
    # evaluate and simulate read the file's rules without --cards
    r = run("evaluate", "--a", "uniform", "-s", c4, "-q")
    assert r.exit_code == 0 and "n=4 tie=carry" in r.output, r.output


def test_file_rules_names_every_contradiction():
    rules = Rules(5)
    assert file_rules(rules, "f", n=5, tie="carry") is rules
    with pytest.raises(ValueError, match=r"^f holds .*contradicts --tie discard --order ascending: drop those"):
        file_rules(rules, "f", tie="discard", order="ascending", objective="points")
    with pytest.raises(ValueError, match="contradicts --match best-of-3"):  # cannot even apply to a points game
        file_rules(rules, "f", match="best-of-3")
    with pytest.raises(ValueError, match="contradicts --match best-of-3"):
        answer_query("1,2", "1,2", 1, "3", solution=solve(Rules(4)), match="best-of-3")


# -- the explorer's API ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client(c4):
    from gops_solver import load
    return TestClient(create_app(Explorer(load(c4), c4)), follow_redirects=False)


@pytest.mark.parametrize("param", [("bid_cards", "2"), ("open_prizes", "2"), ("tiebreak", "total-score"),
                                   ("match_total", "1")])
def test_api_refuses_variant_parameters_the_classic_file_lacks(client, param):
    q = {"cards": "4", "hand_a": "1,2", "hand_b": "1,2", "pot": "1", "prizes": "3", param[0]: param[1]}
    for path in ("/api/query", "/api/position"):
        r = client.get(path, params=q)
        assert r.status_code == 400, r.text
        assert param[0].split("_")[0] in r.json()["error"] and "\n" not in r.json()["error"]


@pytest.mark.parametrize("param", [("tiebreak", "total-score"), ("match_total", "1"), ("row", "3"),
                                   ("open_prizes", "2")])
def test_live_api_names_a_variant_parameter_that_cannot_apply(param):
    # a tiebreak without a best-of match, a match total without the tiebreak, a row face down too,
    # open prizes without their row: 400 naming the parameter, never the classic answer
    c = TestClient(create_app(Explorer(rules=Rules(4))), follow_redirects=False)
    q = {"cards": "4", "hand_a": "1,2", "hand_b": "1,2", "pot": "1", "prizes": "3", param[0]: param[1]}
    for path in ("/api/query", "/api/position"):
        r = c.get(path, params=q)
        assert r.status_code == 400, r.text
        assert param[0] in r.json()["error"] and "\n" not in r.json()["error"]


def test_api_accepts_classic_values_and_refuses_rules_the_file_lacks(client):
    q = {"hand_a": "1,2", "hand_b": "1,2", "pot": "1", "prizes": "3"}
    assert client.get("/api/query", params={**q, "bid_cards": "1", "open_prizes": "1"}).status_code == 200
    for extra in ({"match": "best-of-3"}, {"objective": "win"}):
        r = client.get("/api/query", params={**q, **extra})
        assert r.status_code == 400 and "contradicts" in r.json()["error"], r.text
    r = client.get("/api/first", params={"cards": "5"})
    assert r.status_code == 400 and "contradicts --cards 5" in r.json()["error"]


def test_explore_refuses_a_file_with_contradicting_rules(v4):
    one_line(run("explore", "-s", v4, "--no-browser", "--port", "0", "--bid-cards", "1"), "bid_cards=2",
             "contradicts --bid-cards 1")


# -- Python evaluate / simulate -------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4])
def test_python_evaluate_and_simulate_refuse_more_players(players):
    from gops_solver.analysis.evaluate import evaluate
    from gops_solver.analysis.simulate import simulate
    rules = Rules(4, players=players)
    for call in (lambda: evaluate("uniform", rules, "lowest"), lambda: simulate("uniform", "lowest", rules, 5)):
        with pytest.raises(ValueError, match=f"two-player games, not players={players}") as exc:
            call()
        assert "\n" not in str(exc.value)


# -- gops explore --host ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["", " "])
def test_empty_host_is_refused(host):
    one_line(run("explore", "-n", "4", "--host", host, "--no-browser"), "--host is empty")
    with pytest.raises(Exception, match="--host is empty"):
        _check_host(host)


def test_only_loopback_is_private():
    assert not any(_exposed(h) for h in ("127.0.0.1", "localhost", "::1", "127.0.0.2", "[::1]"))
    assert all(_exposed(h) for h in ("0.0.0.0", "::", "192.168.1.5", "example.org"))


# -- 3-4 player sizes by formula ------------------------------------------------------------------------------
def _enumerated(n, m):
    """Patterns by walking every bid profile from the full hands (the obvious way, slow)."""
    full = tuple(range(n))
    level, out = {tuple(sorted(relabel((full,) * m))): (full,) * m}, {}
    for k in range(n, 0, -1):
        out[k] = len(level)
        nxt = {}
        for hands in level.values():
            for bids in itertools.product(*hands):
                new = tuple(tuple(c for c in h if c != b) for h, b in zip(hands, bids))
                nxt.setdefault(tuple(sorted(relabel(new))), new)
        level = nxt
    return out


@pytest.mark.parametrize("m,n", [(3, n) for n in range(1, 8)] + [(4, n) for n in range(1, 7)])
def test_pattern_formula_matches_enumeration(m, n):
    assert count_patterns(Rules(n, players=m)) == _enumerated(n, m)


def test_gops_info_four_players_thirteen_cards_answers_at_once():
    r = run("info", "--players", "4", "-n", "13", "--json")
    assert r.exit_code == 0, r.output
    import json
    data = json.loads(r.output)
    assert data["patterns_per_hand_size"]["13"] == 1 and data["patterns_per_hand_size"]["1"] == 8
    # one hand pattern per deck: all four hands hold the 13 cards; at k = 12 each discarded one of 13
    # (relabelled: only which players discarded the same card matters)
    assert data["patterns"] == sum(count_patterns(Rules(13, players=4)).values()) > 10 ** 11


# -- one-line messages ----------------------------------------------------------------------------------------------
def test_export_without_format_is_one_line(c4):
    one_line(run("export", "-s", c4, "--out", "x.csv"), "--format", "csv, parquet, npz, openspiel")


@pytest.mark.parametrize("args", [("solve", "-n", "3", "--players"), ("solve", "--players", "-n", "3"),
                                  ("info", "--players")])
def test_players_without_a_value_is_refused(args):
    one_line(run(*args), "--players needs a value")


def test_a_file_name_with_a_newline_is_echoed_on_one_line(tmp_path):
    name = str(tmp_path / "a\nb.gops")
    line = one_line(run("query", "-s", name, *Q))
    assert "a\\nb.gops" in line
    assert one_line_text("x\ty\u2028z") == "x\\ty\\u2028z"


@pytest.mark.parametrize("rounds", [1.5, True, "2", math.nan])
def test_to_frame_refuses_rounds_that_are_not_whole(rounds):
    from gops_solver.engine.export import to_frame
    with pytest.raises(ValueError, match="not a whole number"):
        to_frame(solve(Rules(4)), rounds=rounds)


@pytest.mark.parametrize("damage", ["truncated", "list", "folder"])
def test_a_damaged_complete_json_says_what_to_do(tmp_path, damage):
    store = tmp_path / "bs"
    assert run("solve", "-n", "4", "--out", store, "--memory", "1GB").exit_code == 0
    mark = store / "complete.json"
    mark.unlink()
    if damage == "folder":
        mark.mkdir()
    else:
        mark.write_text('{"stage' if damage == "truncated" else "[1]")
    one_line(run("query", "-s", store, *Q), "complete.json", "is damaged: remove it", "--resume")
    # the advice works: without the mark, --resume rewrites it from the finished blocks
    mark.rmdir() if damage == "folder" else mark.unlink()
    assert run("solve", "-n", "4", "--out", store, "--memory", "1GB", "--resume").exit_code == 0
    assert run("query", "-s", store, *Q).exit_code == 0
