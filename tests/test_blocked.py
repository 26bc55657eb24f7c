"""Blocked solves (gops_solver.engine.blocked, gops_solver.engine._blockstore): the same values as the in-memory solver.

The in-memory induction is itself checked against the naive oracle
(test_against_naive.py); here every block of a store must equal the
corresponding slice of the in-memory level tables, bit for bit when solved in
this process and within 1e-12 on a Dask cluster, for every tie rule,
objective and order. Then what a store promises: queries and verify read only
the blocks they need, damaged or missing blocks are found by their checksums
and recomputed on resume, a killed solve leaves no half-written block.
"""

import itertools
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules, load, solve
from gops_solver.engine.blocked import (BlockedTables, children, parse_memory, pattern_major, plan_memory, set_major,
                                 solve_blocked)
from gops_solver.engine._blockstore import BlockStore, is_store
from gops_solver.cli.commands import cli
from gops_solver.engine.induction import level_work, set_work
from gops_solver.engine.projection import plan_blocks
from gops_solver.engine.solution import full_space

COMBOS = list(itertools.product(("carry", "discard"), ("points", "win"), ("random", "descending")))


def _same_blocks(sol, store, tol=0.0):
    """Every block of ``store`` equals the in-memory tables of ``sol`` (NaN where they are empty)."""
    sp = sol.space
    for k in range(sp.kmax + 1):
        blocks = set_major(sp, k, sol.tables[k])
        for r in range(len(sp.sets[k])):
            got = store.read_block(k, r)
            want = blocks[r]
            assert np.array_equal(np.isnan(got), np.isnan(want)), (k, r)
            m = ~np.isnan(want)
            if m.any():
                assert np.max(np.abs(got[m] - want[m])) <= tol, (k, r)


@pytest.mark.parametrize("tie,objective,order", COMBOS)
def test_blocked_equals_in_memory(tmp_path, tie, objective, order):
    rules = Rules(n=5, tie=tie, objective=objective, order=order)
    ref = solve(rules)
    sol = solve(rules, out=tmp_path / "st", memory="200MB")
    _same_blocks(ref, sol.store)
    assert sol.value == ref.value
    assert sol.states == ref.states and sol.stage_games == ref.stage_games


@pytest.mark.parametrize("group_bytes", [1, 20_000])
def test_blocks_alone_or_in_groups_are_identical(tmp_path, monkeypatch, group_bytes):
    """One block per kernel call, or a few (``points``' small blocks are grouped): the same bits."""
    import gops_solver.engine.blocked as blocked
    monkeypatch.setattr(blocked, "GROUP_BYTES", group_bytes)
    for rules in (Rules(n=6, tie="discard"), Rules(n=6, objective="win")):
        sp = full_space(rules)
        sizes = [(blocked.group_size(sp, k), len(sp.sets[k])) for k in range(1, 7)]
        if group_bytes == 1:
            assert all(g == 1 for g, _ in sizes)
        elif rules.objective == "points":  # a level cut into a larger and a smaller group
            assert any(1 < g < n for g, n in sizes), sizes
        ref = solve(rules)
        sol = solve(rules, out=tmp_path / f"{group_bytes}-{rules.objective}", memory="200MB")
        _same_blocks(ref, sol.store)
        assert (sol.states, sol.stage_games) == (ref.states, ref.stage_games)
        for k in range(1, 7):  # each block's header holds its own stage games
            got = [sol.store.read_block_meta(k, r)[1] for r in range(len(sp.sets[k]))]
            if rules.objective == "points":
                assert got == set_work(sp, k).tolist()
            else:  # under win only those not won for sure, at most every (state, reveal, difference)
                assert all(g <= w for g, w in zip(got, set_work(sp, k).tolist()))
        assert sum(sol.store.read_block_meta(k, r)[1] for k in range(1, 7)
                   for r in range(len(sp.sets[k]))) == sol.stage_games


def test_layout_round_trip_and_whole_levels():
    rules = Rules(n=5, tie="carry", objective="win")
    ref = solve(rules)
    sp = ref.space
    for k in range(sp.kmax + 1):
        blocks = set_major(sp, k, ref.tables[k])
        assert blocks.shape == (len(sp.sets[k]), sp.size(k) // len(sp.sets[k]))
        back = pattern_major(sp, k, blocks)
        assert np.array_equal(np.isnan(back), np.isnan(ref.tables[k]))
        assert np.array_equal(np.nan_to_num(back), np.nan_to_num(ref.tables[k]))


def test_queries_and_verify_read_only_their_blocks(tmp_path):
    rules = Rules(n=6, tie="carry", objective="win")
    ref = solve(rules)
    out = tmp_path / "st"
    solve(rules, out=out, memory="200MB")
    sol = load(out)
    sp = sol.space
    # a state with 3 cards each, hidden prizes {2, 5} after the reveal of the pot's prize
    hand_a, hand_b, pot, prizes, diff = [1, 4, 6], [2, 3, 6], 3, [2, 5], -1
    want = ref.query(hand_a, hand_b, pot, prizes, diff)
    # remove every block but the one the stage game reads: level 2, set {2, 5}
    keep = int(sp.prize_sets.set_rank[sp.prize_sets.mask(prizes)])
    for k in range(sp.kmax + 1):
        for r in range(len(sp.sets[k])):
            if (k, r) != (2, keep) and (k, r) != (sp.kmax, 0):
                os.unlink(sol.store.block_path(k, r))
    thin = load(out, check=False)
    got = thin.query(hand_a, hand_b, pot, prizes, diff)
    assert got.value == want.value
    assert got.strategy_a == want.strategy_a and got.strategy_b == want.strategy_b
    with pytest.raises(ValueError, match="missing"):
        load(out)  # a whole-store open checks every block is there
    with pytest.raises(ValueError, match="missing.*--resume"):
        thin.query([1, 4], [2, 3], 3, [5], 0)


def test_verify_store_matches_verify_tables(tmp_path):
    rules = Rules(n=6, tie="discard", objective="win")
    ref = solve(rules)
    sol = solve(rules, out=tmp_path / "st", memory="200MB")
    a, b = ref.verify(), sol.verify()
    assert a.ok and b.ok
    assert (a.slots, a.states, a.stage_games) == (b.slots, b.states, b.stage_games)
    assert b.max_residual == a.max_residual
    s = sol.verify(sample=300, seed=5)
    assert s.ok and s.slots == 300 and s.max_residual <= b.max_residual
    # the sampled check maps blocks (their data checked once up front): the same entries as a whole read
    for k in range(len(sol.store.nsets)):
        for r in range(sol.store.nsets[k]):
            assert np.array_equal(sol.store.map_block(k, r), sol.store.read_block(k, r), equal_nan=True)
    # a changed value is found by its checksum first
    path = sol.store.block_path(4, 3)
    raw = bytearray(open(path, "rb").read())
    raw[-8:] = np.array([0.123]).tobytes()
    open(path, "wb").write(bytes(raw))
    with pytest.raises(ValueError, match="checksum fails"):
        load(tmp_path / "st").verify(sample=10)
    raw[20] ^= 1  # a damaged header is refused by a mapped read too
    open(path, "wb").write(bytes(raw))
    with pytest.raises(ValueError, match="block header checksum fails.*--resume"):
        sol.store.map_block(4, 3)


def test_whole_levels_of_a_store(tmp_path):
    rules = Rules(n=5, tie="carry", objective="points")
    ref = solve(rules)
    sol = solve(rules, out=tmp_path / "st", memory="200MB")
    assert isinstance(sol.tables, BlockedTables) and len(sol.tables) == 6
    for k in range(6):
        assert np.array_equal(np.nan_to_num(sol.tables[k]), np.nan_to_num(ref.tables[k]))
    small = BlockedTables(sol.store, sol.space, max_bytes=8)
    with pytest.raises(ValueError, match="more than"):
        small[3]


def test_resume_after_interrupt_and_damage(tmp_path):
    rules = Rules(n=6, tie="carry", objective="win")
    ref = solve(rules)
    out = tmp_path / "st"
    seen = []

    def stop(level, games, done=False):
        seen.append(level)
        if len(seen) == 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve(rules, out=out, memory="200MB", progress=stop)
    store = BlockStore.open(out)
    assert not store.is_complete()
    with pytest.raises(ValueError, match="--resume.*--restart"):
        solve(rules, out=out, memory="200MB")
    with pytest.raises(ValueError, match="unfinished"):
        load(out)
    # damage one finished block and leave a temporary file, as a killed writer would
    done = store.ranks(2)
    path = store.block_path(2, done[0])
    raw = bytearray(open(path, "rb").read())
    raw[40] ^= 0xFF
    open(path, "wb").write(bytes(raw))
    open(os.path.join(store.level_dir(3), ".gops-killed.tmp"), "wb").write(b"partial")
    with pytest.warns(UserWarning) as notes:
        sol = solve(rules, out=out, memory="200MB", resume=True)
    text = " ".join(str(w.message) for w in notes)
    assert "corrupted" in text and "recomputing" in text and ".gops-killed.tmp" in text
    _same_blocks(ref, sol.store)
    assert sol.value == ref.value
    # counts carried over from the finished blocks plus those of this run
    assert (sol.states, sol.stage_games) == (ref.states, ref.stage_games)


def test_refusals(tmp_path):
    rules = Rules(n=4, objective="win")
    with pytest.raises(ValueError, match="out=PATH"):
        solve(rules, memory="1GB")
    with pytest.raises(ValueError, match="not a size"):
        solve(rules, out=tmp_path / "a", memory="lots")
    with pytest.raises(ValueError, match="at least --memory"):
        solve(Rules(n=9, objective="win"), out=tmp_path / "b", memory="1KB")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty"):
        solve(rules, out=tmp_path / "c", memory="1GB")
    assert (tmp_path / "c" / "notes.txt").read_text() == "mine"
    solve(rules, out=tmp_path / "d", memory="1GB")
    with pytest.raises(ValueError, match="holds blocks of n=4 tie=carry objective=win"):
        solve(Rules(n=4, objective="points"), out=tmp_path / "d", memory="1GB")
    with pytest.raises(ValueError, match="already holds a finished solve"):
        solve(rules, out=tmp_path / "d", memory="1GB")
    with pytest.raises(ValueError, match="single games"):
        solve(Rules(n=4, objective="win", match="best-of-3"), out=tmp_path / "e", memory="1GB")
    assert parse_memory("1GB") == 10**9 and parse_memory("2GiB") == 2 * 2**30 and parse_memory("512MB") == 512 * 10**6


def test_cli_solve_query_verify_info(tmp_path):
    runner = CliRunner()
    out = str(tmp_path / "st")
    res = runner.invoke(cli, ["solve", "--cards", "6", "--tie", "discard", "--objective", "win", "--out", out,
                              "--memory", "1GB", "--json", "-q"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    ref = solve(Rules(n=6, tie="discard", objective="win"))
    assert data["value"] == ref.value and data["blocks"] == 2 ** 6 + 0 and data["states"] == ref.states
    res = runner.invoke(cli, ["query", "--solution", out, "--hand-a", "1,3,5", "--hand-b", "2,3,4", "--pot", "6",
                              "--prizes", "1,2", "--diff", "1", "--json"])
    assert res.exit_code == 0, res.output
    want = ref.query([1, 3, 5], [2, 3, 4], 6, [1, 2], 1)
    assert json.loads(res.output)["value"] == pytest.approx(want.value, abs=1e-12)
    res = runner.invoke(cli, ["verify", "-s", out, "--sample", "200", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["ok"]
    res = runner.invoke(cli, ["solve", "--cards", "6", "--out", out, "--memory", "1GB", "--workers", "2",
                              "--scheduler", "tcp://x:1"])
    assert res.exit_code == 2 and "choose one of --workers" in res.output
    res = runner.invoke(cli, ["solve", "--cards", "6", "--match", "session", "--objective", "win", "--out",
                              str(tmp_path / "m"), "--memory", "1GB"])
    assert res.exit_code == 2 and "single games" in res.output
    res = runner.invoke(cli, ["info", "--cards", "12", "--tie", "discard", "--objective", "win", "--json"])
    plan = json.loads(res.output)["blocked"]
    assert plan["blocks"] == 2 ** 12 and plan["clusters"][0]["workers"] == 8


def test_plan_figures_are_exact():
    for rules in (Rules(n=7, objective="win"), Rules(n=7, tie="discard"), Rules(n=6, order="ascending", objective="win")):
        sp = full_space(rules)
        assert sum(int(set_work(sp, k).sum()) for k in range(8 if rules.n == 7 else 7)) == \
            sum(level_work(sp, k) for k in range(rules.n + 1))
        plan = plan_blocks(rules, sp)
        assert plan.blocks == sum(len(sp.sets[k]) for k in range(rules.n + 1))
        need = plan_memory(sp)["min_bytes"]
        assert need >= 8 * max(sp.size(k) // len(sp.sets[k]) for k in range(rules.n + 1))
    sp = full_space(Rules(n=5))
    mask = int(sp.sets[3][4])
    assert sorted(int(sp.sets[2][r]) for r in children(sp, 3, 4)) == sorted(mask & ~(1 << q) for q in range(5)
                                                                           if mask >> q & 1)


def test_killed_solve_leaves_only_whole_blocks(tmp_path):
    out = tmp_path / "st"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd()] + sys.path))
    proc = subprocess.Popen([sys.executable, "-m", "gops_solver", "solve", "--cards", "8", "--objective", "win",
                             "--tie", "discard", "--out", str(out), "--memory", "1GB", "-q"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        if os.path.isdir(out / "L05") and len(os.listdir(out / "L05")) > 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = BlockStore.open(out)
    assert not store.is_complete()
    for k in range(9):
        for r in store.ranks(k):
            store.read_block(k, r)  # every block on disk is whole: header and data checksums pass
    sol = solve(Rules(n=8, objective="win", tie="discard"), out=out, memory="1GB", resume=True)
    assert sol.value == 0.0 and sol.store.is_complete()
    assert sol.verify(sample=500).ok


@pytest.fixture(scope="module")
def dask_client():
    import distributed  # the test extra installs the dask extra
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.parametrize("tie,objective,order", COMBOS)
def test_dask_local_cluster_equals_in_memory(tmp_path, dask_client, tie, objective, order):
    rules = Rules(n=5, tie=tie, objective=objective, order=order)
    ref = solve(rules)
    sol = solve(rules, out=tmp_path / "st", client=dask_client)
    assert is_store(tmp_path / "st")
    _same_blocks(ref, sol.store, tol=1e-12)
    assert abs(sol.value - ref.value) <= 1e-12 and sol.states == ref.states


def test_dask_through_an_fsspec_url(tmp_path, dask_client):
    rules = Rules(n=4, tie="carry", objective="win")
    ref = solve(rules)
    sol = solve(rules, out="file://" + str(tmp_path / "st"), client=dask_client)
    _same_blocks(ref, sol.store, tol=1e-12)


@pytest.mark.nojit
@pytest.mark.parametrize("objective", ["points", "win"])
def test_blocked_small_as_plain_python(tmp_path, objective):
    # the set-major read path of tables.read_value and the block kernels' arguments, without numba
    rules = Rules(n=3, tie="carry", objective=objective)
    ref = solve(rules)
    sol = solve(rules, out=tmp_path / "st", memory="100MB")
    _same_blocks(ref, sol.store)
    q = ([1, 3], [2, 3], 2, [1], 1)
    assert sol.query(*q).value == ref.query(*q).value
    assert sol.verify().ok


def _legacy_manifest(store_dir):
    """Rewrite a store's manifest as the plain JSON manifest.json the format before the container wrote."""
    from gops_solver.engine.storage import read_store_manifest
    man = read_store_manifest((store_dir / "manifest.gops").read_bytes(), "m")
    old = {"rules": man["rules"], "nsets": man["nsets"], "block_len": man["block_len"], "format": 1}
    (store_dir / "manifest.gops").unlink()
    (store_dir / "manifest.json").write_text(json.dumps(old, indent=1, sort_keys=True))


def test_manifest_is_the_container(tmp_path):
    from gops_solver.engine.storage import MAGIC, container_kind, read_store_manifest
    rules = Rules(n=5, tie="discard", objective="win")
    out = tmp_path / "st"
    solve(rules, out=out, memory="1GB")
    path = out / "manifest.gops"
    raw = path.read_bytes()
    assert raw[:8] == MAGIC and not (out / "manifest.json").exists()
    assert container_kind(path) == "store"
    head = read_store_manifest(raw, path)
    assert head["kind"] == "store" and head["format"] == 3 and Rules.from_dict(head["rules"]) == rules
    assert head["nsets"] == BlockStore.open(out).nsets
    # the header's checksum vouches for the rules and the block geometry
    flipped = raw.replace(b'"objective": "win"', b'"objective": "wim"')
    assert flipped != raw
    path.write_bytes(flipped)
    with pytest.raises(ValueError, match="header checksum fails"):
        load(out)
    path.write_bytes(raw + b"\0")
    with pytest.raises(ValueError, match="unexpected length"):
        load(out)
    path.write_bytes(raw)
    # the manifest file alone is not a solution: one line naming the folder
    with pytest.raises(ValueError, match="manifest of a block store: give the folder"):
        load(path)
    res = CliRunner().invoke(cli, ["query", "-s", str(path), "--hand-a", "1,2", "--hand-b", "1,2", "--pot", "3",
                                   "--prizes", "4"])
    assert res.exit_code == 2 and "manifest of a block store" in res.output and len(res.output.splitlines()) == 1


def test_store_with_a_plain_json_manifest_still_reads(tmp_path):
    rules = Rules(n=5, tie="carry", objective="points")
    ref = solve(rules)
    out = tmp_path / "st"
    solve(rules, out=out, memory="1GB")
    _legacy_manifest(out)
    assert is_store(out)
    sol = load(out)
    assert sol.value == ref.value
    assert sol.query([1, 3, 5], [2, 3, 4], 4, [1, 2], 1).value == ref.query([1, 3, 5], [2, 3, 4], 4, [1, 2], 1).value
    runner = CliRunner()
    for args in (["verify", "-s", str(out), "--json"],
                 ["export", "-s", str(out), "--format", "csv", "--out", str(tmp_path / "t.csv")],
                 ["query", "-s", str(out), "--hand-a", "1,3,5", "--hand-b", "2,3,4", "--pot", "4", "--prizes", "1,2",
                  "--diff", "1", "--json"]):
        res = runner.invoke(cli, args)
        assert res.exit_code == 0, (args, res.output)
    assert json.loads(runner.invoke(cli, ["query", "-s", str(out), "--hand-a", "1,3,5", "--hand-b", "2,3,4", "--pot",
                                          "4", "--prizes", "1,2", "--diff", "1", "--json"]).output)["value"] == \
        pytest.approx(ref.query([1, 3, 5], [2, 3, 4], 4, [1, 2], 1).value, abs=1e-12)
    # --resume on such a store rewrites its manifest as the container and keeps every block
    blocks = sorted(p.relative_to(out) for p in out.rglob("*.blk"))
    solve(rules, out=out, memory="1GB", resume=True)
    assert (out / "manifest.gops").exists() and not (out / "manifest.json").exists()
    assert sorted(p.relative_to(out) for p in out.rglob("*.blk")) == blocks
    assert load(out).value == ref.value
    # a damaged plain manifest is refused in one line
    _legacy_manifest(out)
    (out / "manifest.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="manifest.json is unreadable.*--restart"):
        load(out)


def _damage(path, kind):
    """Put damage of ``kind`` in a block's place, as a user or a failing disk might."""
    raw = open(path, "rb").read()
    os.unlink(path)
    if kind == "folder":
        os.mkdir(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "truncated":
        open(path, "wb").write(raw[:-3])
    elif kind == "too long":
        open(path, "wb").write(raw + b"\0")
    elif kind == "bad data checksum":
        bad = bytearray(raw)
        bad[-1] ^= 0xFF
        open(path, "wb").write(bytes(bad))
    elif kind == "old magic, new header":
        open(path, "wb").write(b"GOPSBLK1" + raw[8:])
    elif kind == "empty":
        open(path, "wb").close()


@pytest.mark.parametrize("kind", ["folder", "fifo", "truncated", "too long", "bad data checksum",
                                  "old magic, new header", "empty", "unreadable"])
def test_resume_recomputes_a_damaged_block_of_any_kind(tmp_path, monkeypatch, kind):
    """``--resume`` over a store with one damaged block: one note naming it, the block recomputed, no traceback."""
    rules = Rules(n=5, tie="discard", objective="win")
    ref = solve(rules)
    out = tmp_path / "st"
    solve(rules, out=out, memory="200MB")
    store = BlockStore.open(out)
    path = store.block_path(3, 4)
    if kind == "unreadable":  # root reads any file: make the read itself fail as an unreadable file's does
        import gops_solver.engine._blockstore as bs
        real = bs.read_regular
        first = [True]

        def refuse(p, what="file", limit=-1):
            if os.fspath(p) == path and first[0]:
                first[0] = False
                raise ValueError(f"cannot read {what} {p}: Permission denied")
            return real(p, what, limit)
        monkeypatch.setattr(bs, "read_regular", refuse)
    else:
        _damage(path, kind)
    with pytest.warns(UserWarning) as notes:
        sol = solve(rules, out=out, memory="200MB", resume=True)
    text = " ".join(str(w.message) for w in notes)
    assert path in text and "recomputing it" in text and "Errno" not in text
    _same_blocks(ref, sol.store)


def test_a_folder_with_files_in_a_blocks_place_is_refused_in_one_line(tmp_path):
    rules = Rules(n=4, tie="discard", objective="win")
    out = tmp_path / "st"
    solve(rules, out=out, memory="200MB")
    path = BlockStore.open(out).block_path(2, 1)
    os.unlink(path)
    os.mkdir(path)
    open(os.path.join(path, "mine.txt"), "w").write("user data")
    res = CliRunner().invoke(cli, ["solve", "--cards", "4", "--tie", "discard", "--objective", "win", "--out",
                                   str(out), "--memory", "200MB", "--resume", "-q"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.startswith("error")]
    assert len(lines) == 1 and "folder with files in it" in lines[0] and "Traceback" not in res.output
    assert open(os.path.join(path, "mine.txt")).read() == "user data"  # nothing of the user's is deleted


def test_verify_whole_blocks_drawn_from_every_level(tmp_path):
    from gops_solver.engine.verify import pick_blocks
    rules = Rules(n=6, tie="discard", objective="win")
    sol = solve(rules, out=tmp_path / "st", memory="200MB")
    sp = sol.space
    nsets = {k: len(sp.sets[k]) for k in range(1, sp.kmax + 1)}
    drawn = pick_blocks(nsets, 12, seed=4)
    assert all(len(drawn[k]) >= 1 for k in nsets) and sum(map(len, drawn.values())) == 12
    assert drawn == pick_blocks(nsets, 12, seed=4) and drawn != pick_blocks(nsets, 12, seed=5)
    assert sum(map(len, pick_blocks(nsets, 2, 0).values())) == len(nsets)  # one per level at least
    assert pick_blocks(nsets, 10**6, 0) == {k: set(range(v)) for k, v in nsets.items()}
    res = sol.verify(blocks=12, seed=4)
    assert res.ok and res.blocks == {k: sorted(v) for k, v in drawn.items()}
    # every slot of each drawn block is checked
    assert res.slots == sum(len(v) * (sp.size(k) // nsets[k]) for k, v in drawn.items())
    everything = sol.verify(blocks=10**6)  # every block: a whole check, said as one
    assert everything.blocks is None
    assert (everything.slots, everything.stage_games) == (sol.verify().slots, sol.verify().stage_games)
    # a value changed inside a drawn block, its checksums rewritten to match, is recomputed and found
    k = 4
    rank = sorted(drawn[k])[0]
    data = sol.store.read_block(k, rank).copy()
    j = int(np.flatnonzero(~np.isnan(data) & (np.abs(data) < 0.9))[0])
    data[j] += 1e-6
    sol.store.write_block(k, rank, data)
    bad = load(tmp_path / "st").verify(blocks=12, seed=4)
    assert not bad.ok and bad.worst["level"] == k and bad.max_residual > 5e-7
    for wrong, match in ((dict(blocks=0), "positive"), (dict(blocks=3, sample=5), "not both")):
        with pytest.raises(ValueError, match=match):
            sol.verify(**wrong)
    with pytest.raises(ValueError, match="sample= instead"):
        solve(Rules(n=4, tie="discard", objective="win")).verify(blocks=3)


def test_store_status_of_an_unfinished_store(tmp_path):
    # levels 1-4 finished, the solve stopped at level 5: blocks done, and time left from the rates measured,
    # scaled level by level as the projected block rates change
    from gops_solver.engine.projection import store_status
    from gops_solver.engine.projection import block_rate
    rules = Rules(n=7, tie="discard", objective="win")
    out = tmp_path / "st"

    def stop(level, games, done=False):
        if level >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve(rules, out=out, memory="200MB", progress=stop)
    st = store_status(out)
    space = full_space(rules)
    assert not st["complete"] and st["rules"] == rules
    levels = {lv["k"]: lv for lv in st["levels"]}
    for k in range(1, 5):
        assert levels[k]["done"] == levels[k]["blocks"] == len(space.sets[k])
        assert levels[k]["seconds_left"] == 0 and levels[k]["work_done"] == levels[k]["work"]
    measured = max(k for k, lv in levels.items() if lv["work_done"] and lv["seconds"] > 0)
    per_unit = levels[measured]["seconds"] / levels[measured]["work_done"]
    for k in range(5, 8):
        lv = levels[k]
        if lv["done"]:
            continue
        scale = block_rate(measured, "win", "discard") / block_rate(k, "win", "discard")
        assert scale != 1.0
        assert lv["seconds_left"] == pytest.approx(lv["work"] * per_unit * scale, rel=1e-12)
    unfinished = [lv["seconds_left"] for lv in st["levels"] if lv["done"] < lv["blocks"]]
    assert len(unfinished) >= 2 and st["seconds_left"] == pytest.approx(sum(unfinished), rel=1e-12)
    assert st["done"] == sum(lv["done"] for lv in st["levels"]) < st["blocks"]
    res = CliRunner().invoke(cli, ["info", "--store", str(out)])
    assert res.exit_code == 0, res.output
    assert f"blocks         {st['done']:,} of {st['blocks']:,}" in res.output
    assert "(unfinished)" in res.output and "at the rates of the finished blocks" in res.output
    solve(rules, out=out, memory="200MB", resume=True)
    res = CliRunner().invoke(cli, ["info", "--store", str(out)])
    assert res.exit_code == 0 and "(finished)" in res.output and "time left" not in res.output, res.output
