"""Solution files: the header checksum, atomic writes under failure, locks, stale files, modes.

Faults are injected for real: bytes flipped at several offsets, writes cut
short by a file-size limit (``RLIMIT_FSIZE`` in a child process), a second
writer racing a running solve.
"""

import fcntl
import json
import os
import resource
import subprocess
import sys
import time
import warnings
import zlib

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules, load, solve
from gops_solver.cli.commands import cli
from gops_solver.engine.storage import _ALIGN, MAGIC, IntegrityWarning, crc32, header_bytes, release_mapped, table_parts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def gops(*args, fsize=None, timeout=300, **kw):
    """Run the real ``gops`` in a child process (optionally with a file-size limit in bytes)."""
    def limit():
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-m", "gops_solver", *map(str, args)], capture_output=True, text=True,
                          preexec_fn=limit, env=env, timeout=timeout, **kw)


def one_line_error(r, *words):
    lines = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith("note: ")]
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


def same_tables(a, b):
    return all(np.array_equal(np.nan_to_num(x, nan=7.0), np.nan_to_num(y, nan=7.0)) for x, y in zip(a, b))


def _split(raw):
    size = int.from_bytes(raw[8:16], "little")
    return size, json.loads(raw[16:16 + size])


def test_header_edited_to_other_rules_is_refused(tmp_path):
    """The issue's case: an ascending file's header rewritten to descending (checksum left as it was)."""
    path = tmp_path / "asc.gops"
    solve(Rules(5, "carry", "points", "ascending"), out=path)
    raw = path.read_bytes()
    size, header = _split(raw)
    header["rules"]["order"] = "descending"
    blob = json.dumps(header).encode()
    old_crc = raw[16 + size:20 + size]
    head = MAGIC + len(blob).to_bytes(8, "little") + blob + old_crc
    head += b"\0" * (-len(head) % _ALIGN)
    start = 20 + size + (-(20 + size) % _ALIGN)
    path.write_bytes(head + raw[start:])
    with pytest.raises(ValueError, match="header checksum fails"):
        load(path)
    r = run("query", "-s", path, "--hand-a", "1", "--hand-b", "2", "--pot", 5)
    assert r.exit_code == 2 and "header checksum fails" in r.output and str(path) in r.output


def test_header_tied_to_table_checksums(tmp_path):
    """A table checksum changed in the header (the header checksum recomputed) no longer matches its table."""
    path = tmp_path / "t.gops"
    solve(Rules(5), out=path)
    raw = path.read_bytes()
    size, header = _split(raw)
    header["tables"][3]["crc32"] ^= 1
    head = header_bytes(header)
    path.write_bytes(head + raw[len(head):])
    with pytest.raises(ValueError, match="checksum of level 3 fails"):
        load(path)


@pytest.mark.parametrize("where", ["magic", "length", "rules", "table crc", "header crc", "padding"])
def test_one_flipped_byte_anywhere_in_the_header_is_refused(tmp_path, where):
    path = tmp_path / "h.gops"
    solve(Rules(5), out=path)
    raw = bytearray(path.read_bytes())
    size, _ = _split(raw)
    text = raw[16:16 + size].decode()
    at = {"magic": 3, "length": 9, "rules": 16 + text.index('"tie"') + 3,
          "table crc": 16 + text.index('"crc32"') + 10, "header crc": 16 + size + 1, "padding": 16 + size + 40}[where]
    raw[at] ^= 0x10
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError) as info:
        load(path)
    assert str(path) in str(info.value) and "solve" in str(info.value)


def test_solution_file_mode_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        solve(Rules(4), out=tmp_path / "a.gops")
        solve(Rules(4)).save(tmp_path / "b.gops")
        os.umask(0o077)
        solve(Rules(4)).save(tmp_path / "c.gops")
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "a.gops").st_mode & 0o777 == 0o644
    assert os.stat(tmp_path / "b.gops").st_mode & 0o777 == 0o644
    assert os.stat(tmp_path / "c.gops").st_mode & 0o777 == 0o600


def test_stale_temporary_files_are_removed_live_ones_kept(tmp_path):
    stale = tmp_path / ".gops-abc123.tmp"
    stale.write_bytes(b"x" * 1000)
    live = tmp_path / ".gops-live99.tmp"
    live.write_bytes(b"y")
    other = tmp_path / ".gops-notes.txt"  # not our naming
    other.write_bytes(b"z")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer that is still running
    try:
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            solve(Rules(4)).save(tmp_path / "s.gops")
        assert not stale.exists() and live.exists() and other.exists()
        assert any(issubclass(w.category, IntegrityWarning) and str(stale) in str(w.message) for w in got)
    finally:
        os.close(fd)
    r = run("solve", "-n", 4, "--out", tmp_path / "t.gops")  # the next run takes the now unheld one
    assert r.exit_code == 0 and not live.exists() and "note: removed" in r.output


def test_save_refuses_while_a_solve_writes_the_same_file(tmp_path):
    """Concurrent writers: an API save and a CLI solve against a running API solve."""
    out = tmp_path / "c.gops"
    script = (
        "import os, sys, time\n"
        "from gops_solver import Rules, solve\n"
        "out = sys.argv[1]\n"
        "def hold(k, g):\n"
        "    if k == 4:\n"
        "        open(out + '.ready', 'w').close()\n"
        "        while not os.path.exists(out + '.go'):\n"
        "            time.sleep(0.02)\n"
        "solve(Rules(6, 'carry', 'win'), progress=hold, out=out)\n")
    child = subprocess.Popen([sys.executable, "-c", script, str(out)], env={**os.environ, "PYTHONPATH": ROOT},
                             stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.time()
        while not os.path.exists(str(out) + ".ready"):
            assert child.poll() is None and time.time() - t0 < 120, child.stderr.read() if child.poll() else "slow"
            time.sleep(0.02)
        ck = str(out) + ".ckpt"
        before = sorted(os.listdir(ck))
        assert "level_03.npy" in before
        small = solve(Rules(4))
        with pytest.raises(ValueError, match="a gops solve is writing"):
            small.save(out)
        r = run("solve", "-n", 6, "--objective", "win", "--out", out, "--restart")
        assert r.exit_code == 2 and "another gops solve is writing" in r.output
        assert sorted(os.listdir(ck)) == before and not out.exists()
        open(str(out) + ".go", "w").close()
        assert child.wait(timeout=120) == 0, child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert same_tables(load(out).tables, solve(Rules(6, "carry", "win")).tables)
    assert not os.path.exists(ck)
    small.save(out)  # free again
    assert load(out).rules == Rules(4)


def test_checkpoint_write_cut_short_by_a_file_size_limit(tmp_path):
    """A level larger than the limit: one line, exit 2, no partial file; a resume without the limit completes."""
    out = tmp_path / "f.gops"
    solve(Rules(4), out=out)
    good = out.read_bytes()
    r = gops("solve", "-n", 6, "--objective", "win", "--out", out, "--restart", fsize=200_000)
    one_line_error(r, "cannot write checkpoint", "level_02", "--resume", "File too large")
    ck = str(out) + ".ckpt"
    assert sorted(os.listdir(ck)) == ["level_01.json", "level_01.npy", "lock", "meta.json"]
    assert out.read_bytes() == good
    r = gops("solve", "-n", 6, "--objective", "win", "--out", out, "--resume", "--json")
    assert r.returncode == 0, r.stderr
    assert same_tables(load(out).tables, solve(Rules(6, "carry", "win")).tables)


def test_final_write_cut_short_keeps_old_file_and_checkpoints(tmp_path):
    """Every level fits under the limit but the whole file does not."""
    out = tmp_path / "g.gops"
    solve(Rules(4), out=out)
    good = out.read_bytes()
    r = gops("solve", "-n", 6, "--objective", "win", "--out", out, "--restart", fsize=1_200_000)
    one_line_error(r, "cannot write", str(out))
    assert out.read_bytes() == good
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".gops-")]
    ck = str(out) + ".ckpt"
    assert {f"level_{k:02d}.npy" for k in range(1, 7)} <= set(os.listdir(ck))
    r = gops("solve", "-n", 6, "--objective", "win", "--out", out, "--resume")
    assert r.returncode == 0, r.stderr
    assert same_tables(load(out).tables, solve(Rules(6, "carry", "win")).tables) and not os.path.exists(ck)


def test_api_save_cut_short_keeps_old_file(tmp_path):
    out = tmp_path / "s.gops"
    solve(Rules(4), out=out)
    good = out.read_bytes()
    script = ("import sys\nfrom gops_solver import Rules, solve\n"
              "try:\n    solve(Rules(6, 'carry', 'win')).save(sys.argv[1])\n"
              "except ValueError as e:\n    print(e)\n    sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ROOT},
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (500_000, 500_000)))
    assert r.returncode == 3 and "cannot write" in r.stdout and "File too large" in r.stdout, (r.stdout, r.stderr)
    assert out.read_bytes() == good and sorted(os.listdir(tmp_path)) == ["s.gops"]


def test_verify_sample_finds_a_single_damaged_value_through_the_checksums(tmp_path):
    path = tmp_path / "v.gops"
    solve(Rules(5, "carry", "win"), out=path)
    sol = load(path)
    start = os.path.getsize(path) - 8 * sum(len(t) for t in sol.tables)
    k = 3
    slot = int(np.flatnonzero(~np.isnan(np.asarray(sol.tables[k])))[-1])
    at = start + 8 * (sum(len(t) for t in sol.tables[:k]) + slot)
    del sol
    raw = bytearray(path.read_bytes())
    raw[at:at + 8] = (np.frombuffer(bytes(raw[at:at + 8]), "<f8") + 0.25).tobytes()
    path.write_bytes(bytes(raw))
    r = run("verify", path, "--sample", 5, "--seed", 1)  # five slots almost surely miss the damaged one
    assert r.exit_code == 1, r.output
    assert "checksums          FAILED" in r.output and "certifies          the 5 sampled slots" in r.output
    d = json.loads(run("verify", path, "--sample", 5, "--seed", 1, "--json").stdout)
    assert d["ok"] is False and d["checksum_ok"] is False and "sampled" in d["certifies"]
    full = run("verify", path)
    assert full.exit_code == 1 and f"slot {slot}" in full.output and "every stored value" in full.output


@pytest.mark.parametrize("keep", [5, 12, 100, 3000, 4100, -8])
def test_truncated_anywhere_is_named_truncated(tmp_path, keep):
    """Cut in the magic, the length, the header, the padding, the first table, the last value."""
    path = tmp_path / "c.gops"
    solve(Rules(4), out=path)
    raw = path.read_bytes()
    path.write_bytes(raw[:keep])
    with pytest.raises(ValueError) as info:
        load(path)
    msg = str(info.value)
    assert str(path) in msg and ("truncated" in msg or (keep < 8 and "not a gops solution file" in msg)), msg


def _rss_mb():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc to read resident memory")
def test_passes_over_a_mapped_table_leave_its_pages_unmapped(tmp_path):
    """Checksums and file writes read a mapped table without keeping it resident (a 256 MB table here)."""
    n = 32 << 20  # 256 MB of float64
    path = tmp_path / "t.npy"
    np.save(path, np.arange(n, dtype=np.float64))
    m = np.load(path, mmap_mode="r")
    before = _rss_mb()
    crc = crc32(m)
    out = 0
    for part in table_parts(b"head", [m]):
        out = zlib.crc32(memoryview(part).cast("B"), out) if not isinstance(part, bytes) else out
    grew = _rss_mb() - before
    assert crc == out == zlib.crc32(np.arange(n, dtype=np.float64).tobytes())
    assert grew < 64, f"{grew:.0f} MB stayed resident"
    # the same pass by plain slices does keep the pages: the measurement can see them
    before = _rss_mb()
    total = sum(float(m[i:i + (1 << 22)].sum()) for i in range(0, n, 1 << 22))
    assert _rss_mb() - before > 192
    assert total == float(n) * (n - 1) / 2


def test_release_touches_only_read_only_mappings(tmp_path):
    """In-memory arrays, and mappings this process may have changed, keep their values."""
    path = tmp_path / "t.npy"
    np.save(path, np.arange(4096.0))
    mem = np.arange(4096.0)
    release_mapped(mem)
    assert np.array_equal(mem, np.arange(4096.0))
    for mode in ("r+", "c"):  # written through to the file, and copy-on-write (private, only here)
        m = np.load(path, mmap_mode=mode)
        m[:] = -1.0
        release_mapped(m)
        assert np.all(m == -1.0), mode
        del m
    ro = np.load(path, mmap_mode="r")  # "r+" wrote -1.0 to the file; "c" did not
    assert crc32(ro) == crc32(np.full(4096, -1.0))
    release_mapped(ro)
    assert np.all(ro == -1.0)  # read again from the file after the pages were dropped
