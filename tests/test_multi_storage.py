"""Solution files of the 3- and 4-player games: round trip, checksums, one-line errors."""

import json
import os

import pytest

from gops_solver import Rules
from gops_solver.cli.commands import cli
from gops_solver.multi import solve_multi
from gops_solver.multi.solution import load_multi
from gops_solver.multi.storage import save_multi


def _run(args):
    with pytest.raises(SystemExit) as exc:
        cli.main(args, prog_name="gops", standalone_mode=True)
    return exc.value.code


@pytest.mark.parametrize("objective", ["points", "win"])
def test_round_trip_answers_every_query_alike(tmp_path, objective):
    rules = Rules(3, tie="carry", objective=objective, players=3)
    sol = solve_multi(rules)
    path = tmp_path / "s.gops"
    save_multi(path, sol)
    back = load_multi(path, rules)
    assert back.rules == rules and back.states == sol.states
    assert back.security == sol.security and back.values == sol.values
    for hands, pot, prizes, scores in [([[1, 2], [2, 3], [1, 3]], 3, [1], [0, 0, 2]),
                                       ([[1, 2, 3]] * 3, 2, [1, 3], [0, 0, 0])]:
        a = sol.query(hands, pot, prizes, scores)
        b = back.query(hands, pot, prizes, scores)
        assert a.security == b.security and a.values == b.values and a.strategies == b.strategies
    report = back.verify()
    assert report["ok"] and report["max_deviation_gain"] <= 1e-6 and report["security_residual"] <= 1e-9


def test_damaged_files_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "s.gops"
    assert _run(["solve", "--players", "3", "--cards", "3", "--out", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["out"] == str(path)
    query = ["query", "--players", "3", "--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1,3", "--pot", "3", "--prizes", "1",
             "--scores", "0,0,2", "--json"]
    assert _run(query + ["--solution", str(path)]) == 0
    good = json.loads(capsys.readouterr().out)
    assert len(good["values"]) == 3
    data = path.read_bytes()
    cases = {"flipped.gops": data[:5000] + bytes([data[5000] ^ 1]) + data[5001:],  # a table byte
             "header.gops": data[:30] + bytes([data[30] ^ 1]) + data[31:],  # a header byte
             "short.gops": data[:len(data) - 8],
             "other.gops": b"not a solution at all"}
    needles = {"flipped.gops": "checksum of table", "header.gops": "header", "short.gops": "truncated",
               "other.gops": "not a gops solution file"}
    for name, blob in cases.items():
        bad = tmp_path / name
        bad.write_bytes(blob)
        assert _run(query + ["--solution", str(bad)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and needles[name] in err and "Traceback" not in err
    # the stored file is for 3 players with n = 3: other rules are refused
    assert _run(query + ["--solution", str(path), "--cards", "4"]) == 2
    assert "holds a solution" in capsys.readouterr().err


def test_verify_stored_file_and_no_half_written_file(tmp_path, capsys, monkeypatch):
    path = tmp_path / "s.gops"
    assert _run(["solve", "--players", "3", "--cards", "2", "--objective", "win", "--out", str(path)]) == 0
    capsys.readouterr()
    assert _run(["verify", "--players", "3", "--solution", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["max_deviation_gain"] <= 1e-6 and report["security_residual"] <= 1e-9
    before = path.read_bytes()
    # a write that fails its read-back check leaves the old file as it was, and no temporary file
    import gops_solver.multi.storage as st
    monkeypatch.setattr(st, "_read", lambda *a, **k: (_ for _ in ()).throw(ValueError("check failed")))
    with pytest.raises(ValueError, match="check failed"):
        save_multi(path, solve_multi(Rules(2, objective="win", players=3)))
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["s.gops"]
