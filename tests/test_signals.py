"""Signals: Ctrl-C and SIGTERM at several moments give one line, lose nothing, and resume cleanly.

Each case runs the real command in a child process and signals it with
``os.kill``: during start-up (the solver's imports take seconds), in the
middle of a solve, during the final write of the solution file (caught by
freezing the child with SIGSTOP the moment its temporary file appears), and
SIGKILL there too (its temporary file is cleaned by the next run).
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from gops_solver import Rules, load, solve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = Rules(7, "carry", "win")
ARGS = ("solve", "-n", 7, "--objective", "win", "--quiet")
# with numba's cache warm the run above ends about 1.3 s after start-up, so a signal 1.5 s in
# can find it finished (exit 0) or in the interpreter's shutdown (a raw signal death); the
# start-up cases solve a game that takes several seconds, so every signal lands while it runs
START_ARGS = ("solve", "-n", 9, "--objective", "win", "--quiet")


def _interruptible():
    # a shell without job control starts background jobs with SIGINT ignored, and children
    # inherit that (`nohup .ci/run &` made every SIGINT case fail); the child gets the
    # terminal's default, as a user's `gops` has
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "gops_solver", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ROOT},
                            preexec_fn=_interruptible, **kw)


def finish(p, timeout=120):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


@pytest.fixture(scope="module")
def full():
    return solve(RULES)


def same_tables(a, b):
    return all(np.array_equal(np.nan_to_num(x, nan=7.0), np.nan_to_num(y, nan=7.0)) for x, y in zip(a, b))


def temps(folder):
    return [f for f in os.listdir(folder) if f.startswith(".gops-")]


def wait_for(cond, p, limit=120):
    t0 = time.time()
    while not cond():
        assert p.poll() is None, "the child ended before the moment to signal it"
        assert time.time() - t0 < limit
        time.sleep(0.002)


def handlers_installed(pid) -> bool:
    """Whether the child's entry point has run: it catches SIGTERM (the ``SigCgt`` mask in /proc)."""
    with open(f"/proc/{pid}/status") as fh:
        caught = next(int(line.split()[1], 16) for line in fh if line.startswith("SigCgt:"))
    return bool(caught >> (signal.SIGTERM - 1) & 1)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("delay", [0.0, 0.3, 1.5])
def test_signal_during_start_up_is_one_line(tmp_path, sig, code, delay):
    """From the moment the entry point runs (the interpreter's own start-up, ~0.05 s, comes before
    it): 0 s, 0.3 s and 1.5 s later the solver's imports (numba: a second with its cache warm,
    more when it compiles) or the first levels of a 9-card solve are under way."""
    p = start(*START_ARGS, "--out", tmp_path / "s.gops")
    wait_for(lambda: handlers_installed(p.pid), p)
    time.sleep(delay)
    p.send_signal(sig)
    rc, out, err = finish(p)
    assert rc == code, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "interrupted" in err or "terminated" in err
    assert not temps(tmp_path)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_mid_solve_keeps_checkpoints_and_resumes(tmp_path, full, sig, code):
    out = tmp_path / "m.gops"
    ck = str(out) + ".ckpt"
    p = start(*ARGS, "--out", out)
    wait_for(lambda: os.path.exists(f"{ck}/level_03.json"), p)
    p.send_signal(sig)
    rc, _, err = finish(p)
    assert rc == code and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == ("terminated" if sig == signal.SIGTERM else "interrupted") \
        + "; rerun with --resume to continue from the last finished level", err
    assert not out.exists() and not temps(tmp_path) and not temps(ck)
    p = start(*ARGS, "--out", out, "--resume")
    rc, _, err = finish(p)
    assert rc == 0, err
    assert same_tables(load(out).tables, full.tables)


def _freeze_in_final_write(out, ck):
    """Start a resumed solve and SIGSTOP it while the solution's temporary file exists; the child or None."""
    folder = os.path.dirname(out)
    p = start(*ARGS, "--out", out, "--resume")
    last = f"{ck}/level_07.json"
    while p.poll() is None:
        if os.path.exists(last) and temps(folder):
            p.send_signal(signal.SIGSTOP)
            if temps(folder) and os.path.getsize(os.path.join(folder, temps(folder)[0])) > 0:
                return p
            p.send_signal(signal.SIGCONT)
        time.sleep(0.0005)
    finish(p)
    return None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_signal_during_the_final_write(tmp_path, full, sig):
    out = str(tmp_path / "w.gops")
    ck = out + ".ckpt"
    solve(Rules(4), out=out)
    good = open(out, "rb").read()
    p = None
    for attempt in range(6):  # the write lasts a fraction of a second: try until the child is caught in it
        if open(out, "rb").read() != good:
            open(out, "wb").write(good)  # a missed try finished its solve: put the old file back
        if not os.path.isdir(ck):
            def stop(k, g):  # checkpoints of levels 1..6: the resumed run goes straight to level 7 and the write
                if k == 7:
                    raise KeyboardInterrupt
            with pytest.raises(KeyboardInterrupt):
                solve(RULES, progress=stop, out=out)
        p = _freeze_in_final_write(out, ck)
        if p is not None:
            break
    assert p is not None, "never caught the child during its final write"
    assert open(out, "rb").read() == good  # the old file is untouched until the rename
    p.send_signal(sig)
    p.send_signal(signal.SIGCONT)
    rc, _, err = finish(p)
    assert "Traceback" not in err
    if sig == signal.SIGKILL:
        assert rc == -signal.SIGKILL and temps(os.path.dirname(out))  # a killed writer cannot clean up
    else:
        assert rc == (143 if sig == signal.SIGTERM else 130), err
        assert not temps(os.path.dirname(out)), "the temporary file must go with the signal"
    assert open(out, "rb").read() == good and os.path.exists(f"{ck}/level_07.npy")
    p = start(*ARGS, "--out", out, "--resume")
    rc, _, err = finish(p)
    assert rc == 0, err
    if sig == signal.SIGKILL:
        assert "note: removed" in err and "temporary file left by an interrupted write" in err
    assert not temps(os.path.dirname(out)) and not os.path.exists(ck)
    assert same_tables(load(out).tables, full.tables)


def test_ctrl_c_stops_a_long_simulation_quickly():
    p = start("simulate", "--a", "uniform", "--b", "uniform", "-n", 5, "--games", 100_000_000)
    time.sleep(8)  # start-up (imports) and some chunks
    assert p.poll() is None
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    rc, _, err = finish(p, timeout=60)
    assert rc == 130 and time.time() - t0 < 10, err
    assert "simulating" in err  # the progress bar was running: the signal came during the games
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "interrupted"


def test_simulation_chunks_are_one_stream(monkeypatch):
    """Chunking changes nothing: the same games, the same figures, as one long run."""
    import gops_solver.analysis.simulate as ev
    rules = Rules(5, "carry", "points")
    one = ev.simulate("uniform", "match", rules, 5000, seed=9).to_dict()
    monkeypatch.setattr(ev, "_SIM_CHUNK", 777)
    monkeypatch.setattr(ev, "_SIM_CHUNK_PY", 33)
    many = ev.simulate("uniform", "match", rules, 5000, seed=9).to_dict()
    assert {**one, "seconds": 0} == {**many, "seconds": 0}
    py1 = ev.simulate("stratfuncs:uniform_by_value", "match", rules, 300, seed=2).to_dict()
    monkeypatch.setattr(ev, "_SIM_CHUNK_PY", 256)
    py2 = ev.simulate("stratfuncs:uniform_by_value", "match", rules, 300, seed=2).to_dict()
    assert {**py1, "seconds": 0} == {**py2, "seconds": 0}


WRAPPED = """
import importlib.abc, importlib.util, sys
class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "gops_solver.cli.commands" else None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        # what Python does to an interrupt that lands in a class body's __set_name__ (numpy's
        # finfo, seen in CI): the KeyboardInterrupt becomes the cause of a RuntimeError
        try:
            raise {exc}()
        except BaseException as inner:
            raise RuntimeError("Error calling __set_name__ on 'cached_property' instance") from inner
sys.meta_path.insert(0, Finder())
from gops_solver.cli.entry import main
main()
"""


@pytest.mark.parametrize("exc, code, word", [("KeyboardInterrupt", 130, "interrupted"),
                                             ("__import__('gops_solver.cli.signals').cli.signals.Terminated", 143,
                                              "terminated")])
def test_an_interrupt_wrapped_by_an_import_is_one_line(exc, code, word):
    p = subprocess.run([sys.executable, "-c", WRAPPED.format(exc=exc)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ROOT}, timeout=60)
    assert p.returncode == code, p.stderr
    assert p.stderr.strip() == word


def test_an_ordinary_import_error_still_shows_its_traceback():
    src = WRAPPED.format(exc="ValueError")
    p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ROOT}, timeout=60)
    assert p.returncode == 1 and "RuntimeError" in p.stderr and "ValueError" in p.stderr


_SWALLOWING_CHILD = """
import os, signal, sys, time
sys.path.insert(0, sys.argv[1])
from gops_solver.cli.entry import install_handlers
install_handlers()
try:
    import {module}
    {after}
    time.sleep(2)  # an interrupt sent again lands here
    print("lost")
except KeyboardInterrupt:
    print("raised later", {module}.REACHED)
"""


@pytest.mark.parametrize("module, body, after", [
    # a bare except in a module's initialisation (Cython's, while numpy imports) swallowed an
    # interrupt raised inside it: the handler must not raise within an import
    ("swallow_import", "try:\n    os.kill(os.getpid(), signal.SIGINT)\n    time.sleep(0.5)\nexcept BaseException:\n"
                       "    pass\nREACHED = True\n", "pass"),
    # an interrupt raised in __del__ (or a weakref or C callback) is "unraisable": printed and
    # dropped by Python; the hook sends it again
    ("swallow_del", "REACHED = True\nclass Dropper:\n    def __del__(self):\n"
                    "        os.kill(os.getpid(), signal.SIGINT)\n        time.sleep(0.5)\n",
     "swallow_del.Dropper().__init__()"),
], ids=["bare-except-in-an-import", "dropped-in-__del__"])
def test_an_interrupt_a_library_would_drop_is_raised_after_it(tmp_path, module, body, after):
    (tmp_path / f"{module}.py").write_text("import os, signal, time\n" + body)
    code = _SWALLOWING_CHILD.format(module=module, after=after)
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": ROOT}, preexec_fn=_interruptible)
    assert r.stdout.strip() == "raised later True", (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr


# --- every command goes through the one signal module: export, play, and a signal after the output ---

def _read_until(p, marker, limit=120):
    """Read the child's stdout (bytes, unbuffered) until ``marker`` appears; what was read."""
    fd = p.stdout.fileno()
    os.set_blocking(fd, False)
    buf, t0 = b"", time.time()
    while marker not in buf:
        assert p.poll() is None, f"the child ended before {marker!r}: {buf[-500:]!r}"
        assert time.time() - t0 < limit
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            chunk = None
        if chunk:
            buf += chunk
        else:
            time.sleep(0.005)
    return buf


def start_bytes(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "gops_solver", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": ROOT},
                            preexec_fn=_interruptible, **kw)


def one_word(rc, err, sig):
    err = err.decode() if isinstance(err, bytes) else err
    assert rc == (143 if sig == signal.SIGTERM else 130), (rc, err)
    assert "Traceback" not in err and "Fatal Python error" not in err, err
    assert err.strip().splitlines()[-1] == ("terminated" if sig == signal.SIGTERM else "interrupted"), err


@pytest.fixture(scope="module")
def solved8(tmp_path_factory):
    path = tmp_path_factory.mktemp("x") / "x8.gops"
    solve(Rules(8, "discard", "points"), out=path)
    return path


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_an_export_write_leaves_nothing(tmp_path, solved8, sig):
    """Caught in its write (SIGSTOP the moment the temporary file has bytes): 130/143, one line, no temporary
    file, no target. A few tries, each until one is caught (the write lasts a fraction of a second)."""
    caught = 0
    for attempt in range(8):
        out = tmp_path / f"e{attempt}.csv"
        p = start("export", "-s", solved8, "--rounds", 3, "--format", "csv", "--out", out)
        while p.poll() is None:
            t = temps(tmp_path)
            try:
                size = os.path.getsize(tmp_path / t[0]) if t else 0
            except FileNotFoundError:  # renamed onto the target between the listing and the look
                size = 0
            if size > 0:
                p.send_signal(signal.SIGSTOP)
                break
            time.sleep(0.0005)
        if p.poll() is not None or not temps(tmp_path):
            p.send_signal(signal.SIGCONT)
            rc, _, err = finish(p)
            assert rc == 0 and out.exists() and not temps(tmp_path), err  # missed: it finished first
            continue
        p.send_signal(sig)
        p.send_signal(signal.SIGCONT)
        rc, _, err = finish(p)
        one_word(rc, err, sig)
        assert not temps(tmp_path) and not out.exists()
        caught += 1
        if caught == 3:
            break
    assert caught >= 1, "never caught the export in its write"


_SLOW_EXIT = """
import atexit, sys, time
from gops_solver.cli.entry import main
def slow():  # an exit handler that takes its time (a library's flush, a pool shutting down)
    print("exit handlers running", flush=True)
    time.sleep(3)
atexit.register(slow)
sys.argv = ["gops", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_after_the_output_is_written_exits_130_or_143(tmp_path, solved8, sig):
    """The export is written and the process runs its exit handlers: a signal then ends it with 130/143 and
    one line once they are done, never with a raw signal death; the file stays whole."""
    for attempt in range(2):
        out = tmp_path / f"late{attempt}.csv"
        p = subprocess.Popen([sys.executable, "-c", _SLOW_EXIT, "export", "-s", str(solved8), "--rounds", "2",
                              "--format", "csv", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": ROOT}, preexec_fn=_interruptible)
        assert b"\ntime " in _read_until(p, b"exit handlers running")
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        one_word(p.returncode, err, sig)
        assert len(err.decode().strip().splitlines()) == 1, err
        assert out.exists() and not temps(tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_at_the_play_prompt(sig):
    for _ in range(2):
        p = start_bytes("play", "-n", 4, "--seed", 1, stdin=subprocess.PIPE)
        _read_until(p, b"your bid [")
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        # the game's transcript (stdout) says how it ended, as for the end of input
        word = "terminated" if sig == signal.SIGTERM else "interrupted"
        assert p.returncode == (143 if sig == signal.SIGTERM else 130), (p.returncode, err)
        assert out.decode().strip().splitlines()[-1].startswith(f"{word}: game abandoned in round 1"), out
        assert not err.strip(), err


def test_end_of_input_in_a_three_player_game_is_a_plain_goodbye():
    """As a person or a script ends a game (Ctrl-D, or the piped bids run out): no error, no 130."""
    r = subprocess.run([sys.executable, "-m", "gops_solver", "play", "--players", "3", "-n", "4", "--seed", "1"],
                       input="", capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode in (0, 1) and "goodbye" in r.stderr, r.stderr
    assert "error" not in r.stderr and "aborted" not in r.stderr and "Traceback" not in r.stderr, r.stderr


_UNPICKLE_CHILD = """
import os, signal, sys, time
from gops_solver.cli.entry import install_handlers
install_handlers()
done = []
def _numba_unpickle():  # the name of numba's unpickler: compiled code calls it and loses what it raises
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(30):
        time.sleep(0.01)  # the handler runs here, between calls
    done.append(True)
try:
    _numba_unpickle()
    time.sleep(2)  # the interrupt sent again lands here
    print("lost")
except KeyboardInterrupt:
    print("raised after" if done else "raised inside")
"""


def test_no_interrupt_is_raised_inside_numbas_unpickler():
    """A kernel's wrapper calls numba's unpickler while it boxes the result and drops an exception raised there:
    the result came back with a hole (a tuple with a NULL item) and the caller segfaulted unpacking it. The
    handler waits until the unpickler has returned."""
    r = subprocess.run([sys.executable, "-c", _UNPICKLE_CHILD], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": ROOT}, preexec_fn=_interruptible)
    assert r.stdout.strip() == "raised after", (r.stdout, r.stderr)
