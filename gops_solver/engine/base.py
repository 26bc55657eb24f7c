"""The one interface every engine's solution answers, and the result types it returns.

Classic games (:class:`~gops_solver.engine.solution.Solution`, matches and
tiebreak matches included), the two-player variants
(:class:`~gops_solver.variants.solution.VariantSolution`) and 3-4 players
(:class:`~gops_solver.multi.solution.MultiSolution`) all subclass
:class:`GameSolution`: callers ask ``rules``, ``value``, ``value_at``,
``query``, ``opening``, ``to_frame`` and ``save`` without knowing which
engine solved the game, and :func:`gops_solver.load` opens what ``save``
wrote. A call a game does not define (a two-player value of a three-player
game) raises one ``ValueError`` that says so.

This module imports nothing above :mod:`gops_solver.game`, so every engine can
subclass it without an import cycle.
"""

from __future__ import annotations

import abc
import itertools
from dataclasses import dataclass, field

import numpy as np

from gops_solver.game.constants import GUARANTEE_TOL

#: what :attr:`GameSolution.kind` and a solution file's header call each engine's solutions
KINDS = ("classic", "match", "variant", "multi", "blockstore", "top")


def _bid(key) -> tuple:
    """A strategy key as a bid tuple: ``3`` -> ``(3,)``, ``(3, 5)`` unchanged."""
    return tuple(key) if isinstance(key, tuple) else (int(key),)


@dataclass
class QueryResult:
    """Value and optimal bid distributions at one decision state, whatever engine answered.

    Attributes
    ----------
    value : float
        Value of the state for A (``points``: expected final margin including
        ``diff``; ``win``: P(A wins) - P(B wins); matches: the match value).
    strategy_a, strategy_b : dict
        Bid -> probability over every bid of the hand, as the engine plays
        them: a card (int) for the classic game, the ascending tuple of a
        bid's cards (``(3, 5)``, ``(4,)``) for the variants. :attr:`cards_a`
        and :attr:`bids_a` give the same distribution in one form for every
        engine.
    matrix : ndarray
        The stage game: rows A's classes (classic: interchangeable cards,
        :attr:`classes_a`) or bids (variants: the keys of ``strategy_a``),
        columns B's; in the units of ``value`` less ``offset``.
    state : DecisionState or None
        The validated state (classic engine).
    classes_a, classes_b : list of list of int or None
        Classic: the cards behind each row / column of ``matrix``; None
        where each row is one bid.
    offset : float
        What ``value`` adds to the stage game's value (``diff`` under points).
    choices : dict
        Open prizes: ``(bid_a, bid_b) -> prize`` the winner takes from the
        row (decisive bids only); empty elsewhere.
    """

    value: float
    strategy_a: dict
    strategy_b: dict
    matrix: np.ndarray = field(repr=False)
    state: object = field(repr=False, default=None)
    classes_a: list = field(repr=False, default=None)
    classes_b: list = field(repr=False, default=None)
    offset: float = field(repr=False, default=0.0)
    choices: dict = field(repr=False, default_factory=dict)

    # -- one form for every engine ---------------------------------------------------
    @property
    def bids_a(self) -> dict:
        """A's distribution keyed by bid tuples (``(c,)`` for a one-card bid), every engine alike."""
        return {_bid(k): float(p) for k, p in self.strategy_a.items()}

    @property
    def bids_b(self) -> dict:
        """B's distribution keyed by bid tuples, every engine alike."""
        return {_bid(k): float(p) for k, p in self.strategy_b.items()}

    @staticmethod
    def _cards(strategy) -> dict:
        out = {}
        for k, p in strategy.items():
            for c in _bid(k):
                out[c] = out.get(c, 0.0) + float(p)
        return dict(sorted(out.items()))

    @property
    def cards_a(self) -> dict:
        """Card -> probability that A's bid holds it, for every card in A's hand.

        The bid distribution card by card: with one-card bids exactly
        ``strategy_a`` (summing to 1); with two-card bids each card's share
        (summing to 2).
        """
        return self._cards(self.strategy_a)

    @property
    def cards_b(self) -> dict:
        """Card -> probability that B's bid holds it, for every card in B's hand."""
        return self._cards(self.strategy_b)

    def _rows(self, side):
        """The strategy keys behind each row (``a``) or column (``b``) of ``matrix``."""
        classes = self.classes_a if side == "a" else self.classes_b
        if classes is not None:
            return classes
        return [[k] for k in (self.strategy_a if side == "a" else self.strategy_b)]

    def payoffs_a(self) -> dict:
        """Expected value for A of each of A's bids against B's optimal mix.

        Returns
        -------
        dict
            Bid (a key of ``strategy_a``) -> ``matrix[row of bid] @ y + offset``
            where ``y`` is B's strategy summed over each column's bids; in the
            units of ``value``. Every bid in A's support earns ``value``.
        """
        y = np.array([sum(self.strategy_b[c] for c in cls) for cls in self._rows("b")])
        rows = self.matrix @ y + self.offset
        return {c: float(rows[i]) for i, cls in enumerate(self._rows("a")) for c in cls}

    def value_given_up(self, card) -> float:
        """Expected value A gives up by bidding ``card`` (a key of ``strategy_a``) against B's optimal mix.

        ``value - payoffs_a()[card]``: 0 for a bid in an optimal strategy's
        support, positive for a mistake. Differences within the solver's
        guarantee tolerance are reported as 0.

        Raises
        ------
        ValueError
            If ``card`` is not a bid of A's hand.
        """
        pay = self.payoffs_a()
        if card not in pay:
            raise ValueError(f"card {card} is not in A's hand {sorted(pay)}: choose one of those")
        gap = self.value - pay[card]
        # B's optimal mix holds every row to the value within GUARANTEE_TOL
        return 0.0 if gap <= GUARANTEE_TOL * max(1.0, abs(self.value)) else float(gap)

    def to_dict(self) -> dict:
        """JSON-ready form (card keys as strings)."""
        return {"value": float(self.value),
                "strategy_a": {str(c): float(p) for c, p in self.strategy_a.items()},
                "strategy_b": {str(c): float(p) for c, p in self.strategy_b.items()}}


@dataclass
class OpeningDecision:
    """The first decision after one possible first reveal.

    Attributes
    ----------
    pot : int
        What the first round is played for before the row: the revealed
        prize with one open prize, 0 with open prizes (they are in ``row``).
    row : tuple
        Open prizes: the face-up row after the first fill; ``()`` otherwise.
    prizes : tuple
        The prizes still face down.
    probability : float
        Chance of this reveal.
    result : QueryResult
        Value and both players' optimal first bids.
    """

    pot: int
    row: tuple
    prizes: tuple
    probability: float
    result: QueryResult


@dataclass
class Opening:
    """The first decision of a solved game: its value and both players' distributions per reveal.

    ``value`` is the game's value at the start, the probability-weighted mean
    of the decisions' values.
    """

    value: float
    decisions: list

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"value": float(self.value),
                "decisions": [{"pot": d.pot, "row": list(d.row), "prizes": list(d.prizes),
                               "probability": d.probability, **d.result.to_dict()} for d in self.decisions]}


def fold_row(rules, pot, prizes, row):
    """``pot`` for a query of a one-open-prize game given its row (the revealed prize).

    With one open prize the row after the fill is the revealed prize: ``row=[r]``
    with the carried pot in ``pot`` asks the state ``pot + r``, as the engines
    of one open prize take it. Returns ``pot`` unchanged when ``row`` is empty.

    Raises
    ------
    ValueError
        A row of other than one prize, or a prize both in the row and face down.
    """
    if row is None or (not isinstance(row, str) and len(row) == 0):
        return pot
    from gops_solver.game.cards import parse_cards
    from gops_solver.game.rules import _whole
    rw = parse_cards(row, rules.n, what="row")
    if len(rw) != 1:
        raise ValueError(f"the row holds {len(rw)} prizes; with one open prize it holds the revealed prize: "
                         f"give one prize in row (and the carried pot in pot)")
    if rw[0] in set(parse_cards(prizes, rules.n, what="prizes")):
        raise ValueError("a prize is both in the row and face down: list each prize once")
    return _whole(pot, "pot") + int(rw[0])


class GameSolution(abc.ABC):
    """A solved game, whatever engine solved it (see the module docstring).

    Attributes
    ----------
    rules : Rules
    kind : str
        ``classic``, ``match`` (a best-of match or session), ``variant``,
        ``multi`` or ``top`` (the first rounds of a classic game, from a
        top-levels file): the kind a saved file's header names.
    """

    rules = None
    kind = "classic"

    @property
    @abc.abstractmethod
    def value(self) -> float:
        """Value of the game for A at its start."""

    @abc.abstractmethod
    def query(self, hand_a, hand_b, pot, prizes=(), diff=0, **where) -> QueryResult:
        """Value and both players' optimal bids at a decision state.

        Every engine takes ``hand_a, hand_b, pot, prizes, diff`` and the
        keywords ``row`` (open prizes: the face-up row; one open prize: the
        revealed prize, ``pot`` then the carried pot only), ``stage_solver``,
        ``game`` and ``match_score`` (matches).
        """

    def value_at(self, hand_a, hand_b, pot, prizes=(), diff=0, **where) -> float:
        """Value of a decision state for A (the arguments of :meth:`query`)."""
        return float(self.query(hand_a, hand_b, pot, prizes, diff, **where).value)

    def opening(self) -> Opening:
        """The first decision: for each first reveal, its value and both players' optimal bids.

        A match answers for its first game from an even match score.
        """
        r = self.rules
        hand = tuple(range(1, r.n + 1))
        m = r.open_prizes
        deck = tuple(r.sequence) if not r.random_order else hand
        if m == 1:
            reveals = [((p,), tuple(c for c in deck if c != p)) for p in (deck if r.random_order else deck[:1])]
        else:
            rows = itertools.combinations(hand, m) if r.random_order else [tuple(sorted(deck[:m]))]
            reveals = [(row, tuple(c for c in deck if c not in row)) for row in rows]
        decisions = []
        for row, pile in reveals:
            if m == 1:
                res = self.query(hand, hand, row[0], pile, 0)
                decisions.append(OpeningDecision(row[0], (), pile, 1.0 / len(reveals), res))
            else:
                res = self.query(hand, hand, 0, pile, 0, row=row)
                decisions.append(OpeningDecision(0, row, pile, 1.0 / len(reveals), res))
        return Opening(float(self.value), decisions)

    @abc.abstractmethod
    def to_frame(self, rounds=None, **options):
        """The equilibrium at every reachable decision state of the first ``rounds`` rounds (pandas)."""

    @abc.abstractmethod
    def save(self, path) -> None:
        """Write the solution to ``path`` atomically; :func:`gops_solver.load` opens it."""
