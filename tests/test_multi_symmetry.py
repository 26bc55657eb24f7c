"""verify's symmetry report: the value spread between exchangeable players (equal hands and scores)."""

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.cli import cli
from gops_solver.multi.solution import symmetry_spread


def test_symmetry_spread_compares_only_exchangeable_players():
    # canonical keys (masks, pot, hidden, score keys) list exchangeable players side by side;
    # players 0 and 1 of the first key are exchangeable (mask 3, key 0), so their values
    # 1.0 and 1.25 differ by 0.25; in the second key the equal masks have different score
    # keys (0 and -2), which makes them different players, so its 5.0 spread does not count
    table = {((3, 3, 5), 1, (2,), (0, 0, 0)): ([0.0] * 3, [1.0, 1.25, 2.0]),
             ((3, 3, 5), 2, (1,), (0, -2, 0)): ([0.0] * 3, [0.0, 5.0, 0.0]),
             ((3, 5, 6), 2, (1,), (0, 0, 0)): ([0.0] * 3, [0.0, 9.0, 0.0])}
    spread, worst = symmetry_spread(table.items())
    assert spread == pytest.approx(0.25) and worst == ((3, 3, 5), 1, (2,), (0, 0, 0))
    assert symmetry_spread([]) == (0.0, None)


def test_verify_reports_the_spread_of_a_symmetric_solution(capsys):
    # 3 players n = 4 discard/points: every stage game of exchangeable players gets equal values
    # (traced as one class of players: the same mix bit for bit), and verify reports the spread
    # the helper finds
    sol = solve(Rules(4, "discard", "points", players=3))
    report = sol.verify()
    assert report["symmetry_spread"] == symmetry_spread(sol.induction.table.items())[0]
    assert report["symmetry_spread"] == 0.0
    # the stored table has exchangeable players at all (the start: three equal hands)
    assert any(k[0][0] == k[0][1] for k in sol.induction.table)
    with pytest.raises(SystemExit) as exc:
        cli.main(["verify", "--players", "3", "--cards", "3"], prog_name="gops", standalone_mode=True)
    assert exc.value.code == 0
    assert "symmetry spread" in capsys.readouterr().out


def test_exchangeable_players_get_equal_values():
    # 3 players n = 5 carry/win. At ((22, 25, 25), pot 4, hidden {4, 5}, score keys (0, -2, -2))
    # players 2 and 3 are exchangeable; the stage game is degenerate, the symmetric trace stalls
    # short of its limit, and pygambit's tracer ends on an asymmetric arm (values 0.400, 0.600,
    # 0.0002 before December 2026, inherited by four states above it). The fallback takes the
    # first pure equilibrium in which they bid alike (top, lowest, lowest), so every stored
    # state gives exchangeable players equal values, bit for bit
    from gops_solver.multi.equilibrium import exchangeable_classes, select_after_kernel
    sol = solve(Rules(5, "carry", "win", players=3))
    assert symmetry_spread(sol.induction.table.items()) == (0.0, None)
    key = ((22, 25, 25), 4, (4, 5), (0, -2, -2))
    game = sol.induction.stage(key).equilibrium
    assert exchangeable_classes(game) == [(1, 2)]
    found = select_after_kernel(game)
    assert found.method == "first-pure" and found.gain <= 1e-6
    assert [int(np.argmax(s)) for s in found.strategies] == [2, 0, 0]
    assert sol.induction.table[key][1][1] == sol.induction.table[key][1][2]
    # a game without exchangeable players has no classes
    assert exchangeable_classes(np.arange(2 * 2 * 2 * 3, dtype=float).reshape(3, 2, 2, 2)) == []
