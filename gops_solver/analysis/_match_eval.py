"""Exact evaluation and simulation of two strategies over a match (docs/rules.md "Match formats").

A match is a chain of games over match positions: a session's ``(game, total
so far)``, a best-of's games won (halves doubled), under the total-score
tiebreak also the total score difference, and the extra game of the
extra-game tiebreak. Each game's end, its final margin ``d``, moves the match
to its next position or ends it. So:

* both strategies fixed: each position's game is one exact
  :func:`~.evaluate.margin_distribution`, and the match is a Markov chain over
  positions (a replayed draw stays put: its games are renormalised away);
* B best-responding, knowing the match position: a dynamic programme from the
  last positions back, each game a best-response problem
  (:func:`~.evaluate.best_response_tables`) whose end payoff is the value of the
  position it leads to; a replayed draw's position is its own continuation, a
  fixed point found by policy iteration (each step an exact evaluation of B's
  reply).

Strategies are per-game: heuristics and user functions see one game's view
(its own score difference) and play the same at every position, so their
games are computed once. ``equilibrium`` plays the solved match's per-game
strategy at the current position (``Solution.query(..., game=, match_score=)``),
read from the position's tables in the kernels (from B's seat of the tables
where the position is stored from the other player's side), or through
``query`` for a session game entered with a score carried in.

The exact kernels come from the callers (:mod:`.evaluate`, :mod:`.simulate`)
as :class:`GameKernels`, so this module imports neither.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np

from gops_solver.analysis._common import Evaluation, Outcome, Simulation
from gops_solver.analysis.strategies import CODE_EQUILIBRIUM, CODE_EQUILIBRIUM_B, CODE_TABLE, Strategy, make_strategy
from gops_solver.game.constants import VALUE_TOL
from gops_solver.game.rules import SESSION_GAMES, Rules

#: a replayed draw's fixed point: policy-iteration steps before giving up
_MAX_POLICY_STEPS = 60


class GameKernels:
    """What the match needs of one game, given by :mod:`.evaluate`.

    ``play(single, sa, sb)``: the exact final-margin distribution of strategies
    ``sa`` (seat A) and ``sb``; ``reach(single, sa)``: the states ``sa`` reaches;
    ``best(single, sa, term, levels)``: B's best-response value against ``sa``
    when a final margin d pays ``term[d + T]``, and the play-out's margin distribution.
    """

    def __init__(self, play, reach, best):
        self.play, self.reach, self.best = play, reach, best


class MatchFormat:
    """Positions and moves of one match format, from A's side.

    Positions: ``("s", g, D)`` session game g after totals D; ``("b", a2, b2, D)``
    best-of games won in halves (D the total score difference, tracked only
    under the total-score tiebreak, else 0); ``("x",)`` the extra game.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.T = rules.total
        self.N = rules.best_of
        self.need = self.N // 2 + 1

    def start(self):
        return ("s", 1, 0) if self.rules.match == "session" else ("b", 0, 0, 0)

    def single(self) -> Rules:
        """The rules of one game of the match."""
        r = self.rules
        return Rules(n=r.n, tie=r.tie, objective=r.objective, order=r.order)

    def next(self, pos, d):
        """``("pos", position)`` after a game ending with margin ``d``, or ``("end", result, score)``.

        ``result``: +1, 0, -1 for A; ``score``: the final match-score difference
        (session: total points; best-of: games won, an extra game counting one).
        """
        r = self.rules
        if pos[0] == "s":
            _, g, D = pos
            if g < SESSION_GAMES:
                return ("pos", ("s", g + 1, D + d))
            tot = D + d
            return ("end", int(np.sign(tot)), tot)
        if pos[0] == "x":
            s = int(np.sign(d))
            return ("end", s, s)
        _, a2, b2, D = pos
        if d > 0:
            a2 += 2
        elif d < 0:
            b2 += 2
        elif r.draw == "half":
            a2, b2 = a2 + 1, b2 + 1
        D2 = D + d if r.tiebreak == "total-score" else 0
        if r.draw == "replay":
            if max(a2, b2) >= 2 * self.need:
                return ("end", int(np.sign(a2 - b2)), (a2 - b2) / 2)
            return ("pos", ("b", a2, b2, 0))
        left = self.N - (a2 + b2) / 2
        if left <= 0 or abs(a2 - b2) > 2 * left:
            if a2 != b2:
                return ("end", int(np.sign(a2 - b2)), (a2 - b2) / 2)
            if r.tiebreak == "extra-game":
                return ("pos", ("x",))
            if r.tiebreak == "total-score":
                return ("end", int(np.sign(D2)), 0.0)
            return ("end", 0, 0.0)
        return ("pos", ("b", a2, b2, D2))

    def replay(self, pos) -> bool:
        """Whether a drawn game at ``pos`` is replayed (the position is its own successor)."""
        return pos[0] == "b" and self.rules.draw == "replay"

    def views(self, pos):
        """``(game, match_score)`` of the position from A's side and from B's; None for the extra game."""
        if pos[0] == "s":
            return (pos[1], pos[2]), (pos[1], -pos[2])
        if pos[0] == "x":
            return None, None
        _, a2, b2, D = pos
        if self.rules.tiebreak == "total-score":
            return (None, (a2 / 2, b2 / 2, D)), (None, (b2 / 2, a2 / 2, -D))
        return (None, (a2 / 2, b2 / 2)), (None, (b2 / 2, a2 / 2))

    def payoff(self, result, score) -> float:
        """The match payoff to A of an end: the total under a points session, else the result."""
        return float(score) if self.rules.match == "session" and self.rules.objective == "points" else float(result)

    def positions(self):
        """Every position the match can reach, the later ones first (a game only moves forward)."""
        seen, order, todo = {self.start()}, [], [self.start()]
        while todo:
            pos = todo.pop()
            order.append(pos)
            for d in range(-self.T, self.T + 1):
                kind, *rest = self.next(pos, d)
                if kind == "pos" and rest[0] not in seen:
                    seen.add(rest[0])
                    todo.append(rest[0])
        return sorted(order, key=self._progress, reverse=True)

    def _progress(self, pos):
        if pos[0] == "s":
            return (pos[1], 0)
        if pos[0] == "x":
            return (10 * self.N, 0)
        return (pos[1] + pos[2], 0)


class _Player:
    """A strategy in one seat of a match: the per-game strategy it plays at each position."""

    def __init__(self, spec, solution, fmt: MatchFormat, seat_b: bool):
        self.fmt, self.seat_b, self.solution = fmt, seat_b, solution
        self.equilibrium = (isinstance(spec, str) and spec.strip().lower() == "equilibrium") or \
            (isinstance(spec, Strategy) and spec.code == CODE_EQUILIBRIUM)
        self.name = "equilibrium" if self.equilibrium else make_strategy(spec).name
        self.fixed = None if self.equilibrium else make_strategy(spec)
        self._cache = {}
        self._extra = None

    @property
    def moves_with_position(self) -> bool:
        """Whether the strategy plays differently at different positions (only the equilibrium does)."""
        if not self.equilibrium:
            return False
        r = self.fmt.rules
        return not (r.match == "session" and r.objective == "points")

    def key(self, pos):
        """Positions with equal keys are played alike."""
        return pos if self.moves_with_position else None

    def at(self, pos) -> Strategy:
        """The per-game strategy at ``pos`` (seat A's view of the game: own hand first)."""
        if not self.equilibrium:
            return self.fixed
        k = self.key(pos)
        if k not in self._cache:
            self._cache[k] = self._equilibrium_at(pos)
        return self._cache[k]

    def _equilibrium_at(self, pos):
        sol, r = self.solution, self.fmt.rules
        if r.match == "session" and r.objective == "points":
            return Strategy("equilibrium", CODE_EQUILIBRIUM, solution=sol)  # each game is the single game
        if pos[0] == "x":  # the extra game: one game played to win, solved as such
            if self._extra is None:
                from gops_solver.api import solve
                self._extra = solve(self.fmt.single())
            return Strategy("equilibrium", CODE_EQUILIBRIUM, solution=self._extra)
        game, score = self.fmt.views(pos)[1 if self.seat_b else 0]
        key, swapped, carried = sol.match.locate(game, score)
        if carried == 0:  # the kernels read the position's tables, from B's seat where it is stored swapped
            space, tables = sol.match.games[key]
            return Strategy("equilibrium", CODE_EQUILIBRIUM_B if swapped else CODE_EQUILIBRIUM,
                            solution=SimpleNamespace(space=space, tables=tables, rules=self.fmt.single()))
        memo = {}

        def play(view):
            k = (view.hand, view.opponent, view.pot, view.prizes, view.diff)
            if k not in memo:
                q = sol.query(view.hand, view.opponent, view.pot, view.prizes, view.diff, game=game,
                              match_score=score)
                memo[k] = {c: float(q.strategy_a.get(c, 0.0)) for c in view.hand}
            return memo[k]
        return Strategy("equilibrium", CODE_TABLE, func=play)


def _players(a, b, rules, solution):
    fmt = MatchFormat(rules)
    return fmt, _Player(a, solution, fmt, False), _Player(b, solution, fmt, True)


def _check_term_draws(p_draw, pos):
    if p_draw >= 1 - VALUE_TOL:
        raise ValueError("with replayed draws these strategies draw every game from match score "
                         f"{pos[1] // 2}-{pos[2] // 2}, so the match never ends: use draw half")


def _chain(fmt, dists):
    """Final distribution ``{(result, score): probability}`` of the match, each position's game ``dists[pos]``."""
    prob = {fmt.start(): 1.0}
    ends = {}
    for pos in reversed(fmt.positions()):  # earlier positions first
        p = prob.pop(pos, 0.0)
        if p == 0.0:
            continue
        dist = dists(pos)
        stay = sum(q for d, q in dist.items() if d == 0) if fmt.replay(pos) else 0.0
        if stay:
            _check_term_draws(stay, pos)
        for d, q in dist.items():
            if fmt.replay(pos) and d == 0:
                continue
            kind, *rest = fmt.next(pos, d)
            w = p * q / (1 - stay)
            if kind == "pos":
                prob[rest[0]] = prob.get(rest[0], 0.0) + w
            else:
                ends[tuple(rest)] = ends.get(tuple(rest), 0.0) + w
    return ends


def _outcome(fmt, ends) -> Outcome:
    win = sum(p for (res, _), p in ends.items() if res > 0)
    draw = sum(p for (res, _), p in ends.items() if res == 0)
    loss = sum(p for (res, _), p in ends.items() if res < 0)
    margin = sum(s * p for (_, s), p in ends.items())
    dist = {}
    for (_, s), p in ends.items():
        dist[s] = dist.get(s, 0.0) + p
    value = sum(fmt.payoff(res, s) * p for (res, s), p in ends.items())
    return Outcome(float(margin), float(win), float(draw), float(loss), float(value), dict(sorted(dist.items())))


def evaluate_match(strategy, rules: Rules, against, solution, progress, kernels: GameKernels) -> Evaluation:
    """Exact match result of ``strategy`` (seat A) against ``against``, and its exploitability over the match.

    See :func:`~.evaluate.evaluate`; ``vs_opponent`` and ``vs_best_response``
    are match figures: ``win``/``draw``/``loss`` of the match, ``margin`` the
    expected final match-score difference (a session's total points; games
    won A - B of a best-of, an extra game counting one), ``value`` the
    match's payoff (P(A wins the match) - P(B wins it), or a points session's
    expected total). B's best reply knows the match position.
    """
    t0 = time.perf_counter()
    fmt, pa, pb = _players(strategy, against, rules, solution)
    single = fmt.single()
    cache = {}

    def game_dist(pos):
        k = (pa.key(pos), pb.key(pos))
        if k not in cache:
            cache[k] = kernels.play(single, pa.at(pos), pb.at(pos))
            if progress is not None:
                progress()
        return cache[k]

    vs = _outcome(fmt, _chain(fmt, game_dist))
    value, br_dists = _best_response(fmt, pa, single, progress, kernels)
    br = _outcome(fmt, _chain(fmt, lambda pos: br_dists[pos]))
    if abs(br.value - value) > VALUE_TOL * max(1.0, abs(value)):
        raise RuntimeError(f"best-response value {value} and its play-out {br.value} disagree; "
                           f"this is a bug, please report it")
    # every match format is symmetric (value 0), which the solution, when there is one, confirms
    game_value = float(solution.value) if solution is not None else 0.0
    return Evaluation(rules, pa.name, pb.name, vs, br, game_value, game_value - value, time.perf_counter() - t0)


def _best_response(fmt, pa, single, progress, kernels):
    """Value for A of every position when B best-responds knowing the position, and each game's play-out.

    Returns the start position's value and ``{position: margin distribution of its game}``.
    """
    T = fmt.T
    values, dists, reach = {}, {}, {}

    def cont(pos, d, own=None):
        kind, *rest = fmt.next(pos, d)
        if kind == "end":
            return fmt.payoff(*rest)
        return own if (own is not None and rest[0] == pos) else values[rest[0]]

    def solve_game(pos, term):
        k = pa.key(pos)
        if k not in reach:
            reach[k] = kernels.reach(single, pa.at(pos))
        out = kernels.best(single, pa.at(pos), term, reach[k])
        if progress is not None:
            progress()
        return out

    r = fmt.rules
    if r.match == "session" and r.objective == "points" and not pa.moves_with_position:
        # the session's total is additive: every game's end pays D + d + the later games' values, linear
        # in d, so every game has the same best reply, that of the single game under points
        v, dist = solve_game(fmt.start(), np.arange(-T, T + 1, dtype=np.float64))
        return SESSION_GAMES * v, {pos: dist for pos in fmt.positions()}
    for pos in fmt.positions():
        if not fmt.replay(pos):
            term = np.array([cont(pos, d) for d in range(-T, T + 1)])
            values[pos], dists[pos] = solve_game(pos, term)
            continue
        # a replayed draw pays the position's own value x: policy iteration from x above A's best end. Each
        # reply is evaluated exactly; a reply that draws every game never ends the match, so it is no
        # improvement (it only ties the value of the reply before it, which is then the fixed point)
        x, dist = max(cont(pos, 1), cont(pos, -1)) + 1, None  # above every end: B's first reply ends the match
        for _ in range(_MAX_POLICY_STEPS):
            term = np.array([cont(pos, d, x) for d in range(-T, T + 1)])
            _, greedy = solve_game(pos, term)
            stay = greedy.get(0, 0.0)
            if stay >= 1 - VALUE_TOL:
                if dist is None:  # even when a draw is B's worst end, B's reply draws: every reply does
                    _check_term_draws(stay, pos)
                break
            dist = greedy
            x_new = sum(q * cont(pos, d) for d, q in dist.items() if d != 0) / (1 - stay)
            if abs(x_new - x) <= VALUE_TOL:
                x = x_new
                break
            x = x_new
        else:
            raise RuntimeError("the best reply to a replayed draw did not settle; this is a bug, please report it")
        values[pos], dists[pos] = x, dist
    return values[fmt.start()], dists


def simulate_match(a, b, rules: Rules, matches: int, seed, solution, progress, play_games, kernels) -> Simulation:
    """Play ``matches`` whole matches of ``a`` (seat A) against ``b``; reproducible by ``seed``.

    Every game at one match position is played as a batch: by the numba kernel
    (:func:`~.simulate._simulate`, seeded from ``numpy.random.default_rng(seed)``)
    or, for user strategies and equilibria read through ``query``, from Python
    with the same generator. ``margin`` is the final match-score difference
    (see :func:`evaluate_match`), ``win``/``draw``/``loss`` the match results.
    ``progress(matches_finished)`` is called as matches end. ``play_games(single, sa, sb, count, rng)``:
    the final margins of ``count`` games; ``kernels.play`` decides whether a replayed draw is certain.
    """
    t0 = time.perf_counter()
    fmt, pa, pb = _players(a, b, rules, solution)
    single = fmt.single()
    rng = np.random.default_rng(int(seed))
    G = int(matches)
    groups = {fmt.start(): list(range(G))}  # unfinished matches by position
    result = np.zeros(G, np.int64)
    score = np.zeros(G, np.float64)
    all_drawn = {}  # replayed positions: batches in a row that were all draws
    while groups:
        pos = min(groups, key=fmt._progress)
        idx = np.asarray(groups.pop(pos))
        sa, sb = pa.at(pos), pb.at(pos)
        margins = play_games(single, sa, sb, len(idx), rng)
        if fmt.replay(pos) and np.all(margins == 0):
            all_drawn[pos] = all_drawn.get(pos, 0) + 1
            if all_drawn[pos] == 2:  # a replay drawn again by every match: is the draw certain?
                dist = kernels.play(single, sa, sb)
                _check_term_draws(dist.get(0, 0.0), pos)
        else:
            all_drawn.pop(pos, None)
        ended = 0
        for i, d in zip(idx, margins):
            kind, *rest = fmt.next(pos, int(d))
            if fmt.replay(pos) and d == 0:
                rest = [pos]
                kind = "pos"
            if kind == "pos":
                groups.setdefault(rest[0], []).append(i)
            else:
                result[i], score[i] = rest
                ended += 1
        if progress is not None and ended:
            progress(ended)
    m = float(score.mean())
    half = 1.96 * float(score.std(ddof=1)) / np.sqrt(G) if G > 1 else float("inf")

    def rate(count):
        p = count / G
        h = 1.96 * np.sqrt(p * (1 - p) / G)
        return p, (float(p - h), float(p + h))

    w, wci = rate(int(np.count_nonzero(result > 0)))
    dr, dci = rate(int(np.count_nonzero(result == 0)))
    lo, lci = rate(int(np.count_nonzero(result < 0)))
    return Simulation(rules, pa.name, pb.name, G, int(seed), m, (float(m - half), float(m + half)), w, wci, dr, dci,
                      lo, lci, time.perf_counter() - t0)

