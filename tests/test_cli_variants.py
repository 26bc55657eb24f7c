"""The variants on the command line: solve/query/info/play/verify, JSON keys, one-line errors."""

import json

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def test_two_card_solve_save_query_verify(tmp_path):
    out = tmp_path / "two.gops"
    r = run("solve", "-n", 5, "--bid-cards", 2, "--objective", "win", "--json", "--out", out)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["rules"]["bid_cards"] == 2 and abs(data["value"]) < 1e-12
    q = run("query", "-s", out, "--hand-a", "1,2,5", "--hand-b", "2,3,4", "--pot", 4, "--prizes", "1,2,3",
            "--diff", -1, "--json")
    assert q.exit_code == 0, q.output
    ans = json.loads(q.output)
    assert set(ans["strategy_a"]) == {"1+2", "1+5", "2+5"} and set(ans["strategy_b"]) == {"2+3", "2+4", "3+4"}
    api = solve(Rules(n=5, bid_cards=2, objective="win")).query([1, 2, 5], [2, 3, 4], 4, [1, 2, 3], -1)
    assert ans["value"] == pytest.approx(api.value, abs=1e-12)
    # round 1 turned the 5 and someone took it (carry 0): diff is +-5, so diff 0 cannot occur
    bad = run("query", "-s", out, "--hand-a", "1,2,5", "--hand-b", "2,3,4", "--pot", 4, "--prizes", "1,2,3")
    assert bad.exit_code == 2 and "diff 0 is unreachable" in bad.output
    text = run("query", "-s", out, "--hand-a", "1,2,5", "--hand-b", "2,3,4", "--pot", 4, "--prizes", "1,2,3",
               "--diff", 5)
    assert "A bids  A+2:" in text.output
    v = run("verify", out, "--sample", 30)
    assert v.exit_code == 0 and "verdict            OK" in v.output, v.output


def test_open_prizes_query_json_choices():
    r = run("query", "-n", 4, "--open-prizes", 2, "--hand-a", "1,3,4", "--hand-b", "2,3,4", "--row", "2,4",
            "--pot", 0, "--prizes", 3, "--diff", -1, "--json")
    assert r.exit_code == 0, r.output
    ans = json.loads(r.output)
    assert ans["state"]["row"] == [2, 4] and set(ans["strategy_a"]) == {"1", "3", "4"}
    assert all(v in (2, 4) for v in ans["choices"].values()) and "1|2" in ans["choices"]


def test_info_projects_variants():
    r = run("info", "-n", 8, "--bid-cards", 2, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["stage_games"] > 0 and data["levels"][1]["hand_classes"] <= data["levels"][1]["hand_pairs"]
    r = run("info", "-n", 4, "--match", "best-of-3", "--draw", "half", "--tiebreak", "total-score")
    assert r.exit_code == 0 and "games solved" in r.output, r.output


def test_info_of_a_variant_refuses_a_solution_file(tmp_path):
    # -s reads its rules from the file, so variant options beside it are refused in one line
    r = run("info", "--bid-cards", 2, "-s", tmp_path / "x.gops")
    assert r.exit_code == 2 and "drop --bid-cards" in r.output and "Traceback" not in r.output, r.output


@pytest.mark.parametrize("args, rate", [(("--bid-cards", 2, "--objective", "points"), "points"),
                                        (("--bid-cards", 2, "--objective", "win"), "win"),
                                        (("--open-prizes", 2, "--objective", "win"), "win-open"),
                                        (("--bid-cards", 2, "--open-prizes", 2, "--objective", "win"), "win-open")])
def test_info_time_from_the_measured_cell_rate(args, rate):
    # the projection divides the matrix cells by the rate measured for that kind of game
    from gops_solver.cli._variants import CELLS_PER_SECOND
    data = json.loads(run("info", "-n", 6, *args, "--json").output)
    assert data["stage_cells"] > 0
    assert data["projected_seconds"] == pytest.approx(data["stage_cells"] / CELLS_PER_SECOND[rate])


def test_tiebreak_query():
    r = run("query", "-n", 2, "--match", "best-of-3", "--draw", "half", "--tiebreak", "total-score",
            "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 2, "--prizes", 1, "--match-score", "1-1",
            "--match-total", 3, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["value"] == pytest.approx(1.0)


def test_play_two_card_piped():
    # n = 3: round 1 bids a pair, round 2 the last card
    r = run("play", "-n", 3, "--bid-cards", 2, "--seed", 1, input="1+2\n3\n")
    assert r.exit_code == 0, r.output
    assert "final score" in r.output and "your bid" in r.output


def test_play_open_prizes_piped():
    lines = "\n".join(["3", "3", "3", "2", "2", "2", "1", "1", "1", "2", "1"]) + "\n"
    r = run("play", "-n", 3, "--open-prizes", 2, "--seed", 4, input=lines)
    assert r.exit_code == 0, r.output
    assert "final score" in r.output or "end of input" in r.output


@pytest.mark.parametrize("args, msg", [
    (["solve", "-n", 5, "--bid-cards", 3], "--bid-cards 3 is not allowed"),
    (["solve", "-n", 5, "--open-prizes", 0], "outside 1..5"),
    (["solve", "-n", 5, "--open-prizes", 6], "outside 1..5"),
    (["solve", "-n", 5, "--tiebreak", "extra-game"], "best-of"),
    (["query", "-n", 5, "--bid-cards", 2, "--hand-a", "1,2,9", "--hand-b", "2,3,4", "--pot", 4,
      "--prizes", "1,2,3"], "outside 1..5"),
    (["query", "-n", 4, "--open-prizes", 2, "--hand-a", "1,3,4", "--hand-b", "2,3,4", "--row", "2,3",
      "--pot", 0, "--prizes", 3], "both in the row and in the pile"),
    (["query", "-n", 4, "--open-prizes", 2, "--hand-a", "1,3,4", "--hand-b", "2,3,4", "--row", "2",
      "--pot", 0, "--prizes", 3], "holds 1 prizes"),
    (["evaluate", "-n", 4, "--a", "mod:f", "--bid-cards", 2], "not called in the variants"),
    (["evaluate", "-n", 4, "--a", "greedy", "--bid-cards", 2], "not played in the variants"),
    (["evaluate", "-n", 9, "--a", "uniform", "--bid-cards", 2], "use gops simulate"),
    (["simulate", "-n", 4, "--a", "uniform", "--b", "uniform", "--games", 3, "--open-prizes", 2,
      "--tiebreak", "extra-game"], "drop --tiebreak"),
])
def test_bad_input_one_line_exit_2(args, msg):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: ") and msg in r.output and len(r.output.strip().splitlines()) == 1, r.output
