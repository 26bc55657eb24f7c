"""Match formats (docs/rules.md "Match formats"): each game is solved with what its end is worth to the match.

A game's end payoff is a function of its final score difference d (see
``term`` in :class:`~.encoding.StateSpace`); a match is a chain of games
whose end payoffs are the values of the match positions they lead to:

- ``session`` under ``win``: game 3 starts from the score difference D of
  games 1-2 and pays sign(final total). Game 2 pays ``V3(d)``, game 3's
  value from difference d; game 1 pays ``V2(d)``. Solved backwards, game 3
  first. (Under ``points`` a session's value is additive: the margin of 3
  games is the sum of their margins, each game is the single game and every
  game starts symmetric with value 0; no separate solve is needed.)
- ``best-of-N`` (first to ``N // 2 + 1`` games): from match score (a, b) a
  game pays V(a + 1, b) on a win and V(a, b + 1) on a loss. A draw is either
  replayed, paying V(a, b) itself (a fixed point, found by safeguarded
  secant steps on the 1-Lipschitz, nondecreasing map x -> value of the game
  that pays x for a draw), or counts half a game to each.

Exchanging the players maps match position (a, b) to (b, a) and negates
values, so only positions with a >= b are solved.
"""

from __future__ import annotations

import numpy as np

from gops_solver.game.encoding import StateSpace
from gops_solver.game.constants import FIXED_POINT_PROBE, FIXED_POINT_TOL, VALUE_TOL
from gops_solver.engine.induction import run_induction
from gops_solver.game.rules import SESSION_GAMES, Rules
from gops_solver.engine.tables import level_table, read_value


class MatchTables:
    """Solved games of one match: ``games[key] = (space, tables)``.

    Keys: the game number 1..3 of a session; the match score in half games
    doubled, ``(2a, 2b)`` with ``a >= b``, of a best-of match.
    ``values[key]`` is the match value at the start of that game.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.games, self.values = {}, {}
        self.stage_games = 0

    def first(self):
        """Key of the match's first game."""
        return 1 if self.rules.match == "session" else (0, 0)

    def locate(self, game, match_score):
        """Key, whether the players are exchanged, and the difference carried in.

        Parameters
        ----------
        game : int or None
            Session: 1..3 (default 1). Best-of: optional; with ``draw="half"``
            it must be ``a + b + 1``, with replays at least that.
        match_score : int or pair or None
            Session: total score A - B of the earlier games (default 0).
            Best-of: games won ``(a, b)`` so far (halves with ``draw="half"``).

        Raises
        ------
        ValueError
            For a position the match cannot reach, or one already decided.
        """
        r = self.rules
        if r.match == "session":
            g = 1 if game is None else _whole(game, "game")
            if not 1 <= g <= SESSION_GAMES:
                raise ValueError(f"game {g} is outside 1..{SESSION_GAMES}: a session has {SESSION_GAMES} games")
            ms = 0 if match_score is None else _whole(match_score, "match_score")
            reach = (g - 1) * r.total
            if abs(ms) > reach:
                raise ValueError(f"match_score {ms} is unreachable before game {g}: "
                                 f"earlier games hand out {reach} points, so |match_score| <= {reach}")
            return g, False, ms
        a, b = (0, 0) if match_score is None else _pair(match_score)
        a2, b2 = round(2 * a), round(2 * b)
        if abs(2 * a - a2) > VALUE_TOL or abs(2 * b - b2) > VALUE_TOL or a < 0 or b < 0:
            raise ValueError(f"match_score {match_score!r} is not games won: give (a, b) with whole "
                             f"{'or half ' if r.draw == 'half' else ''}numbers >= 0")
        N, need = r.best_of, r.best_of // 2 + 1
        played = (a2 + b2) / 2
        if r.draw == "replay":
            if a2 % 2 or b2 % 2:
                raise ValueError("with replayed draws games won are whole numbers: give (a, b) as integers")
            if max(a2, b2) >= 2 * need:
                raise ValueError(f"match_score {a:g}-{b:g} is over: {r.match} ends at {need} wins")
            if game is not None and _whole(game, "game") < played + 1:
                raise ValueError(f"game {game} is too early for match score {a:g}-{b:g}: it is at least game {played + 1:g}")
        else:
            if (a2 + b2) % 2 or played >= N:
                raise ValueError(f"match_score {a:g}-{b:g} is not a position of {r.match} with drawn games "
                                 f"counting half: a + b is the number of games played, 0..{N - 1}")
            if abs(a2 - b2) > 2 * (N - played):
                raise ValueError(f"match_score {a:g}-{b:g} is already decided: {N - played:g} games cannot change it")
            if game is not None and _whole(game, "game") != played + 1:
                raise ValueError(f"with match score {a:g}-{b:g} the next game is game {played + 1:g}, not {game}")
        if a2 >= b2:
            return (a2, b2), False, 0
        return (b2, a2), True, 0


def game_space(rules: Rules, term, diff_reach: int) -> StateSpace:
    """State space of one whole game of a match (``win`` axes) with end payoff ``term``."""
    items = range(1, rules.n + 1) if rules.random_order else rules.sequence
    return StateSpace(rules.random_order, rules.tie == "carry", True, items, rules.n, rules.n,
                      diff_reach=diff_reach, term=term)


def start_value(space: StateSpace, tables, d: int) -> float:
    """Value of a game at its start (before the first reveal) from score difference ``d``."""
    n, total, t = space.kmax, space.total, space.tmax
    if d - total >= t:
        return float(space.term[-1])  # decided before the game starts
    if d + total <= -t:
        return float(space.term[0])
    top = space.patterns.index([2] * n)
    v = float(read_value(level_table(space, n, tables[n]), top, 0, 0, d))
    if not np.isfinite(v):
        raise ValueError(f"start difference {d} is outside this game's tables: this is a bug, please report it")
    return v


def solve_match(rules: Rules, progress=None, use_highs=False) -> MatchTables:
    """Solve every game of a ``session`` (``win``) or ``best-of`` match.

    Parameters
    ----------
    rules : Rules
    progress : callable, optional
        ``progress(level, games)`` as in :func:`~.induction.run_induction`.
    use_highs : bool
        Solve stage games with HiGHS (checking).

    Returns
    -------
    MatchTables
    """
    out = MatchTables(rules)

    def solve_game(term, reach):
        space = game_space(rules, term, reach)
        tables, games = run_induction(space, progress=progress, use_highs=use_highs)
        out.stage_games += games
        return space, tables

    if rules.match == "session":
        if rules.objective != "win":
            raise ValueError("a points session is additive: solve the single game (solve() does this)")
        T = rules.total
        term = np.array([-1.0, 0.0, 1.0])  # game 3 decides the session by the sign of the total
        for g in range(SESSION_GAMES, 0, -1):
            space, tables = solve_game(term, (g - 1) * T)
            out.games[g] = (space, tables)
            out.values[g] = start_value(space, tables, 0)
            # game g - 1 ends with a total in [-(g-1)T, (g-1)T] and pays this game's value from there;
            # that value is +-1 once |d| exceeds the points left, (SESSION_GAMES - g + 1) T
            t = min((g - 1) * T, (SESSION_GAMES - g + 1) * T + 1)
            term = _antisymmetric(np.array([start_value(space, tables, d) for d in range(-t, t + 1)]))
        return out

    N, need = rules.best_of, rules.best_of // 2 + 1

    def value(a2, b2):
        """Match value at (a2, b2) half games, from the positions solved so far."""
        if a2 < b2:
            return -value(b2, a2)
        if rules.draw == "replay":
            if a2 >= 2 * need:
                return 1.0
            if b2 >= 2 * need:
                return -1.0
        else:
            left = N - (a2 + b2) / 2
            if left <= 0 or abs(a2 - b2) > 2 * left:
                return float(np.sign(a2 - b2))
        return out.values[(a2, b2)]

    if rules.draw == "replay":
        keys = [(2 * a, 2 * b) for a in range(need) for b in range(a + 1)]
    else:
        keys = [(a2, 2 * g - a2) for g in range(N) for a2 in range(g, 2 * g + 1)
                if abs(2 * a2 - 2 * g) <= 2 * (N - g)]
    for a2, b2 in sorted(keys, key=lambda k: -(k[0] + k[1])):  # later positions first
        win, loss = value(a2 + 2, b2), value(a2, b2 + 2)
        if rules.draw == "half":
            draw = value(a2 + 1, b2 + 1)
        elif a2 == b2:
            draw = 0.0  # symmetric position: value 0, and the game pays -W, 0, W
        else:
            draw = None
        if draw is not None:
            space, tables = solve_game(np.array([loss, draw, win]), 0)
            v = start_value(space, tables, 0)
        else:
            v, space, tables = _replayed(lambda x: solve_game(np.array([loss, x, win]), 0), loss, win)
        out.games[(a2, b2)] = (space, tables)
        out.values[(a2, b2)] = v
    return out


def _key_json(key):
    return list(key) if isinstance(key, tuple) else key


def match_header(m: MatchTables):
    """``(header fields, tables)`` that store every game of ``m`` in one solution file.

    Each game is described by its key, end payoff ``term``, difference reach
    and start value; its ``n + 1`` level tables follow one another in the
    order of ``match_games``. :func:`match_from_header` reads them back.
    """
    games, tables = [], []
    for key, (space, tabs) in m.games.items():
        games.append({"key": _key_json(key), "term": [float(x) for x in space.term],
                      "diff_reach": int(space.diff_reach - space.total), "value": float(m.values[key]),
                      "levels": len(tabs)})
        tables.extend(tabs)
    return {"match_games": games}, tables


def match_from_header(rules: Rules, header: dict, tables, name, into=None) -> MatchTables:
    """The :class:`MatchTables` a file written with :func:`match_header` holds (tables mapped, not read).

    ``into``: an empty match of the same interface to fill instead (a tiebreak match).
    """
    m = MatchTables(rules) if into is None else into
    m.stage_games = int(header.get("stage_games", 0))
    at = 0
    try:
        for g in header["match_games"]:
            key = tuple(g["key"]) if isinstance(g["key"], list) else int(g["key"])
            space = game_space(rules, np.asarray(g["term"], dtype=np.float64), int(g["diff_reach"]))
            tabs = list(tables[at:at + int(g["levels"])])
            at += int(g["levels"])
            if len(tabs) != rules.n + 1 or any(len(t) != space.size(k) for k, t in enumerate(tabs)):
                raise ValueError("sizes")
            m.games[key] = (space, tabs)
            m.values[key] = float(g["value"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{name} is corrupted (its match games do not match its rules): solve again") from None
    if at != len(tables) or m.first() not in m.games:
        raise ValueError(f"{name} is corrupted (its match games do not match its rules): solve again")
    return m


def _replayed(solve_game, lo, hi):
    """Fixed point x = G(x) of a game that pays x for a draw, G(x) its value.

    G is nondecreasing and 1-Lipschitz (payoffs move by at most |dx|), so
    h(x) = G(x) - x is nonincreasing with h(lo) >= 0 >= h(hi). G is piecewise
    linear in x, so secant steps end exactly once they bracket one piece;
    the Illinois rule keeps the bracket shrinking meanwhile.
    """
    def h(x):
        space, tables = solve_game(x)
        return start_value(space, tables, 0) - x, space, tables

    lo0, hi0 = lo, hi
    f_lo, *_ = h(lo)
    f_hi, *_ = h(hi)
    side = 0
    for _ in range(100):
        if f_lo <= FIXED_POINT_TOL:
            x = lo
        elif f_hi >= -FIXED_POINT_TOL:
            x = hi
        else:
            x = hi - f_hi * (hi - lo) / (f_hi - f_lo)
            x = min(max(x, lo), hi)
        f, space, tables = h(x)
        if abs(f) <= FIXED_POINT_TOL:
            _check_unique(h, x, lo0, hi0)
            return x + f, space, tables
        if f > 0:
            lo, f_lo = x, f
            if side == 1:
                f_hi /= 2  # Illinois: the stale end gets half its weight
            side = 1
        else:
            hi, f_hi = x, f
            if side == -1:
                f_lo /= 2
            side = -1
        if hi - lo <= FIXED_POINT_TOL:
            _check_unique(h, x, lo0, hi0)
            return x, space, tables
    raise ValueError("the value of a replayed draw did not converge; this is a bug, please report it")


def _check_unique(h, x, lo, hi):
    """Refuse a replayed draw whose value is not determined.

    When both players can hold a game to a sure draw (n <= 3 in most
    variants), G(x) = x on a whole interval: every x is a fixed point and
    the match need never end. h is nonincreasing, so the root is unique
    exactly when h is strictly positive just left of it and strictly
    negative just right of it.
    """
    step = FIXED_POINT_PROBE * (hi - lo)
    left, right = max(lo, x - step), min(hi, x + step)
    if (left < x and h(left)[0] <= FIXED_POINT_TOL) or (right > x and h(right)[0] >= -FIXED_POINT_TOL):
        raise ValueError("both players can hold a game to a sure draw here, so with replayed draws the match "
                         "need never end and has no value: use draw half (or a larger n)")


def _antisymmetric(term):
    # exchanging the players negates a session game's value; make the mirror exact
    return (term - term[::-1]) / 2


def _whole(value, name) -> int:
    if isinstance(value, bool) or int(value) != value:
        raise ValueError(f"{name} {value!r} is not a whole number: give an integer")
    return int(value)


def _pair(score):
    try:
        a, b = score
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        raise ValueError(f"match_score {score!r} is not a pair: give games won as (a, b)") from None
    if not (np.isfinite(a) and np.isfinite(b)):
        raise ValueError(f"match_score {score!r} is not games won: give (a, b) with finite numbers >= 0")
    return a, b
