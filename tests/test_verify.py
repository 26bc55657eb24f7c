"""Solution.verify and gops verify: fresh solutions pass, altered files are caught and named."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules, load, solve
from gops_solver.cli.commands import cli
from gops_solver.game.encoding import hands_to_pattern
from gops_solver.engine.storage import MAGIC, _ALIGN, crc32 as _crc, header_bytes


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("rules", [Rules(5, "carry", "points"), Rules(5, "discard", "win"),
                                   Rules(5, "carry", "win"), Rules(5, "carry", "points", "descending"),
                                   Rules(4, "carry", "win", "3,1,4,2")])
def test_fresh_solutions_verify(rules):
    res = solve(rules).verify()
    assert res.ok, res
    assert res.max_residual <= 1e-12 and res.max_exploitability <= 1e-9
    assert res.states == sum(int(np.count_nonzero(~np.isnan(t))) for t in solve(rules).tables[1:])
    assert res.slots == sum(len(t) for t in solve(rules).tables[1:])


def test_sample_is_seeded_and_sized():
    sol = solve(Rules(5, "carry", "win"))
    a, b = sol.verify(sample=100, seed=3), sol.verify(sample=100, seed=3)
    assert a.ok and a.slots == 100 and a.states == b.states and a.stage_games == b.stage_games
    with pytest.raises(ValueError, match="sample"):
        sol.verify(sample=0)


def _slot(sol, k, hand_a, hand_b, prizes, carry, diff):
    """Flat index of a pre-reveal position in level k (written out from the Layout docs)."""
    sp = sol.space
    lay = sp.layouts[k]
    tokens, _ = hands_to_pattern(hand_a, hand_b)
    h = sp.patterns.index(tokens)
    p = int(lay.canon[h])
    assert p >= 0, "choose a canonical pattern"
    s = int(sp.prize_sets.set_rank[sp.prize_sets.mask(prizes)])
    c = int(np.flatnonzero(sp.cvals[k] == carry)[0])
    assert c < lay.ncarry[p], "these hands cannot have tied that often"
    return int(lay.offset[p] + (s * lay.ncarry[p] + c) * lay.nd + diff + sp.dmax[k])


def _tamper(path, k, f, delta, fix_checksum=True):
    """Add ``delta`` to value ``f`` of level ``k`` in the file; optionally rewrite the header's checksum."""
    raw = bytearray(path.read_bytes())
    size = int.from_bytes(raw[len(MAGIC):len(MAGIC) + 8], "little")
    header = json.loads(raw[len(MAGIC) + 8:len(MAGIC) + 8 + size])
    start = len(MAGIC) + 8 + size + 4  # + the header's CRC-32
    start += -start % _ALIGN
    at = start + 8 * (sum(t["size"] for t in header["tables"][:k]) + f)
    value = np.frombuffer(bytes(raw[at:at + 8]), dtype=np.float64)[0]
    assert np.isfinite(value)
    raw[at:at + 8] = np.float64(value + delta).tobytes()
    if fix_checksum:
        off = start + 8 * sum(t["size"] for t in header["tables"][:k])
        level = np.frombuffer(bytes(raw[off:off + 8 * header["tables"][k]["size"]]), dtype=np.float64)
        header["tables"][k]["crc32"] = _crc(level)
        head = header_bytes(header)  # a deliberate forger also rewrites the header's own checksum
        assert len(head) == start  # the padding absorbs a longer checksum
        raw[:start] = head
    path.write_bytes(bytes(raw))
    return value


@pytest.mark.parametrize("objective,diff", [("points", 0), ("win", 2)])
def test_altered_value_is_caught_and_named(tmp_path, objective, diff):
    path = tmp_path / "s.gops"
    solve(Rules(5, "carry", objective), out=path)
    sol = load(path)
    # A {2,4,5} vs B {1,4,5} before a reveal, hidden {1,3,4}, carry 2 (both bid 3 on the 2)
    f = _slot(sol, 3, (2, 4, 5), (1, 4, 5), (1, 3, 4), 2, diff)
    old = _tamper(path, 3, f, 0.25)
    tampered = load(path)  # the rewritten checksum passes the loader's check
    assert tampered.tables[3][f] == pytest.approx(old + 0.25)
    res = tampered.verify()
    assert not res.ok
    assert res.max_residual == pytest.approx(0.25, abs=1e-9)
    w = res.worst
    assert (w["level"], w["slot"], w["carry"], w["diff"], w["prizes"]) == (3, f, 2, diff, [1, 3, 4])
    # the example hands have the same pattern: values 1 2 4 5 held by B, A, both, both
    assert hands_to_pattern(w["hand_a"], w["hand_b"])[0] == [1, 0, 2, 2]
    assert (w["hand_a"], w["hand_b"]) == ([2, 3, 4], [1, 3, 4])
    assert w["recomputed"] == pytest.approx(old, abs=1e-12)

    r = run("verify", path)
    assert r.exit_code == 1, r.output
    assert "FAILED" in r.output and f"slot {f}" in r.output and "carry 2" in r.output
    j = run("verify", path, "--json")
    assert j.exit_code == 1
    data = json.loads(j.stdout)  # stdout: the positional FILE adds a warning on stderr
    assert data["ok"] is False and data["worst"]["slot"] == f
    # a tolerance above the alteration accepts the file
    assert run("verify", path, "--tol", 0.5).exit_code == 0


def test_altered_without_checksum_fix(tmp_path):
    path = tmp_path / "s.gops"
    solve(Rules(4, "discard", "points"), out=path)
    sol = load(path)
    f = _slot(sol, 2, (2, 3), (1, 3), (2, 4), 0, 0)
    _tamper(path, 2, f, -1e-6, fix_checksum=False)
    with pytest.raises(ValueError, match="checksum of level 2"):
        load(path)
    res = load(path, check=False).verify()
    assert not res.ok and res.worst["slot"] == f and res.worst["level"] == 2
    assert res.max_residual == pytest.approx(1e-6, rel=1e-6)
    r = run("verify", path)
    assert r.exit_code == 1 and "checksums          FAILED" in r.output and f"slot {f}" in r.output


def test_empty_slot_filled_is_caught():
    sol = solve(Rules(4, "carry", "points"))
    tables = [np.array(t) for t in sol.tables]
    empty = np.flatnonzero(np.isnan(tables[2]))
    assert len(empty)
    tables[2][empty[0]] = 0.0
    from gops_solver.engine.verify import verify_tables
    res = verify_tables(sol.space, tables)
    assert not res.ok and res.max_residual == np.inf and res.worst["slot"] == int(empty[0])


def test_cli_verify_ok_and_errors(tmp_path):
    path = tmp_path / "s.gops"
    solve(Rules(4, "carry", "win"), out=path)
    r = run("verify", path)
    assert r.exit_code == 0 and "verdict            OK" in r.output and "checksums          OK" in r.output
    data = json.loads(run("verify", path, "--json", "--sample", 20, "--seed", 4).stdout)
    assert data["ok"] and data["slots"] == 20 and data["sample"] == 20
    store = tmp_path / "st"
    solve(Rules(5, "discard", "win"), out=store, memory="200MB")
    r = run("verify", "-s", store, "--blocks", 7, "--seed", 2)
    assert r.exit_code == 0 and "7 whole blocks (seed 2)" in r.output and "level 1: 1" in r.output
    assert "every slot of the 7 drawn blocks is recomputed" in r.output
    data = json.loads(run("verify", "-s", store, "--blocks", 7, "--json").stdout)
    assert data["ok"] and sum(len(v) for v in data["blocks"].values()) == 7
    variant = tmp_path / "v.gops"
    assert run("solve", "-n", 4, "--bid-cards", 2, "--out", variant).exit_code == 0
    for args in [("verify", tmp_path / "missing.gops"), ("verify", path, "--sample", 0),
                 ("verify", path, "--tol", -1), ("verify", path, "--blocks", 3),
                 ("verify", "-s", store, "--blocks", 3, "--sample", 3), ("verify", variant, "--blocks", 2)]:
        bad = run(*args)
        assert bad.exit_code == 2
        out = "".join(line for line in bad.output.splitlines(True) if not line.startswith("warning: "))
        assert out.count("\n") == 1 and out.startswith("error:")


@pytest.mark.nojit
@pytest.mark.parametrize("rules", [Rules(3, "carry", "win"), Rules(4, "discard", "points", "descending")])
def test_small_solutions_verify_and_a_changed_value_is_caught(rules):
    # small enough for the NUMBA_DISABLE_JIT pass: the verify kernel as plain Python
    from gops_solver.engine.verify import verify_tables
    sol = solve(rules)
    assert sol.verify().ok
    tables = [np.array(t) for t in sol.tables]
    k = 2
    f = int(np.flatnonzero(~np.isnan(tables[k]))[0])
    tables[k][f] += 1e-3
    res = verify_tables(sol.space, tables)
    assert not res.ok
    assert res.worst["level"] == k and res.worst["slot"] == f
    assert res.max_residual == pytest.approx(1e-3, rel=1e-6)
