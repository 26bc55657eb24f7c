"""Checkpoints: damage at any offset is found and recomputed, a failed resume loses nothing.

Fault injection on the files a solve writes in ``OUT.ckpt/``; every check
compares the final tables with an in-memory solve (induction is
deterministic, so they must be identical bit for bit).
"""

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules, load, solve
from gops_solver.engine._checkpoint import Checkpointer
from gops_solver.cli.commands import cli

RULES = Rules(6, "carry", "win")
ARGS = ("-n", 6, "--objective", "win")


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def full():
    return solve(RULES)


def same_tables(a, b):
    return all(np.array_equal(np.nan_to_num(x, nan=7.0), np.nan_to_num(y, nan=7.0)) for x, y in zip(a, b))


def interrupted(out, level=5):
    """Checkpoints of a solve stopped when it reached ``level`` (levels below it are finished)."""
    def stop(k, games):
        if k == level:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        solve(RULES, progress=stop, out=out)
    ck = str(out) + ".ckpt"
    assert os.path.exists(f"{ck}/level_{level - 1:02d}.npy") and not os.path.exists(f"{ck}/level_{level:02d}.npy")
    return ck


def test_resume_gives_identical_solution(tmp_path, full):
    out = tmp_path / "r.gops"
    interrupted(out, 4)
    r = run("solve", *ARGS, "--out", out, "--resume", "--json")
    assert r.exit_code == 0, r.output
    back = load(out)
    assert same_tables(back.tables, full.tables)
    assert back.stage_games == full.stage_games and back.states == full.states
    assert not os.path.exists(str(out) + ".ckpt")  # checkpoints removed once the solution is saved


def _add_to_value(path, index, delta):
    t = np.load(path)
    if np.isnan(t[index]):
        index = int(np.flatnonzero(~np.isnan(t))[0])
    t[index] += delta
    np.save(path, t)


def _flip_byte(path, at):
    raw = bytearray(open(path, "rb").read())
    raw[at % len(raw)] ^= 0x40
    open(path, "wb").write(bytes(raw))


# the case (a whole table replaced), values changed at the start, middle and end,
# bytes flipped in the .npy header and in the .json, a truncated and a missing file
DAMAGE = {
    "replaced by zeros(10)": lambda ck: np.save(f"{ck}/level_02.npy", np.zeros(10)),
    "first value +0.25": lambda ck: _add_to_value(f"{ck}/level_03.npy", 0, 0.25),
    "middle value +0.25": lambda ck: _add_to_value(f"{ck}/level_03.npy", len(np.load(f"{ck}/level_03.npy")) // 2, 0.25),
    "last value -1e-12": lambda ck: _add_to_value(f"{ck}/level_04.npy", -1, -1e-12),
    "npy header byte": lambda ck: _flip_byte(f"{ck}/level_02.npy", 20),
    "json byte": lambda ck: _flip_byte(f"{ck}/level_03.json", 12),
    "json games edited": lambda ck: _edit_json(f"{ck}/level_03.json"),
    "npy truncated": lambda ck: open(f"{ck}/level_04.npy", "r+b").truncate(300),
    "json missing": lambda ck: os.unlink(f"{ck}/level_01.json"),
}


def _edit_json(path):
    obj = json.load(open(path))
    obj["data"]["games"] += 1  # a plausible edit, checksum left as it was
    json.dump(obj, open(path, "w"))


@pytest.mark.parametrize("how", list(DAMAGE))
def test_damaged_checkpoint_is_recomputed(tmp_path, full, how):
    out = tmp_path / "d.gops"
    ck = interrupted(out)
    DAMAGE[how](ck)
    r = run("solve", *ARGS, "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    assert "note: checkpoint of level" in r.output and "damaged" in r.output and "recomputing" in r.output
    back = load(out)
    assert same_tables(back.tables, full.tables)
    assert back.stage_games == full.stage_games and back.states == full.states


def test_failed_resume_keeps_the_good_file_and_the_checkpoints(tmp_path):
    out = tmp_path / "old.gops"
    solve(Rules(4), out=out)  # a valid solution of other rules lives there
    good = out.read_bytes()
    ck = interrupted(out)
    open(f"{ck}/meta.json", "ab").write(b" ")  # damage the one file that cannot be recomputed
    _flip_byte(f"{ck}/meta.json", 5)
    before = sorted(os.listdir(ck))
    r = run("solve", *ARGS, "--out", out, "--resume")
    assert r.exit_code == 2 and "meta.json is damaged" in r.output and "--restart" in r.output, r.output
    assert out.read_bytes() == good and sorted(os.listdir(ck)) == before
    # checkpoints of other rules are refused the same way
    ck2 = interrupted(tmp_path / "o.gops")
    r = run("solve", "-n", 6, "--out", tmp_path / "o.gops", "--resume")
    assert r.exit_code == 2 and "are for" in r.output and os.path.isdir(ck2)


def test_checkpoint_changed_while_the_solve_runs_is_not_written(tmp_path):
    """A level damaged after it was checkpointed (and checked) is caught while the file is written."""
    out = tmp_path / "late.gops"
    solve(Rules(4), out=out)
    good = out.read_bytes()
    ck = str(out) + ".ckpt"

    def damage(k, games):
        if k == 6 and os.path.exists(f"{ck}/level_02.npy") and not os.path.exists(f"{ck}/damaged"):
            _add_to_value(f"{ck}/level_02.npy", 0, 0.25)
            open(f"{ck}/damaged", "w").close()
    with pytest.raises(ValueError, match="checkpoint of level 2 changed"):
        solve(RULES, progress=damage, out=out)
    assert out.read_bytes() == good and os.path.exists(f"{ck}/level_06.npy")


def test_checkpoint_json_records_checksum_and_counts(tmp_path, full):
    out = tmp_path / "j.gops"
    ck = interrupted(out)
    from gops_solver.engine._checkpoint import loads_checked
    from gops_solver.engine.storage import crc32
    st = loads_checked(open(f"{ck}/level_03.json", "rb").read())
    assert st["level"] == 3 and st["size"] == len(full.tables[3]) and st["crc32"] == crc32(full.tables[3])
    assert st["games"] > 0 and st["states"] > 0 and st["seconds"] >= 0
    with pytest.raises(ValueError, match="checksum"):
        loads_checked(json.dumps({"data": {**st, "games": st["games"] + 1}, "crc32": 0}).encode())


def test_run_without_resume_keeps_checkpoints_unless_restart(tmp_path, full):
    out = tmp_path / "k.gops"
    ck = interrupted(out)
    before = {f: open(os.path.join(ck, f), "rb").read() for f in os.listdir(ck)}
    r = run("solve", *ARGS, "--out", out)
    assert r.exit_code == 2 and "--resume" in r.output and "--restart" in r.output, r.output
    assert {f: open(os.path.join(ck, f), "rb").read() for f in os.listdir(ck)} == before and not out.exists()
    r = run("solve", *ARGS, "--out", out, "--restart")
    assert r.exit_code == 0 and "note: discarding the checkpoints" in r.output, r.output
    assert same_tables(load(out).tables, full.tables) and not os.path.exists(ck)
    assert run("solve", *ARGS, "--out", out, "--resume", "--restart").exit_code == 2


def test_files_the_user_put_in_the_checkpoint_folder_are_kept(tmp_path, full):
    out = tmp_path / "u.gops"
    ck = interrupted(out)
    open(f"{ck}/notes.txt", "w").write("mine")
    os.mkdir(f"{ck}/sub")
    open(f"{ck}/sub/level_01.npy", "w").write("also mine")
    r = run("solve", *ARGS, "--out", out, "--restart")
    assert r.exit_code == 0, r.output
    assert "left" in r.output and "notes.txt" in r.output
    assert open(f"{ck}/notes.txt").read() == "mine" and open(f"{ck}/sub/level_01.npy").read() == "also mine"
    assert sorted(os.listdir(ck)) == ["notes.txt", "sub"]  # only the solver's own files went
    assert same_tables(load(out).tables, full.tables)


def test_seconds_total_and_this_run(tmp_path):
    out = tmp_path / "t.gops"
    interrupted(out)
    ck = str(out) + ".ckpt"
    from gops_solver.engine._checkpoint import loads_checked
    earlier = sum(loads_checked(open(f"{ck}/level_{k:02d}.json", "rb").read())["seconds"] for k in range(1, 5))
    r = run("solve", *ARGS, "--out", out, "--resume", "--json")
    d = json.loads(r.output)
    assert d["seconds_this_run"] > 0 and d["seconds"] == pytest.approx(earlier + d["seconds_this_run"], abs=2e-3)
    sol = load(out)
    assert sol.seconds == pytest.approx(earlier + sol.seconds_this_run, abs=1e-9)
    assert sol.seconds_this_run < sol.seconds


def test_two_solves_cannot_share_checkpoints(tmp_path):
    first = Checkpointer(tmp_path / "x.gops", Rules(4))
    first.lock()
    with pytest.raises(ValueError, match="another gops solve is writing"):
        Checkpointer(tmp_path / "x.gops", Rules(4)).lock()
    r = run("solve", "-n", 4, "--out", tmp_path / "x.gops")
    assert r.exit_code == 2 and "another gops solve is writing" in r.output
    first.clear()
    Checkpointer(tmp_path / "x.gops", Rules(4)).lock()  # free again
