"""Summarise a finished full-deck run into benchmarks/full_deck_run.json, which docs/full-deck.md renders.

    python benchmarks/full_deck_summary.py --store /work/n13/store --legs /work/n13/legs.json
    python benchmarks/full_deck_summary.py --store DIR --legs FILE --verify-json verify.json

Reads the finished block store (``gops info --store --json``), checks it with
``gops verify --blocks 200 --seed 0 --json`` (or takes the JSON of such a run
with ``--verify-json``: it takes about as long as solving the blocks it
draws), copies the legs file to ``benchmarks/full_deck.json``, records the
projection of the next run (``gops info -n 12 --tie carry --objective
win``) and the top-levels files in ``solutions/``. Then run
``python benchmarks/full_deck_page.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "full_deck_run.json"
LEGS = ROOT / "benchmarks" / "full_deck.json"
SOLUTIONS = ROOT / "solutions"
PROJECTION = ["info", "-n", "12", "--tie", "carry", "--objective", "win"]


def gops(*args) -> str:
    """Standard output of ``gops ARGS`` (this checkout's package); raise when it fails."""
    proc = subprocess.run([sys.executable, "-m", "gops_solver", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit(f"gops {' '.join(map(str, args))} failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    return proc.stdout


def _save(path: Path, obj) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _merge(legs: list, published: list) -> list:
    """The legs file, with what the published legs say of the earlier legs (how each ended, pauses, load).

    The newest leg is the legs file's; an earlier leg keeps the published
    fields (written when its session ended) and gains what only the legs
    file has.
    """
    by = {leg["leg"]: leg for leg in published}
    out = []
    for leg in legs[:-1]:
        out.append({**leg, **by.get(leg["leg"], {})})
    return out + legs[-1:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, help="the finished block store")
    ap.add_argument("--legs", required=True, help="the legs file benchmarks/full_deck_run.py wrote")
    ap.add_argument("--blocks", type=int, default=200, help="blocks gops verify checks whole [200]")
    ap.add_argument("--seed", type=int, default=0, help="seed of the verify draw [0]")
    ap.add_argument("--verify-json", help="the JSON of a finished gops verify --blocks run of this store")
    args = ap.parse_args(argv)
    info = json.loads(gops("info", "--store", args.store, "--json"))
    if not info["complete"]:
        raise SystemExit(f"{args.store} is not finished ({info['done']:,} of {info['blocks']:,} blocks): "
                         f"continue it with benchmarks/full_deck_run.py")
    rules = info["rules"]
    dense = json.loads(gops("info", "-n", rules["n"], "--tie", rules["tie"], "--objective", rules["objective"],
                            "--json"))
    if args.verify_json:
        ver = json.loads(Path(args.verify_json).read_text())
    else:
        ver = json.loads(gops("verify", "-s", args.store, "--blocks", args.blocks, "--seed", args.seed, "--json"))
    if not ver.get("blocks"):
        raise SystemExit("the verify JSON has no drawn blocks: give the output of gops verify --blocks N --json")
    legs = _merge(json.loads(Path(args.legs).read_text()), json.loads(LEGS.read_text()) if LEGS.exists() else [])
    # the legs that built this store: from the last one that started on an empty store
    last = max(i for i, leg in enumerate(legs) if leg["blocks_at_start"] == 0)
    peaks = {leg["leg"]: leg["peak_rss_bytes"] for leg in legs[last:] if leg.get("peak_rss_bytes")}
    files = []
    for path in sorted(SOLUTIONS.glob("*.gops")):
        from gops_solver import load
        sol = load(path)
        files.append({"name": path.name, "rules": sol.rules.describe(), "rounds": sol.rounds_held,
                      "bytes": path.stat().st_size})
    summary = {
        "store": {
            "command": legs[-1]["command"].replace(args.store, "STORE"),
            "rules": rules,
            "blocks": info["blocks"],
            "levels": sum(1 for lv in info["levels"] if lv["k"] >= 1),
            "stage_games": sum(lv["stage_games"] for lv in info["levels"]),
            "stage_games_dense": dense["stage_games"],
            "disk_bytes": info["bytes"],
            "block_seconds": info["seconds"],
            "peak_rss_bytes": max(peaks.values()) if peaks else None,
            "peak_rss_legs": sorted(peaks),
            "memory": legs[-1]["command"].split("--memory ")[1].split()[0],
        },
        "verify": {
            "command": f"gops verify -s STORE --blocks {args.blocks} --seed {ver['seed']} --json",
            "blocks": args.blocks, "seed": ver["seed"],
            "checked_blocks": sum(len(r) for r in ver["blocks"].values()),
            "levels": sorted(int(k) for k in ver["blocks"]),
            "slots": ver["slots"], "stage_games": ver["stage_games"],
            "max_residual": ver["max_residual"], "max_exploitability": ver["max_exploitability"],
            "ok": ver["ok"], "seconds": ver["seconds"],
        },
        "carry_projection": {"command": "gops " + " ".join(PROJECTION),
                             "output": gops(*PROJECTION).rstrip("\n").splitlines()},
        "files": files,
    }
    _save(OUT, summary)
    _save(LEGS, legs)
    print(f"wrote {OUT.relative_to(ROOT)} and {LEGS.relative_to(ROOT)}: verify "
          f"{'OK' if ver['ok'] else 'FAILED'}, {summary['verify']['checked_blocks']} blocks")
    return 0 if ver["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
