"""What exact evaluation and simulation share: the rules they take, the solution the
equilibrium strategy plays, the prize sequence the kernels read, and the kernels' status codes.
"""

from __future__ import annotations

import numpy as np

from gops_solver.game.rules import Rules
from gops_solver.analysis.strategies import CODE_EQUILIBRIUM, Strategy

def check_rules(rules):
    """Raise ``TypeError``/``ValueError`` unless :func:`evaluate` and :func:`simulate` take ``rules``."""
    if not isinstance(rules, Rules):
        raise TypeError("evaluate() takes a Rules object: evaluate('match', Rules(n=6))")
    if rules.match != "single":
        raise ValueError(f"evaluate and simulate play single games, not a {rules.match} match: drop --match")


def needs_solution(*specs) -> bool:
    """Whether one of the strategy specs (names or :class:`Strategy`) is the equilibrium."""
    return any(isinstance(s, str) and s.strip().lower() == "equilibrium" for s in specs) or \
        any(isinstance(s, Strategy) and s.code == CODE_EQUILIBRIUM for s in specs)


def solution_for(rules, solution, *specs):
    """The solution the ``equilibrium`` among ``specs`` plays (solved here if needed and not given)."""
    if solution is None and needs_solution(*specs):
        from gops_solver.api import solve
        solution = solve(rules)
    if solution is not None and getattr(getattr(solution, "rules", None), "players", 2) != 2:
        raise TypeError(f"evaluate and simulate play two-player games; this solution is of "
                        f"{solution.rules.players} players: use gops simulate --players {solution.rules.players}")
    if solution is not None and solution.rules != rules:
        raise ValueError(f"the solution is for {solution.rules.describe()}, not {rules.describe()}: "
                         f"pass a matching solution")
    return solution


_STATUS = {1: "the equilibrium tables lack a state", 2: "a stage game failed to solve",
           3: "a Python strategy's table lacks a decision", 4: "a successor value is missing"}


def check_status(st):
    """Raise ``RuntimeError`` for a non-zero status of an evaluation or simulation kernel."""
    if st != 0:
        raise RuntimeError(f"evaluation failed: {_STATUS.get(int(st), st)}; this is a bug, please report it")


def prize_sequence(rules):
    """The prize sequence of a fixed order for the kernels; empty for the random order."""
    return np.zeros(0, np.int64) if rules.random_order else np.asarray(rules.sequence, np.int64)
