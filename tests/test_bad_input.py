"""Bad input gets one line naming the input and the fix, exit status 2, never a traceback.

Each case is one the hostile-input probe of issue 10 found giving a
traceback, a hang, a silent exit 0 or a misleading message.
"""

import json
import math
import os
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from gops_solver import Rules, load, solve
from gops_solver.cli.commands import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def one_line(r, *words):
    lines = [l for l in r.output.splitlines() if l.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def child(*args, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "gops_solver", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=timeout, **kw)


Q = ("--hand-a", "1,3", "--hand-b", "2,3", "--pot", 4, "--prizes", "1")


@pytest.mark.parametrize("score", ["inf-inf", "nan-0", "1-inf", "-inf", "nan"])
def test_match_score_not_finite(score):
    one_line(run("query", "-n", 4, "--match", "best-of-3", *Q, "--match-score", score), "--match-score", score)


def test_api_non_finite_numbers_are_refused_by_name():
    sol = solve(Rules(4, "carry", "win", match="best-of-3"))
    for score in [(math.inf, math.inf), (math.nan, 0)]:
        with pytest.raises(ValueError, match="match_score"):
            sol.query([1, 3], [2, 3], 4, [1], match_score=score)
    single = solve(Rules(4))
    for pot in [math.inf, -math.inf, math.nan]:
        with pytest.raises(ValueError, match="pot"):
            single.query([1, 3], [2, 3], pot, [1])
    with pytest.raises(ValueError, match="diff"):
        single.query([1, 3], [2, 3], 4, [1], diff=math.inf)


def test_api_wrong_types():
    path = "never-read.gops"
    with pytest.raises(TypeError, match="Rules"):
        load(path, rules={"n": 6})
    with pytest.raises(ValueError, match="set"):
        Rules(n=3, order={3, 1, 2})
    with pytest.raises(ValueError, match="order"):
        Rules(n=3, order="")
    assert Rules(n=3, order=[3, 1, 2]).sequence == (3, 1, 2)


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    """Strategy modules that fail in every way the probe tried, importable from tmp_path."""
    files = {
        "i10_syntax": "def f(view)\n    return {}\n",
        "i10_raises": "raise RuntimeError('not configured')\n",
        "i10_exits_on_import": "import sys\nsys.exit(0)\n",
        "i10_funcs": textwrap.dedent("""
            import sys
            def exits(view):
                sys.exit(0)
            def half_cards(view):
                return {c + 0.5: 1 / len(view.hand) for c in view.hand}
            def bool_card(view):
                return {True: 1.0}
        """),
    }
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in files:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("spec, words", [
    ("i10_syntax:f", ["i10_syntax", "SyntaxError"]),
    ("i10_raises:f", ["i10_raises", "RuntimeError", "not configured"]),
    ("i10_exits_on_import:f", ["i10_exits_on_import", "SystemExit"]),
    ("i10_funcs:exits", ["i10_funcs:exits", "SystemExit"]),
    ("i10_funcs:half_cards", ["i10_funcs:half_cards", "whole-number cards"]),
    ("i10_funcs:bool_card", ["i10_funcs:bool_card", "whole-number cards"]),
])
@pytest.mark.parametrize("command", ["evaluate", "simulate"])
def test_user_strategy_failures(user_modules, spec, words, command):
    if command == "evaluate":
        r = run("evaluate", "--a", spec, "--b", "uniform", "-n", 3)
    else:
        r = run("simulate", "--a", spec, "--b", "uniform", "-n", 3, "--games", 10)
    one_line(r, *words)


def test_simulate_huge_game_counts_start_without_allocating():
    """10**13 and 10**26 games: played in chunks, so the run starts (and can be stopped) at once."""
    from gops_solver.analysis.simulate import simulate

    class Stop(Exception):
        pass

    def stop(games):
        raise Stop
    for games in (10**13, 10**26):
        with pytest.raises(Stop):
            simulate("uniform", "match", Rules(4), games, progress=stop)


def test_simulate_json_is_strict():
    r = run("simulate", "--a", "uniform", "--b", "match", "-n", 3, "--games", 1, "--json")
    assert r.exit_code == 0, r.output

    def refuse(token):
        raise AssertionError(f"non-standard JSON token {token}")
    d = json.loads(r.output, parse_constant=refuse)
    assert d["margin_ci"] == [None, None]  # one game: no interval
    assert d["games"] == 1 and isinstance(d["margin"], float)


def test_every_json_output_is_strict(tmp_path):
    out = tmp_path / "s.gops"

    def refuse(token):
        raise AssertionError(f"non-standard JSON token {token}")
    cmds = [("solve", "-n", 4, "--out", out, "--json"),
            ("query", "-s", out, "--hand-a", "1,3", "--hand-b", "2,3", "--pot", 4, "--prizes", "1", "--json"),
            ("verify", "-s", out, "--json", "--sample", 5),
            ("info", "-n", 4, "--json"),
            ("evaluate", "--a", "uniform", "-n", 3, "--json"),
            ("simulate", "--a", "uniform", "--b", "uniform", "-n", 3, "--games", 2, "--json")]
    for args in cmds:
        r = run(*args)
        assert r.exit_code == 0, (args, r.output)
        json.loads(r.output, parse_constant=refuse)


def test_play_with_standard_input_closed():
    r = child("play", "-n", 3, "--seed", 1, preexec_fn=lambda: os.close(0))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().startswith("error: standard input is closed") and len(r.stderr.strip().splitlines()) == 1


def test_out_paths_refused_before_solving(tmp_path):
    with CliRunner().isolated_filesystem(temp_dir=tmp_path):
        one_line(run("solve", "-n", 4, "--out", ""), "output path is empty")
        assert os.listdir(".") == []  # nothing solved, no .ckpt left here
    one_line(run("solve", "-n", 4, "--out", "/proc/x.gops"), "/proc/x.gops")
    (tmp_path / "a.gops.ckpt").write_text("a user's file")
    one_line(run("solve", "-n", 4, "--out", tmp_path / "a.gops"), "a.gops.ckpt exists and is not a folder")
    assert (tmp_path / "a.gops.ckpt").read_text() == "a user's file"
    long = tmp_path / ("x" * 247 + ".gops")  # a legal 252-byte name: its .ckpt folder's name would be 257
    one_line(run("solve", "-n", 4, "--out", long), "longer than 255 bytes", "at most 250")
    assert not os.path.exists(long)
    os.mkfifo(tmp_path / "fifo.gops")
    one_line(run("solve", "-n", 4, "--out", tmp_path / "fifo.gops"), "not a regular file")


def test_api_solve_and_save_refuse_bad_paths(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        solve(Rules(4), out="")
    with pytest.raises(ValueError, match="/proc"):
        solve(Rules(4)).save("/proc/x.gops")


def test_checkpoint_folder_with_a_subfolder(tmp_path):
    out = tmp_path / "d.gops"
    os.makedirs(tmp_path / "d.gops.ckpt" / "mine")
    r = run("solve", "-n", 4, "--out", out)
    assert r.exit_code == 0, r.output
    assert load(out).rules == Rules(4) and os.path.isdir(tmp_path / "d.gops.ckpt" / "mine")


def test_solution_that_is_a_fifo_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "pipe.gops"
    os.mkfifo(fifo)
    r = child("query", "-s", fifo, "--hand-a", "1", "--hand-b", "2", "--pot", 3, timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr and str(fifo) in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_header_fields_name_the_file(tmp_path):
    """A header that passes its checksum but holds impossible fields (a writer's bug) names the file."""
    from gops_solver.engine.storage import header_bytes
    path = tmp_path / "h.gops"
    solve(Rules(4), out=path)
    raw = path.read_bytes()
    size = int.from_bytes(raw[8:16], "little")
    header = json.loads(raw[16:16 + size])
    for field, value, msg in [("rules", {**header["rules"], "n": 99}, "rules this gops does not know"),
                              ("rules", {**header["rules"], "n": 5}, "do not match its rules"),
                              ("format", 7, "format 7")]:
        head = header_bytes({**header, field: value})
        path.write_bytes(head + raw[len(head):])
        r = run("query", "-s", path, "--hand-a", "1", "--hand-b", "2", "--pot", 3)
        one_line(r, str(path), msg)


def test_option_names_in_messages():
    one_line(run("play", "-n", 3, "--seed", -1), "--seed")
    one_line(run("solve", "-n", 4, "--order", ""), "order")
    line = one_line(run("slove", "-n", 4, prog_name="gops"))
    assert "gops gops" not in line and "see gops --help" in line
    assert "see gops solve --help" in one_line(run("solve", "-n", 4, "--bogus", prog_name="gops"))
    r = child("slove")  # the real program names itself gops, also when run as python -m gops_solver
    assert r.returncode == 2 and "(see gops --help)" in r.stderr and "gops gops" not in r.stderr
