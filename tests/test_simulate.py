"""Simulation: seeded, and agreeing with the exact figures of evaluate."""

import pytest

from gops_solver import Rules, solve
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.simulate import simulate


def test_simulation_is_seeded_and_agrees_with_exact_figures():
    rules = Rules(5, "carry", "points")
    sol = solve(rules)
    exact = evaluate("match", rules, against="equilibrium", solution=sol).vs_opponent
    sim = simulate("match", "equilibrium", rules, 40_000, seed=11, solution=sol)
    assert sim.to_dict() == {**simulate("match", "equilibrium", rules, 40_000, seed=11, solution=sol).to_dict(),
                             "seconds": sim.to_dict()["seconds"]}
    assert simulate("match", "equilibrium", rules, 1000, seed=12, solution=sol).margin != \
        simulate("match", "equilibrium", rules, 1000, seed=11, solution=sol).margin
    for name in ("margin", "win", "draw", "loss"):
        lo, hi = getattr(sim, name + "_ci")
        assert lo <= getattr(exact, name) <= hi, name
    # the intervals are not vacuous: about 1.96 standard errors wide
    assert sim.win_ci[1] - sim.win_ci[0] < 0.02


@pytest.mark.parametrize("order", ["descending", "3,5,1,4,2"])
def test_fixed_order_simulation_agrees_with_exact_figures(order):
    rules = Rules(5, "carry", "win", order)
    sol = solve(rules)
    exact = evaluate("uniform", rules, against="equilibrium", solution=sol).vs_opponent
    sim = simulate("uniform", "equilibrium", rules, 40_000, seed=5, solution=sol)
    for name in ("margin", "win", "draw", "loss"):
        lo, hi = getattr(sim, name + "_ci")
        assert lo <= getattr(exact, name) <= hi, name
    # from Python (a user strategy in seat A) the same fixed order is played
    py = simulate("stratfuncs:uniform_by_value", "equilibrium", rules, 3_000, seed=5, solution=sol)
    assert py.margin_ci[0] <= exact.margin <= py.margin_ci[1]


def test_python_simulation_path_seeded():
    rules = Rules(4, "discard", "points")
    a = simulate("stratfuncs:lowest_as_list", "match", rules, 3000, seed=5)
    b = simulate("stratfuncs:lowest_as_list", "match", rules, 3000, seed=5)
    assert (a.margin, a.win, a.draw) == (b.margin, b.win, b.draw)
    exact = evaluate("lowest", rules, against="match").vs_opponent
    assert a.margin_ci[0] <= exact.margin <= a.margin_ci[1]


@pytest.mark.nojit
@pytest.mark.parametrize("tie", ["carry", "discard"])
def test_deterministic_play_reproduces_the_exact_margin(tie):
    # a fixed prize order and two deterministic strategies: every game is the same game, so the
    # simulated margin is the exact one (small enough for the NUMBA_DISABLE_JIT pass)
    rules = Rules(4, tie, "points", "descending")
    exact = evaluate("highest", rules, against="lowest").vs_opponent
    sim = simulate("highest", "lowest", rules, 20, seed=1)
    assert sim.margin == exact.margin and sim.win == exact.win and sim.draw == exact.draw
