"""What exact evaluation and simulation share: the rules they take, the solution the
equilibrium strategy plays, the prize sequence the kernels read, and the kernels' status codes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gops_solver.game.errors import InputValueError
from gops_solver.game.rules import Rules
from gops_solver.analysis.strategies import CODE_EQUILIBRIUM, Strategy

def check_rules(rules) -> str:
    """Raise ``TypeError``/``ValueError`` unless :func:`evaluate` and :func:`simulate` take ``rules``.

    Returns
    -------
    str
        ``classic`` (the jitted evaluation and simulation), ``variant``
        (two-card bids and open prizes: :mod:`._variant_matchup`) or ``match``
        (a session or best-of match of classic games: :mod:`._match_eval`).
    """
    if not isinstance(rules, Rules):
        raise TypeError("evaluate() takes a Rules object: evaluate('match', Rules(n=6))")
    if rules.players != 2:
        m = rules.players
        raise InputValueError(f"evaluate and simulate are defined for two players: they play two-player games, not "
                              f"players={m}; use MultiSolution.query or gops play --players {m}",
                              f"this is a {m}-player game: gops simulate --players {m} and gops play --players {m} "
                              f"play it (gops evaluate plays two-player games)")
    if rules.match != "single":
        return "match"  # a chain of classic games over match positions (:mod:`._match_eval`)
    return "classic" if rules.classic else "variant"


def needs_solution(*specs) -> bool:
    """Whether one of the strategy specs (names or :class:`Strategy`) is the equilibrium, or a strategy
    file that plays it."""
    from gops_solver.analysis.strategyfile import file_needs, is_strategy_file
    return any(isinstance(s, str) and s.strip().lower() == "equilibrium" for s in specs) or \
        any(isinstance(s, Strategy) and s.code == CODE_EQUILIBRIUM for s in specs) or \
        any(is_strategy_file(s) and file_needs(s) for s in specs)


def solution_for(rules, solution, *specs):
    """The solution the ``equilibrium`` among ``specs`` plays (solved here if needed and not given);
    a strategy file among them must be for ``rules``."""
    from gops_solver.analysis.strategyfile import file_needs, is_strategy_file
    for s in specs:
        if is_strategy_file(s):
            file_needs(s, rules)
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


@dataclass
class Outcome:
    """Exact figures of one match-up, from A's (the evaluated strategy's) side.

    Attributes
    ----------
    margin : float
        Expected final score A - B.
    win, draw, loss : float
        Probabilities that A wins, draws, loses.
    value : float
        Expected payoff under the objective (``margin`` or ``win - loss``).
    distribution : dict
        Final margin -> probability.
    """

    margin: float
    win: float
    draw: float
    loss: float
    value: float
    distribution: dict

    @classmethod
    def from_distribution(cls, dist, objective):
        """Figures of a final-margin distribution ``{margin: probability}`` under ``objective``."""
        margin = sum(m * p for m, p in dist.items())
        w = sum(p for m, p in dist.items() if m > 0)
        dr = sum(p for m, p in dist.items() if m == 0)
        lo = sum(p for m, p in dist.items() if m < 0)
        return cls(margin, w, dr, lo, margin if objective == "points" else w - lo, dict(sorted(dist.items())))

    def to_dict(self) -> dict:
        """JSON-ready figures (without the distribution)."""
        return {"margin": self.margin, "win": self.win, "draw": self.draw, "loss": self.loss, "value": self.value}


@dataclass
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    rules : Rules
    strategy, against : str
    vs_opponent : Outcome
        The strategy (seat A) against ``against`` (seat B).
    vs_best_response : Outcome
        The strategy against its best response (B maximising its own
        objective: minimising A's ``value``).
    game_value : float
        Value of the game (0: the game is symmetric).
    exploitability : float
        ``game_value - vs_best_response.value`` (>= 0): what a best
        responder takes from the strategy beyond what the equilibrium concedes.
    seconds : float
    """

    rules: Rules
    strategy: str
    against: str
    vs_opponent: Outcome
    vs_best_response: Outcome
    game_value: float
    exploitability: float
    seconds: float

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"rules": self.rules.to_dict(), "strategy": self.strategy, "against": self.against,
                "vs_opponent": self.vs_opponent.to_dict(), "vs_best_response": self.vs_best_response.to_dict(),
                "game_value": self.game_value, "exploitability": self.exploitability,
                "seconds": round(self.seconds, 3)}


@dataclass
class Simulation:
    """Result of :func:`simulate`: sample means with 95% confidence intervals.

    Intervals are normal approximations: ``mean +- 1.96 * sd / sqrt(games)``
    for the margin, ``p +- 1.96 * sqrt(p (1 - p) / games)`` for the rates.
    """

    rules: Rules
    a: str
    b: str
    games: int
    seed: int
    margin: float
    margin_ci: tuple
    win: float
    win_ci: tuple
    draw: float
    draw_ci: tuple
    loss: float
    loss_ci: tuple
    seconds: float

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"rules": self.rules.to_dict(), "a": self.a, "b": self.b, "games": self.games, "seed": self.seed,
                "margin": self.margin, "margin_ci": list(self.margin_ci), "win": self.win, "win_ci": list(self.win_ci),
                "draw": self.draw, "draw_ci": list(self.draw_ci), "loss": self.loss, "loss_ci": list(self.loss_ci),
                "seconds": round(self.seconds, 3)}
