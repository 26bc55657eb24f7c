"""Exact evaluation and simulation of match formats against a naive pure-Python oracle.

The oracle recurses over actual hands, hidden prizes, carry and score, and over
the match score, written without the match evaluator's position logic: the
equilibrium is read through ``Solution.query(..., game=, match_score=)``, B's
best reply is a min over B's cards at every state knowing the match score, and a
replayed draw's value is found by bisection.
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pytest
from click.testing import CliRunner

import gops_solver as gops
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.simulate import simulate
from gops_solver.analysis.strategies import View, make_strategy
from gops_solver.cli.commands import cli

#: (name, rules) of every match format, small enough for the oracle
FORMATS = [
    ("session-win", dict(n=3, match="session", objective="win")),
    ("session-points", dict(n=3, match="session", objective="points")),
    ("bo3-half", dict(n=3, match="best-of-3", draw="half", objective="win")),
    ("bo3-replay", dict(n=4, match="best-of-3", draw="replay", objective="win")),
    ("bo3-extra", dict(n=3, match="best-of-3", draw="half", tiebreak="extra-game", objective="win")),
    ("bo3-total", dict(n=3, match="best-of-3", draw="half", tiebreak="total-score", objective="win")),
    ("bo5-half-fixed", dict(n=3, match="best-of-5", draw="half", objective="win", tie="discard",
                            order="descending")),
]
PAIRS = [("match", "highest"), ("uniform", "proportional"), ("equilibrium", "uniform"), ("lowest", "equilibrium"),
         ("equilibrium", "equilibrium")]


@lru_cache(maxsize=None)
def _solved(name):
    rules = gops.Rules(**dict(FORMATS)[name])
    return rules, gops.solve(rules)


# -- the oracle ---------------------------------------------------------------------

@lru_cache(maxsize=None)
def _policy(spec, sol, game, score):
    """``f(hand, opp, pot, hidden, diff) -> {card: p}`` of a per-game strategy at one match score
    (remembered: the replay bisection asks the same decisions sixty times)."""
    return lru_cache(maxsize=None)(_policy_of(spec, sol, game, score))


def _policy_of(spec, sol, game, score):
    if spec == "equilibrium":
        def f(hand, opp, pot, hidden, diff):
            q = sol.query(hand, opp, pot, hidden, diff, game=game, match_score=score)
            return {c: q.strategy_a.get(c, 0.0) for c in hand}
        return f
    s = make_strategy(spec)
    n = sol.rules.n
    return lambda hand, opp, pot, hidden, diff: s.distribution(View(hand, opp, pot, hidden, diff), n)


def _prizes(rules, hidden, k):
    """(prize, probability) revealed next with ``k`` cards in hand."""
    if rules.random_order:
        return [(q, 1 / len(hidden)) for q in hidden]
    return [(rules.sequence[rules.n - k], 1.0)]


def _game(rules, fa, fb, term=None):
    """Final-margin distribution of one game (both fixed), or with ``term`` B's best-reply value."""
    n = rules.n
    full = tuple(range(1, n + 1))

    @lru_cache(maxsize=None)
    def rec(ha, hb, hidden, carry, d):
        k = len(ha)
        if k == 0:
            return term[d] if term is not None else {d: 1.0}
        acc = 0.0 if term is not None else {}
        for q, pq in _prizes(rules, hidden, k):
            rest = tuple(x for x in hidden if x != q)
            pot = carry + q
            pa = fa(ha, hb, pot, rest, d)

            def child(a, b):
                o = (a > b) - (a < b)
                c2 = pot if (o == 0 and rules.tie == "carry" and k > 1) else 0
                return rec(tuple(x for x in ha if x != a), tuple(x for x in hb if x != b), rest, c2, d + o * pot)
            if term is not None:
                acc += pq * min(sum(p * child(a, b) for a, p in pa.items() if p > 0) for b in hb)
                continue
            pb = fb(hb, ha, pot, rest, -d)
            for a, p in pa.items():
                for b, r in pb.items():
                    if p * r > 0:
                        for m, w in child(a, b).items():
                            acc[m] = acc.get(m, 0.0) + pq * p * r * w
        return acc
    return rec(full, full, full, 0, 0)


def _oracle(rules, sol, sa, sb):
    """(P(A wins the match), P(draw), P(loss), expected payoff) and B's best-reply value."""
    T = rules.total
    N = rules.best_of

    def game_of(g, score_a, score_b, term=None):
        return _game(rules, _policy(sa, sol, g, score_a), _policy(sb, sol, g, score_b), term)

    if rules.match == "session":
        @lru_cache(maxsize=None)
        def fixed(g, D):
            if g > 3:
                return {(int(np.sign(D)), D): 1.0}
            out = {}
            for d, p in game_of(g, D, -D).items():
                for k, w in fixed(g + 1, D + d).items():
                    out[k] = out.get(k, 0.0) + p * w
            return out

        @lru_cache(maxsize=None)
        def best(g, D):
            if g > 3:
                return float(D) if rules.objective == "points" else float(np.sign(D))
            term = {d: best(g + 1, D + d) for d in range(-T, T + 1)}
            return game_of(g, D, -D, term)
        ends, br = fixed(1, 0), best(1, 0)
        value = sum(w * (s if rules.objective == "points" else r) for (r, s), w in ends.items())
    else:
        need = N // 2 + 1

        def ms(a2, b2, D):
            if rules.tiebreak == "total-score":
                return (a2 / 2, b2 / 2, D), (b2 / 2, a2 / 2, -D)
            return (a2 / 2, b2 / 2), (b2 / 2, a2 / 2)

        def end(a2, b2, D):
            """None, or the match result +-1/0 or "x" (the extra game), when (a2, b2, D) is over."""
            if rules.draw == "replay":
                return int(np.sign(a2 - b2)) if max(a2, b2) >= 2 * need else None
            left = N - (a2 + b2) / 2
            if left > 0 and abs(a2 - b2) <= 2 * left:
                return None
            if a2 != b2:
                return int(np.sign(a2 - b2))
            return {"share": 0, "extra-game": "x", "total-score": int(np.sign(D))}[rules.tiebreak]

        single = gops.solve(gops.Rules(n=rules.n, tie=rules.tie, order=rules.order, objective="win")) \
            if rules.tiebreak == "extra-game" else None

        def extra(term=None):
            fa = _policy(sa, single, None, None) if sa == "equilibrium" else _policy(sa, sol, None, None)
            fb = _policy(sb, single, None, None) if sb == "equilibrium" else _policy(sb, sol, None, None)
            return _game(rules, fa, fb, term)

        def step(a2, b2, D, d):
            D2 = D + d if rules.tiebreak == "total-score" else 0
            if d > 0:
                return a2 + 2, b2, D2
            if d < 0:
                return a2, b2 + 2, D2
            return (a2 + 1, b2 + 1, D2) if rules.draw == "half" else (a2, b2, D2)

        @lru_cache(maxsize=None)
        def fixed(a2, b2, D):
            e = end(a2, b2, D)
            if e == "x":
                out = {}
                for d, p in extra().items():
                    out[int(np.sign(d))] = out.get(int(np.sign(d)), 0.0) + p
                return out
            if e is not None:
                return {e: 1.0}
            A, B = ms(a2, b2, D)
            dist = game_of(None, A, B)
            stay = dist.get(0, 0.0) if rules.draw == "replay" else 0.0
            out = {}
            for d, p in dist.items():
                if rules.draw == "replay" and d == 0:
                    continue
                for k, w in fixed(*step(a2, b2, D, d)).items():
                    out[k] = out.get(k, 0.0) + p * w / (1 - stay)
            return out

        @lru_cache(maxsize=None)
        def best(a2, b2, D):
            e = end(a2, b2, D)
            if e == "x":
                return extra({d: float(np.sign(d)) for d in range(-T, T + 1)})
            if e is not None:
                return float(e)
            A, B = ms(a2, b2, D)
            if rules.draw != "replay":
                return game_of(None, A, B, {d: best(*step(a2, b2, D, d)) for d in range(-T, T + 1)})
            lo, hi = -1.0, 1.0  # the value x of a replayed draw: x = G(x), G nondecreasing, 1-Lipschitz
            for _ in range(60):
                x = (lo + hi) / 2
                term = {d: (x if d == 0 else best(*step(a2, b2, D, d))) for d in range(-T, T + 1)}
                # every x below the value is also a fixed point where B could draw forever (no end):
                # the value is the largest fixed point, what B gets from replies that end the match
                if game_of(None, A, B, term) >= x - 1e-12:
                    lo = x
                else:
                    hi = x
            return (lo + hi) / 2
        res = fixed(0, 0, 0)
        ends = {(r, 0): p for r, p in res.items()}
        br = best(0, 0, 0)
        value = sum(w * r for (r, _), w in ends.items())
    win = sum(w for (r, _), w in ends.items() if r > 0)
    draw = sum(w for (r, _), w in ends.items() if r == 0)
    loss = sum(w for (r, _), w in ends.items() if r < 0)
    return win, draw, loss, value, br


# -- exact evaluation -----------------------------------------------------------------

@pytest.mark.parametrize("name", [f[0] for f in FORMATS])
def test_exact_evaluation_agrees_with_the_oracle(name):
    rules, sol = _solved(name)
    for sa, sb in PAIRS:
        ev = evaluate(sa, rules, sb, sol)
        win, draw, loss, value, br = _oracle(rules, sol, sa, sb)
        o = ev.vs_opponent
        assert o.win == pytest.approx(win, abs=1e-9), (sa, sb)
        assert o.draw == pytest.approx(draw, abs=1e-9), (sa, sb)
        assert o.loss == pytest.approx(loss, abs=1e-9), (sa, sb)
        assert o.value == pytest.approx(value, abs=1e-9), (sa, sb)
        assert o.win + o.draw + o.loss == pytest.approx(1.0, abs=1e-12)
        tol = 1e-9 if rules.draw != "replay" else 1e-9 + 2 ** -59  # bisection's last interval
        assert ev.vs_best_response.value == pytest.approx(br, abs=tol), (sa, sb)
        assert ev.exploitability == pytest.approx(ev.game_value - br, abs=tol)
        assert ev.game_value == pytest.approx(sol.value, abs=1e-12)
        if sa == "equilibrium":  # the match equilibrium concedes nothing to a reply that knows the score
            assert ev.exploitability == pytest.approx(0.0, abs=1e-9)
            assert ev.vs_best_response.value == pytest.approx(sol.value, abs=1e-9)
        if sa == sb == "equilibrium":
            assert o.value == pytest.approx(sol.value, abs=1e-9)
            assert sol.value == pytest.approx(0.0, abs=1e-9)  # every format is symmetric


def test_heuristics_need_no_solution_and_are_exploitable():
    rules = gops.Rules(n=4, match="best-of-3", draw="half", objective="win")
    ev = evaluate("match", rules, "highest")
    assert ev.game_value == 0.0
    assert ev.exploitability > 0.5  # a best reply that knows the score beats "match" nearly always
    rev = evaluate("highest", rules, "match")
    assert rev.vs_opponent.value == pytest.approx(-ev.vs_opponent.value, abs=1e-12)


def test_points_session_is_three_single_games():
    rules = gops.Rules(n=4, match="session", objective="points")
    single = evaluate("match", gops.Rules(n=4), "uniform")
    ev = evaluate("match", rules, "uniform")
    assert ev.vs_opponent.margin == pytest.approx(3 * single.vs_opponent.margin, abs=1e-9)
    assert ev.vs_best_response.value == pytest.approx(3 * single.vs_best_response.value, abs=1e-9)


# -- simulation -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["session-win", "bo3-replay", "bo3-total", "bo3-extra"])
def test_simulation_interval_holds_the_exact_value(name):
    rules, sol = _solved(name)
    for sa, sb in (("match", "uniform"), ("equilibrium", "proportional")):
        ev = evaluate(sa, rules, sb, sol)
        sim = simulate(sa, sb, rules, 4000, 7, sol)
        assert sim.games == 4000
        for f in ("win", "draw", "loss"):
            lo, hi = getattr(sim, f + "_ci")
            exact = getattr(ev.vs_opponent, f)
            assert lo - 1e-12 <= exact <= hi + 1e-12 or (exact == 0 and getattr(sim, f) == 0), (sa, sb, f)
        assert sim.margin_ci[0] <= ev.vs_opponent.margin <= sim.margin_ci[1]
        again = simulate(sa, sb, rules, 4000, 7, sol)
        assert again.to_dict() | {"seconds": 0} == sim.to_dict() | {"seconds": 0}  # reproducible by the seed


def test_endless_replayed_match_is_refused():
    rules = gops.Rules(n=4, match="best-of-3", draw="replay", objective="win")
    with pytest.raises(ValueError, match="never ends"):
        evaluate("highest", rules, "highest")
    with pytest.raises(ValueError, match="never ends"):
        simulate("highest", "highest", rules, 10, 0)


def test_bad_input():
    rules = gops.Rules(n=3, match="best-of-3", draw="half", objective="win")
    with pytest.raises(ValueError, match="strategy"):
        evaluate("nonsense", rules, "uniform")
    with pytest.raises(ValueError, match="games"):
        simulate("uniform", "uniform", rules, 0)
    with pytest.raises(ValueError, match="solution is for"):
        evaluate("equilibrium", rules, "uniform", _solved("bo3-extra")[1])
    with pytest.raises(ValueError, match="two players"):
        evaluate("uniform", gops.Rules(n=3, players=3), "uniform")


# -- the command line -----------------------------------------------------------------

CLI_FORMATS = [
    ["--match", "session", "--objective", "win"],
    ["--match", "session"],
    ["--match", "best-of-3"],
    ["--match", "best-of-5", "--draw", "half"],
    ["--match", "best-of-3", "--draw", "half", "--tiebreak", "extra-game"],
    ["--match", "best-of-3", "--draw", "half", "--tiebreak", "total-score"],
]


@pytest.mark.parametrize("opts", CLI_FORMATS, ids=lambda o: "-".join(o[1::2]))
def test_cli_evaluate_and_simulate_matches(opts):
    run = CliRunner().invoke
    r = run(cli, ["evaluate", "--a", "match", "--b", "uniform", "--cards", "4", "-q", *opts, "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    rules = gops.Rules.from_dict(d["rules"])
    ev = evaluate("match", rules, "uniform")
    assert d["vs_opponent"]["value"] == pytest.approx(ev.vs_opponent.value, abs=1e-12)
    assert d["exploitability"] == pytest.approx(ev.exploitability, abs=1e-12)
    r = run(cli, ["evaluate", "--a", "match", "--b", "uniform", "--cards", "4", "-q", *opts])
    assert r.exit_code == 0, r.output
    assert "exploitability" in r.output and f"match={rules.match}" in r.output
    r = run(cli, ["simulate", "--a", "match", "--b", "uniform", "--games", "500", "--cards", "4", "-q", *opts,
                  "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    assert s["games"] == 500 and s["rules"] == d["rules"]
    assert s["win_ci"][0] <= s["win"] <= s["win_ci"][1]
    r = run(cli, ["simulate", "--a", "match", "--b", "uniform", "--games", "50", "--cards", "4", "-q", *opts])
    assert r.exit_code == 0 and "matches 50 of match (A) vs uniform (B)" in r.output  # whole matches, said so


def test_cli_refusals():
    run = CliRunner().invoke
    r = run(cli, ["evaluate", "--a", "match", "--cards", "4", "--match", "best-of-3", "--objective", "points"])
    assert r.exit_code == 2 and "objective win" in r.output and "Traceback" not in r.output
    r = run(cli, ["simulate", "--a", "match", "--b", "uniform", "--games", "5", "--cards", "4", "--tiebreak",
                  "extra-game", "--match", "best-of-3"])
    assert r.exit_code == 2 and "draw half" in r.output
    r = run(cli, ["evaluate", "--a", "highest", "--b", "highest", "--cards", "4", "--match", "best-of-3", "-q"])
    assert r.exit_code == 2 and "never ends" in r.output
