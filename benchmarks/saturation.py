"""Stage games before and after settling sure wins without an LP, from finished block stores.

    gops solve --cards 11 --tie discard --objective win --out d11w --memory 2GB
    python benchmarks/saturation.py d11w [d10w ...] --record MACHINE

For each store: table entries (the dense layout is unchanged), the stage
games a solve without the sure-win shortcut solves (one per state, reveal
and difference: :func:`~gops_solver.engine.induction.level_work`), the
stage games the store's blocks record as solved, the share of stored values
that are exactly +1 or -1, and the store's size on disk against its raw
size.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from gops_solver.engine.blocked import open_store
from gops_solver.engine.induction import level_work


def figures(path) -> dict:
    rules, space, tables, info = open_store(path)
    entries = sum(space.size(k) for k in range(space.kmax + 1))
    before = sum(level_work(space, k) for k in range(space.kmax + 1))
    store = tables.store
    after = sat = valued = 0
    for k in range(space.kmax + 1):
        for r in range(store.nsets[k]):
            data, games, _ = store.read_block_meta(k, r)
            after += games
            if k:
                m = ~np.isnan(data)
                valued += int(m.sum())
                sat += int(np.count_nonzero(np.abs(data[m]) == 1.0))
    raw = sum(store.nsets[k] * store.block_len[k] * 8 for k in range(space.kmax + 1))
    return {"rules": rules, "entries": entries, "before": before, "after": after, "saturated": sat / valued,
            "disk": store.disk_bytes(), "raw": raw}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stores", nargs="+")
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the rows to benchmarks/results.json")
    args = ap.parse_args(argv)
    rows = []
    for path in args.stores:
        f = figures(path)
        r = f["rules"]
        case = f"n={r.n} {r.tie}/{r.objective}"
        print(f"{case}: {f['entries']:,} entries; stage games {f['before']:,} -> {f['after']:,} "
              f"({f['after'] / f['before']:.3f}); exactly +-1: {f['saturated']:.3f}; disk {f['disk'] / 1e6:,.1f} MB "
              f"of {f['raw'] / 1e6:,.1f} MB raw ({f['disk'] / f['raw']:.3f})")
        rows.append({"case": case, "measure": "stage games solved, sure wins settled without an LP",
                     "value": int(f["after"]), "unit": "games",
                     "detail": f"{f['before']:,} before ({f['after'] / f['before']:.3f} of them); {f['entries']:,} table "
                               f"entries before and after; {f['saturated']:.1%} of the stored values exactly +1 or -1; "
                               f"store {f['disk'] / 1e6:,.1f} MB on disk, {f['raw'] / 1e6:,.1f} MB raw",
                     "command": f"python benchmarks/saturation.py STORE (STORE: gops solve --cards {r.n} --tie {r.tie} "
                                f"--objective {r.objective} --out STORE --memory 2GB)"})
    if args.record:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from benchmarks._results import record
        record(rows, args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
