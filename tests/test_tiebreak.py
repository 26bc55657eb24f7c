"""Best-of matches with the extra-game and total-score tiebreaks against a naive oracle, and by hand."""

import functools
import random

import numpy as np
import pytest

from naive_variants import Game
from test_variants import query_args, random_state
from gops_solver import Rules, solve

TOL = 1e-9


class TermGame(Game):
    """A game played to win whose end pays ``pay(final difference)`` (a match position's value)."""

    def __init__(self, n, tie, order, pay):
        super().__init__(n, tie=tie, objective="win", order=order)
        self.pay = pay

    def end(self, diff):
        return self.pay(diff)


def naive_match(n, tie, order, N, tiebreak):
    """``V(a2, b2, D)``: the match value at games won (halves doubled) and total score difference D.

    RULES.md: a best-of-N match with drawn games counted half; once the games
    cannot change the winner it is over; a level match after N games is
    settled by ``tiebreak``.
    """
    extra = TermGame(n, tie, order, lambda d: (d > 0) - (d < 0)).start() if tiebreak == "extra-game" else None

    @functools.lru_cache(maxsize=None)
    def V(a2, b2, D):
        left = N - (a2 + b2) / 2
        if left <= 0 or abs(a2 - b2) > 2 * left:
            if a2 != b2:
                return float(np.sign(a2 - b2))
            return {"share": 0.0, "extra-game": extra, "total-score": float(np.sign(D))}[tiebreak]
        game = TermGame(n, tie, order, lambda d: value(a2 + 2, b2, D + d) if d > 0 else
                        value(a2, b2 + 2, D + d) if d < 0 else value(a2 + 1, b2 + 1, D + d))
        return game, game.start()

    def value(a2, b2, D):
        out = V(a2, b2, D)
        return out[1] if isinstance(out, tuple) else out

    V.value = value
    return V


@pytest.mark.parametrize("tiebreak", ["extra-game", "total-score"])
@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("n, match, order", [(2, "best-of-3", "random"), (2, "best-of-3", "descending"),
                                             (3, "best-of-3", "descending"), (2, "best-of-5", "random")])
def test_tiebreak_against_naive(tiebreak, tie, order, n, match):
    rules = Rules(n=n, tie=tie, order=order, objective="win", match=match, draw="half", tiebreak=tiebreak)
    sol = solve(rules)
    N = rules.best_of
    V = naive_match(n, tie, rules.sequence, N, tiebreak)
    assert sol.value == pytest.approx(V.value(0, 0, 0), abs=TOL)
    rng = random.Random(n * 7 + N)
    T = rules.total
    for _ in range(6):
        g = rng.randrange(N)
        a2 = rng.randrange(g, 2 * g + 1)
        b2 = 2 * g - a2
        if abs(a2 - b2) > 2 * (N - g):
            continue
        D = rng.randint(-g * T, g * T) if tiebreak == "total-score" else 0
        entry = V(a2, b2, D)
        if not isinstance(entry, tuple):
            continue
        game = entry[0]
        st = random_state(game, rng)
        score = (a2 / 2, b2 / 2, D) if tiebreak == "total-score" else (a2 / 2, b2 / 2)
        res = sol.query(**query_args(rules, st), match_score=score)
        assert res.value == pytest.approx(game.decision(*st), abs=TOL), (a2, b2, D, st)


def test_extra_game_equals_share():
    # the extra game starts symmetric, so its value is 0: a level match is worth
    # what sharing it is worth, and every position of the match agrees
    share = solve(Rules(n=3, objective="win", match="best-of-3", draw="half"))
    extra = solve(Rules(n=3, objective="win", match="best-of-3", draw="half", tiebreak="extra-game"))
    assert extra.match.extra_value == pytest.approx(0.0, abs=TOL)
    for score in ((0, 0), (1, 0), (0.5, 0.5), (1, 1), (1.5, 0.5)):
        assert extra.query([1, 2], [1, 3], 3, [2], match_score=score).value == pytest.approx(
            share.query([1, 2], [1, 3], 3, [2], match_score=score).value, abs=TOL)


def test_total_score_worked():
    # Best-of-3, draws half, n = 2, carry, random order. Game 3 starts 1-1
    # (each won a game). Prize 2 is revealed first (pot 2), prize 1 is left.
    # Bids: A and B hold 1, 2. (2 vs 1): A takes 2, then 1 vs 2: B takes 1:
    # d = +1. (1 vs 2): d = -1. (2 vs 2) or (1 vs 1): tie, the 2 carries; the
    # last round is then 1 vs 1 or 2 vs 2: a tie again, discarded: d = 0.
    # A draw leaves the match level at 1.5-1.5 and the total score decides.
    # With A 3 points ahead (D = +3) a draw wins the match for A:
    #   rows A: bid 2, bid 1; columns B: bid 2, bid 1
    #   [[+1 (tie, D=3), +1 (d=+1)], [-1 (d=-1), +1 (tie)]]: bid 2 guarantees +1.
    sol = solve(Rules(n=2, objective="win", match="best-of-3", draw="half", tiebreak="total-score"))
    res = sol.query([1, 2], [1, 2], pot=2, prizes=[1], match_score=(1, 1, 3))
    assert res.value == pytest.approx(1.0, abs=TOL)
    assert res.strategy_a == {1: 0.0, 2: 1.0}
    pay = res.payoffs_a()  # against B's optimal mix: bid 2 earns +1
    assert pay[2] == pytest.approx(1.0, abs=TOL)
    # D = 0: a draw is shared (value 0): [[0, +1], [-1, 0]], the saddle (2, 2), value 0
    assert sol.query([1, 2], [1, 2], pot=2, prizes=[1], match_score=(1, 1, 0)).value == pytest.approx(0.0, abs=TOL)
    # D = -3 is the mirror image: value -1
    assert sol.query([1, 2], [1, 2], pot=2, prizes=[1], match_score=(1, 1, -3)).value == pytest.approx(-1.0, abs=TOL)


def test_tiebreak_bad_positions():
    sol = solve(Rules(n=2, objective="win", match="best-of-3", draw="half", tiebreak="total-score"))
    with pytest.raises(ValueError, match="unreachable"):
        sol.query([1, 2], [1, 2], pot=2, prizes=[1], match_score=(1, 1, 7))
