"""projection.py: the figures of gops info and the fit verdicts of gops solve, from the library."""

import itertools
import json

import pytest
from click.testing import CliRunner

from gops_solver import Rules, projected_work
from gops_solver.cli.commands import cli
from gops_solver.engine.projection import (CALIBRATION, FITS, ANCHOR_MIN_SECONDS, calibrated_seconds, NEEDS_OUT, OVERHEAD_BYTES, TOO_LARGE, duration,
                                    evaluation_measured, project)

# the plain-Python pass (NUMBA_DISABLE_JIT=1) takes the small cases; the calibration checks below
# walk whole state spaces, minutes without the kernels, and run in the jitted pass only


@pytest.mark.nojit
def test_figures_come_from_projected_work():
    rules = Rules(7, "carry", "win")
    w = projected_work(rules)
    p = project(rules, machine_bytes=2**34)
    assert (p.stage_games, p.table_bytes, p.peak_bytes) == (w["total_games"], w["total_bytes"], w["peak_bytes"])
    assert p.memory_bytes == w["peak_bytes"] + OVERHEAD_BYTES and p.table_entries == w["total_bytes"] // 8
    assert [lv["stage_games"] for lv in p.levels] == w["stage_games"]
    # time comes from the games the kernel builds (equal games once), at the rule's measured rate
    assert [lv["stage_solves"] for lv in p.levels] == w["stage_solves"] and p.stage_solves == w["total_solves"]
    assert 0 < p.stage_solves < p.stage_games  # carry: carries and reveals meet at one pot
    assert (p.seconds, p.basis) == calibrated_seconds(rules, "memory")
    assert (p.blocked_seconds, p.blocked_basis) == calibrated_seconds(rules, "blocked")


@pytest.mark.nojit
def test_verdicts_at_their_thresholds():
    rules = Rules(8, "carry", "win")
    p = project(rules, machine_bytes=2**40)
    assert p.fits and p.fits_in_memory and p.solve_fit(with_out=False) == FITS
    # every level held: refused above 60% of memory, unless the levels go to disk
    ram = int(p.table_bytes / 0.6) - 1
    q = project(rules, machine_bytes=ram)
    assert q.solve_fit(with_out=False) == NEEDS_OUT and q.solve_fit(with_out=True) == FITS
    # two levels above 90% of memory: too large either way
    r = project(rules, machine_bytes=int(p.peak_bytes / 0.9) - 1)
    assert r.solve_fit(with_out=True) == TOO_LARGE and not r.fits


def test_gops_info_prints_the_projection():
    rules = Rules(6)
    out = CliRunner().invoke(cli, ["info", "-n", "6", "--json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    p = project(rules)
    blocked = data.pop("blocked")
    assert data == {**p.to_dict(), "projected_seconds": data["projected_seconds"]}
    assert data["projected_seconds"] == pytest.approx(p.seconds)
    # the blocked-solve plan: every prize set of every level is a block, and the store holds every table
    from gops_solver.engine.projection import plan_blocks
    assert blocked == json.loads(json.dumps(plan_blocks(rules).to_dict()))
    assert blocked["blocks"] == 2 ** 6 and blocked["raw_bytes"] > p.table_bytes
    assert blocked["disk_bytes"] < blocked["raw_bytes"]  # compressed (COMPRESSED_SHARE)


def test_compressed_share_holds_for_a_real_store(tmp_path):
    """The projected store size is within 25 % of a store this version writes (n = 8, each objective)."""
    from gops_solver import solve
    from gops_solver.engine.projection import plan_blocks
    for rules in (Rules(n=8, tie="discard", objective="win"), Rules(n=8, tie="carry", objective="points")):
        sol = solve(rules, out=tmp_path / rules.objective, memory="500MB")
        assert sol.store.disk_bytes() == pytest.approx(plan_blocks(rules).disk_bytes, rel=0.25)


@pytest.mark.nojit
def test_duration_and_evaluation_limit():
    assert duration(40) == "40 s" and duration(600) == "10 min" and duration(9000) == "2.5 h"
    assert evaluation_measured(Rules(10)) and not evaluation_measured(Rules(11))


@pytest.mark.nojit
def test_block_plan_prices_each_level_at_its_measured_rate():
    # README, "Blocked solves": one core ran 1.64 M stage games per second on level-5 blocks of the
    # 13-card discard/win game and 0.26 M on level-9 blocks of the 12-card one; the stage games
    # grow with the level, so the projected rate may only fall as k grows
    from gops_solver.game.encoding import full_space
    from gops_solver.engine.induction import set_work
    from gops_solver.engine.projection import block_rate, plan_blocks
    rates = [block_rate(k) for k in range(14)]
    assert rates[5] == 1.64e6 and rates[9] == 0.26e6
    assert all(a >= b > 0 for a, b in zip(rates, rates[1:]))
    rules = Rules(7, "discard", "win")
    sp = full_space(rules)
    plan = plan_blocks(rules, sp)
    work = [set_work(sp, k) for k in range(8)]
    assert plan.cpu_hours * 3600 == pytest.approx(sum(float(w.sum()) / block_rate(k) for k, w in enumerate(work)))
    # with more workers than blocks a level takes as long as its largest block
    last = plan.clusters[-1]
    assert last["seconds"] >= sum(float(w.max()) / block_rate(k) for k, w in enumerate(work)) * (1 - 1e-12)


@pytest.mark.parametrize("point", CALIBRATION, ids=lambda p: f"n{p[0]}-{p[1]}-{p[2]}-{p[3]}-{p[4]}s")
def test_calibrated_projection_agrees_with_each_measured_solve(point):
    # every stored measurement, both runs where two were kept: within 25 %; solves mostly start-up
    # (under ANCHOR_MIN_SECONDS) are projected under that too
    n, tie, objective, mode, seconds, command = point
    assert command.startswith(f"gops solve --cards {n} --tie {tie} --objective {objective}")
    assert ("--memory" in command) == (mode == "blocked")
    projected, basis = calibrated_seconds(Rules(n, tie, objective), mode)
    if seconds >= ANCHOR_MIN_SECONDS:
        assert projected == pytest.approx(seconds, rel=0.25)
    else:
        assert projected < ANCHOR_MIN_SECONDS
    assert basis.startswith(f"measured {tie}/{objective} {mode} solves")


def test_projection_grows_with_the_deck_and_says_when_it_extrapolates():
    for tie, objective, mode in itertools.product(("carry", "discard"), ("points", "win"), ("memory", "blocked")):
        times = [calibrated_seconds(Rules(n, tie, objective), mode)[0] for n in range(4, 14)]
        assert all(a <= b for a, b in zip(times, times[1:])), (tie, objective, mode, times)
    assert "extrapolated beyond n = 12" in calibrated_seconds(Rules(13, "discard", "win"), "memory")[1]
    assert "extrapolated" not in calibrated_seconds(Rules(12, "discard", "win"), "blocked")[1]
    assert "extrapolated beyond n = 12" in calibrated_seconds(Rules(13, "discard", "win"), "blocked")[1]
    assert "scaled down from n = 8" in calibrated_seconds(Rules(7, "carry", "win"), "memory")[1]


def test_each_projection_names_its_measurements_and_says_when_it_goes_beyond_them():
    import re
    for tie, objective, mode in itertools.product(("carry", "discard"), ("points", "win"), ("memory", "blocked")):
        measured = sorted({r[0] for r in CALIBRATION if r[1:4] == (tie, objective, mode)})
        for n in range(4, 14):
            basis = calibrated_seconds(Rules(n, tie, objective), mode)[1]
            assert basis.startswith(f"measured {tie}/{objective} {mode} solves, n = "), basis
            anchors = [int(x) for x in re.findall(r"(?<!beyond )(?<!from )n = (\d+)", basis)]
            assert set(anchors) <= set(measured), basis
            if n > measured[-1]:
                assert f"extrapolated beyond n = {measured[-1]}" in basis, (n, basis)
            elif n < anchors[0]:
                assert f"scaled down from n = {anchors[0]}" in basis, (n, basis)
            else:  # an anchor, or between two
                assert "extrapolated" not in basis and "scaled down" not in basis, (n, basis)


def test_gops_info_shows_both_times_and_their_measurements():
    out = CliRunner().invoke(cli, ["info", "-n", "10", "--tie", "discard", "--objective", "win"])
    assert out.exit_code == 0, out.output
    p = project(Rules(10, "discard", "win"))
    assert f"about {duration(p.seconds)} in memory | about {duration(p.blocked_seconds)} as a block store" in out.output
    assert "measured discard/win memory solves, n = 8, n = 9, n = 10, n = 11, n = 12 | measured discard/win blocked solves" in out.output
