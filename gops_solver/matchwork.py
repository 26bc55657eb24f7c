"""What a solve of a match will take, without solving it (``gops info --match``).

A match is solved game by game (:mod:`~gops_solver.match`), and every game's
tables stay in memory; this module counts the games and sizes their state
spaces exactly as :func:`~gops_solver.match.solve_match` builds them.
"""

from __future__ import annotations

import numpy as np

from .induction import level_work
from .match import game_space
from .rules import SESSION_GAMES, Rules


def _space_work(space, n) -> tuple:
    games = sum(level_work(space, k) for k in range(n + 1))
    nbytes = sum(space.size(k) * 8 for k in range(n + 1))
    return games, nbytes


def match_work(rules: Rules) -> dict:
    """Stage games, memory and the number of games a match solve takes.

    Parameters
    ----------
    rules : Rules
        Any match format (``single`` gives one game).

    Returns
    -------
    dict
        ``games_solved`` (whole games solved), ``total_games`` (stage games),
        ``total_bytes`` (every game's tables, all held in memory at the end),
        ``lower_bound`` (True for best-of with replayed draws: each position
        with unequal match scores is solved once per step of its fixed-point
        search, which these figures count once).
    """
    from .solution import projected_work
    n = rules.n
    if rules.match == "single" or (rules.match == "session" and rules.objective == "points"):
        w = projected_work(rules)
        return {"games_solved": 1, "total_games": w["total_games"], "total_bytes": w["total_bytes"],
                "lower_bound": False}
    spaces = []
    if rules.match == "session":
        T = rules.total
        tlen = 3
        for g in range(SESSION_GAMES, 0, -1):
            # only the term's length and antisymmetry shape the space, not its values
            spaces.append(game_space(rules, np.zeros(tlen), (g - 1) * T))
            t = min((g - 1) * T, (SESSION_GAMES - g + 1) * T + 1)
            tlen = 2 * t + 1
    else:
        N, need = rules.best_of, rules.best_of // 2 + 1
        if rules.draw == "replay":
            keys = [(2 * a, 2 * b) for a in range(need) for b in range(a + 1)]
        else:
            keys = [(a2, 2 * g - a2) for g in range(N) for a2 in range(g, 2 * g + 1)
                    if abs(2 * a2 - 2 * g) <= 2 * (N - g)]
        # a level match score pays -W, 0, W (mirror-symmetric tables, half the size); others not
        level = game_space(rules, np.array([-1.0, 0.0, 1.0]), 0)
        uneven = game_space(rules, np.array([-1.0, 0.5, 1.0]), 0)
        spaces = [level if a2 == b2 else uneven for a2, b2 in keys]
    games = nbytes = 0
    for sp in spaces:
        g, b = _space_work(sp, n)
        games += g
        nbytes += b
    return {"games_solved": len(spaces), "total_games": games, "total_bytes": nbytes,
            "lower_bound": rules.best_of > 0 and rules.draw == "replay"}
