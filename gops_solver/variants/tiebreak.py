"""Best-of matches settled by a tiebreak (docs/rules.md "Match tiebreak").

A best-of-N match with drawn games counted half (``draw="half"``) can end
level, N/2 games each. ``share`` (the match module's rule) calls that a
shared result; here:

- ``extra-game``: one more game decides, a draw in it shared. Its value is
  that of one game played to win from the start (solved, not assumed; the
  players are symmetric, so it is 0), and every position is solved as in
  :mod:`gops_solver.engine.match` with that value at the level end.
- ``total-score``: the larger total score over all the match's games wins,
  equal totals shared. A match position is ``(a, b, D)``: games won
  (halves doubled, ``a2, b2``) and the total score difference ``D`` of the
  games played. The game at ``(a2, b2, D)`` ends with a difference ``d`` and
  pays the value of ``(a2 + 2, b2, D + d)``, ``(a2, b2 + 2, D + d)`` or
  ``(a2 + 1, b2 + 1, D + d)`` by the sign of ``d``: a function of ``d``
  alone for each start ``(a2, b2, D)``, so each is one game with its own end
  payoff, solved by the classic kernels. Exchanging the players maps
  ``(a2, b2, D)`` to ``(b2, a2, -D)`` and negates values.
"""

from __future__ import annotations

import time

import numpy as np

from gops_solver.engine.induction import run_induction
from gops_solver.engine.match import MatchTables, game_space, start_value
from gops_solver.game.rules import Rules


class TiebreakMatch:
    """Solved games of a best-of match with a tiebreak (interface of :class:`~gops_solver.engine.match.MatchTables`).

    Keys of ``games`` and ``values``: ``(a2, b2)`` (extra-game) or
    ``(a2, b2, D)`` (total-score), with ``a2 >= b2`` (and ``D >= 0`` when
    ``a2 == b2``).
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.games, self.values = {}, {}
        self.stage_games = 0
        self.extra_value = None

    def first(self):
        return (0, 0) if self.rules.tiebreak == "extra-game" else (0, 0, 0)

    def locate(self, game, match_score):
        """Key, whether the players are exchanged, and 0 (no score is carried into a game).

        ``match_score``: games won ``(a, b)``; under total-score also the
        total score difference of the games played, ``(a, b, D)`` (D = 0 if
        left out).
        """
        r = self.rules
        score = (0, 0) if match_score is None else match_score
        D = 0
        if r.tiebreak == "total-score" and isinstance(score, (tuple, list)) and len(score) == 3:
            score, D = tuple(score[:2]), score[2]
            if isinstance(D, bool) or int(D) != D:
                raise ValueError(f"total score {D!r} is not a whole number: give (a, b, D) with D = total A - B so far")
            D = int(D)
        key, swapped, _ = MatchTables(r).locate(game, score)
        if r.tiebreak == "extra-game":
            return key, swapped, 0
        a2, b2 = key
        reach = (a2 + b2) // 2 * r.total
        if abs(D) > reach:
            raise ValueError(f"total score {D} is unreachable after {(a2 + b2) // 2} games of {r.total} points: "
                             f"give |D| <= {reach}")
        if swapped:
            D = -D
        if a2 == b2 and D < 0:
            return (a2, b2, -D), True, 0
        return (a2, b2, D), swapped, 0

    def solve(self, progress=None, use_highs=False):
        r = self.rules
        N = r.best_of
        T = r.total

        def solve_game(term):
            space = game_space(r, np.asarray(term, dtype=np.float64), 0)
            tables, games = run_induction(space, progress=progress, use_highs=use_highs)
            self.stage_games += games
            return space, tables

        def decided(a2, b2):
            left = N - (a2 + b2) / 2
            return left <= 0 or abs(a2 - b2) > 2 * left

        if r.tiebreak == "extra-game":
            space, tables = solve_game([-1.0, 0.0, 1.0])
            self.extra_value = start_value(space, tables, 0)

            def value(a2, b2):
                if a2 < b2:
                    return -value(b2, a2)
                if decided(a2, b2):
                    return float(np.sign(a2 - b2)) if a2 != b2 else self.extra_value
                return self.values[(a2, b2)]

            keys = [(a2, 2 * g - a2) for g in range(N) for a2 in range(g, 2 * g + 1)
                    if not decided(a2, 2 * g - a2)]
            for a2, b2 in sorted(keys, key=lambda k: -(k[0] + k[1])):
                term = [value(a2, b2 + 2), value(a2 + 1, b2 + 1), value(a2 + 2, b2)]
                space, tables = solve_game(term)
                self.games[(a2, b2)] = (space, tables)
                self.values[(a2, b2)] = start_value(space, tables, 0)
            return self

        def value3(a2, b2, D):
            if a2 < b2 or (a2 == b2 and D < 0):
                return -value3(b2, a2, -D)
            if decided(a2, b2):
                return float(np.sign(a2 - b2)) if a2 != b2 else float(np.sign(D))
            return self.values[(a2, b2, D)]

        for g in range(N - 1, -1, -1):
            for a2 in range(2 * g, g - 1, -1):
                b2 = 2 * g - a2
                if decided(a2, b2):
                    continue
                for D in range(0 if a2 == b2 else -g * T, g * T + 1):
                    term = [value3(a2, b2 + 2, D + d) if d < 0 else
                            value3(a2 + 1, b2 + 1, D) if d == 0 else value3(a2 + 2, b2, D + d)
                            for d in range(-T, T + 1)]
                    space, tables = solve_game(term)
                    self.games[(a2, b2, D)] = (space, tables)
                    self.values[(a2, b2, D)] = start_value(space, tables, 0)
        return self


def solve_tiebreak(rules: Rules, progress=None, stage_solver="numba", out=None):
    """Solve a best-of match with the ``extra-game`` or ``total-score`` tiebreak.

    Returns
    -------
    Solution
        In memory, or mapped from ``out`` when given; ``query(..., match_score=(a, b))`` or, under
        total-score, ``match_score=(a, b, D)``.

    Raises
    ------
    ValueError
        ``out`` cannot be written, or another writer holds it: ``out``'s writer lock is held
        for the whole solve, so a second writer refuses at once instead of racing it.
    """
    from gops_solver.engine.storage import check_out_path, writer_lock
    if not rules.bid_cards == 1 == rules.open_prizes:
        raise ValueError("tiebreaks are solved for the classic game: use bid_cards 1 and open_prizes 1")
    if out is None:
        return _solve_tiebreak(rules, progress, stage_solver)
    check_out_path(out, probe_lock=False)  # a bad path: refused before the work
    with writer_lock(out, "gops solve"):  # another writer under way: refused now, in one line
        sol = _solve_tiebreak(rules, progress, stage_solver)
        sol.save(out, lock=False)  # written whole, every game's tables, like the other matches
        return load_tiebreak(out, check=False)


def _solve_tiebreak(rules, progress, stage_solver):
    """The match of :func:`solve_tiebreak`, in memory."""
    from gops_solver.engine.solution import Solution
    t0 = time.perf_counter()
    m = TiebreakMatch(rules).solve(progress, use_highs=stage_solver == "highs")
    space, tables = m.games[m.first()]
    sol = Solution(rules, space, tables, m.stage_games, time.perf_counter() - t0, stage_solver)
    sol.match = m
    return sol


def load_tiebreak(path, rules=None, check=True):
    """Open a tiebreak match saved by :meth:`~gops_solver.engine.solution.Solution.save` (or any classic file)."""
    from gops_solver.engine.solution import load_classic
    return load_classic(path, rules, check, tiebreak_match=TiebreakMatch)


def projected_tiebreak(rules: Rules) -> dict:
    """Games, stage games and table entries of a tiebreak match solve, without solving."""
    from gops_solver.engine.solution import projected_work
    N, T = rules.best_of, rules.total
    positions = [(a2, 2 * g - a2) for g in range(N) for a2 in range(g, 2 * g + 1)
                 if abs(2 * a2 - 2 * g) <= 2 * (N - g)]
    if rules.tiebreak == "extra-game":
        games = len(positions) + 1
    else:
        games = sum(g * T + 1 if a2 == 2 * g - a2 else 2 * g * T + 1
                    for g in range(N) for a2 in range(g, 2 * g + 1) if abs(2 * a2 - 2 * g) <= 2 * (N - g))
    single = Rules(n=rules.n, tie=rules.tie, objective="win", order=rules.order)
    w = projected_work(single)
    return {"games": games, "stage_games": games * w["total_games"], "table_entries": games * w["total_bytes"] // 8}
