"""Adaptive play: exploit a modelled opponent, risking only what its mistakes have given.

A session plays games one after another. Before each game the opponent's
model is refitted to the games so far, and a response is chosen among the
candidates (the equilibrium, the response that exploits the model among the
equilibrium's own optimal mixtures, and restricted responses R(P)), each
with its exact exploitability.

Safety (after Ganzfried and Sandholm's "risk what you've won"): the
session keeps a budget,

    budget = gifts collected in safe games - exploitability of every risky game played,

and plays a risky response only when its exploitability is at most the
budget. A *safe* game is one played with a strategy of exploitability 0; in
it, every round's *gift* is

    gift = sum_a x(a) * M(a, b) - V,

where ``x`` is the mixture played, ``b`` the opponent's actual bid, ``M``
the equilibrium's stage game (immediate points plus the equilibrium value
of what follows) and ``V`` its value. ``x`` is optimal in ``M``, so a gift
is never negative, and the gifts of a game add up, in expectation over the
prizes and both players' randomness, to the game's result minus the game
value. A risky game loses at most its exploitability in expectation. Hence
the expected total of a session is at least its number of games times the
game value, whatever the opponent does, and the budget never goes below 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gops_solver.game.constants import GUARANTEE_TOL, SAFE_TOL
from gops_solver.analysis.play import Game
from gops_solver.analysis.strategies import View


def round_gift(query, x: dict, bid_b: int) -> float:
    """What one round gives A beyond the state's value: ``sum_a x(a) M(a, bid_b) - V``.

    Parameters
    ----------
    query : QueryResult
        The equilibrium's answer at the round's decision state (its stage
        matrix, classes and value).
    x : dict
        A's mixture at the state, card -> probability.
    bid_b : int
        B's actual bid.

    Returns
    -------
    float
        The gift; at least ``-GUARANTEE_TOL`` when ``x`` is optimal in the stage game.
    """
    cols = query.classes_b if query.classes_b is not None else [[c] for c in query.strategy_b]
    rows = query.classes_a if query.classes_a is not None else [[c] for c in query.strategy_a]
    j = next(i for i, cls in enumerate(cols) if bid_b in cls)
    xr = np.array([sum(x.get(c, 0.0) for c in cls) for cls in rows])
    return float(xr @ query.matrix[:, j] + query.offset - query.value)


def game_gifts(opponent, game: Game, strategy) -> list:
    """The gift of each round of a finished ``game`` in which A played ``strategy``.

    ``opponent`` is an :class:`~gops_solver.analysis.play.Opponent` (the
    equilibrium's stage games); the game is replayed round by round.
    """
    replay = Game(game.rules, game.prize_order)
    out = []
    for r in game.history:
        st = replay.state()
        x = strategy.distribution(View(tuple(st.hand_a), tuple(st.hand_b), st.pot, tuple(sorted(st.prizes)),
                                       st.diff), game.rules.n)
        out.append(round_gift(opponent.query(replay), x, r.bid_b))
        replay.play(r.bid_a, r.bid_b)
    return out


@dataclass(frozen=True)
class Candidate:
    """A response A may play in the next game, with its exact figures against the current model."""

    label: str
    strategy: object
    gain: float
    exploitability: float

    @property
    def safe(self) -> bool:
        """Whether the response is an equilibrium strategy (exploitability 0)."""
        return self.exploitability <= SAFE_TOL


@dataclass(frozen=True)
class GameReport:
    """One game of a session: what was played, what it risked, what it gave."""

    game: int
    played: str
    risk: float
    budget_before: float
    gifts: float
    margin: int
    outcome: int


@dataclass
class Budget:
    """The safe-exploitation budget (see the module docstring)."""

    gifts: float = 0.0
    spent: float = 0.0

    @property
    def left(self) -> float:
        """What the next game may risk: safe gifts less risk already taken (never below 0)."""
        return max(0.0, self.gifts - self.spent)

    def choose(self, candidates) -> Candidate:
        """The candidate of largest gain among those whose exploitability is within :attr:`left`."""
        allowed = [c for c in candidates if c.safe or c.exploitability <= self.left + GUARANTEE_TOL]
        if not allowed:
            raise ValueError("no safe candidate: the equilibrium must be among the candidates")
        return max(allowed, key=lambda c: (c.gain, -c.exploitability))

    def settle(self, chosen: Candidate, gifts: float) -> None:
        """Book a finished game: a safe game adds its gifts, a risky one spends its exploitability."""
        if chosen.safe:
            self.gifts += gifts
        else:
            self.spent += chosen.exploitability


@dataclass
class SessionSummary:
    """What a session gained over the equilibrium and what it risked."""

    game_value: float
    games: list = field(default_factory=list)
    objective: str = "points"

    @property
    def total(self) -> float:
        """A's summed result: margins under ``points``, outcomes (+1/0/-1) under ``win``."""
        return float(sum(g.margin if self.objective == "points" else g.outcome for g in self.games))

    @property
    def gained(self) -> float:
        """Total result minus what the equilibrium guarantees over the same games."""
        return self.total - self.game_value * len(self.games)

    @property
    def risk_taken(self) -> float:
        """Summed exploitability of the risky games (an upper bound on what they could lose in expectation)."""
        return float(sum(g.risk for g in self.games))

    @property
    def gifts(self) -> float:
        """Gifts collected in the safe games."""
        return float(sum(g.gifts for g in self.games if g.risk == 0.0))


#: restricted responses tried in each game besides the equilibrium and the safe response
DEFAULT_GRID = (0.25, 0.5, 0.75, 1.0)


def candidates(rules, model, solution, grid=DEFAULT_GRID) -> list:
    """The equilibrium, the safe response and R(P) for ``P`` in ``grid``, with exact gain and exploitability.

    Parameters
    ----------
    rules : Rules
    model : Strategy
        The opponent's current model (it sits in seat B of the computation).
    solution : Solution
        The game's solution (the equilibrium, its value).
    grid : sequence of float

    Returns
    -------
    list of Candidate
    """
    from gops_solver.analysis.evaluate import evaluate
    from gops_solver.analysis.strategies import make_strategy
    from gops_solver.opponent.response import exploit
    eq = make_strategy("equilibrium", solution)
    ev = evaluate(eq, rules, against=model, solution=solution)
    out = [Candidate("equilibrium", eq, float(ev.vs_opponent.value), 0.0)]
    safe = exploit(rules, model, risk=0.0, solution=solution).response
    out.append(Candidate("safe response", safe.strategy, safe.gain, max(0.0, safe.exploitability)))
    if grid:
        for pt in exploit(rules, model, curve=list(grid), solution=solution).curve:
            out.append(Candidate(f"R({pt.p:g})", pt.strategy, pt.gain, max(0.0, pt.exploitability)))
    return out


class AdaptivePlayer:
    """A player that refits its model of the opponent between games and exploits it safely.

    Parameters
    ----------
    rules : Rules
        A classic two-player single game.
    solution : Solution, optional
        Its solution (solved here when not given).
    seat : {"a", "b"}
        The seat the adaptive player takes; the opponent takes the other.
    kind : {"mixture", "tabular", "auto"}
        The model fitted to the opponent's games (:func:`~gops_solver.opponent.fit.fit_model`).
    grid : sequence of float
        The weights P of the restricted responses considered in each game.
    min_games : int
        Games played with the equilibrium before the first fit.
    """

    def __init__(self, rules, solution=None, seat="a", kind="mixture", grid=DEFAULT_GRID, min_games=2):
        from gops_solver.analysis._common import check_rules
        from gops_solver.analysis.play import Opponent
        from gops_solver.opponent.response import check_exploit_rules
        check_rules(rules)
        check_exploit_rules(rules)
        if seat not in ("a", "b"):
            raise ValueError(f"seat {seat!r}: the adaptive player sits in a or b")
        if solution is None:
            from gops_solver.api import solve
            solution = solve(rules)
        self.rules, self.solution, self.seat = rules, solution, seat
        self.kind, self.grid, self.min_games = kind, tuple(grid), int(min_games)
        self.budget = Budget()
        self.records = []
        self.model = None
        self._oracle = Opponent(rules, solution)
        from gops_solver.analysis.strategies import make_strategy
        self._eq = Candidate("equilibrium", make_strategy("equilibrium", solution), float(solution.value), 0.0)
        self.choice = self._eq
        self.summary = SessionSummary(float(solution.value), objective=rules.objective)

    def plan(self) -> Candidate:
        """Choose the response for the next game: refit the model, then pick within the budget."""
        from gops_solver.opponent.fit import fit_model
        if len(self.records) < self.min_games:
            self.choice = self._eq
            return self.choice
        them = "b" if self.seat == "a" else "a"
        self.model = fit_model(self.records, player=them, kind=self.kind, folds=min(5, len(self.records)),
                               solution=self.solution)
        self.choice = self.budget.choose(candidates(self.rules, self.model.strategy(self.solution), self.solution,
                                                    self.grid))
        return self.choice

    def distribution(self, game: Game) -> dict:
        """The chosen response's bid distribution at ``game``'s current state, from this player's seat."""
        st = game.state()
        mine, theirs = (st.hand_a, st.hand_b) if self.seat == "a" else (st.hand_b, st.hand_a)
        diff = st.diff if self.seat == "a" else -st.diff
        return self.choice.strategy.distribution(View(tuple(mine), tuple(theirs), st.pot, tuple(sorted(st.prizes)),
                                                      diff), self.rules.n)

    def finish(self, game: Game) -> GameReport:
        """Book a finished game: its gifts, the budget, the record the next fit reads."""
        from gops_solver.opponent.records import GameRecord
        gifts = sum(self._gifts(game))
        before = self.budget.left
        self.budget.settle(self.choice, gifts)
        h = game.history
        sa, sb = [], []
        a = b = 0
        for r in h:
            a += r.pot if r.outcome > 0 else 0
            b += r.pot if r.outcome < 0 else 0
            sa.append(a)
            sb.append(b)
        me, them = ("adaptive", "opponent") if self.seat == "a" else ("opponent", "adaptive")
        self.records.append(GameRecord(self.rules, me, them, tuple(r.prize for r in h), tuple(r.pot for r in h),
                                       tuple(r.bid_a for r in h), tuple(r.bid_b for r in h), tuple(sa), tuple(sb)))
        margin = game.diff if self.seat == "a" else -game.diff
        report = GameReport(len(self.summary.games) + 1, self.choice.label,
                            0.0 if self.choice.safe else self.choice.exploitability, before, gifts, margin,
                            int(np.sign(margin)))
        self.summary.games.append(report)
        return report

    def _gifts(self, game: Game) -> list:
        """Per-round gifts of ``game`` from this player's seat."""
        if self.seat == "a":
            return game_gifts(self._oracle, game, self.choice.strategy)
        return game_gifts(self._oracle, _swapped(game), self.choice.strategy)


def _swapped(game: Game) -> Game:
    """``game`` replayed with the seats exchanged (the game is symmetric: same cards, same prizes)."""
    out = Game(game.rules, game.prize_order)
    for r in game.history:
        out.play(r.bid_b, r.bid_a)
    return out


def adaptive_session(rules, opponent, games: int = 20, seed: int = 0, solution=None, kind: str = "mixture",
                     grid=DEFAULT_GRID, min_games: int = 2, progress=None) -> SessionSummary:
    """Play a session of adaptive safe exploitation (seat A) against a strategy (seat B).

    Parameters
    ----------
    rules : Rules
        A classic two-player single game.
    opponent : str or Strategy
        Any :func:`~gops_solver.analysis.strategies.make_strategy` spec: the opponent's true strategy,
        unknown to the adaptive player, which only sees its bids.
    games : int
        Games in the session.
    seed : int
        Seed of the deals and of both players' draws.
    solution : Solution, optional
    kind, grid, min_games
        See :class:`AdaptivePlayer`.
    progress : callable, optional
        Called with each game's :class:`GameReport`.

    Returns
    -------
    SessionSummary
        Per game: the response played, the risk it took, the budget before it, its gifts and result;
        in all: what was gained over the game value and the risk taken.
    """
    from gops_solver.analysis.play import Opponent, deal
    from gops_solver.analysis.strategies import make_strategy
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games={games!r} must be a whole number >= 1")
    player = AdaptivePlayer(rules, solution, "a", kind, grid, min_games)
    opp = make_strategy(opponent, player.solution)
    rng = np.random.default_rng(seed)
    for _ in range(int(games)):
        player.plan()
        game = deal(rules, rng)
        while not game.over:
            x = player.distribution(game)
            st = game.state()
            y = opp.distribution(View(tuple(st.hand_b), tuple(st.hand_a), st.pot, tuple(sorted(st.prizes)), -st.diff),
                                 rules.n)
            game.play(Opponent.draw(x, rng), Opponent.draw(y, rng))
        report = player.finish(game)
        if progress is not None:
            progress(report)
    return player.summary

