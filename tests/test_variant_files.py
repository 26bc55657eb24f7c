"""Variant solution files: header and table checksums, truncation, atomic replacement, one-line errors."""

import pytest
from click.testing import CliRunner

from gops_solver import Rules, load, solve
from gops_solver.cli.commands import cli
from gops_solver.variants.solution import MAGIC


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    sol = solve(Rules(n=4, bid_cards=2, objective="win"))
    path = tmp_path_factory.mktemp("var") / "two.gops"
    sol.save(path)
    return sol, path, path.read_bytes()


def damaged(tmp_path, data, name="bad.gops"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def cli_error(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    return lines[0]


def test_round_trip_keeps_values_and_empty_slots(saved, tmp_path):
    sol, path, _ = saved
    back = load(path)
    assert back.rules == sol.rules and back.value == sol.value
    for a, b in zip(sol.tables, back.tables):
        assert a.shape == b.shape
        assert ((a == b) | ((a != a) & (b != b))).all()  # equal, NaN (unreachable) where NaN


def test_flipped_header_byte(saved, tmp_path):
    _, _, data = saved
    bad = bytearray(data)
    bad[len(MAGIC) + 8 + 3] ^= 0x01  # inside the JSON header
    p = damaged(tmp_path, bytes(bad))
    with pytest.raises(ValueError, match="header checksum fails"):
        load(p)
    assert "header checksum fails" in cli_error("verify", "-s", p)


def test_flipped_table_byte(saved, tmp_path):
    _, _, data = saved
    bad = bytearray(data)
    bad[-3] ^= 0x40
    p = damaged(tmp_path, bytes(bad))
    with pytest.raises(ValueError, match="checksum of level"):
        load(p)


@pytest.mark.parametrize("keep", [20, 4000, -8, -1], ids=["in-header", "in-padding", "one-value", "last-byte"])
def test_truncated(saved, tmp_path, keep):
    _, _, data = saved
    p = damaged(tmp_path, data[:keep])
    with pytest.raises(ValueError, match="truncated"):
        load(p)
    msg = cli_error("query", "-s", p, "--hand-a", "1,2,3,4", "--hand-b", "1,2,3,4", "--pot", 4,
                    "--prizes", "1,2,3")
    assert "truncated" in msg


def test_old_format_refused(saved, tmp_path):
    _, _, data = saved
    p = damaged(tmp_path, b"GOPSVAR\x01" + data[8:])
    assert "variant format 1" in cli_error("verify", "-s", p)


def test_failed_write_keeps_the_old_file(saved, tmp_path, monkeypatch):
    sol, _, data = saved
    p = damaged(tmp_path, data, "keep.gops")
    import gops_solver.variants.solution as vs

    def broken(*a, **k):
        raise ValueError("read back differs")
    monkeypatch.setattr(vs, "load_variant", broken)
    with pytest.raises(ValueError, match="read back differs"):
        sol.save(p)
    assert p.read_bytes() == data
    assert [f.name for f in tmp_path.iterdir() if f.name.endswith(".tmp")] == []
