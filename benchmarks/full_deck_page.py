"""Write docs/full-deck.md: the 13-card deck under ``win``, its opening, and the run that solved it.

    python benchmarks/full_deck_page.py                 # rewrite the page and its heat map
    python benchmarks/full_deck_page.py --check         # exit 1 if the page differs

Everything on the page is read from tracked files: the two top-levels
solution files in ``solutions/`` (written by ``gops export --format solution``
from the block store of the run and from an in-memory ``points`` solve),
the run's legs (``benchmarks/full_deck.json``, written by
``benchmarks/full_deck_run.py``) and the run's summary
(``benchmarks/full_deck_run.json``: the store's figures, the verify run and
the projection of ``n = 12`` carry/win). ``--check`` renders the page
again and exits 1 when the committed one drifts; ``tests/test_full_deck_page.py``
checks the rendering against the files.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIN = ROOT / "solutions" / "n13-discard-win-top.gops"
POINTS = ROOT / "solutions" / "n13-discard-points-top.gops"
LEGS = ROOT / "benchmarks" / "full_deck.json"
RUN = ROOT / "benchmarks" / "full_deck_run.json"
PAGE = ROOT / "docs" / "full-deck.md"
HEATMAP = ROOT / "docs" / "img" / "full-deck-opening.png"
COMMAND = "python benchmarks/full_deck_page.py"


def openings(win_path=WIN, points_path=POINTS):
    """The value at the start and A's first-bid distribution per first prize, under ``win`` and ``points``.

    Returns
    -------
    dict
        ``{"win": (rules, value, rows), "points": (rules, value, rows)}``,
        ``rows`` as :func:`gops_solver.analysis.opening.opening` gives them.
    """
    from gops_solver import load
    from gops_solver.analysis.opening import opening
    out = {}
    for name, path in (("win", win_path), ("points", points_path)):
        sol = load(path)
        out[name] = (sol.rules, float(sol.value), opening(sol))
    return out


def _mean(strat: dict) -> float:
    return sum(c * p for c, p in strat.items())


def _table(rows, digits: int = 3) -> list:
    """A Markdown table of an opening: a first prize per row, a bid card per column; ``.`` below half a unit."""
    from gops_solver.game.cards import format_card
    cards = sorted(rows[0][1])
    lines = ["| prize | " + " | ".join(format_card(c) for c in cards) + " | mean bid |",
             "|---:|" + "---:|" * len(cards) + "---:|"]
    for prize, strat in rows:
        cells = [("." if strat.get(c, 0.0) < 0.5 * 10 ** -digits else f"{strat[c]:.{digits}f}") for c in cards]
        lines.append(f"| {format_card(prize)} | " + " | ".join(cells) + f" | {_mean(strat):.2f} |")
    return lines


def _compare(win_rows, points_rows) -> list:
    """Per first prize: mean bids, the total-variation distance, and the most likely bid under each objective."""
    from gops_solver.game.cards import format_card
    lines = ["| prize | mean bid, win | mean bid, points | distance (TV) | likeliest bid, win | likeliest bid, points |",
             "|---:|---:|---:|---:|---:|---:|"]
    for (p, w), (q, s) in zip(win_rows, points_rows):
        assert p == q
        cards = sorted(set(w) | set(s))
        tv = 0.5 * sum(abs(w.get(c, 0.0) - s.get(c, 0.0)) for c in cards)
        bw, bs = max(w, key=w.get), max(s, key=s.get)
        lines.append(f"| {format_card(p)} | {_mean(w):.2f} | {_mean(s):.2f} | {tv:.3f} | "
                     f"{format_card(bw)} ({w[bw]:.3f}) | {format_card(bs)} ({s[bs]:.3f}) |")
    return lines


def example_args(n: int = 13) -> list:
    """The page's examples: the start with the top card up, and round 2 after A's top card took it from
    B's next, with the ace up."""
    cards = lambda seq: ",".join(map(str, seq))  # noqa: E731
    top = ["query", "-s", f"solutions/{WIN.name}"]
    return [
        [*top, "--hand-a", cards(range(1, n + 1)), "--hand-b", cards(range(1, n + 1)), "--pot", str(n),
         "--prizes", cards(range(1, n))],
        [*top, "--hand-a", cards(range(1, n)), "--hand-b", cards([*range(1, n - 1), n]), "--pot", "1",
         "--prizes", cards(range(2, n)), "--diff", str(n)],
    ]


def examples(n: int = 13) -> list:
    """The example commands with their real output, as the lines of a console block."""
    import subprocess
    lines = []
    for args in example_args(n):
        out = subprocess.run([sys.executable, "-m", "gops_solver", *args], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
        lines += ["$ gops " + " ".join(args), *out.rstrip("\n").splitlines()]
    return lines


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h"


def _iso(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


def _legs(legs: list) -> tuple:
    """The legs table and the wall time of the legs that built the final store."""
    lines = ["| leg | blocks at start | blocks at end | wall time | how it ended |", "|---:|---:|---:|---:|---|"]
    wall = 0.0
    for leg in legs:
        if leg.get("end") is None or leg.get("blocks_at_end") is None:
            lines.append(f"| {leg['leg']} | {leg['blocks_at_start']:,} | - | - | {leg['status']} |")
            continue
        secs = (_iso(leg["end"]) - _iso(leg["start"])).total_seconds()
        lines.append(f"| {leg['leg']} | {leg['blocks_at_start']:,} | {leg['blocks_at_end']:,} | "
                     f"{secs / 3600:.2f} h | {leg['status']} |")
    # the legs of the store that finished: from the last leg that started at block 0
    last = max(i for i, leg in enumerate(legs) if leg["blocks_at_start"] == 0)
    for leg in legs[last:]:
        if leg.get("end") is not None:
            wall += (_iso(leg["end"]) - _iso(leg["start"])).total_seconds()
    return lines, wall


def _peak(store: dict) -> str:
    """The table row of the solve's peak memory, and the legs it was measured in."""
    if not store.get("peak_rss_bytes"):
        return f"| peak memory of the solve | not measured (`--memory {store['memory']}` bounds the blocks held) |"
    legs = store.get("peak_rss_legs", [])
    of = f"; measured in leg{'s' if len(legs) > 1 else ''} {', '.join(map(str, legs))}" if legs else ""
    return (f"| peak memory of the solve | {store['peak_rss_bytes'] / 1e9:.1f} GB resident "
            f"(`--memory {store['memory']}`{of}) |")


def heatmap(data: dict, path=HEATMAP) -> None:
    """Draw both openings side by side (first prize by bid card, shade = probability) to ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from gops_solver.game.cards import format_card
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), constrained_layout=True)
    for ax, name in zip(axes, ("win", "points")):
        rules, _, rows = data[name]
        cards = sorted(rows[0][1])
        grid = np.array([[strat.get(c, 0.0) for c in cards] for _, strat in rows])
        im = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0, origin="upper")
        ax.set_xticks(range(len(cards)), [format_card(c) for c in cards])
        ax.set_yticks(range(len(rows)), [format_card(p) for p, _ in rows])
        ax.set_xlabel("A's first bid")
        ax.set_ylabel("first prize")
        ax.set_title(f"objective = {name}")
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability")
    fig.suptitle(f"Opening of the {data['win'][0].n}-card deck, tie = {data['win'][0].tie}, random prize order")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def render(data: dict, legs: list, run: dict, shown: list) -> str:
    """The page, from :func:`openings`' data, the legs, the run summary and :func:`examples`. Ends in a newline."""
    rw, vw, win_rows = data["win"]
    rp, vp, points_rows = data["points"]
    leg_lines, wall = _legs(legs)
    store, ver, proj = run["store"], run["verify"], run["carry_projection"]
    lines = [
        "# The full deck under `win`",
        "",
        f"<!-- generated by {COMMAND}: edit the script, not this page -->",
        "",
        f"The 13-card deck under the documents' own objective, `win` (who holds more prize",
        f"points at the end), with tie rule `{rw.tie}` and the prizes in random order, solved exactly",
        "on one machine of 2 cores, 24 GB of memory and 80 GB of free disk.",
        "",
        "## The answer",
        "",
        f"The value of the game is **{vw:+.12f}** (P(A wins) - P(B wins) under optimal play).",
        "Neither player wins: the deck is fair under `win`, as it is under `points`",
        f"(value {vp:+.12f}), so an optimal player guarantees winning at least as often as",
        "losing against any opponent, and no more against an optimal one.",
        "",
        "What changes with the objective is how to play. The table is A's equilibrium first",
        "bid against each first prize (B's mirror is optimal too); `.` is below 0.0005.",
        "",
        "### Opening under `win`",
        "",
        *_table(win_rows),
        "",
        "### Opening under `points` (the same deck and tie rule)",
        "",
        *_table(points_rows),
        "",
        "![The two openings as heat maps](img/full-deck-opening.png)",
        "",
        "### The two openings, prize by prize",
        "",
        "Distance is the total-variation distance between the two first-bid distributions",
        "(0: the same, 1: no bid in common).",
        "",
        *_compare(win_rows, points_rows),
        "",
        "An equilibrium need not be unique: these are the strategies the solver's stage",
        "games select, and any other optimal opening has the same value.",
        "",
        "## Use it",
        "",
        "The top levels of both solutions are in the repository: `gops query` and",
        "`gops explore` answer every decision of the first two rounds exactly from them, and",
        "a deeper state by solving its own sub-game (the command says so). The start with the",
        "king up, then round 2 after A's king took it from B's queen, with the ace up:",
        "",
        "<!-- repo files: solutions -->",
        "",
        "```console",
        *shown,
        "```",
        "",
        "`gops explore -s solutions/n13-discard-win-top.gops` opens the same positions in the",
        "browser ([Explore](explore.md)).",
        "",
        "| file | rules | rounds answered exactly | size |",
        "|---|---|---:|---:|",
        *[f"| `solutions/{f['name']}` | {f['rules']} | 1..{f['rounds']} | {f['bytes'] / 1e6:.1f} MB |"
          for f in run["files"]],
        "",
        "## The run",
        "",
        f"`{store['command']}`, resumed with `--resume` across sessions",
        "(`benchmarks/full_deck_run.py` starts each leg and records it).",
        "",
        "| figure | value |",
        "|---|---|",
        f"| blocks | {store['blocks']:,} over {store['levels']} levels |",
        f"| stage games solved | {store['stage_games']:,} (the rest of the {store['stage_games_dense']:,} "
        f"were settled as sure wins or losses by the saturation thresholds) |",
        f"| block store on disk | {store['disk_bytes'] / 1e9:.1f} GB (zstd) |",
        f"| solve time of the blocks | {_hours(store['block_seconds'])} (the blocks' own times, summed) |",
        f"| wall time of the legs that built the store | {_hours(wall)} (at nice 19, beside other work) |",
        _peak(store),
        f"| `gops verify --blocks {ver['blocks']} --seed {ver['seed']}` | {ver['checked_blocks']} whole blocks "
        f"from all {store['levels']} levels, {ver['slots']:,} slots: max residual {ver['max_residual']:.2g}, max "
        f"exploitability {ver['max_exploitability']:.2g}, {ver['seconds'] / 60:.0f} min |",
        "",
        "Legs (a leg ends with its process: a session that ends, or a kill; `--resume` goes",
        "on from the blocks on disk):",
        "",
        *leg_lines,
        "",
        "## Next: 12 cards, `carry`, `win`",
        "",
        f"`{proj['command']}` projects, on this machine:",
        "",
        "```text",
        *proj["output"],
        "```",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed page differs")
    args = ap.parse_args(argv)
    data = openings()
    text = render(data, json.loads(LEGS.read_text()), json.loads(RUN.read_text()), examples(data["win"][0].n))
    if args.check:
        same = PAGE.exists() and PAGE.read_text() == text
        print("docs/full-deck.md is up to date" if same else f"docs/full-deck.md differs: run {COMMAND}")
        return 0 if same else 1
    PAGE.write_text(text)
    heatmap(data)
    print(f"wrote {PAGE.relative_to(ROOT)} and {HEATMAP.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
