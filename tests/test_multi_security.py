"""Security values of the 3- and 4-player games against the naive oracle and by hand."""

import itertools
import random

import pytest

from gops_solver import Rules, solve
from gops_solver.multi import solve_multi
from gops_solver.multi.induction import Induction
from gops_solver.multi.state import relabel

import naive_multi as nm

ORDERS = ("random", "ascending", "descending")


def _random_state(rules, k, rng):
    """A random decision state with k cards per hand, reachable under ``rules``.

    Plays n - k rounds with random bids from the start, so pot, prizes and
    scores are reachable by construction.
    """
    n, m = rules.n, rules.players
    hands = [list(range(1, n + 1)) for _ in range(m)]
    order = list(rules.sequence) if rules.sequence else rng.sample(range(1, n + 1), n)
    scores, carry = [0] * m, 0
    for r in range(n - k):
        pot = carry + order[r]
        bids = [rng.choice(h) for h in hands]
        top = max(bids)
        win = [i for i, b in enumerate(bids) if b == top]
        carry = 0
        if len(win) == 1:
            scores[win[0]] += pot
        elif rules.tie == "carry":
            carry = pot
        for h, b in zip(hands, bids):
            h.remove(b)
    pot = carry + order[n - k]
    hidden = order[n - k + 1:]
    prizes = tuple(sorted(hidden)) if rules.random_order else tuple(hidden)
    return tuple(tuple(sorted(h)) for h in hands), pot, prizes, tuple(scores)


@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("players,n,kmax", [(3, 4, 3), (4, 3, 2)])
def test_security_matches_naive_oracle(players, n, kmax, tie, objective, order):
    rules = Rules(n, tie=tie, objective=objective, order=order, players=players)
    ind = Induction(rules, equilibrium=False)
    oracle = nm.make_security(tie, objective, rules.random_order)
    rng = random.Random(f"{players}{n}{tie}{objective}{order}")
    for _ in range(3):
        k = rng.randint(1, kmax)  # the oracle's tree grows fast: few cards a hand
        hands, pot, prizes, scores = _random_state(rules, k, rng)
        sec, _ = ind.decision(relabel(hands), pot, prizes, scores)
        base = scores if objective == "points" else (0,) * players
        for i in range(players):
            want = oracle(hands, pot, prizes, scores, i)
            assert abs(sec[i] + base[i] - want) <= 1e-9, (hands, pot, prizes, scores, i)


def test_security_start_matches_oracle_and_backends():
    rules = Rules(3, tie="carry", objective="points", players=3)
    sol = solve_multi(rules, equilibrium=False)
    oracle = nm.make_security("carry", "points", True)
    full = (1, 2, 3)
    for i in range(3):
        want = sum(oracle((full,) * 3, p, tuple(q for q in full if q != p), (0, 0, 0), i) for p in full) / 3
        assert abs(sol.security[i] - want) <= 1e-9
    # the HiGHS backend gives the same values
    assert max(abs(a - b) for a, b in zip(solve_multi(rules, stage_solver="highs", equilibrium=False).security, sol.security)) <= 1e-9


def test_hand_worked_one_card():
    # n = 1, three players, each holds the ace, pot 1: every bid ties, so the
    # pot is lost (a last-round tie discards it under carry too).
    # points: each player ends with their score; win: the scores decide.
    for tie in ("carry", "discard"):
        sol = solve_multi(Rules(1, tie=tie, objective="points", players=3))
        assert sol.security == [0.0, 0.0, 0.0] and sol.values == [0.0, 0.0, 0.0]
        q = solve_multi(Rules(1, tie=tie, objective="win", players=3)).query([[1], [1], [1]], pot=1)
        # all scores 0: the three share first place, 1/3 each
        assert q.security == pytest.approx([1 / 3] * 3, abs=1e-12)


def test_hand_worked_two_cards_points():
    # n = 2, three players, ascending order (prize 1, then prize 2), discard,
    # points. Every player holds {1, 2}. Security of player 0 (the others
    # coordinate against them): the coalition plays (1, 2) in round 1, i.e.
    # player 1 bids 1 and player 2 bids 2.
    #   player 0 bids 1: player 2 alone bids 2 and takes 1; round 2 player 0
    #     and player 1 both hold 2: a tie, the pot 2 is discarded -> 0.
    #   player 0 bids 2: a tie with player 2, pot discarded; round 2 player 1
    #     holds the only 2 and takes it -> 0.
    # So the coalition holds player 0 to 0, and 0 is always guaranteed:
    # security 0, for every player by symmetry.
    sol = solve_multi(Rules(2, tie="discard", objective="points", order="ascending", players=3), equilibrium=False)
    assert sol.security == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
    # against the oracle too
    oracle = nm.make_security("discard", "points", False)
    assert oracle(((1, 2),) * 3, 1, (2,), (0, 0, 0), 0) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("n", [2, 3])
def test_two_players_win_security_is_half_of_one_plus_value(n, tie):
    # With two players the coalition is the opponent: the game is the classic
    # one. Under win a draw is worth 1/2 to each, so the payoff is
    # (1 + classic payoff) / 2 and the security value (1 + value) / 2.
    rules2 = Rules(n, tie=tie, objective="win")
    classic = solve(rules2)
    sol = solve_multi(Rules(n, tie=tie, objective="win", players=2))
    assert abs(sol.security[0] - (1 + classic.value) / 2) <= 1e-9
    assert abs(sol.security[1] - (1 - classic.value) / 2) <= 1e-9
    # a state after one round: the n was revealed and taken by A
    hands = (tuple(range(1, n)), tuple(range(2, n + 1)))
    prizes = tuple(range(2, n))
    q = sol.query(list(hands), pot=1, prizes=prizes, scores=(n, 0))
    cq = classic.query(hands[0], hands[1], pot=1, prizes=prizes, diff=n)
    assert abs(q.security[0] - (1 + cq.value) / 2) <= 1e-9


@pytest.mark.parametrize("objective", ["points", "win"])
def test_permuting_players_permutes_security(objective):
    rules = Rules(3, tie="discard", objective=objective, players=3)
    sol = solve_multi(rules)
    hands, pot, prizes, scores = [[1, 2], [2, 3], [1, 3]], 2, [1], [3, 0, 0]
    base = sol.query(hands, pot, prizes, scores)
    for perm in itertools.permutations(range(3)):
        q = sol.query([hands[i] for i in perm], pot, prizes, [scores[i] for i in perm])
        for j, i in enumerate(perm):
            assert abs(q.security[j] - base.security[i]) <= 1e-12
            assert abs(q.values[j] - base.values[i]) <= 1e-12
