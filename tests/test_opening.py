"""``gops solve`` prints the opening: the first bid against each first prize."""

import json

import numpy as np
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.analysis.opening import opening

from naive import naive_stage_matrix


def test_opening_rows_are_optimal_first_bids_by_the_naive_stage_game():
    n = 4
    rows = opening(solve(Rules(n, tie="discard")))
    assert [p for p, _ in rows] == [1, 2, 3, 4]
    for prize, strat in rows:
        hidden = tuple(c for c in range(1, n + 1) if c != prize)
        cards_a, _, M = naive_stage_matrix("discard", "points", tuple(range(1, n + 1)), tuple(range(1, n + 1)),
                                           prize, hidden, 0, True)
        x = np.array([strat[c] for c in cards_a])
        assert abs(x.sum() - 1) < 1e-12 and (x >= 0).all()
        # a symmetric start is worth 0: an optimal first bid loses nothing against any reply
        assert (x @ M >= -1e-9).all()


def test_solve_prints_the_opening_table_and_json():
    runner = CliRunner()
    res = runner.invoke(cli, ["solve", "-n", "5"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("opening"))
    assert lines[at + 1].split() == ["prize", "A", "2", "3", "4", "5"]
    table = [ln.split() for ln in lines[at + 2:]]
    assert [r[0] for r in table] == ["A", "2", "3", "4", "5"]
    want = dict(opening(solve(Rules(5))))
    for r, prize in zip(table, range(1, 6)):
        probs = [0.0 if v == "." else float(v) for v in r[1:]]
        assert np.allclose(probs, [want[prize][c] for c in range(1, 6)], atol=5e-4)
    js = json.loads(runner.invoke(cli, ["solve", "-n", "5", "--order", "descending", "--json"]).output)
    assert [o["prize"] for o in js["opening"]] == [5]
    assert abs(sum(js["opening"][0]["strategy_a"].values()) - 1) < 1e-12
