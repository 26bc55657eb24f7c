"""Monte Carlo play of the 3- and 4-player games: equilibrium bots and simple heuristics.

Each seat plays one strategy: ``equilibrium`` (samples its card from the
stage equilibrium of the solution at the current state), ``uniform`` (any
card in hand, equally likely), ``highest``, ``lowest`` (its highest or
lowest card) or ``match`` (the card whose rank in hand matches the prize's
rank among the prizes not yet taken). Prize orders, the bots' draws and
the uniform seats all come from one generator seeded by ``seed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .state import MultiState

__all__ = ["STRATEGIES", "MultiSimulation", "simulate_multi", "play_game"]

STRATEGIES = ("equilibrium", "uniform", "highest", "lowest", "match")


@dataclass
class MultiSimulation:
    """Mean payoffs of a run.

    Attributes
    ----------
    seats : list of str
    games : int
    mean : list of float
        Each seat's mean payoff (final score under ``points``; 1 / share / 0 under ``win``).
    stderr : list of float
        Standard error of each mean.
    """

    seats: list
    games: int
    mean: list
    stderr: list

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        return {"seats": self.seats, "games": self.games, "mean": self.mean, "stderr": self.stderr}


def check_seats(seats, players) -> list:
    """Validate the seats: one strategy name per player (one line on bad input)."""
    seats = [s.strip() for s in (seats.split(",") if isinstance(seats, str) else seats)]
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seats given for {players} players: give one strategy per player, "
                         f"e.g. {','.join(['equilibrium'] + ['uniform'] * (players - 1))}")
    for s in seats:
        if s not in STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}: use {', '.join(STRATEGIES)}")
    return seats


def _pick(seat, hand, dist, pot, hidden, rng):
    if seat == "equilibrium":
        cards = list(dist)
        p = np.array([dist[c] for c in cards])
        return cards[int(rng.choice(len(cards), p=p / p.sum()))]
    if seat == "uniform":
        return hand[int(rng.integers(len(hand)))]
    if seat == "highest":
        return hand[-1]
    if seat == "lowest":
        return hand[0]
    prize_rank = sorted(hidden + (pot,)).index(pot)  # match: same rank in hand as the prize has
    return hand[min(prize_rank, len(hand) - 1)]


def play_game(sol, seats, rng, choose=None, report=None, cache=None):
    """One game; returns each seat's payoff.

    ``choose(state, answer)`` (optional) picks seat 0's card instead of its
    strategy, and ``report(state, bids, scores)`` hears each round's result:
    the terminal game of ``gops play``. ``cache`` (a dict) keeps the
    equilibrium answers of states already seen.
    """
    rules = sol.rules
    n, m = rules.n, rules.players
    order = list(rules.sequence) if not rules.random_order else list(rng.permutation(n) + 1)
    hands = [list(range(1, n + 1)) for _ in range(m)]
    scores = [0] * m
    carry = 0
    for r in range(n):
        pot = carry + int(order[r])
        rest = [int(x) for x in order[r + 1:]]
        hidden = tuple(sorted(rest)) if rules.random_order else tuple(rest)
        state = MultiState(tuple(tuple(h) for h in hands), pot, hidden, tuple(scores))
        need = choose is not None or "equilibrium" in seats
        ans = None
        if need:
            ans = cache.get(state) if cache is not None else None
            if ans is None:
                ans = sol.answer(state)
                if cache is not None:
                    cache[state] = ans
        bids = []
        for i in range(m):
            if i == 0 and choose is not None:
                bids.append(int(choose(state, ans)))
            else:
                dist = ans.strategies[i] if ans is not None else None
                bids.append(int(_pick(seats[i], hands[i], dist, pot, hidden, rng)))
        top = max(bids)
        winners = [i for i, b in enumerate(bids) if b == top]
        carry = 0
        if len(winners) == 1:
            scores[winners[0]] += pot
        elif rules.tie == "carry":
            carry = pot
        for h, b in zip(hands, bids):
            h.remove(b)
        if report is not None:
            report(state, bids, list(scores))
    if rules.objective == "points":
        return [float(s) for s in scores]
    best = max(scores)
    share = 1.0 / scores.count(best)
    return [share if s == best else 0.0 for s in scores]


def simulate_multi(sol, seats, games, seed=0, progress=None) -> MultiSimulation:
    """Play ``games`` games of the seats against each other.

    Parameters
    ----------
    sol : MultiSolution
        Its equilibrium answers the ``equilibrium`` seats.
    seats : sequence of str or comma-separated str
        One strategy of :data:`STRATEGIES` per player.
    games : int
    seed : int
    progress : callable, optional
        Called with the number of games done after each chunk.

    Returns
    -------
    MultiSimulation
    """
    m = sol.rules.players
    seats = check_seats(seats, m)
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"--games {games} is not a positive whole number: give e.g. --games 1000")
    rng = np.random.default_rng(seed)
    total = np.zeros(m)
    squares = np.zeros(m)
    chunk = max(1, min(1000, games // 20 or 1))
    done = 0
    cache = {}
    while done < games:
        for _ in range(min(chunk, games - done)):
            pay = np.array(play_game(sol, seats, rng, cache=cache))
            total += pay
            squares += pay * pay
        done = min(games, done + chunk)
        if progress is not None:
            progress(done)
    mean = total / games
    var = np.maximum(squares / games - mean * mean, 0.0) * games / max(games - 1, 1)
    stderr = [math.sqrt(v / games) for v in var]
    return MultiSimulation(seats, games, [float(x) for x in mean], stderr)
