"""--json and --csv on every command that prints figures; gops info --match; shell completion."""

import csv
import io
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.engine.projection import match_work


def _run(args):
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return res.stdout  # an old spelling (verify FILE, --strategy) adds its warning on stderr


def _csv(args):
    rows = list(csv.DictReader(io.StringIO(_run(args + ["--csv"]))))
    assert rows
    return rows


def test_evaluate_csv_matches_json():
    args = ["evaluate", "--strategy", "match", "-n", "4", "--tie", "discard", "-q"]
    js = json.loads(_run(args + ["--json"]))
    rows = _csv(args)
    assert [r["versus"] for r in rows] == ["equilibrium", "best-reply"]
    for row, key in zip(rows, ("vs_opponent", "vs_best_response")):
        for f in ("margin", "win", "draw", "loss", "value"):
            assert float(row[f]) == pytest.approx(js[key][f], abs=1e-12)
        assert float(row["exploitability"]) == pytest.approx(js["exploitability"], abs=1e-12)
        assert (row["n"], row["tie"]) == ("4", "discard")


def test_info_csv_lists_every_level_as_json_does():
    args = ["info", "-n", "6", "--objective", "win"]
    js = json.loads(_run(args + ["--json"]))
    rows = _csv(args)
    assert [(int(r["k"]), int(r["stage_games"]), int(r["table_bytes"])) for r in rows] == \
        [(lv["k"], lv["stage_games"], lv["table_bytes"]) for lv in js["levels"]]


def test_verify_csv_matches_json(tmp_path):
    path = tmp_path / "s.gops"
    solve(Rules(5)).save(path)
    js = json.loads(_run(["verify", str(path), "--json"]))
    (row,) = _csv(["verify", str(path)])
    assert row["ok"] == "True" and js["ok"] is True
    assert int(row["slots"]) == js["slots"] and float(row["max_residual"]) == js["max_residual"]


def test_simulate_and_export_csv(tmp_path):
    (row,) = _csv(["simulate", "--a", "match", "--b", "uniform", "-n", "4", "--games", "200", "--seed", "3"])
    js = json.loads(_run(["simulate", "--a", "match", "--b", "uniform", "-n", "4", "--games", "200", "--seed", "3",
                          "--json"]))
    assert float(row["margin"]) == pytest.approx(js["margin"], rel=1e-5)
    (row,) = _csv(["export", "-n", "4", "--rounds", "2", "--format", "csv", "--out", str(tmp_path / "e.csv")])
    assert int(row["rows"]) == sum(1 for _ in open(tmp_path / "e.csv")) - 1
    assert int(row["bytes"]) == os.path.getsize(tmp_path / "e.csv")


@pytest.mark.parametrize("cmd", [["evaluate", "--strategy", "match", "-n", "4"], ["info", "-n", "4"],
                                 ["export", "-n", "4", "--format", "csv", "--out", "x.csv"]])
def test_json_and_csv_together_is_a_usage_error(cmd):
    res = CliRunner().invoke(cli, cmd + ["--json", "--csv"])
    assert res.exit_code != 0 and "choose one of --json and --csv" in res.output


@pytest.mark.parametrize("rules, exact", [(Rules(5, objective="win", match="session"), True),
                                          (Rules(5, objective="win", match="best-of-3", draw="half"), True),
                                          (Rules(4, tie="discard", objective="win", match="best-of-3"), False)])
def test_info_match_counts_the_stage_games_a_match_solve_takes(rules, exact):
    w = match_work(rules)
    games = solve(rules).stage_games
    if exact:  # every (state, reveal, difference) once; the solve settles sure wins without an LP
        assert 0 < games <= w["total_games"]
    assert w["lower_bound"] is (not exact)
    js = json.loads(_run(["info", "-n", str(rules.n), "--tie", rules.tie, "--objective", "win", "--match",
                          rules.match] + (["--draw", rules.draw] if rules.best_of else []) + ["--json"]))
    assert js["stage_games"] == w["total_games"] and js["games_solved"] == w["games_solved"]


def test_shell_completion_completes_commands_and_options():
    env = {**os.environ, "_GOPS_COMPLETE": "bash_complete", "COMP_WORDS": "gops query --mat", "COMP_CWORD": "2"}
    out = subprocess.run([sys.executable, "-c", "from gops_solver.cli.commands import cli; cli.main(prog_name='gops')"], env=env,
                         capture_output=True, text=True).stdout
    assert "plain,--matrix" in out.splitlines()
    env = {**os.environ, "_GOPS_COMPLETE": "bash_source"}
    script = subprocess.run([sys.executable, "-c", "from gops_solver.cli.commands import cli; cli.main(prog_name='gops')"],
                            env=env, capture_output=True, text=True).stdout
    assert "complete -o nosort -F" in script
