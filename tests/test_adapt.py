"""Adaptive safe exploitation: the gift accounting, the budget, sessions, and ``gops play --adapt``."""

import itertools
import json
import subprocess
import sys

import pytest

from gops_solver import Rules, solve
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.play import Game, Opponent
from gops_solver.analysis.strategies import View, make_strategy
from gops_solver.opponent import adaptive_session
from gops_solver.opponent.adapt import Budget, Candidate, game_gifts, round_gift


def _view(game, seat_b=False):
    st = game.state()
    if seat_b:
        return View(tuple(st.hand_b), tuple(st.hand_a), st.pot, tuple(sorted(st.prizes)), -st.diff)
    return View(tuple(st.hand_a), tuple(st.hand_b), st.pot, tuple(sorted(st.prizes)), st.diff)


def _expected_gifts(rules, sol, sa, sb):
    """E[sum of A's gifts] over every prize order and both players' draws (exact enumeration)."""
    oracle = Opponent(rules, sol)
    orders = list(itertools.permutations(range(1, rules.n + 1)))

    def walk(game):
        if game.over:
            return 0.0
        x = sa.distribution(_view(game), rules.n)
        y = sb.distribution(_view(game, True), rules.n)
        q = oracle.query(game)
        total = 0.0
        for b, pb in y.items():
            if pb == 0:
                continue
            g = round_gift(q, x, b)
            for a, pa in x.items():
                if pa == 0:
                    continue
                child = Game(rules, game.prize_order)
                for r in game.history:
                    child.play(r.bid_a, r.bid_b)
                child.play(a, b)
                total += pa * pb * (g + walk(child))
        return total

    return sum(walk(Game(rules, o)) for o in orders) / len(orders)


@pytest.mark.parametrize("tie,objective", [("carry", "points"), ("discard", "win")])
def test_gifts_add_up_to_the_result_minus_the_value(tie, objective):
    # the accounting's one identity: in expectation, a game's gifts are its result less the game value,
    # whatever either side plays (here the equilibrium and a response against match and uniform)
    rules = Rules(4, tie, objective)
    sol = solve(rules)
    for a, b in [("equilibrium", "match"), ("highest", "uniform")]:
        sa, sb = make_strategy(a, sol), make_strategy(b, sol)
        exact = evaluate(sa, rules, against=sb, solution=sol).vs_opponent.value
        assert _expected_gifts(rules, sol, sa, sb) == pytest.approx(exact - sol.value, abs=1e-9)


def test_an_equilibrium_strategy_never_has_a_negative_gift():
    rules = Rules(5, "carry")
    sol = solve(rules)
    oracle = Opponent(rules, sol)
    eq = make_strategy("equilibrium", sol)
    seen = 0
    for order in [(1, 2, 3, 4, 5), (5, 3, 1, 4, 2), (2, 5, 4, 1, 3)]:
        for bids in itertools.product(range(1, 6), repeat=2):
            game = Game(rules, order)
            game.play(*bids)
            x = eq.distribution(_view(game), 5)
            for b in game.hand_b:
                assert round_gift(oracle.query(game), x, b) >= -1e-9
                seen += 1
    assert seen == 3 * 25 * 4


def test_the_budget_spends_only_what_safe_games_gave():
    eq = Candidate("equilibrium", None, 0.0, 0.0)
    safe = Candidate("safe response", None, 0.5, 0.0)
    risky = Candidate("R(1)", None, 3.0, 2.0)
    mid = Candidate("R(0.5)", None, 1.0, 0.4)
    b = Budget()
    assert b.choose([eq, safe, risky, mid]) is safe  # nothing won yet: no risk
    b.settle(safe, 0.7)
    assert b.left == pytest.approx(0.7)
    assert b.choose([eq, safe, risky, mid]) is mid  # 0.4 <= 0.7 < 2.0
    b.settle(mid, -5.0)  # a risky game's own result does not move the budget: its exploitability is spent
    assert b.left == pytest.approx(0.3)
    assert b.choose([eq, safe, risky, mid]) is safe
    b.settle(risky, 0.0)  # never below zero
    assert b.left == 0.0
    with pytest.raises(ValueError, match="no safe candidate"):
        Budget().choose([risky])


def test_a_session_against_an_exploitable_opponent():
    rules = Rules(4, "carry")
    s = adaptive_session(rules, "highest", games=6, seed=2, grid=(0.5, 1.0))
    assert len(s.games) == 6
    assert [g.played for g in s.games[:2]] == ["equilibrium", "equilibrium"]
    # every risky game fit in the budget its safe games had collected before it
    gifts = spent = 0.0
    for g in s.games:
        assert g.risk <= gifts - spent + 1e-9
        assert g.budget_before == pytest.approx(max(0.0, gifts - spent), abs=1e-9)
        if g.risk == 0.0:
            assert g.gifts >= -1e-9
            gifts += g.gifts
        spent += g.risk
    assert s.risk_taken == pytest.approx(spent)
    assert s.gifts == pytest.approx(gifts)
    assert any(g.played != "equilibrium" for g in s.games[2:])  # it stops playing the plain equilibrium
    assert s.gained == pytest.approx(s.total - 6 * s.game_value)


def _gops(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "gops_solver", *args], input=stdin, capture_output=True, text=True,
                          timeout=600)


def test_play_adapt_with_a_strategy_prints_strict_json():
    r = _gops("play", "--adapt", "--a", "lowest", "--games", "3", "--cards", "4", "--seed", "5", "--json", "-q")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(l, parse_constant=lambda c: pytest.fail(f"not JSON: {c}")) for l in r.stdout.splitlines()]
    assert [l["type"] for l in lines] == ["start", "game", "game", "game", "end"]
    assert lines[0]["seed"] == 5 and lines[0]["a"] == "lowest" and lines[0]["b"] == "adaptive"
    assert [l["game"] for l in lines[1:-1]] == [1, 2, 3]
    summary = lines[-1]
    assert summary["games"] == 3 and summary["budget_left"] >= 0
    assert summary["gained"] == pytest.approx(summary["total_b"] - 3 * summary["game_value"])


def test_play_adapt_reads_a_person_and_ends_cleanly_at_end_of_input():
    r = _gops("play", "--adapt", "--games", "2", "--cards", "3", "--seed", "1", stdin="1\n2\n3\n1\n")
    assert r.returncode == 0, r.stderr
    assert "game 1: I played equilibrium" in r.stdout
    assert "end of input: session over" in r.stdout
    assert "session       1 games" in r.stdout


@pytest.mark.parametrize("args,msg", [
    (["--games", "3"], "goes with --adapt"),
    (["--adapt", "-s", "x.gops"], "leave out --match"),
    (["--adapt", "--match", "best-of-3"], "single classic games"),
    (["--adapt", "--a", "match", "--b", "uniform"], "drop --b"),
    (["--adapt", "--games", "0"], "0"),
    (["--adapt", "--bid-cards", "2"], "leave out --bid-cards"),
])
def test_play_adapt_bad_input(args, msg):
    r = _gops("play", "--cards", "4", *args, stdin="")
    assert r.returncode == 2
    assert msg in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 3
