"""Hostile input, one table per class: every case ends with one line on stderr starting with
"error:" and exit status 2 (or a clean exit), no traceback, and nothing that was on disk changes.

The classes: non-regular targets and sources (folders, FIFOs, devices, special files), paths
with a URL scheme, a second writer of a target that another holds, files in a checkpoint folder
that gops did not write, damaged block stores and checkpoints, numbers too large to echo, and
the end of input in a 3-player game. Decks are tiny so the whole table runs in seconds.
"""

import json
import re
import os
import shutil

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.engine.storage import acquire_lock, release_lock

Q = ("--hand-a", "1,3", "--hand-b", "2,3", "--pot", 4, "--prizes", "1")


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def one_line(r, *words):
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def snapshot(folder):
    """Every entry under ``folder``: its kind and, for regular files, its bytes."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            if os.path.isfile(p) and not os.path.islink(p):
                out[os.path.relpath(p, folder)] = open(p, "rb").read()
            else:
                out[os.path.relpath(p, folder)] = os.stat(p).st_mode >> 12
    return out


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    path = tmp_path_factory.mktemp("s") / "s4.gops"
    solve(Rules(4), out=path)
    return path


@pytest.mark.parametrize("make, words", [
    (lambda d: os.mkdir(d / "x") or d / "x", ["a folder"]),
    (lambda d: os.mkfifo(d / "x") or d / "x", ["not a regular file"]),
    (lambda d: "/proc/self/mem", ["/proc/self/mem"]),
])
@pytest.mark.parametrize("command", ["query", "verify", "export"])
def test_a_solution_that_is_no_regular_file(tmp_path, make, words, command):
    src = make(tmp_path)
    before = snapshot(tmp_path)
    args = {"query": ("query", "-s", src, *Q), "verify": ("verify", "-s", src),
            "export": ("export", "-s", src, "--format", "csv", "--out", tmp_path / "e.csv")}[command]
    one_line(run(*args), *words)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("url", ["s3://bucket/x.gops", "http://example.invalid/x.gops", "hdfs://h/x.gops",
                                 "ftp://example.invalid/x.gops", "zip://a::missing.zip"])
def test_paths_with_a_scheme(tmp_path, url):
    with CliRunner().isolated_filesystem(temp_dir=tmp_path):
        one_line(run("query", "-s", url, *Q))
        one_line(run("solve", "-n", 3, "--out", url), "URL")
        assert os.listdir(".") == []


def test_writers_stream_into_fifos_and_devices_or_refuse(tmp_path, solved):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    one_line(run("export", "-s", solved, "--format", "csv", "--out", fifo), "no process is reading")
    one_line(run("export", "-s", solved, "--format", "csv", "--out", "/dev/full"), "No space left")
    assert os.path.exists(fifo) and not os.path.isfile(fifo)  # the FIFO was not replaced by a file
    r = run("export", "-s", solved, "--format", "csv", "--out", "/dev/null")
    assert r.exit_code == 0, r.output
    one_line(run("solve", "-n", 3, "--out", fifo), "not a regular file")  # a solve keeps checkpoints: files only
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


def test_a_second_writer_of_a_target_refuses(tmp_path, solved):
    out = tmp_path / "x.gops"
    shutil.copy(solved, out)
    store = tmp_path / "store"
    solve(Rules(4), out=store, memory="1GB")
    token, token2 = acquire_lock(out, "gops solve"), acquire_lock(store, "gops solve")
    try:
        before = snapshot(tmp_path)
        one_line(run("solve", "-n", 3, "--out", out), "is writing")
        one_line(run("solve", "--players", 3, "-n", 3, "--security-only", "--out", out), "is writing")
        one_line(run("export", "-s", solved, "--format", "csv", "--out", out), "is writing")
        one_line(run("solve", "-n", 4, "--out", store, "--memory", "1GB", "--restart"), "is writing")
        with pytest.raises(ValueError, match="is writing"):
            solve(Rules(3)).save(out)
        assert snapshot(tmp_path) == before
    finally:
        release_lock(token)
        release_lock(token2)
    assert run("solve", "-n", 3, "--out", out).exit_code == 0  # free again
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".gops-lock")]


# solves whose writer lock was once taken only to save: now held for the whole solve
SECOND_WRITERS = {"3 players": ("solve", "--players", 3, "-n", 3, "--security-only"),
                  "two-card bids": ("solve", "-n", 4, "--bid-cards", 2),
                  "classic": ("solve", "-n", 3)}


@pytest.mark.parametrize("first, rules, second", [
    ("two-card bids", Rules(n=4, bid_cards=2), "3 players"),
    ("open prizes", Rules(n=4, open_prizes=2), "classic"),
    ("tiebreak", Rules(n=3, objective="win", match="best-of-3", draw="half", tiebreak="extra-game"), "two-card bids"),
    ("classic match", Rules(n=3, objective="win", match="best-of-3", draw="half"), "3 players"),
    ("3 players", Rules(n=3, players=3), "two-card bids"),
])
def test_a_solve_holds_its_targets_lock_for_the_whole_solve(tmp_path, solved, monkeypatch, first, rules, second):
    """While one solve of one kind runs, a second solve of another kind to the same --out refuses at once,
    in one line, and leaves the file as it was; the first then writes its own solution."""
    out = tmp_path / "x.gops"
    shutil.copy(solved, out)
    before = snapshot(tmp_path)
    seen = []

    def second_writer(*_):
        if not seen:  # mid-solve, once
            seen.append(run(*SECOND_WRITERS[second], "--out", out))
            seen.append(snapshot(tmp_path))

    if rules.players == 3:
        import gops_solver.multi as multi
        real = multi.solve_multi

        def solve_multi(*args, **kw):
            second_writer()
            return real(*args, **kw)
        monkeypatch.setattr(multi, "solve_multi", solve_multi)
        r = run("solve", "--players", 3, "-n", 3, "--security-only", "--out", out)
        assert r.exit_code == 0, r.output
    else:
        solve(rules, out=out, progress=second_writer)
    assert len(seen) == 2, "the second writer never ran"
    one_line(seen[0], "another gops solve is writing", str(out))
    # the lock file is the only new entry while the first solve runs; the target is untouched
    during = seen[1]
    assert during.pop(f".{out.name}.gops-lock", None) is not None
    assert during == before
    from gops_solver import load
    assert load(out).rules == rules  # the first solve's own file, written whole
    assert sorted(os.listdir(tmp_path)) == ["x.gops"]  # no lock file, no temporary file left


def test_an_interrupted_solve_gives_its_lock_back(tmp_path, solved):
    out = tmp_path / "x.gops"
    shutil.copy(solved, out)
    before = snapshot(tmp_path)

    def interrupt(*_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve(Rules(n=4, bid_cards=2), out=out, progress=interrupt)
    assert snapshot(tmp_path) == before  # no lock file, no temporary file, the old file whole
    assert run("solve", "--players", 3, "-n", 3, "--security-only", "--out", out).exit_code == 0


def test_a_fresh_solve_keeps_files_it_did_not_write(tmp_path):
    out = tmp_path / "x.gops"
    os.mkdir(str(out) + ".ckpt")
    (tmp_path / "x.gops.ckpt" / "meta.json").write_text('{"mine": true}')
    before = snapshot(tmp_path)
    one_line(run("solve", "-n", 3, "--out", out, "--restart"), "meta.json", "did not write")
    assert snapshot(tmp_path) == before


def _store(tmp_path):
    store = tmp_path / "store"
    solve(Rules(4), out=store, memory="1GB")
    return store


@pytest.mark.parametrize("damage", ["truncated manifest", "manifest a list", "block a folder", "block a fifo",
                                    "missing level"])
def test_damaged_block_stores(tmp_path, damage):
    store = _store(tmp_path)
    block = store / "L02" / "00000.blk"
    if damage == "truncated manifest":
        raw = (store / "manifest.gops").read_bytes()
        (store / "manifest.gops").write_bytes(raw[:len(raw) // 2])
    elif damage == "manifest a list":
        (store / "manifest.gops").write_text("[1, 2]")
    elif damage == "block a folder":
        block.unlink()
        block.mkdir()
    elif damage == "block a fifo":
        block.unlink()
        os.mkfifo(block)
    else:
        shutil.rmtree(store / "L03")
    before = snapshot(tmp_path)
    one_line(run("query", "-s", store, *Q))
    one_line(run("verify", "-s", store))
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("damage", ["folder", "list", "fifo"])
def test_damaged_checkpoint_metadata(tmp_path, damage):
    out = tmp_path / "c.gops"
    ck = tmp_path / "c.gops.ckpt"
    ck.mkdir()
    meta = ck / "meta.json"
    if damage == "folder":
        meta.mkdir()
    elif damage == "list":
        meta.write_text("[1, 2, 3]")
    else:
        os.mkfifo(meta)
    before = snapshot(tmp_path)
    one_line(run("solve", "-n", 3, "--out", out, "--resume"), "meta.json")
    assert snapshot(tmp_path) == before


def test_a_fifo_as_a_level_checkpoint_is_not_waited_on(tmp_path):
    out = tmp_path / "c.gops"

    def stop(k, g):
        if k == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        solve(Rules(5), progress=stop, out=out)
    npy = tmp_path / "c.gops.ckpt" / "level_01.npy"
    npy.unlink()
    os.mkfifo(npy)
    r = run("solve", "-n", 5, "--out", out, "--resume")  # the damaged level is reported and recomputed
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output


def test_huge_numbers_are_refused_and_not_echoed_whole():
    big = str(10 ** 400)
    line = one_line(run("query", "-n", 4, "--match", "session", *Q, "--match-score", big), "--match-score")
    assert len(line) < 200
    line = one_line(run("query", "-n", 4, "--match", "best-of-3", *Q, "--match-score", big + "-0"))
    assert len(line) < 200


def test_a_user_strategy_message_is_capped(tmp_path, monkeypatch):
    (tmp_path / "hostile_strat.py").write_text("def bad(view):\n    raise ValueError(10 ** 400)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    line = one_line(run("evaluate", "--a", "hostile_strat:bad", "--b", "uniform", "-n", 3))
    assert len(line) < 300 and "characters" in line


def test_security_only_three_player_saves_and_prints_strict_json(tmp_path):
    out = tmp_path / "m.gops"

    def refuse(token):
        raise AssertionError(f"non-standard JSON token {token}")
    r = run("solve", "--players", 3, "-n", 3, "--security-only", "--out", out, "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.output, parse_constant=refuse)
    assert got["values"] == [None, None, None] and os.path.isfile(out)
    r = run("info", "--players", 3, "-n", 3, "--json")
    assert r.exit_code == 0
    json.loads(r.output, parse_constant=refuse)


def test_end_of_input_in_a_three_player_game_is_a_goodbye():
    r = run("play", "--players", 3, "-n", 3, "--seed", 1, input="")
    assert r.exit_code == 0 and "goodbye" in r.output and "error" not in r.output, r.output


def test_a_three_player_solution_given_to_evaluate_is_refused_by_name():
    from gops_solver.analysis.evaluate import evaluate
    sol = solve(Rules(3, players=3))
    with pytest.raises(TypeError, match="two-player games"):
        evaluate("uniform", Rules(3), "equilibrium", sol)


# every way a user strategy can misplay: one line naming the strategy, the state and the fault, clipped
MISPLAYS = {"huge_probability": "a number too large", "huge_card": "not in its hand", "nan_probability": "sum to 1",
            "negative_probability": "sum to 1", "not_a_distribution": "sum to 1", "foreign_card": "not in its hand",
            "broken": "raised KeyError: 'boom'", "a_string": "'all in'", "nothing": "None",
            "unreadable": "give a dict"}


@pytest.mark.parametrize("name", sorted(MISPLAYS))
@pytest.mark.parametrize("command", ["evaluate", "simulate"])
def test_a_misplaying_user_strategy_gets_one_short_line(name, command):
    args = ["--a", f"stratfuncs:{name}", "--b", "uniform", "-n", 3, "--tie", "discard"]
    if command == "simulate":
        args += ["--games", 5, "--seed", 1]
    line = one_line(run(command, *args), f"strategy stratfuncs:{name} at hand ", ", pot ", MISPLAYS[name])
    assert len(line) < 250, line


@pytest.mark.parametrize("name", ["huge_probability", "huge_card", "unreadable"])
def test_a_misplaying_user_strategy_in_python(name):
    from gops_solver.analysis.evaluate import evaluate
    from gops_solver.analysis.simulate import simulate
    with pytest.raises(ValueError, match=f"^strategy stratfuncs:{name} at hand ") as e:
        evaluate(f"stratfuncs:{name}", Rules(3), against="uniform")
    assert len(str(e.value)) < 250
    with pytest.raises(ValueError, match=f"^strategy stratfuncs:{name} at hand "):
        simulate(f"stratfuncs:{name}", "uniform", Rules(3), 5, seed=1)


Q3 = ("-n", 3, "--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1,3", "--pot", 2, "--prizes", 1)


@pytest.mark.parametrize("url", ["ftp://example.invalid/x.gops", "zip://x::missing.zip", "memory://x.gops",
                                 "nosuchscheme://x"])
def test_an_unreachable_solution_url_gets_one_rule_in_every_command(tmp_path, url):
    # two and three players, every reader: the same line, the rule where solutions live, no [Errno N]
    from gops_solver.engine.storage import WHERE_SOLUTIONS_LIVE
    with CliRunner().isolated_filesystem(temp_dir=tmp_path):
        lines = {one_line(run(*args), f"cannot read {url}: ", WHERE_SOLUTIONS_LIVE) for args in [
            ("query", "-s", url, *Q), ("query", "--players", 3, "-s", url, *Q3), ("verify", "-s", url),
            ("verify", "--players", 3, "-s", url), ("evaluate", "--a", "match", "-n", 3, "-s", url),
            ("simulate", "--players", 3, "-n", 3, "-s", url, "--games", 2),
            ("export", "-s", url, "--format", "csv", "--out", "e.csv")]}
        assert len(lines) == 1, lines
        assert "Errno" not in lines.pop()
        assert os.listdir(".") == []


#: what a Python name looks like in a message: an argument set (equilibrium=True, open_prizes=0), a call
#: (query(hand_a, ...), verify()), a class (MultiSolution) or an exception (KeyError), an [Errno N]
PYTHON_NAMES = re.compile(r"\b[a-z_]+=(True|False|None)\b|\b[a-z]+_[a-z_]+=|\b[a-z_]+\([a-z_, .]*\)|\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b"
                          r"|\[Errno")


def test_the_python_names_check_finds_them():
    for line in ["solve with equilibrium=True to query", "open_prizes=0 is outside 1..4", "use MultiSolution.query",
                 "query(hand_a, hand_b, pot) is a two-player call", "verify() re-solves", "[Errno 2] No such file"]:
        assert PYTHON_NAMES.search(line), line
    assert not PYTHON_NAMES.search("error: --open-prizes 0 is outside 1..4: rules n=4 tie=carry")


@pytest.fixture(scope="module")
def three_player_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("m3")
    security = folder / "security.gops"
    assert run("solve", "--players", 3, "-n", 3, "--tie", "discard", "--security-only", "--out", security).exit_code == 0
    return security


@pytest.mark.parametrize("case", ["query security-only", "simulate security-only", "query two-player form",
                                  "verify two-player form", "evaluate", "open prizes", "bid cards", "cards"])
def test_command_line_messages_name_options_not_python(three_player_files, case):
    sec = three_player_files
    hands = ("--hand-a", "1,2", "--hand-b", "2,3", "--hand-c", "1,3", "--pot", 2, "--prizes", 1, "--scores", "3,0,0")
    args, words = {
        "query security-only": (("query", "--players", 3, "-s", sec, *hands), "without --security-only"),
        "simulate security-only": (("simulate", "--players", 3, "-s", sec, "--games", 2), "without --security-only"),
        "query two-player form": (("query", "-s", sec, *Q), "add --players 3"),
        "verify two-player form": (("verify", "-s", sec), "add --players 3"),
        "evaluate": (("evaluate", "--a", "match", "-s", sec), "gops simulate --players 3"),
        "open prizes": (("solve", "-n", 4, "--open-prizes", 0), "--open-prizes 0"),
        "bid cards": (("solve", "-n", 4, "--bid-cards", 3), "--bid-cards 3"),
        "cards": (("solve", "-n", 0), "--cards 0"),
    }[case]
    line = one_line(run(*args), words)
    assert not PYTHON_NAMES.search(line), line
