"""Golden values that depend on WHICH optimal strategy the equilibrium plays.

A stage game often has many optimal strategies; the equilibrium plays the one
picked by the deterministic pivoting rule of the project's own simplex
(:mod:`gops_solver.lp.stage`, documented there and in docs/equilibrium.md).
The game's value does not depend on that choice, but every figure below
does: a heuristic's margin against the equilibrium, a seeded simulation, the
opening mix. A change to the stage solver that moves the choice fails these
tests. Changing a pin is a decision, not a refresh: record the new rule in
docs/equilibrium.md and regenerate the docs' outputs with it.

Exact values (computed by exact enumeration, or a fixed-seed sample mean)
are compared with ``EXACT = 1e-9``.
"""

import json
import subprocess
import sys

import pytest

from gops_solver import Rules, solve
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.opening import opening
from gops_solver.analysis.simulate import simulate

EXACT = 1e-9


def test_match_against_the_equilibrium_at_8_cards_discard():
    # Pinned: changing it is a decision to record in docs/equilibrium.md.
    # `gops evaluate --strategy match --cards 8 --tie discard` prints -0.336061.
    e = evaluate("match", Rules(8, tie="discard"))
    assert e.vs_opponent.margin == pytest.approx(-0.336060947078027, abs=EXACT)
    # the value of the game does not depend on the choice
    assert abs(e.game_value) <= EXACT


@pytest.mark.parametrize("n, margin", [
    # Pinned: changing them is a decision to record in docs/equilibrium.md.
    (5, -2.7642457830229272),
    (6, -3.7049633919996796),
])
def test_uniform_against_the_equilibrium(n, margin):
    assert evaluate("uniform", Rules(n)).vs_opponent.margin == pytest.approx(margin, abs=EXACT)


def test_seeded_simulation_mean():
    # Pinned: changing it is a decision to record in docs/equilibrium.md.
    # The mean of 20,000 games with seed 1 is a multiple of 1/20,000: exact.
    rules = Rules(6, tie="discard")
    r = simulate("match", "equilibrium", rules, 20000, seed=1, solution=solve(rules))
    assert r.margin == pytest.approx(-0.32975, abs=EXACT)


def test_opening_distribution_at_6_cards():
    # Pinned: changing it is a decision to record in docs/equilibrium.md.
    # A's first bid against each first prize of the 6-card game (tie carry).
    rows = dict(opening(solve(Rules(6))))
    assert rows[1] == pytest.approx({1: 1.0, 2: 0.0, 3: 0.0, 4: 0.0, 5: 0.0, 6: 0.0}, abs=EXACT)
    assert rows[2] == pytest.approx({1: 0.3651478613120159, 2: 0.16294675291265648, 3: 0.4719053857753276,
                                     4: 0.0, 5: 0.0, 6: 0.0}, abs=EXACT)
    assert rows[4] == pytest.approx({1: 0.1266728814538292, 2: 0.09934720253386285, 3: 0.2219526387635875,
                                     4: 0.20578052905147476, 5: 0.3462467481972456, 6: 0.0}, abs=EXACT)
    assert rows[6][6] == pytest.approx(0.6072058059307871, abs=EXACT)
    assert rows[6][5] == 0.0


def test_two_card_bids_uniform_against_the_equilibrium():
    # Pinned: changing it is a decision to record in docs/equilibrium.md.
    # `gops evaluate -n 5 --bid-cards 2 --strategy uniform` (the variants' engine).
    out = subprocess.run([sys.executable, "-m", "gops_solver", "evaluate", "-n", "5", "--bid-cards", "2",
                          "--strategy", "uniform", "-q", "--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["vs_opponent"]["margin"] == pytest.approx(-2.476248429873772, abs=EXACT)
    # against its best reply the figure does not depend on the equilibrium's choice
    assert doc["vs_best_response"]["margin"] == pytest.approx(-3.0377777777777792, abs=EXACT)
