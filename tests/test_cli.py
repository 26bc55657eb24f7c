"""The gops command line through click's runner: output, JSON and one-line errors."""

import json

import pytest
from click.testing import CliRunner

from gops_solver.cli.commands import cli


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def test_solve_prints_value_states_games_time():
    r = run("solve", "--cards", 4, "--tie", "discard")
    assert r.exit_code == 0, r.output
    for word in ("value", "states", "stage games", "time"):
        assert word in r.output


def test_solve_json_and_save_then_query(tmp_path):
    out = tmp_path / "s5.gops"
    r = run("solve", "-n", 5, "--objective", "win", "--json", "--out", out)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["rules"] == {"n": 5, "tie": "carry", "objective": "win", "order": "random"}
    assert abs(data["value"]) < 1e-12 and data["states"] > 0 and out.exists()
    q = run("query", "--solution", out, "--hand-a", "1,3,5", "--hand-b", "2,3,4", "--pot", 5,
            "--prizes", "1,4", "--diff", -2, "--json")
    assert q.exit_code == 0, q.output
    ans = json.loads(q.output)  # exactly one JSON object
    assert set(ans["strategy_a"]) == {"1", "3", "5"} and set(ans["strategy_b"]) == {"2", "3", "4"}
    assert sum(ans["strategy_a"].values()) == pytest.approx(1)
    direct = run("query", "--cards", 5, "--objective", "win", "--hand-a", "A,3,5", "--hand-b", "2,3,4",
                 "--pot", 5, "--prizes", "A,4", "--diff", -2, "--json")
    assert json.loads(direct.output)["value"] == pytest.approx(ans["value"], abs=1e-9)


def test_query_text_output():
    r = run("query", "--cards", 13, "--tie", "carry", "--hand-a", "J,Q,K", "--hand-b", "10,Q,K",
            "--pot", 20, "--prizes", "A,2")
    assert r.exit_code == 0, r.output
    assert "value" in r.output and "A bids" in r.output and "B bids" in r.output and "J:" in r.output


def test_query_deep_in_13_card_game_uses_sub_game():
    r = run("query", "--hand-a", "2,5,9,K", "--hand-b", "3,5,J,Q", "--pot", 13, "--prizes", "1,7,12",
            "--objective", "win", "--diff", 4, "--json")
    assert r.exit_code == 0, r.output
    assert -1 <= json.loads(r.output)["value"] <= 1


@pytest.mark.parametrize("args, msg", [
    (["query", "--cards", 5, "--hand-a", "1,6", "--hand-b", "1,2", "--pot", 3, "--prizes", "4"], "outside 1..5"),
    (["query", "--cards", 5, "--hand-a", "1,X", "--hand-b", "1,2", "--pot", 3, "--prizes", "4"], "unknown card"),
    (["query", "--cards", 5, "--hand-a", "1,1", "--hand-b", "1,2", "--pot", 3, "--prizes", "4"], "twice"),
    (["query", "--cards", 5, "--hand-a", "1,2,3", "--hand-b", "1,2", "--pot", 3, "--prizes", "4"], "differ in size"),
    (["query", "--cards", 5, "--hand-a", "", "--hand-b", "", "--pot", 3], "empty"),
    (["query", "--cards", 5, "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 3, "--prizes", "4,4"], "twice"),
    (["query", "--cards", 5, "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 3, "--prizes", "4,5"], "exactly 1"),
    (["query", "--cards", 5, "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 0, "--prizes", "4"], "impossible"),
    (["query", "--cards", 5, "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 12, "--prizes", "4"], "impossible"),
    (["query", "--cards", 5, "--hand-a", "1,2", "--hand-b", "1,2", "--pot", 3, "--prizes", "4", "--diff", 20], "unreachable"),
    (["query", "--cards", 5, "--tie", "split", "--hand-a", "1", "--hand-b", "1", "--pot", 3], "split"),
    (["query", "--cards", 5, "--objective", "most", "--hand-a", "1", "--hand-b", "1", "--pot", 3], "most"),
    (["query", "--cards", 5, "--order", "1,2,3", "--hand-a", "1", "--hand-b", "1", "--pot", 5], "permutation"),
    (["query", "--cards", 5, "--order", "zigzag", "--hand-a", "1", "--hand-b", "1", "--pot", 5], "unknown order"),
    (["solve", "--cards", 14], "outside 1..13"),
    (["solve", "--cards", 0], "outside 1..13"),
    (["solve"], "missing --cards"),
    (["solve", "--cards", "six"], "six"),
    (["query", "--cards", 5, "--hand-a", "1", "--hand-b", "1"], "--pot"),
])
def test_bad_input_one_line_exit_2(args, msg):
    r = run(*args)
    assert r.exit_code == 2, r.output
    lines = [l for l in r.output.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and msg in lines[0], r.output
    assert "Traceback" not in r.output


def test_bad_files_one_line_exit_2(tmp_path):
    good = tmp_path / "s.gops"
    assert run("solve", "-n", 4, "--out", good).exit_code == 0
    data = good.read_bytes()
    (tmp_path / "t.gops").write_bytes(data[: len(data) // 2])
    (tmp_path / "c.gops").write_bytes(data[:-8] + b"\x00" * 8 if data[-8:] != b"\x00" * 8 else data[:-8] + b"\x01" * 8)
    q = ["--hand-a", "1", "--hand-b", "2", "--pot", 3, "--prizes", ""]
    cases = [(["query", "-s", tmp_path / "t.gops", *q], "truncated"),
             (["query", "-s", tmp_path / "c.gops", *q], "corrupted"),
             (["query", "-s", tmp_path / "none.gops", *q], "cannot read"),
             (["query", "-s", good, "--tie", "discard", *q], "holds a solution for"),
             (["solve", "-n", 3, "--out", tmp_path / "no" / "x.gops"], "does not exist"),
             (["solve", "-n", 3, "--out", tmp_path], "it is a folder")]
    for args, msg in cases:
        r = run(*args)
        assert r.exit_code == 2 and r.output.startswith("error: ") and msg in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1


def test_existing_output_survives_a_failed_solve(tmp_path):
    out = tmp_path / "keep.gops"
    out.write_bytes(b"old contents")
    r = run("solve", "-n", 14, "--out", out)
    assert r.exit_code == 2 and out.read_bytes() == b"old contents"


def test_match_options_solve_and_query():
    from gops_solver import Rules, solve
    r = run("solve", "-n", 4, "--match", "best-of-3", "--draw", "half", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["rules"]["match"] == "best-of-3" and data["rules"]["objective"] == "win"  # best-of plays to win
    sol = solve(Rules(4, "carry", "win", match="best-of-3", draw="half"))
    q = run("query", "-n", 4, "--match", "best-of-3", "--draw", "half", "--hand-a", "1,3", "--hand-b", "2,3",
            "--pot", 4, "--prizes", "1", "--diff", -2, "--match-score", "1.5-0.5", "--json")
    assert q.exit_code == 0, q.output
    expect = sol.query([1, 3], [2, 3], 4, [1], -2, match_score=(1.5, 0.5)).value
    assert json.loads(q.output)["value"] == pytest.approx(expect, abs=1e-12)
    s = run("query", "-n", 4, "--match", "session", "--hand-a", "1,3", "--hand-b", "2,3", "--pot", 4,
            "--prizes", "1", "--game", 3, "--match-score", -4, "--json")
    single = run("query", "-n", 4, "--hand-a", "1,3", "--hand-b", "2,3", "--pot", 4, "--prizes", "1", "--json")
    assert json.loads(s.output)["value"] == pytest.approx(json.loads(single.output)["value"] - 4, abs=1e-12)
    for args, msg in [(["query", "-n", 4, "--hand-a", "1", "--hand-b", "2", "--pot", 4, "--match-score", 3], "need --match"),
                      (["solve", "-n", 3, "--match", "best-of-3", "--order", "ascending"], "sure draw"),
                      (["solve", "-n", 3, "--match", "best-of-3", "--objective", "points"], "objective win")]:
        r = run(*args)
        assert r.exit_code == 2 and r.output.startswith("error: ") and msg in r.output, r.output


def test_info_projects_and_says_when_it_will_not_fit():
    r = run("info", "--cards", 13, "--tie", "discard", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    # 13-card discard game: 336,525,646 positions before a reveal; half stored
    assert d["stage_games"] == sum(level["stage_games"] for level in d["levels"]) > 10**9
    assert d["fits"] is True
    r = run("info", "--cards", 13, "--tie", "carry", "--objective", "win")
    assert r.exit_code == 0 and "will NOT fit" in r.output


def test_solve_refuses_what_cannot_fit():
    r = run("solve", "--cards", 13, "--tie", "carry", "--objective", "win")
    assert r.exit_code == 2 and "GiB" in r.output and len(r.output.strip().splitlines()) == 1
