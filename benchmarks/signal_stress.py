"""Signal stress: run a command many times, signal it at a random moment, classify how each run ended.

Outside the test suite (hundreds of tries take many minutes). Each try starts the real
``gops`` command in a child (``python -X faulthandler -m gops_solver``), waits until its entry
point has installed the handlers, sleeps a random time and sends SIGINT or SIGTERM. A try is
clean when the child exits 130 (SIGINT) or 143 (SIGTERM) with one line on stderr and no
traceback, or 0 when the signal came too late to matter (then the output must be complete),
and leaves no ``.gops-*.tmp`` beside its target.

Usage::

    python benchmarks/signal_stress.py export --tries 200 --solution x9.gops
    python benchmarks/signal_stress.py solve-start --tries 300
    python benchmarks/signal_stress.py play --tries 100

``export`` exports rounds 1..3 of ``--solution`` to CSV (solve one first:
``gops solve --cards 9 --tie discard --out x9.gops``); ``solve-start`` signals a 9-card solve
in its first half second; ``play`` sends SIGTERM to a game waiting at its prompt, or closes its
input (3 players). Every unclean try is printed with its stderr.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _interruptible():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background shell ignores SIGINT; a user's gops does not


def _start(args, **kw):
    cmd = [sys.executable, "-X", "faulthandler", "-m", "gops_solver", *map(str, args)]
    return subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ROOT},
                            preexec_fn=_interruptible, **kw)


def _handlers_installed(pid) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            caught = next(int(line.split()[1], 16) for line in fh if line.startswith("SigCgt:"))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return False
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def _wait_installed(p, limit=60.0):
    t0 = time.time()
    while not _handlers_installed(p.pid):
        if p.poll() is not None or time.time() - t0 > limit:
            return False
        time.sleep(0.002)
    return True


def _temps(folder):
    return [f for f in os.listdir(folder) if f.startswith(".gops-")]


def _verdict(rc, err, sig, folder, allow_zero):
    """'clean' or a short reason."""
    want = 143 if sig == signal.SIGTERM else 130
    if _temps(folder):
        return f"temporary file left (rc {rc})"
    if "Traceback" in err or "Fatal Python error" in err:
        return f"traceback (rc {rc})"
    if rc == want:
        lines = err.strip().splitlines()
        return "clean" if lines and lines[-1] in ("interrupted", "terminated") or "--resume" in err else \
            f"rc {rc}, unexpected stderr"
    if rc == 0 and allow_zero:
        return "clean (finished first)"
    return f"rc {rc}"


def try_export(solution, lo, hi, rng):
    folder = tempfile.mkdtemp(prefix="sigstress-")
    out = os.path.join(folder, "x.csv")
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    delay = rng.uniform(lo, hi)
    p = _start(["export", "--solution", solution, "--rounds", 3, "--format", "csv", "--out", out],
               stdout=subprocess.DEVNULL)
    _wait_installed(p)
    time.sleep(delay)
    p.send_signal(sig)
    _, err = p.communicate(timeout=300)
    v = _verdict(p.returncode, err, sig, folder, allow_zero=True)
    if v.startswith("clean") and p.returncode == 0 and not os.path.exists(out):
        v = "exit 0 without the output"
    _cleanup(folder)
    return sig, delay, p.returncode, v, err


def try_solve_start(lo, hi, rng):
    folder = tempfile.mkdtemp(prefix="sigstress-")
    out = os.path.join(folder, "s.gops")
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    delay = rng.uniform(lo, hi)
    p = _start(["solve", "-n", 9, "--objective", "win", "--quiet", "--out", out], stdout=subprocess.DEVNULL)
    _wait_installed(p)
    time.sleep(delay)
    p.send_signal(sig)
    _, err = p.communicate(timeout=300)
    v = _verdict(p.returncode, err, sig, folder, allow_zero=False)
    _cleanup(folder)
    return sig, delay, p.returncode, v, err


def try_play(rng):
    """SIGTERM (or SIGINT) at a 2-player prompt, or end of input in a 3-player game."""
    kind = rng.choice(["sigterm", "sigint", "eof3"])
    folder = tempfile.mkdtemp(prefix="sigstress-")
    if kind == "eof3":
        p = _start(["play", "--players", 3, "-n", 4, "--seed", 1], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        out, err = p.communicate(input="", timeout=300)
        ok = p.returncode in (0, 1) and "goodbye" in err and "Traceback" not in err and "error" not in err
        v = "clean" if ok else f"rc {p.returncode}"
        _cleanup(folder)
        return kind, 0.0, p.returncode, v, err
    sig = signal.SIGTERM if kind == "sigterm" else signal.SIGINT
    p = _start(["play", "-n", 4, "--seed", 1], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    buf = b""
    os.set_blocking(p.stdout.fileno(), False)
    t0 = time.time()
    while b"your bid" not in buf.lower() and time.time() - t0 < 120 and p.poll() is None:
        try:
            chunk = os.read(p.stdout.fileno(), 4096)
            buf += chunk.encode() if isinstance(chunk, str) else chunk
        except BlockingIOError:
            time.sleep(0.01)
    delay = rng.uniform(0.0, 0.3)
    time.sleep(delay)
    p.send_signal(sig)
    out, err = p.communicate(timeout=300)
    # the game's transcript (stdout) says how it ended: "terminated: game abandoned in round 1 ..."
    word = "terminated" if sig == signal.SIGTERM else "interrupted"
    last = (buf + out.encode()).decode().strip().splitlines()[-1:]
    ok = p.returncode == (143 if sig == signal.SIGTERM else 130) and last and last[0].startswith(word + ":") \
        and not err.strip()
    v = "clean" if ok else f"rc {p.returncode}, last line {last}"
    _cleanup(folder)
    return kind, delay, p.returncode, v, err


def _cleanup(folder):
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    os.rmdir(folder)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["export", "solve-start", "play"])
    ap.add_argument("--tries", type=int, default=100)
    ap.add_argument("--solution", help="the solution file export reads (export)")
    ap.add_argument("--lo", type=float, default=None, help="earliest signal, seconds after the handlers are in")
    ap.add_argument("--hi", type=float, default=None, help="latest signal")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    counts, totals = collections.Counter(), collections.Counter()
    t0 = time.time()
    for i in range(a.tries):
        if a.what == "export":
            if not a.solution:
                ap.error("export needs --solution FILE")
            res = try_export(a.solution, a.lo if a.lo is not None else 0.1, a.hi if a.hi is not None else 3.0, rng)
        elif a.what == "solve-start":
            res = try_solve_start(a.lo if a.lo is not None else 0.0, a.hi if a.hi is not None else 0.5, rng)
        else:
            res = try_play(rng)
        sig, delay, rc, verdict, err = res
        totals["clean" if verdict.startswith("clean") else "unclean"] += 1
        counts[verdict] += 1
        if not verdict.startswith("clean"):
            name = sig if isinstance(sig, str) else signal.Signals(sig).name
            print(f"try {i}: {name} at {delay:.2f} s: {verdict}\n{err[-3000:]}", flush=True)
    print(f"{a.what}: {a.tries} tries, {totals['clean']} clean, {totals['unclean']} not, "
          f"in {time.time() - t0:.0f} s; {dict(counts)}", flush=True)
    return 0 if totals["unclean"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
