"""SIGKILL stress of a blocked solve: kill it at random moments, resume, and compare with one unbroken run.

    python benchmarks/kill_resume.py --kills 50 --cards 8 --tie discard --objective win

Solves the rules once without interruption into a reference store, then
again into a fresh store, killing ``gops solve --resume`` with SIGKILL after
a random delay each time, until it finishes on its own; then compares every
block of the two stores bit for bit (and the stage games each block holds).
Rounds repeat until ``--kills`` kills have been made. After each kill every
block file present must be whole (its checksums pass): a killed writer
leaves no torn block, only a temporary file the next run removes. Records
the figures in ``benchmarks/results.json`` (``--record``).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

from gops_solver.engine._blockstore import BlockStore

CMD = ["gops", "solve", "--memory", "1GB", "-q"]


def _solve(rules_args, out, resume):
    return subprocess.Popen(CMD + rules_args + ["--out", out] + (["--resume"] if resume else []),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _whole_blocks(out) -> int:
    store = BlockStore.open(out)
    n = 0
    for k in range(len(store.nsets)):
        for r in store.ranks(k):
            store.read_block_meta(k, r)  # raises on a torn or damaged block
            n += 1
    return n


def _same(a, b) -> bool:
    sa, sb = BlockStore.open(a), BlockStore.open(b)
    for k in range(len(sa.nsets)):
        for r in range(sa.nsets[k]):
            da, ga, _ = sa.read_block_meta(k, r)
            db, gb, _ = sb.read_block_meta(k, r)
            if ga != gb or da.tobytes() != db.tobytes():
                return False
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--tie", default="discard")
    ap.add_argument("--objective", default="win")
    ap.add_argument("--spread", type=float, default=1.2,
                    help="each kill comes after 0.2 s to SPREAD times the unbroken run's wall time")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the figures to benchmarks/results.json")
    args = ap.parse_args(argv)
    rules_args = ["--cards", str(args.cards), "--tie", args.tie, "--objective", args.objective]
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="gops-kill-")
    ref = os.path.join(work, "ref")
    t0 = time.perf_counter()
    p = _solve(rules_args, ref, False)
    if p.wait() != 0:
        print(p.stderr.read(), file=sys.stderr)
        return 1
    ref_secs = time.perf_counter() - t0
    kills = rounds = torn = 0
    identical = True
    t0 = time.perf_counter()
    while kills < args.kills:
        rounds += 1
        out = os.path.join(work, f"run{rounds}")
        round_kills = 0
        while True:
            p = _solve(rules_args, out, True)
            try:
                p.wait(timeout=rng.uniform(0.2, args.spread * ref_secs))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                kills += 1
                round_kills += 1
                try:
                    if os.path.exists(os.path.join(out, "manifest.gops")):  # killed before the store was made
                        _whole_blocks(out)
                except ValueError as exc:
                    torn += 1
                    print(f"kill {kills}: {exc}", file=sys.stderr)
                continue
            if p.returncode != 0:
                print(f"round {rounds}: exit {p.returncode}: {p.stderr.read()}", file=sys.stderr)
                return 1
            break
        same = _same(ref, out)
        identical &= same
        print(f"round {rounds}: {round_kills} kills, then finished; identical to the unbroken run: {same}",
              flush=True)
        shutil.rmtree(out)
    secs = time.perf_counter() - t0
    shutil.rmtree(work)
    rules = f"n={args.cards} {args.tie}/{args.objective}"
    print(f"{kills} kills over {rounds} rounds, {torn} torn blocks, every finished store identical: {identical} "
          f"({secs:.0f} s; the unbroken run {ref_secs:.1f} s)")
    if args.record:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from benchmarks._results import record
        record([{"case": f"{rules} blocked, killed and resumed", "measure": "SIGKILL at random moments, then --resume",
                 "value": kills, "unit": "kills",
                 "detail": f"{rounds} stores finished after the kills, each identical bit for bit to an unbroken run "
                           f"(blocks and their stage games): {identical}; torn blocks found after a kill: {torn}; "
                           f"kills after 0.2 s to {args.spread:g} x the unbroken run's {ref_secs:.1f} s",
                 "command": f"python benchmarks/kill_resume.py --kills {args.kills} --cards {args.cards} --tie "
                            f"{args.tie} --objective {args.objective} --record {args.record}"}], args.record)
    return 0 if identical and not torn else 1


if __name__ == "__main__":
    sys.exit(main())
