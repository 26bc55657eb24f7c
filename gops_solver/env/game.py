"""The rounds of one Goofspiel game over actual cards, for the agent environments.

One :class:`Table` holds the rules' mechanics (docs/rules.md): two players
under every tie rule, objective and prize order, two-card bids, and three or
four players. A round reveals a prize; every player bids (one card, or a
pair under ``bid_cards=2``, a player left with one card bidding it alone);
the single highest bid (a pair's sum) takes the pot; a shared highest bid is
a tie, which carries the pot under ``carry`` (a tie in the last round throws
it away) and throws it away under ``discard``.

Actions are integers: ``a < n`` bids the single card ``a + 1``; under
``bid_cards=2`` the actions ``n, n + 1, ...`` are the pairs ``(i, j)``,
``i < j``, in ascending order (:meth:`Table.bid_of`).

A fresh game draws its prize order as ``rng.permutation(n) + 1`` (nothing
is drawn under a fixed order), the draw ``gops simulate`` makes for a
game, so the same generator gives the same games.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from gops_solver.game.cards import format_cards
from gops_solver.game.rules import Rules

#: seat names, in seat order (the command line's --a, --b, --c, --d)
SEATS = ("a", "b", "c", "d")


def check_env_rules(rules: Rules) -> Rules:
    """Refuse, in one line, rules the environments do not play (matches, open prizes)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, not {type(rules).__name__}: pass the keywords n, tie, objective, "
                        f"order, bid_cards, players")
    if rules.match != "single":
        raise ValueError(f"the environments play single games, not a {rules.match} match: use match single and "
                         f"play the match's games one by one")
    if rules.open_prizes != 1:
        raise ValueError(f"open_prizes={rules.open_prizes} is not played in the environments (the winner's choice "
                         f"of prize is a second kind of move): use open_prizes 1")
    return rules


@dataclass
class GameState:
    """A game in progress, at a decision (after the reveal) or at its end.

    Attributes
    ----------
    hands : list of tuple
        Each seat's cards, ascending.
    order : tuple
        The prizes in the order they are revealed.
    round : int
        Rounds played (0-based index of the current one).
    carry : int
        Pot carried from ties before this round.
    scores : list of int
        Points each seat took.
    history : list of tuple
        Each round played: ``(prize, pot, bids)`` with ``bids`` one tuple of cards per seat.
    """

    hands: list
    order: tuple
    round: int = 0
    carry: int = 0
    scores: list = field(default_factory=list)
    history: list = field(default_factory=list)


class Table:
    """The mechanics of one set of rules (see the module docstring)."""

    def __init__(self, rules: Rules):
        self.rules = check_env_rules(rules)
        n = rules.n
        self.n = n
        self.players = rules.players
        self.seats = SEATS[:rules.players]
        self.rounds = n if rules.bid_cards == 1 else (n + 1) // 2
        self.bids = [(c,) for c in range(1, n + 1)]
        if rules.bid_cards == 2:
            self.bids += list(itertools.combinations(range(1, n + 1), 2))
        self._index = {b: i for i, b in enumerate(self.bids)}
        self.total = rules.total

    @property
    def num_actions(self) -> int:
        """Size of the action space (single cards, then pairs under two-card bids)."""
        return len(self.bids)

    def bid_of(self, action) -> tuple:
        """The cards of an action, ascending."""
        return self.bids[int(action)]

    def action_of(self, bid) -> int:
        """The action of a bid: a card, or a pair of cards (any order)."""
        key = tuple(sorted(bid)) if isinstance(bid, (tuple, list)) else (int(bid),)
        return self._index[key]

    def new_game(self, rng) -> GameState:
        """A fresh game; a random order is drawn as ``rng.permutation(n) + 1``."""
        seq = self.rules.sequence
        order = tuple(int(c) for c in (seq if seq is not None else rng.permutation(self.n) + 1))
        full = tuple(range(1, self.n + 1))
        return GameState([full] * self.players, order, scores=[0] * self.players)

    def over(self, st: GameState) -> bool:
        return st.round >= self.rounds

    def prize(self, st: GameState) -> int:
        """This round's revealed prize (0 when the game is over)."""
        return 0 if self.over(st) else st.order[st.round]

    def pot(self, st: GameState) -> int:
        """What this round is played for: the revealed prize plus the carried pot (0 when over)."""
        return 0 if self.over(st) else st.carry + st.order[st.round]

    def hidden(self, st: GameState) -> tuple:
        """The prizes still face down after this round's reveal, ascending."""
        return tuple(sorted(st.order[st.round + 1:])) if not self.over(st) else ()

    def legal(self, hand) -> list:
        """The bids a hand may make: pairs under two-card bids (a lone card alone), else single cards."""
        size = min(self.rules.bid_cards, len(hand))
        return list(itertools.combinations(hand, size)) if size else []

    def mask(self, hand) -> np.ndarray:
        """The action mask of a hand (int8, 1 for a legal action)."""
        out = np.zeros(self.num_actions, np.int8)
        for b in self.legal(hand):
            out[self._index[b]] = 1
        return out

    def describe(self, st: GameState, seat: int) -> str:
        """One line naming a seat's decision, for error messages."""
        return (f"round {st.round + 1}/{self.rounds}, pot {self.pot(st)}, seat {self.seats[seat].upper()} hand "
                f"{format_cards(st.hands[seat])}")

    def check_bid(self, st: GameState, seat: int, action) -> tuple:
        """The bid of ``action`` for ``seat``; ValueError (one line, naming the state) if it is not legal."""
        try:
            a = int(action)
            if a != action or isinstance(action, bool):
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"action {action!r} of seat {self.seats[seat].upper()} is not an action index "
                             f"(at {self.describe(st, seat)}): give an integer 0..{self.num_actions - 1}") from None
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} of seat {self.seats[seat].upper()} is outside 0..{self.num_actions - 1} "
                             f"(at {self.describe(st, seat)}): choose an action the mask allows")
        bid = self.bids[a]
        if bid not in self.legal(st.hands[seat]):
            raise ValueError(f"seat {self.seats[seat].upper()} cannot bid {'+'.join(map(str, bid))} at "
                             f"{self.describe(st, seat)}: choose an action the mask allows")
        return bid

    def play(self, st: GameState, bids) -> list:
        """Play one round with ``bids`` (one legal bid per seat); returns each seat's points taken.

        ``st`` is modified in place.
        """
        pot = self.pot(st)
        strength = [sum(b) for b in bids]
        top = max(strength)
        winners = [i for i, s in enumerate(strength) if s == top]
        gained = [0] * self.players
        last = st.round == self.rounds - 1
        st.history.append((st.order[st.round], pot, tuple(tuple(b) for b in bids)))
        if len(winners) == 1:
            gained[winners[0]] = pot
            st.scores[winners[0]] += pot
            st.carry = 0
        else:
            st.carry = pot if (self.rules.tie == "carry" and not last) else 0
        st.hands = [tuple(c for c in h if c not in b) for h, b in zip(st.hands, bids)]
        st.round += 1
        if self.over(st):
            st.carry = 0
        return gained

    def step_rewards(self, st: GameState, gained) -> list:
        """Each seat's reward for a round just played (:meth:`play`'s ``gained``).

        ``points``: two players, the change of one's margin (own points minus the
        opponent's); three and four players, one's own points (their payoff is
        one's final score). ``win``: 0 until the end, then the game's payoff.
        """
        if self.rules.objective == "points":
            if self.players == 2:
                return [float(gained[0] - gained[1]), float(gained[1] - gained[0])]
            return [float(g) for g in gained]
        return self.payoffs(st) if self.over(st) else [0.0] * self.players

    def payoffs(self, st: GameState) -> list:
        """Each seat's payoff of a finished game (docs/rules.md): the margin or +-1/0 with two players;
        with three or four, the own score, or 1 shared among the highest scores under ``win``."""
        s = st.scores
        if self.players == 2:
            d = s[0] - s[1]
            if self.rules.objective == "points":
                return [float(d), float(-d)]
            return [float(np.sign(d)), float(-np.sign(d))]
        if self.rules.objective == "points":
            return [float(x) for x in s]
        best = max(s)
        share = 1.0 / s.count(best)
        return [share if x == best else 0.0 for x in s]
