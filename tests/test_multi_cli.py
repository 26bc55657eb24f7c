"""``gops ... --players 3|4``: output, JSON and one-line errors with exit status 2."""

import json

import pytest

from gops_solver.cli.commands import cli


def _run(args):
    with pytest.raises(SystemExit) as exc:
        cli.main(args, prog_name="gops", standalone_mode=True)
    return exc.value.code


def test_query_json_three_players(capsys):
    code = _run(["query", "--players", "3", "--cards", "3", "--tie", "discard", "--hands", "1,2;2,3;1,3",
                 "--pot", "2", "--prizes", "1", "--scores", "3,0,0", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert len(out["security"]) == len(out["values"]) == len(out["strategies"]) == 3
    assert out["deviation_gain"] <= 1e-6
    # values include the score already made: player 1 holds 3 points
    assert out["values"][0] >= 3 and out["security"][0] >= 3
    for s, hand in zip(out["strategies"], ([1, 2], [2, 3], [1, 3])):
        assert sorted(int(c) for c in s) == hand and abs(sum(s.values()) - 1) <= 1e-9


@pytest.mark.parametrize("args,needle", [
    (["--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1"], "differ in size"),
    (["--hand-a", "1,1", "--hand-b", "2,3", "--hand-c", "1,3"], "twice"),
    (["--hand-a", "1,4", "--hand-b", "2,3", "--hand-c", "1,3"], "outside 1..3"),
    (["--hand-a", "1,2", "--hand-b", "2,3"], "3 players"),
    (["--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1,3", "--scores", "9,0,0"], "cannot occur"),
])
def test_bad_input_one_line_exit_2(capsys, args, needle):
    code = _run(["query", "--players", "3", "--cards", "3", "--tie", "discard", "--pot", "2", "--prizes", "1",
                 *args])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err and err.count("\n") == 1 and err.startswith("error:")


@pytest.mark.parametrize("players", ["1", "5", "x"])
def test_players_outside_2_to_4(capsys, players):
    assert _run(["solve", "--players", players, "--cards", "3"]) == 2
    err = capsys.readouterr().err
    assert "use 2, 3 or 4" in err and err.count("\n") == 1


def test_command_without_players_support(capsys):
    assert _run(["evaluate", "--players", "3", "--cards", "3"]) == 2
    assert "no --players option" in capsys.readouterr().err


def test_solve_and_info_json(capsys):
    assert _run(["solve", "--players", "4", "--cards", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["security"]) == 4 and out["max_deviation_gain"] <= 1e-6
    assert _run(["info", "--players", "3", "--cards", "4", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["patterns_per_hand_size"]["4"] == 1


def test_verify_exit_status(capsys):
    assert _run(["verify", "--players", "3", "--cards", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["security_residual"] <= 1e-9


def test_players_2_is_the_classic_game(capsys):
    assert _run(["solve", "--players", "2", "--cards", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0


def test_explore_refuses_a_three_player_file_in_one_line(tmp_path, capsys):
    # here rather than beside the explorer's tests: this file's worker has the 3-player kernels compiled
    from gops_solver import Rules
    from gops_solver.multi.solution import solve_multi
    path = tmp_path / "m3.gops"
    solve_multi(Rules(2, players=3)).save(path)
    code = _run(["explore", "-s", str(path), "--no-browser", "--port", "0"])
    line = capsys.readouterr().err.strip()
    assert code == 2
    assert "\n" not in line and "3-player game does not define" in line


@pytest.mark.parametrize("players", ["3", "4"])
def test_a_two_player_option_points_to_the_multiplayer_help(capsys, players):
    # --blocks and --sample belong to the two-player verify: the error names the help that lists the options
    code = _run(["verify", "--players", players, "--cards", "3", "--blocks", "3"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "No such option '--blocks'" in err and "(see gops verify --players 3 --help)" in err
    code = _run(["verify", "--cards", "3", "--bogus"])
    assert code == 2 and "(see gops verify --help)" in capsys.readouterr().err
