"""benchmarks/full_deck_page.py renders docs/full-deck.md from tracked files: the openings as the files give them."""

import json
import re

from benchmarks import full_deck_page as page
from gops_solver import Rules, load, solve
from gops_solver.analysis.opening import opening
from gops_solver.cli.commands import cli
from gops_solver.game.cards import format_card
from click.testing import CliRunner


def _top(tmp_path, rules, name, **kw):
    out = tmp_path / name
    if kw:
        solve(rules, out=tmp_path / f"{name}.store", **kw)
        src = ["-s", str(tmp_path / f"{name}.store")]
    else:
        src = ["-n", str(rules.n), "--tie", rules.tie, "--objective", rules.objective]
    r = CliRunner().invoke(cli, ["export", *src, "--format", "solution", "--rounds", "2", "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _summary():
    return {"store": {"command": "gops solve --cards 6 --out STORE --memory 1GB --resume --json", "blocks": 64,
                      "levels": 6, "stage_games": 10, "stage_games_dense": 20, "disk_bytes": 10**6,
                      "block_seconds": 7200.0, "peak_rss_bytes": 2 * 10**9, "memory": "1GB"},
            "verify": {"blocks": 20, "seed": 0, "checked_blocks": 20, "slots": 1000, "max_residual": 1e-16,
                       "max_exploitability": 1e-13, "seconds": 120.0},
            "carry_projection": {"command": "gops info -n 12 --tie carry --objective win", "output": ["verdict x"]},
            "files": [{"name": "w.gops", "rules": "n=6", "rounds": 2, "bytes": 10**6}]}


def test_the_page_shows_both_openings_as_the_files_give_them(tmp_path):
    win = _top(tmp_path, Rules(6, "discard", "win"), "w.gops", memory="200MB")
    points = _top(tmp_path, Rules(6, "discard", "points"), "p.gops")
    data = page.openings(win, points)
    legs = json.loads(page.LEGS.read_text())
    text = page.render(data, legs, _summary(), ["$ gops query", "value 0"])
    for name, path in (("win", win), ("points", points)):
        rows = opening(load(path))
        assert data[name][2] == rows
        # each row of the page's table holds the probabilities the file gives, rounded
        section = text.split(f"### Opening under `{name}`")[1]
        for prize, strat in rows:
            cells = re.search(rf"^\| {format_card(prize)} \| (.*) \|$", section, re.M).group(1).split(" | ")
            for card, cell in zip(sorted(strat), cells):
                assert cell == ("." if strat[card] < 5e-4 else f"{strat[card]:.3f}")
    assert "value of the game is **+0.000000000000**" in text or "value of the game is **-0.000000000000**" in text
    assert "| 1 | 0 |" in text  # the legs table, from the tracked legs
    page.heatmap(data, tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"



def _shown(text):
    block = text.split("```console\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").splitlines()


def test_the_committed_page_is_what_its_files_render():
    text = page.PAGE.read_text()
    want = page.render(page.openings(), json.loads(page.LEGS.read_text()), json.loads(page.RUN.read_text()),
                       _shown(text))
    assert text == want, f"docs/full-deck.md is stale: run {page.COMMAND}"
    assert page.HEATMAP.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the examples' output itself is checked by the doc-example harness (tests/test_doc_examples.py)
    assert [line[2:] for line in _shown(text) if line.startswith("$ ")] == \
        ["gops " + " ".join(args) for args in page.example_args()]
