"""Run (or continue) a long blocked solve, recording each leg: start, end, blocks done.

    nohup python benchmarks/full_deck_run.py --store /work/n13/store --legs /work/n13/legs.json &

Starts ``gops solve --cards 13 --tie discard --objective win --out STORE
--memory 6GB --resume`` (any rules: ``--cards``, ``--tie``, ``--objective``)
and writes the legs file atomically every minute while it runs (blocks done,
disk used, the solve's peak resident memory): a leg that
is killed with its process (a session that ends) keeps its last minute, and
the next run adds a leg of its own. Keep the store and the legs file outside
the work tree, so that they outlive a fresh checkout; copy the legs file
into ``benchmarks/full_deck.json`` to publish it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _blocks(store: str) -> int:
    """Block files present in ``store`` (finished blocks; a damaged one is recomputed on resume)."""
    n = 0
    try:
        for d in os.listdir(store):
            if d.startswith("L") and d[1:].isdigit():
                n += sum(1 for f in os.listdir(os.path.join(store, d)) if f.endswith(".blk"))
    except FileNotFoundError:
        return 0
    return n


def _disk(store: str) -> int:
    total = 0
    for root, _, files in os.walk(store):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def _peak_rss(pid: int) -> int | None:
    """The process's peak resident memory so far (bytes; Linux ``VmHWM``), or None where unknown."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _save(path: str, legs: list) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as fh:
        json.dump(legs, fh, indent=1)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--legs", required=True, help="JSON file of the legs (created if missing)")
    ap.add_argument("--cards", type=int, default=13)
    ap.add_argument("--tie", default="discard")
    ap.add_argument("--objective", default="win")
    ap.add_argument("--memory", default="6GB")
    args = ap.parse_args(argv)
    legs = json.load(open(args.legs)) if os.path.exists(args.legs) else []
    for old in legs:
        if old["status"] == "running":  # its process ended without a word: a session that ended, or a kill
            old["status"] = "ended with its process before it finished; --resume went on from its blocks"
    cmd = ["gops", "solve", "--cards", str(args.cards), "--tie", args.tie, "--objective", args.objective,
           "--out", args.store, "--memory", args.memory, "--resume", "--json"]
    leg = {"leg": len(legs) + 1, "command": " ".join(cmd), "start": _now(), "blocks_at_start": _blocks(args.store),
           "end": None, "blocks_at_end": None, "status": "running", "disk_bytes": None}
    legs.append(leg)
    _save(args.legs, legs)
    log = open(os.path.join(os.path.dirname(os.path.abspath(args.legs)), f"leg-{leg['leg']}.log"), "w")
    out = open(os.path.join(os.path.dirname(os.path.abspath(args.legs)), f"leg-{leg['leg']}.json"), "w")
    proc = subprocess.Popen(cmd, stdout=out, stderr=log)
    while proc.poll() is None:
        time.sleep(60)
        peak = _peak_rss(proc.pid)
        if peak is not None:
            leg["peak_rss_bytes"] = max(peak, leg.get("peak_rss_bytes", 0))
        leg.update(end=_now(), blocks_at_end=_blocks(args.store), disk_bytes=_disk(args.store))
        _save(args.legs, legs)
    # the child's peak as the kernel kept it (kB on Linux): exact, where the samples above may miss a peak
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    leg["peak_rss_bytes"] = max(peak, leg.get("peak_rss_bytes", 0))
    leg.update(end=_now(), blocks_at_end=_blocks(args.store), disk_bytes=_disk(args.store),
               status="finished" if proc.returncode == 0 else f"exit {proc.returncode}")
    _save(args.legs, legs)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
