"""projection.py: the figures of gops info and the fit verdicts of gops solve, from the library."""

import itertools
import json

import pytest
from click.testing import CliRunner

from gops_solver import Rules, projected_work
from gops_solver.cli.commands import cli
from gops_solver.engine.projection import (ANCHOR_MIN_SECONDS, BLOCK_RATES, CALIBRATION, FITS, NEEDS_OUT,
                                           OVERHEAD_BYTES, TOO_LARGE, calibrated_seconds, duration,
                                           evaluation_measured, plan_blocks, project)

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
    assert (p.seconds, p.basis) == calibrated_seconds(rules)
    # one blocked figure: the block plan's, from the per-level block rates
    from gops_solver.engine.projection import plan_blocks
    assert p.blocked_seconds == plan_blocks(rules).seconds


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
    # one set of per-level rates gives the CPU-hours, the time here and the cluster plans
    from gops_solver.game.encoding import full_space
    from gops_solver.engine.induction import set_work
    from gops_solver.engine.projection import (BLOCK_RATES, REFERENCE_RATES, STARTUP_SECONDS, block_rate,
                                               machine_speedup, plan_blocks)
    assert set(BLOCK_RATES) == set(itertools.product(("points", "win"), ("carry", "discard")))
    # measured rates need not fall with k (per-block costs weigh on small blocks, and the sure wins
    # thin the games as the level grows): beyond its levels a rule follows the whole run's shape,
    # and beyond the run's levels the projection only falls
    ref = [block_rate(k, *REFERENCE_RATES) for k in range(14)]
    ref_top = max(BLOCK_RATES[REFERENCE_RATES])
    assert all(a >= b for a, b in zip(ref[ref_top:], ref[ref_top + 1:])), ref
    for (objective, tie), measured in BLOCK_RATES.items():
        rates = [block_rate(k, objective, tie) for k in range(14)]
        assert all(rates[k] == measured[k] for k in measured)
        assert all(r > 0 for r in rates)
        top = max(measured)
        assert all(rates[k] == pytest.approx(rates[top] * ref[k] / ref[top]) for k in range(top, 14))
        rules = Rules(7, tie, objective)
        sp = full_space(rules)
        plan = plan_blocks(rules, sp)
        work = [set_work(sp, k) for k in range(8)]
        core_s = sum(float(w.sum()) / block_rate(k, objective, tie) for k, w in enumerate(work))
        assert plan.cpu_hours * 3600 == pytest.approx(core_s)
        assert plan.seconds == pytest.approx(STARTUP_SECONDS + core_s / machine_speedup())
        # with more workers than blocks a level takes as long as its largest block
        last = plan.clusters[-1]
        floor = sum(float(w.max()) / block_rate(k, objective, tie) for k, w in enumerate(work))
        assert last["seconds"] >= floor * (1 - 1e-12)
    assert machine_speedup(1) == 1.0 and machine_speedup(2) > 1.0


@pytest.mark.nojit
def test_every_block_rate_is_a_recorded_measurement():
    # the constants of projection.py are rows of benchmarks/results.json, with the command that measured them
    from pathlib import Path
    from gops_solver.engine.projection import BLOCK_RATES, MACHINE_SPEEDUP, REFERENCE_RATES
    rows = json.loads((Path(__file__).parent.parent / "benchmarks" / "results.json").read_text())["results"]
    got = {r["case"]: r for r in rows if r["measure"].startswith("positions settled per CPU-second (1 thread(s))")}
    run = {r["case"]: r for r in rows if r["measure"].startswith("positions settled per second, one process on 2 cores")
           and "left out" in r["measure"]}
    for (objective, tie), rates in BLOCK_RATES.items():
        for k, rate in rates.items():
            if (objective, tie) == REFERENCE_RATES:  # the whole run's blocks, over the speed-up of 2 cores
                row = run[f"n=13 {tie}/{objective} blocked, level {k}"]
                assert rate == pytest.approx(row["value"] * 1e6 / MACHINE_SPEEDUP, rel=0.01), (objective, tie, k)
                assert row["command"].startswith("python benchmarks/block_rates.py STORE --trim 10")
                continue
            row = got[f"n=13 {tie}/{objective} blocks, level {k}"]
            assert rate == pytest.approx(row["value"] * 1e6, rel=0.01), (objective, tie, k)
            assert row["command"].startswith(f"NUMBA_NUM_THREADS=1 python benchmarks/n13_blocks.py {tie} {objective}")
    # the speed-up of one process on both cores: the whole run's quiet levels 6 and 7 over one core's
    ratios = []
    for k in (6, 7):
        whole = [r for r in rows if r["case"] == f"n=13 discard/win blocked, level {k}"
                 and r["measure"] == "positions settled per second, one process on 2 cores (block solve times)"]
        assert whole, k
        ratios.append(whole[0]["value"] / got[f"n=13 discard/win blocks, level {k}"]["value"])
    assert MACHINE_SPEEDUP == pytest.approx(sum(ratios) / 2, abs=0.01)


@pytest.mark.parametrize("point", CALIBRATION, ids=lambda p: f"n{p[0]}-{p[1]}-{p[2]}-{p[3]}s")
def test_calibrated_projection_agrees_with_each_measured_solve(point):
    # every stored measurement, both runs where two were kept: within 25 %; solves mostly start-up
    # (under ANCHOR_MIN_SECONDS) are projected under that too
    n, tie, objective, seconds, command = point
    assert command.startswith(f"gops solve --cards {n} --tie {tie} --objective {objective}")
    assert "--memory" not in command
    projected, basis = calibrated_seconds(Rules(n, tie, objective))
    if seconds >= ANCHOR_MIN_SECONDS:
        assert projected == pytest.approx(seconds, rel=0.25)
    else:
        assert projected < ANCHOR_MIN_SECONDS
    assert basis.startswith(f"measured {tie}/{objective} memory solves")


def test_projection_grows_with_the_deck_and_says_when_it_extrapolates():
    for tie, objective in itertools.product(("carry", "discard"), ("points", "win")):
        times = [calibrated_seconds(Rules(n, tie, objective))[0] for n in range(4, 14)]
        assert all(a <= b for a, b in zip(times, times[1:])), (tie, objective, times)
        blocked = [plan_blocks(Rules(n, tie, objective)).seconds for n in range(4, 14)]
        assert all(a <= b for a, b in zip(blocked, blocked[1:])), (tie, objective, blocked)
    assert "extrapolated beyond n = 12" in calibrated_seconds(Rules(13, "discard", "win"))[1]
    assert "scaled down from n = 8" in calibrated_seconds(Rules(7, "carry", "win"))[1]


def test_each_projection_names_its_measurements_and_says_when_it_goes_beyond_them():
    import re
    for tie, objective in itertools.product(("carry", "discard"), ("points", "win")):
        measured = sorted({r[0] for r in CALIBRATION if r[1:3] == (tie, objective)})
        for n in range(4, 14):
            basis = calibrated_seconds(Rules(n, tie, objective))[1]
            assert basis.startswith(f"measured {tie}/{objective} memory solves, n = "), basis
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
    assert "measured discard/win memory solves, n = 8, n = 9, n = 10, n = 11, n = 12 | per-level rates of n = 13 blocks" in out.output


@pytest.mark.nojit
def test_block_rates_trim_leaves_out_only_the_stalled_blocks():
    # benchmarks/block_rates.py --trim F: a block whose solve sat out a pause measures the pause
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parent.parent / "benchmarks" / "block_rates.py"
    spec = importlib.util.spec_from_file_location("block_rates", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    blocks = [(100, 10, 1.0), (120, 12, 1.2), (90, 9, 0.9), (100, 10, 774.6), (110, 11, 9.9)]
    assert mod.trimmed(blocks, 10) == [b for b in blocks if b[2] != 774.6]
    assert mod.trimmed(blocks, None) == blocks and mod.trimmed([], 10) == []
