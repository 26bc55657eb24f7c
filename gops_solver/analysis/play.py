"""Playing Goofspiel against the equilibrium: game state, scoring and the opponent.

The rules of a round are those of docs/rules.md ("A round", "Tie rules"): the pot
is the revealed prize plus whatever ties carried; the higher bid takes it;
a tie carries it (``carry``, except in the last round, where it is
discarded) or discards it (``discard``). :class:`Game` applies them and
keeps the record a person sees; :class:`Opponent` answers, for any decision
state, the equilibrium (value, both strategies, the stage matrix) and draws
B's bid from it. :class:`Match` keeps the score between the games of a
match (docs/rules.md "Match formats"). ``gops play`` (cli/commands.py) only reads bids and
prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gops_solver.game.rules import SESSION_GAMES, Rules, validate_state
from gops_solver.engine.solution import QueryResult, Solution, query_state

#: Largest deck for which each round's stage game is solved from its sub-game
#: (well under a second per round, measured); larger decks solve once up front.
SUBGAME_MAX_N = 8


@dataclass(frozen=True)
class RoundResult:
    """What one round did.

    Attributes
    ----------
    round : int
        1-based round number.
    prize : int
        The prize revealed this round.
    carried_in : int
        Pot carried into this round by earlier ties.
    pot : int
        ``prize + carried_in``.
    bid_a, bid_b : int
    outcome : int
        +1 A took the pot, -1 B took it, 0 tie.
    carried_out : int
        Pot left on the table for the next round (a tie under ``carry``
        before the last round), else 0.
    discarded : int
        Pot that went to nobody (a tie under ``discard``, or in the last round).
    last_round : bool
    """

    round: int
    prize: int
    carried_in: int
    pot: int
    bid_a: int
    bid_b: int
    outcome: int
    carried_out: int
    discarded: int
    last_round: bool


@dataclass
class Game:
    """One game in progress, with the prizes' true order fixed at the deal.

    Parameters
    ----------
    rules : Rules
    prize_order : sequence of int
        The order the prizes will be revealed (drawn for a random order; the
        public order otherwise). Players never see the hidden part.

    Attributes
    ----------
    hand_a, hand_b : list of int
        Remaining bid cards, sorted.
    used_a, used_b : list of int
        Bids already played, in play order.
    score_a, score_b : int
    carry : int
        Pot carried into the current round.
    history : list of RoundResult
    """

    rules: Rules
    prize_order: tuple
    hand_a: list = field(init=False)
    hand_b: list = field(init=False)
    used_a: list = field(init=False, default_factory=list)
    used_b: list = field(init=False, default_factory=list)
    score_a: int = field(init=False, default=0)
    score_b: int = field(init=False, default=0)
    carry: int = field(init=False, default=0)
    history: list = field(init=False, default_factory=list)

    def __post_init__(self):
        n = self.rules.n
        order = tuple(int(p) for p in self.prize_order)
        if sorted(order) != list(range(1, n + 1)):
            raise ValueError(f"prize order {order} is not a permutation of 1..{n}: deal every prize once")
        if not self.rules.random_order and order != self.rules.sequence:
            raise ValueError(f"prize order {order} differs from the public order {self.rules.order_name}")
        self.prize_order = order
        self.hand_a = list(range(1, n + 1))
        self.hand_b = list(range(1, n + 1))

    @property
    def round(self) -> int:
        """1-based number of the current round (n + 1 once the game is over)."""
        return len(self.history) + 1

    @property
    def over(self) -> bool:
        """True after the last round."""
        return not self.hand_a

    @property
    def prize(self) -> int:
        """The prize revealed this round."""
        return self.prize_order[len(self.history)]

    @property
    def pot(self) -> int:
        """Points at stake this round: the revealed prize plus the carried pot."""
        return self.prize + self.carry

    @property
    def hidden(self) -> tuple:
        """Prizes still face down: sorted for a random order, in reveal order for a fixed one."""
        rest = self.prize_order[len(self.history) + 1:]
        return tuple(sorted(rest)) if self.rules.random_order else rest

    @property
    def diff(self) -> int:
        """Score A - score B."""
        return self.score_a - self.score_b

    def state(self):
        """The current :class:`~.rules.DecisionState` (what both players know)."""
        return validate_state(self.rules, self.hand_a, self.hand_b, self.pot, self.hidden, self.diff)

    def play(self, bid_a: int, bid_b: int) -> RoundResult:
        """Reveal both bids and score the round.

        Raises
        ------
        ValueError
            If the game is over or a bid is not in its player's hand; the
            game is left unchanged.
        """
        if self.over:
            raise ValueError("the game is over: start a new one")
        if bid_a not in self.hand_a:
            raise ValueError(f"A does not hold {bid_a}: choose one of {self.hand_a}")
        if bid_b not in self.hand_b:
            raise ValueError(f"B does not hold {bid_b}: choose one of {self.hand_b}")
        prize, carried_in, pot = self.prize, self.carry, self.pot
        last = len(self.hand_a) == 1
        self.hand_a.remove(bid_a)
        self.hand_b.remove(bid_b)
        self.used_a.append(bid_a)
        self.used_b.append(bid_b)
        outcome = (bid_a > bid_b) - (bid_a < bid_b)
        carried_out = discarded = 0
        if outcome > 0:
            self.score_a += pot
        elif outcome < 0:
            self.score_b += pot
        elif self.rules.tie == "carry" and not last:
            carried_out = pot
        else:
            discarded = pot
        self.carry = carried_out
        result = RoundResult(len(self.history) + 1, prize, carried_in, pot, bid_a, bid_b, outcome,
                             carried_out, discarded, last)
        self.history.append(result)
        return result


def deal(rules: Rules, rng: np.random.Generator) -> Game:
    """A new game; a random prize order is shuffled with ``rng``."""
    order = tuple(int(p) for p in rng.permutation(np.arange(1, rules.n + 1))) if rules.random_order \
        else rules.sequence
    return Game(rules, order)


@dataclass
class Match:
    """The score between the games of a match, and when it ends (docs/rules.md "Match formats").

    - ``single``: one game.
    - ``session``: 3 games; the totals are summed and the larger cumulative
      total takes the match (equal totals share it).
    - ``best-of-N``: games won count; the match ends when a player has won a
      majority of N. A drawn game is replayed (``draw="replay"``: the match
      score stays and the game does not count) or counts half a game to each
      (``draw="half"``: at most N games; equal after N games is a drawn match).

    Attributes
    ----------
    rules : Rules
    results : list of (int, int)
        Final scores (A, B) of the games played, replayed draws included.
    total_a, total_b : int
        Summed scores of all games played.
    wins_a, wins_b : float
        Games won (halves for draws under ``draw="half"``).
    """

    rules: Rules
    results: list = field(init=False, default_factory=list)
    total_a: int = field(init=False, default=0)
    total_b: int = field(init=False, default=0)
    wins_a: float = field(init=False, default=0.0)
    wins_b: float = field(init=False, default=0.0)

    @property
    def game(self) -> int:
        """1-based number of the next game (replayed draws count as games)."""
        return len(self.results) + 1

    @property
    def diff(self) -> int:
        """Summed score difference A - B of the games played."""
        return self.total_a - self.total_b

    @property
    def replays(self) -> int:
        """Drawn games that were replayed (best-of with ``draw="replay"``)."""
        if not self.rules.best_of or self.rules.draw != "replay":
            return 0
        return sum(a == b for a, b in self.results)

    @property
    def over(self) -> bool:
        """True once the match is decided or every game has been played."""
        r = self.rules
        if r.match == "single":
            return len(self.results) >= 1
        if r.match == "session":
            return len(self.results) >= SESSION_GAMES
        N = r.best_of
        if r.draw == "replay":
            return max(self.wins_a, self.wins_b) >= N // 2 + 1
        # half: the majority of N points decides; after N games it is over either way
        return max(self.wins_a, self.wins_b) > N / 2 or self.wins_a + self.wins_b >= N

    @property
    def result(self) -> int:
        """+1 A takes the match, -1 B takes it, 0 shared (meaningful once :attr:`over`)."""
        if self.rules.best_of:
            return int(np.sign(self.wins_a - self.wins_b))
        return int(np.sign(self.diff))

    def position(self) -> dict:
        """``game`` and ``match_score`` of the next game, as :meth:`Solution.query` takes them."""
        r = self.rules
        if r.match == "single":
            return {}
        if r.match == "session":
            return {"game": self.game, "match_score": self.diff}
        return {"game": self.game, "match_score": (self.wins_a, self.wins_b)}

    def record(self, game: "Game") -> int:
        """Add a finished game; returns its outcome for A (+1, -1, 0).

        Raises
        ------
        ValueError
            If the game is not over or the match already is.
        """
        if not game.over:
            raise ValueError(f"game {self.game} is not over: play its last round first")
        if self.over:
            raise ValueError("the match is over: start a new one")
        self.results.append((game.score_a, game.score_b))
        self.total_a += game.score_a
        self.total_b += game.score_b
        outcome = int(np.sign(game.diff))
        if outcome > 0:
            self.wins_a += 1
        elif outcome < 0:
            self.wins_b += 1
        elif self.rules.draw == "half":
            self.wins_a += 0.5
            self.wins_b += 0.5
        return outcome


class Opponent:
    """The equilibrium as a player: queries stage games and draws B's bids.

    Parameters
    ----------
    rules : Rules
    solution : Solution, optional
        Solved tables to read; without them each state's sub-game is solved
        when asked (fast for small decks, see :data:`SUBGAME_MAX_N`).
    """

    def __init__(self, rules: Rules, solution: Solution | None = None):
        if solution is not None and solution.rules != rules:
            raise ValueError(f"the solution is for {solution.rules.describe()}, not {rules.describe()}")
        self.rules, self.solution = rules, solution
        self._cache = {}

    def query(self, game: Game, position: dict | None = None) -> QueryResult:
        """Value, both optimal strategies and the stage game at ``game``'s current state.

        ``position`` is the match position of the game (``game`` and
        ``match_score``, see :meth:`Match.position`); a match needs the
        solution of the whole match, and its values are match values.
        """
        st = game.state()
        position = position or {}
        key = (tuple(st.hand_a), tuple(st.hand_b), st.pot, st.prizes, st.diff,
               tuple(sorted((k, str(v)) for k, v in position.items())))
        if key not in self._cache:
            sol = self.solution
            if self.rules.match != "single":
                if sol is None:
                    raise ValueError(f"a {self.rules.match} match needs its solution: solve(rules) first")
                self._cache[key] = sol.query(st.hand_a, st.hand_b, st.pot, st.prizes, st.diff, **position)
            elif sol is None:
                self._cache[key] = query_state(self.rules, st)
            else:
                self._cache[key] = query_state(self.rules, st, sol.space, sol.tables)
        return self._cache[key]

    @staticmethod
    def draw(strategy: dict, rng: np.random.Generator) -> int:
        """Draw a card from a card -> probability mapping with ``rng``."""
        cards = sorted(strategy)
        p = np.clip(np.array([strategy[c] for c in cards], dtype=float), 0.0, None)
        return int(cards[int(rng.choice(len(cards), p=p / p.sum()))])


def needs_full_solve(rules: Rules) -> bool:
    """True when per-round sub-games would be too slow and the game should be solved once."""
    return rules.n > SUBGAME_MAX_N


class SeatPlayer:
    """A strategy in one seat of :func:`gops play <gops_solver.cli.commands.play>` with no one typing.

    Parameters
    ----------
    spec : str
        ``equilibrium`` (the seat's side of the stage game :class:`Opponent`
        solves: matches included), a heuristic of
        :data:`~gops_solver.analysis.strategies.HEURISTICS` or a user
        ``module:function`` (see :mod:`gops_solver.analysis.strategies`).
    rules : Rules

    Raises
    ------
    ValueError
        An unknown strategy (one line, as :func:`~.strategies.make_strategy` says).
    """

    def __init__(self, spec: str, rules: Rules, solution=None):
        from gops_solver.analysis.strategies import make_strategy
        self.name, self.rules = spec.strip(), rules
        self.equilibrium = self.name.lower() == "equilibrium"
        self.strategy = None if self.equilibrium else make_strategy(self.name)

    def bid(self, game: Game, side: str, res: QueryResult, rng: np.random.Generator) -> int:
        """Draw this seat's bid at ``game``'s current state (``side`` ``"a"`` or ``"b"``).

        ``res`` is :meth:`Opponent.query` of the state: the equilibrium reads its side's
        distribution from it; a heuristic sees the state from its own side (its hand, its
        score difference).
        """
        if self.equilibrium:
            dist = res.strategy_a if side == "a" else res.strategy_b
        else:
            from gops_solver.analysis.strategies import View
            own, other = (game.hand_a, game.hand_b) if side == "a" else (game.hand_b, game.hand_a)
            diff = game.diff if side == "a" else -game.diff
            dist = self.strategy.distribution(View(tuple(sorted(own)), tuple(sorted(other)), game.pot,
                                                   tuple(sorted(game.hidden)), diff), self.rules.n)
        return Opponent.draw(dist, rng)
