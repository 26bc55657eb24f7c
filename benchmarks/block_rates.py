"""Per-level solve rates of a block store's blocks: what ``gops info`` projects a blocked solve with.

    python benchmarks/block_rates.py STORE                                   # every finished block
    python benchmarks/block_rates.py STORE --window 03:53:30-03:58:00 --record MACHINE

Every block records the wall seconds its solve took; its work (the
(state, reveal, difference) positions it settles, solved or not:
:func:`~gops_solver.engine.induction.set_work`) is known from the rules. A
level's rate is its blocks' work over their seconds. ``--window`` keeps the
blocks that finished (file modification time, UTC) inside the given spans,
so rates come from the stretches when the solve had the machine to itself;
several windows are separated by commas. ``--trim F`` leaves out the blocks
that took more than F times their level's median: a block whose solve was
stopped or starved (a paused process, a machine busy with other work)
measures the pause, not the solve. Only block headers are read.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

from gops_solver.engine._blockstore import MAGIC, BlockStore, _parse_head, block_overhead
from gops_solver.engine.induction import set_work
from gops_solver.game.encoding import full_space
from gops_solver.game.rules import Rules


def _windows(text, day):
    """``HH:MM[:SS]-HH:MM[:SS],...`` on ``day`` (UTC) as (start, end) POSIX seconds."""
    out = []
    for span in filter(None, (text or "").split(",")):
        a, b = span.split("-")
        t = [datetime.datetime.combine(day, datetime.time.fromisoformat(x), datetime.timezone.utc).timestamp()
             for x in (a, b)]
        out.append((t[0], t[1]))
    return out


def trimmed(blocks: list, factor=None) -> list:
    """``blocks`` (work, games, seconds) without those slower than ``factor`` times their median; all if None."""
    if not factor or not blocks:
        return list(blocks)
    cut = factor * sorted(b[2] for b in blocks)[len(blocks) // 2]
    return [b for b in blocks if b[2] <= cut]


def rates(path, windows=(), trim=None) -> list:
    """Per level: blocks counted, their work, seconds and work per second.

    ``trim``: leave out blocks slower than ``trim`` times the median of the level's counted blocks.
    """
    store = BlockStore.open(path)  # finished or not
    rules = Rules.from_dict(store.manifest["rules"])
    space = full_space(rules)
    rows = []
    for k in range(1, space.kmax + 1):
        work = set_work(space, k)
        found = []
        for rank in range(store.nsets[k]):
            p = store.block_path(k, rank)
            try:
                st = os.stat(p)
            except FileNotFoundError:
                continue
            if windows and not any(a <= st.st_mtime <= b for a, b in windows):
                continue
            with open(p, "rb") as fh:
                head = fh.read(block_overhead(MAGIC))
            try:
                _, g, s, *_ = _parse_head(head, k, rank, store.block_len[k], p)
            except ValueError:
                continue
            found.append((int(work[rank]), g, s))
        found = trimmed(found, trim)
        n = len(found)
        w = sum(f[0] for f in found)
        games = sum(f[1] for f in found)
        secs = sum(f[2] for f in found)
        if n:
            rows.append({"k": k, "blocks": n, "work": w, "games": int(games), "seconds": secs,
                         "rate": w / secs if secs else float("nan")})
    return rules, rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--window", default="", help="HH:MM[:SS]-HH:MM[:SS],... UTC spans of finishing times")
    ap.add_argument("--trim", type=float, default=None, metavar="F",
                    help="leave out blocks slower than F times their level's median (paused or starved)")
    ap.add_argument("--day", default=None, help="YYYY-MM-DD of the windows [today, UTC]")
    ap.add_argument("--min-seconds", type=float, default=60.0,
                    help="record only levels whose counted blocks took this long in all [60]")
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the rows to benchmarks/results.json")
    args = ap.parse_args(argv)
    day = (datetime.date.fromisoformat(args.day) if args.day
           else datetime.datetime.now(datetime.timezone.utc).date())
    rules, rows = rates(args.store, _windows(args.window, day), args.trim)
    print(f"{rules.describe()}  windows: {args.window or 'all'}" + (f"  trim: {args.trim:g}x median" if args.trim else ""))
    print(f"{'k':>3} {'blocks':>7} {'work':>16} {'games':>16} {'seconds':>9} {'work/s':>12}")
    for r in rows:
        print(f"{r['k']:>3} {r['blocks']:>7} {r['work']:>16,} {r['games']:>16,} {r['seconds']:>9.1f} "
              f"{r['rate']:>12,.0f}")
    if args.record:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from _results import record
        cmd = ("python benchmarks/block_rates.py STORE" + (f" --window {args.window}" if args.window else "")
               + (f" --trim {args.trim:g}" if args.trim else ""))
        record([{"case": f"n={rules.n} {rules.tie}/{rules.objective} blocked, level {r['k']}",
                 "measure": "positions settled per second, one process on 2 cores (block solve times"
                            + (f", blocks over {args.trim:g}x the median left out)" if args.trim else ")"),
                 "value": round(r["rate"] / 1e6, 3), "unit": "M/s",
                 "detail": f"{r['blocks']} blocks, {r['work']:,} positions, {r['games']:,} stage games solved, "
                           f"{r['seconds']:.0f} s",
                 "command": cmd} for r in rows if r["seconds"] >= args.min_seconds], args.record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
