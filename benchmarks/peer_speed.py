"""One-thread speed against GOPSsolver (github matttang27/GOPSsolver), n = 9, tie discard, objective win.

    cmake -S GOPSSOLVER/solver -B GOPSSOLVER/solver/build -DCMAKE_BUILD_TYPE=Release
    cmake --build GOPSSOLVER/solver/build
    python benchmarks/peer_speed.py --peer GOPSSOLVER/solver/build/cpp_solver --runs 2 [--record MACHINE]

GOPSsolver (C++, one LP per state with GLPK) plays the same game as
``gops solve --cards 9 --tie discard --objective win``: a tie discards the
prize, prizes come in random order, the value is P(win) - P(loss). Its
solver has no threads. Both run pinned to one core (``taskset -c 0``),
ours with ``NUMBA_NUM_THREADS=1``; after one unmeasured run of ours (the
numba cache), the runs alternate peer, ours, peer, ours... Each run's wall
time and CPU time (user + sys of the child, from ``os.wait4``) are printed;
then the minimum and median of each and the ratios of the medians (peer /
ours). No further pair is started once a peer run has taken longer than
``--stop-after`` seconds of wall time (default 1200).

Neither program prints a root value the other can be held to without
work: ours prints it (``value``); the peer prints only its opening
strategies and writes every solved state's value to its cache (``--cache-out``).
The peer's root value is computed here from that cache: for each first
prize, the stage game of the two first bids (each cell the mean of the
cached values of the states that follow it) is solved by an LP (scipy's
HiGHS) and the first prizes averaged. The root is symmetric, so both are
0; ``--check K`` (default 2000) also compares K cached states, drawn at
random, with ``Solution.query`` of an in-process solve (not timed) and
prints the largest difference.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

N = 9


def ours_args(n: int = N) -> list:
    return ["solve", "--cards", str(n), "--tie", "discard", "--objective", "win", "-q"]


def _timed(cmd, env=None) -> tuple:
    """Run ``cmd``; return ``(wall s, cpu s (user + sys of the child), stdout)``. Raises if it fails."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{text[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime, text


def _gops() -> list:
    exe = shutil.which("gops")
    return [exe] if exe else [sys.executable, "-m", "gops_solver"]


class PeerCache:
    """The peer's ``.evc`` file (24-byte header, then (uint64 key, float64 value) records), keys sorted."""

    def __init__(self, path):
        raw = np.fromfile(path, dtype=np.uint8)
        if raw[:7].tobytes() != b"GOPSEV1":
            raise ValueError(f"{path}: not a GOPSsolver cache")
        count = int(raw[16:24].view("<u8")[0])
        rec = raw[24:24 + 16 * count].view(np.dtype([("key", "<u8"), ("value", "<f8")]))
        order = np.argsort(rec["key"], kind="stable")
        self.keys = rec["key"][order]
        self.values = rec["value"][order]

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, key: int) -> float:
        i = int(np.searchsorted(self.keys, np.uint64(key)))
        if i == len(self.keys) or int(self.keys[i]) != key:
            raise KeyError(hex(key))
        return float(self.values[i])


def _key(a: int, b: int, p: int, diff: int, cur: int) -> int:
    return a | b << 16 | p << 32 | (diff & 0xFF) << 48 | cur << 56


def _compress(a: int, b: int) -> tuple:
    """Renumber the cards of both hands 1..m over their union (masks in, masks out)."""
    ca = cb = bit = 0
    u = a | b
    i = 0
    while u >> i:
        if u >> i & 1:
            ca |= (a >> i & 1) << bit
            cb |= (b >> i & 1) << bit
            bit += 1
        i += 1
    return ca, cb


def peer_value(cache: PeerCache, a: int, b: int, p: int, diff: int, cur: int) -> float:
    """A state's value as the peer's cache holds it (the peer's own mirroring and renumbering of hands)."""
    if diff < 0 or (diff == 0 and a < b):
        return -peer_value(cache, b, a, p, -diff, cur)
    if diff == 0 and a == b:
        return 0.0
    ca, cb = _compress(a, b)
    return cache[_key(ca, cb, p, diff, cur)]


def _matrix_game_value(m: np.ndarray) -> float:
    """Value for the row player of the zero-sum matrix game ``m`` (LP, scipy HiGHS)."""
    from scipy.optimize import linprog
    r, c = m.shape
    # maximise v: m^T x >= v, sum x = 1, x >= 0
    obj = np.zeros(r + 1)
    obj[-1] = -1.0
    a_ub = np.hstack([-m.T, np.ones((c, 1))])
    a_eq = np.hstack([np.ones((1, r)), np.zeros((1, 1))])
    res = linprog(obj, A_ub=a_ub, b_ub=np.zeros(c), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * r + [(None, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"root LP failed: {res.message}")
    return float(-res.fun)


def peer_root(cache: PeerCache, n: int = N) -> float:
    """Root value from the peer's cache: each first prize's stage game solved, averaged over the first prizes."""
    full = (1 << n) - 1
    total = 0.0
    for p in range(1, n + 1):
        rest = full & ~(1 << p - 1)
        hidden = [k for k in range(1, n + 1) if k != p]
        m = np.empty((n, n))
        for x in range(1, n + 1):
            for y in range(1, n + 1):
                d = (x > y) - (x < y)
                m[x - 1, y - 1] = np.mean([peer_value(cache, full & ~(1 << x - 1), full & ~(1 << y - 1),
                                                      rest & ~(1 << k - 1), d * p, k) for k in hidden])
        total += _matrix_game_value(m)
    return total / n


def _cards(mask: int) -> list:
    return [i + 1 for i in range(16) if mask >> i & 1]


def spot_check(cache: PeerCache, k: int, n: int = N, seed: int = 0) -> tuple:
    """Largest |peer - ours| over ``k`` cached states drawn at random (ours from an in-process solve)."""
    from gops_solver import Rules, solve
    sol = solve(Rules(n=n, tie="discard", objective="win"))
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(cache), size=min(k, len(cache)), replace=False)
    worst = 0.0
    nontrivial = 0
    for i in pick:
        key, peer = int(cache.keys[i]), float(cache.values[i])
        a, b, p = key & 0xFFFF, key >> 16 & 0xFFFF, key >> 32 & 0xFFFF
        diff = ((key >> 48 & 0xFF) ^ 0x80) - 0x80
        cur = key >> 56
        ours = float(sol.query(_cards(a), _cards(b), pot=cur, prizes=_cards(p), diff=diff).value)
        worst = max(worst, abs(ours - peer))
        nontrivial += abs(peer) != 1.0
    return len(pick), nontrivial, worst, float(sol.value)


def report(n, times, peer_own, ours_own, ours_value, cache, loads, check_k=2000, stopped=None, command=None,
           cpu_core="0") -> list:
    """Print the root values, the spot check and the statistics; return the rows for ``results.json``.

    ``times`` is ``{"peer": [(wall, cpu), ...], "ours": [...]}`` (one pair per run), ``peer_own`` and
    ``ours_own`` the programs' own solve timers, ``loads`` the 1-minute load average at the start and
    the end, ``stopped`` a note when the runs stopped early.
    """
    root = peer_root(cache, n)
    print(f"root value: peer {root:.3g} (from its cache of {len(cache):,} states), ours {ours_value:g}")
    check = spot_check(cache, check_k, n) if check_k else None
    if check:
        print(f"{check[0]:,} cached peer states against ours ({check[1]:,} of them not +-1): "
              f"largest difference {check[2]:.2e}")
    stats = {}
    for who, pairs in times.items():
        w, c = [p[0] for p in pairs], [p[1] for p in pairs]
        stats[who] = {"wall_min": min(w), "wall_med": statistics.median(w), "cpu_min": min(c),
                      "cpu_med": statistics.median(c)}
        s = stats[who]
        print(f"{who}: wall min {s['wall_min']:.2f} s, median {s['wall_med']:.2f} s; "
              f"cpu min {s['cpu_min']:.2f} s, median {s['cpu_med']:.2f} s")
    cpu_ratio = stats["peer"]["cpu_med"] / stats["ours"]["cpu_med"]
    wall_ratio = stats["peer"]["wall_med"] / stats["ours"]["wall_med"]
    print(f"peer / ours, medians: cpu {cpu_ratio:.1f}x, wall {wall_ratio:.1f}x")

    case = f"n={n} discard/win, one thread: GOPSsolver (C++, GLPK) against gops"
    runs = "; ".join(f"run {i + 1}: peer {p[0]:,.1f} s wall / {p[1]:,.1f} s CPU, ours {o[0]:.2f} / {o[1]:.2f} s"
                     for i, (p, o) in enumerate(zip(times["peer"], times["ours"])))
    if stopped:
        runs += f" ({stopped})"
    own = (f"their own solve timers (medians): peer {statistics.median(peer_own):,.1f} s, ours "
           f"{statistics.median(ours_own):.2f} s")
    load = f"load average {loads[0]:.2f} at the start, {loads[1]:.2f} at the end"
    values = f"root value {root:.3g} (peer, from its cache) and {ours_value:g} (ours)"
    if check:
        values += f"; {check[0]:,} cached peer states agree with ours to {check[2]:.1e}"
    return [
        {"case": case, "measure": "CPU time, peer / ours (medians)", "value": round(cpu_ratio, 2), "unit": "x",
         "detail": f"peer median {stats['peer']['cpu_med']:,.1f} s (min {stats['peer']['cpu_min']:,.1f}), ours "
                   f"{stats['ours']['cpu_med']:.2f} s (min {stats['ours']['cpu_min']:.2f}); {runs}; {values}; {load}",
         "command": command},
        {"case": case, "measure": "wall time, peer / ours (medians)", "value": round(wall_ratio, 2), "unit": "x",
         "detail": f"peer median {stats['peer']['wall_med']:,.1f} s (min {stats['peer']['wall_min']:,.1f}), ours "
                   f"{stats['ours']['wall_med']:.2f} s (min {stats['ours']['wall_min']:.2f}); {own}; both pinned "
                   f"(taskset -c {cpu_core}), ours NUMBA_NUM_THREADS=1, alternated after one warm-up of ours; {load}",
         "command": command},
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", required=True, metavar="PATH", help="GOPSsolver's cpp_solver binary")
    ap.add_argument("--runs", type=int, default=2, help="measured runs of each [2]")
    ap.add_argument("--stop-after", type=float, default=1200.0, metavar="S",
                    help="start no further pair once a peer run took longer than S seconds of wall [1200]")
    ap.add_argument("--cards", type=int, default=N, help=f"deck size (a smaller one to try the script) [{N}]")
    ap.add_argument("--cpu", default="0", help="the core both are pinned to (taskset -c) [0]")
    ap.add_argument("--check", type=int, default=2000, metavar="K",
                    help="cached peer states compared with ours after the runs (0: none) [2000]")
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the rows to benchmarks/results.json")
    ap.add_argument("--description", default=None, help="the machine's description, if MACHINE is new")
    args = ap.parse_args(argv)

    pin = ["taskset", "-c", args.cpu]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    n = args.cards
    ours_cmd = pin + _gops() + ours_args(n)
    load0 = os.getloadavg()
    print(f"load average at the start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}", flush=True)
    wall, cpu, text = _timed(ours_cmd, env)
    print(f"ours warm-up (not measured): wall {wall:.2f} s, cpu {cpu:.2f} s", flush=True)
    times = {"peer": [], "ours": []}
    peer_own, ours_own = [], []
    ours_value = None
    stopped = None
    with tempfile.TemporaryDirectory(prefix="peer_speed_") as tmp:
        cache_path = os.path.join(tmp, f"n{n}.evc")
        for run in range(1, args.runs + 1):
            wall, cpu, text = _timed(pin + [args.peer, "--n", str(n), "--objective", "win",
                                            "--cache-out", cache_path])
            m = re.search(r"Total elapsed: (\d+) ms", text)
            peer_own.append(int(m.group(1)) / 1000 if m else float("nan"))
            times["peer"].append((wall, cpu))
            print(f"run {run} peer: wall {wall:.2f} s, cpu {cpu:.2f} s (its own total {peer_own[-1]:.2f} s)",
                  flush=True)
            wall_peer = wall
            wall, cpu, text = _timed(ours_cmd, env)
            m = re.search(r"^value\s+(\S+)", text, re.M)
            ours_value = float(m.group(1)) if m else float("nan")
            m = re.search(r"^time\s+(\S+) s", text, re.M)
            ours_own.append(float(m.group(1)) if m else float("nan"))
            times["ours"].append((wall, cpu))
            print(f"run {run} ours: wall {wall:.2f} s, cpu {cpu:.2f} s (its own solve time {ours_own[-1]:.2f} s, "
                  f"value {ours_value:g})", flush=True)
            if run < args.runs and wall_peer > args.stop_after:
                stopped = (f"stopped after run {run} of {args.runs}: the peer's run took {wall_peer:,.0f} s, "
                           f"over {args.stop_after:,.0f}")
                print(stopped, flush=True)
                break
        load1 = os.getloadavg()
        print(f"load average at the end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}", flush=True)
        cache = PeerCache(cache_path)
    command = f"python benchmarks/peer_speed.py --peer cpp_solver --runs {args.runs}" + (
        f" --cards {n}" if n != N else "")
    rows = report(n, times, peer_own, ours_own, ours_value, cache, (load0[0], load1[0]), args.check, stopped,
                  command, args.cpu)
    if args.record:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from benchmarks._results import record
        record(rows, args.record, args.description)
    return 0


if __name__ == "__main__":
    sys.exit(main())
