"""verify's symmetry report: the value spread between exchangeable players (equal hands and scores)."""

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
    # here (measured spread below 1e-15), and verify reports the spread the helper finds
    sol = solve(Rules(4, "discard", "points", players=3))
    report = sol.verify()
    assert report["symmetry_spread"] == symmetry_spread(sol.induction.table.items())[0]
    assert report["symmetry_spread"] <= 1e-9
    # the stored table has exchangeable players at all (the start: three equal hands)
    assert any(k[0][0] == k[0][1] for k in sol.induction.table)
    with pytest.raises(SystemExit) as exc:
        cli.main(["verify", "--players", "3", "--cards", "3"], prog_name="gops", standalone_mode=True)
    assert exc.value.code == 0
    assert "symmetry spread" in capsys.readouterr().out
