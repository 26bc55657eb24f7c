"""One command-line vocabulary: -s/--solution, --a/--b (--c/--d) seats, --hand-a.., -q/--json/--out alike,
--players in every help that takes it, the grouped gops --help; old spellings warn in one line."""

import json

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def warning_of(old, new):
    return f"warning: {old} is deprecated, use {new} (it will be removed in the next release)\n"


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    path = tmp_path_factory.mktemp("vocab") / "s3.gops"
    solve(Rules(3, "discard")).save(path)
    return path


def test_verify_takes_s_and_the_old_positional_warns(s3):
    new = run("verify", "-s", s3, "--json")
    assert new.exit_code == 0 and new.stderr == "" and json.loads(new.stdout)["ok"] is True
    old = run("verify", s3, "--json")
    assert old.exit_code == 0 and json.loads(old.stdout) == {**json.loads(new.stdout),
                                                             "seconds": json.loads(old.stdout)["seconds"]}
    assert old.stderr == warning_of("gops verify FILE", "gops verify -s FILE")
    both = run("verify", s3, "-s", s3)
    assert both.exit_code == 2 and "give gops verify -s FILE only" in both.stderr
    none = run("verify")
    assert none.exit_code == 2 and none.stderr.count("\n") == 1 and "missing -s FILE" in none.stderr


def test_evaluate_seats_a_b_and_the_old_spellings(s3):
    common = ["-n", 3, "--tie", "discard", "-s", s3, "--json", "-q"]
    new = run("evaluate", "-a", "match", "-b", "uniform", *common)
    assert new.exit_code == 0 and new.stderr == "", new.output
    data = json.loads(new.stdout)
    assert data["strategy"] == "match" and data["against"] == "uniform"
    long = run("evaluate", "--a", "match", "--b", "uniform", *common)
    assert json.loads(long.stdout)["vs_opponent"] == data["vs_opponent"]
    old = run("evaluate", "--strategy", "match", "--against", "uniform", *common)
    assert old.exit_code == 0 and json.loads(old.stdout)["vs_opponent"] == data["vs_opponent"]
    assert old.stderr == warning_of("--strategy", "--a") + warning_of("--against", "--b")
    # --b defaults to the equilibrium
    assert json.loads(run("evaluate", "-a", "match", *common).stdout)["against"] == "equilibrium"
    clash = run("evaluate", "--strategy", "match", "--a", "uniform", *common)
    assert clash.exit_code == 2 and "give --a only: --strategy is its old spelling" in clash.stderr
    missing = run("evaluate", *common)
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1 and "missing --a S" in missing.stderr


def test_simulate_short_seats(s3):
    args = ["-n", 3, "--tie", "discard", "-s", s3, "--games", 200, "--json"]
    short = run("simulate", "-a", "match", "-b", "equilibrium", *args)
    long = run("simulate", "--a", "match", "--b", "equilibrium", *args)
    timeless = [{k: v for k, v in json.loads(r.stdout).items() if k != "seconds"} for r in (short, long)]
    assert short.exit_code == 0 and timeless[0] == timeless[1] and timeless[0]["a"] == "match"


def test_play_b_is_the_computer_seat():
    ok = run("play", "-n", 1, "-b", "equilibrium", "-q", "--seed", 1, input="1\n")
    assert ok.exit_code == 0 and "final score" in ok.stdout
    bad = run("play", "-n", 1, "-b", "uniform", input="1\n")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "equilibrium only" in bad.stderr


def test_multi_hands_per_seat_and_the_old_hands():
    args = ["query", "--players", 3, "--cards", 3, "--tie", "discard", "--pot", 2, "--prizes", 1, "--json"]
    new = run(*args, "--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1,3")
    assert new.exit_code == 0 and new.stderr == "", new.output
    old = run(*args, "--hands", "1,2;2,3;1,3")
    assert old.exit_code == 0 and json.loads(old.stdout) == json.loads(new.stdout)
    assert old.stderr == warning_of("--hands", "--hand-a, --hand-b, ...")
    missing = run(*args, "--hand-a", "1,2", "--hand-b", "2,3")
    assert missing.exit_code == 2 and "missing --hand-c: 3 players need one hand each" in missing.stderr
    extra = run(*args, "--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1,3", "--hand-d", "1,2")
    assert extra.exit_code == 2 and "this game has 3 players" in extra.stderr


def test_multi_simulate_seats_and_the_old_seats():
    args = ["simulate", "--players", 3, "--cards", 2, "--games", 50, "--json"]
    new = run(*args, "-a", "uniform", "--b", "highest", "-c", "equilibrium")
    assert new.exit_code == 0 and new.stderr == "", new.output
    assert json.loads(new.stdout)["seats"] == ["uniform", "highest", "equilibrium"]
    old = run(*args, "--seats", "uniform,highest,equilibrium")
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert old.stderr == warning_of("--seats", "--a, --b, ...")
    # unnamed seats keep their defaults: the equilibrium in A, uniform elsewhere
    assert json.loads(run(*args, "--b", "lowest").stdout)["seats"] == ["equilibrium", "lowest", "uniform"]
    clash = run(*args, "--seats", "uniform,highest,equilibrium", "--a", "match")
    assert clash.exit_code == 2 and "--seats is their old spelling" in clash.stderr


def test_multi_play_bots_per_seat():
    out = run("play", "--players", 3, "--cards", 2, "--order", "ascending", "--seed", 0, "-b", "highest",
              "-c", "lowest", "--json", "-q", input="1\n2\n")
    assert out.exit_code == 0, out.output
    rounds = json.loads(out.stdout.strip().splitlines()[-1])["rounds"]
    assert [r["bids"][1] for r in rounds] == [2, 1] and [r["bids"][2] for r in rounds] == [1, 2]


def test_quiet_json_out_and_solution_on_the_multi_engine(tmp_path):
    out = tmp_path / "m.gops"
    r = run("solve", "--players", 3, "--cards", 2, "-q", "-o", out, "--json")
    assert r.exit_code == 0 and r.stderr == "" and json.loads(r.stdout)["out"] == str(out) and out.exists()
    v = run("verify", "--players", 3, "-s", out, "--json")
    assert v.exit_code == 0 and json.loads(v.stdout)["ok"] is True
    sim = run("simulate", "--players", 3, "-s", out, "--games", 20, "-q")
    assert sim.exit_code == 0 and sim.stderr == ""  # no progress bar


@pytest.mark.parametrize("command", ["solve", "query", "info", "verify", "simulate", "play"])
def test_players_in_the_help_of_every_command_that_takes_it(command):
    two = run(command, "--help")
    assert two.exit_code == 0 and "--players P" in two.stdout
    assert f"gops {command} --players 3 --help" in " ".join(two.stdout.split())
    three = run(command, "--players", 3, "--help")
    assert three.exit_code == 0 and "--players P" in three.stdout and "3 or 4" in three.stdout


def test_new_spellings_in_help_old_ones_hidden():
    assert "-a, --a S" in run("evaluate", "--help").stdout and "--strategy" not in run("evaluate", "--help").stdout
    assert "-s, --solution" in run("verify", "--help").stdout
    multi = run("query", "--players", 3, "--help").stdout
    assert "--hand-d CARDS" in multi and "--hands" not in multi
    sim = run("simulate", "--players", 4, "--help").stdout
    assert "-d, --d S" in sim and "--seats" not in sim and "-q, --quiet" in sim


def test_grouped_help():
    text = run("--help").stdout
    titles = ["Solve and inspect:", "Analyse strategies:", "Play:", "Export and explore:"]
    at = [text.index(t) for t in titles]
    assert at == sorted(at) and "Commands:" not in text and "Other:" not in text
    sections = [("solve", "info", "query", "verify", "warmup"), ("evaluate", "simulate", "score", "exploit", "model", "records"),
                ("play",), ("export", "explore")]
    for title, names, end in zip(titles, sections, at[1:] + [len(text)]):
        section = text[text.index(title):end]
        assert [line.split()[0] for line in section.splitlines()[1:] if line.strip()] == list(names)
