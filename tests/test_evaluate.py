"""Exact evaluation: hand-checked figures, the naive oracle, the CLI of evaluate and simulate."""

import json

import pytest
from click.testing import CliRunner

import naive
from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.strategies import HEURISTICS, View, make_strategy


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


# -- exact evaluation: hand-checked -------------------------------------------------

@pytest.mark.nojit
def test_two_cards_by_hand():
    # n = 2, carry, points. Prize p first, q = 3 - p second.
    # Equilibrium stage game at the start, rows A bids 1,2, columns B bids 1,2:
    #   [[0, q - p], [p - q, 0]]  (a tie on p carries it into a tied last round: 0)
    # p = 2: bid 2 is dominant for both; p = 1: bid 1 -> the equilibrium bids the prize.
    # highest vs equilibrium: p = 2: 2 vs 2, 0;  p = 1: 2 vs 1 wins 1, then 1 vs 2 loses 2: -1.
    #   margin -1/2, draw 1/2, loss 1/2.
    # Best reply to highest: p = 2: B ties (0) rather than lets A win 2 and lose 1 (+1);
    #   p = 1: B bids 1 (-1). Value -1/2, exploitability 1/2.
    r = Rules(2, "carry", "points")
    e = evaluate("highest", r)
    assert e.vs_opponent.margin == pytest.approx(-0.5)
    assert (e.vs_opponent.win, e.vs_opponent.draw, e.vs_opponent.loss) == pytest.approx((0, .5, .5))
    assert e.exploitability == pytest.approx(0.5)
    # uniform vs best reply: p = 2: B bids 2: A 1 loses 2 then wins 1 (-1), A 2 ties (0): -1/2;
    #   (B bids 1 would give +1/2). p = 1: B bids 1: A 1 ties (0), A 2 wins 1 loses 2 (-1): -1/2.
    u = evaluate("uniform", r)
    assert u.vs_best_response.margin == pytest.approx(-0.5) and u.exploitability == pytest.approx(0.5)
    # uniform vs equilibrium plays the same replies (B bids the prize): margins -1, 0, 0, -1
    assert (u.vs_opponent.margin, u.vs_opponent.draw, u.vs_opponent.loss) == pytest.approx((-0.5, .5, .5))


@pytest.mark.nojit
@pytest.mark.parametrize("tie,margin,wdl", [("carry", -2.0, (0, 1 / 3, 2 / 3)), ("discard", 0.0, (.5, 0, .5))])
def test_three_cards_highest_vs_lowest_by_hand(tie, margin, wdl):
    # A bids 3, 2, 1; B bids 1, 2, 3: A wins round 1, round 2 ties, B wins round 3.
    # carry: margin p1 - (p2 + p3) = 2 p1 - 6 over p1 = 1, 2, 3: -4, -2, 0 -> mean -2.
    # discard: margin p1 - p3 over the 6 orders: -1, -2, 1, -1, 2, 1 -> mean 0, 3 wins, 3 losses.
    e = evaluate("highest", Rules(3, tie, "points"), against="lowest")
    assert e.vs_opponent.margin == pytest.approx(margin)
    assert (e.vs_opponent.win, e.vs_opponent.draw, e.vs_opponent.loss) == pytest.approx(wdl)


# -- exact evaluation: properties and the naive oracle ---------------------------------------

@pytest.mark.parametrize("rules", [Rules(4, "carry", "points"), Rules(4, "discard", "win"),
                                   Rules(5, "carry", "win"), Rules(5, "discard", "points"),
                                   Rules(5, "carry", "points", "descending"), Rules(5, "carry", "win", "3,1,5,2,4"),
                                   Rules(4, "discard", "win", "ascending")])
def test_equilibrium_against_itself(rules):
    sol = solve(rules)
    e = evaluate("equilibrium", rules, "equilibrium", solution=sol)
    assert e.vs_opponent.value == pytest.approx(sol.value, abs=1e-9)
    assert abs(e.exploitability) <= 1e-9
    assert e.vs_opponent.win == pytest.approx(e.vs_opponent.loss, abs=1e-9)  # symmetric game
    # the equilibrium concedes nothing to any heuristic, and a best reply does at least as well
    for h in HEURISTICS:
        f = evaluate(h, rules, solution=sol)
        assert f.vs_opponent.value <= 1e-9
        assert f.vs_best_response.value <= f.vs_opponent.value + 1e-9
        assert f.exploitability >= -1e-12


def _oracle_strategy(name):
    # independent plain-Python versions of the built-ins (module docstring of strategies.py)
    def f(hand, opp, pot, hidden, diff):
        if name == "uniform":
            return {c: 1 / len(hand) for c in hand}
        if name in ("highest", "lowest"):
            return {(max if name == "highest" else min)(hand): 1.0}
        if name in ("match", "match+1"):
            t = pot + (name == "match+1")
            best = min(abs(c - t) for c in hand)
            near = [c for c in hand if abs(c - t) == best]
            return {c: 1 / len(near) for c in near}
        rank = sum(1 for p in hidden if p < pot)
        return {sorted(hand)[rank]: 1.0}
    return f


@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("objective", ["points", "win"])
def test_against_naive_oracle(tie, objective):
    n = 4
    rules = Rules(n, tie, objective)
    for a, b in [("uniform", "match"), ("proportional", "match+1"), ("highest", "uniform"), ("lowest", "match")]:
        e = evaluate(a, rules, against=b)
        want = naive.play_distribution(n, tie, _oracle_strategy(a), _oracle_strategy(b))
        got = e.vs_opponent.distribution
        assert set(got) == {m for m, p in want.items() if p > 0}
        for m, p in want.items():
            assert got.get(m, 0.0) == pytest.approx(p, abs=1e-12)
        br = naive.best_response_value(n, tie, objective, _oracle_strategy(a))
        assert e.vs_best_response.value == pytest.approx(br, abs=1e-12)
        assert e.exploitability == pytest.approx(-br, abs=1e-12)


def _same_evaluation(e, f):
    assert e.vs_opponent.distribution.keys() == f.vs_opponent.distribution.keys()
    for m, p in f.vs_opponent.distribution.items():
        assert e.vs_opponent.distribution[m] == pytest.approx(p, abs=1e-12)
    assert e.exploitability == pytest.approx(f.exploitability, abs=1e-12)
    assert e.vs_best_response.to_dict() == pytest.approx(f.vs_best_response.to_dict(), abs=1e-12)


@pytest.mark.parametrize("rules", [Rules(5, "carry", "points"), Rules(5, "discard", "win"),
                                   Rules(5, "carry", "win", "2,5,1,4,3")])
@pytest.mark.parametrize("name", ["uniform", "proportional", "match"])
def test_relabelling_changes_nothing(rules, name):
    # evaluate() relabels hands when the strategies allow it (evaluate._relabelling): both as ranks
    # when both see only card order (uniform, proportional vs the equilibrium), or the equilibrium's
    # cards within the gaps of match's; the same strategy as a user function keeps every card value
    sol = solve(rules)
    _same_evaluation(evaluate(name, rules, solution=sol),
                     evaluate(f"stratfuncs:{name}_by_value", rules, solution=sol))


@pytest.mark.parametrize("rules", [Rules(5, "carry", "points"), Rules(5, "discard", "win")])
def test_relabelling_the_first_seat_into_the_gaps(rules):
    # uniform (order only) against match (values): A's cards move within the gaps of B's
    _same_evaluation(evaluate("uniform", rules, against="match"),
                     evaluate("stratfuncs:uniform_by_value", rules, against="match"))


def test_progress_is_called_once_per_round_of_each_pass():
    from gops_solver.analysis.evaluate import evaluation_steps
    rules = Rules(4, "discard", "points")
    calls = []
    evaluate("highest", rules, against="lowest", progress=lambda: calls.append(1))
    assert len(calls) == evaluation_steps(rules) == 15


@pytest.mark.parametrize("chunks", [1, 3])
@pytest.mark.parametrize("name", ["match", "uniform"])
def test_hash_tables_that_must_grow(monkeypatch, chunks, name):
    # each level's children go into hash tables (one per chunk of parents, merged at the end) that
    # double when one is half full; start them at 8 slots so that they grow many times (k**3
    # children of one state do not fit), cut every level into `chunks` chunks, and compare
    import gops_solver.analysis.evaluate as ev
    rules = Rules(5, "carry", "win")
    sol = solve(rules)
    want = evaluate(name, rules, solution=sol)
    monkeypatch.setattr(ev, "_first_slots", lambda n_parents: 8)
    monkeypatch.setattr(ev, "_chunk_count", lambda: chunks)
    monkeypatch.setattr(ev, "_MIN_CHUNK", 1)
    got = evaluate(name, rules, solution=sol)
    _same_evaluation(got, want)


@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("order", ["ascending", "descending", "2,4,1,3"])
def test_fixed_orders_against_naive_oracle(tie, objective, order):
    n = 4
    rules = Rules(n, tie, objective, order)
    seq = rules.sequence
    for a, b in [("uniform", "match"), ("proportional", "match+1"), ("highest", "uniform"), ("match", "lowest")]:
        e = evaluate(a, rules, against=b)
        want = naive.play_distribution(n, tie, _oracle_strategy(a), _oracle_strategy(b), order=seq)
        got = e.vs_opponent.distribution
        assert set(got) == {m for m, p in want.items() if p > 0}
        for m, p in want.items():
            assert got.get(m, 0.0) == pytest.approx(p, abs=1e-12)
        br = naive.best_response_value(n, tie, objective, _oracle_strategy(a), order=seq)
        assert e.vs_best_response.value == pytest.approx(br, abs=1e-12)
    # the equilibrium of the fixed-order game, played from Python into the oracle: no reply gains
    sol = solve(rules)
    eq = make_strategy("equilibrium", sol)

    def eq_fn(hand, opp, pot, hidden, diff):
        return eq.distribution(View(tuple(hand), tuple(opp), pot, tuple(hidden), diff), n)
    assert naive.best_response_value(n, tie, objective, eq_fn, order=seq) == pytest.approx(sol.value, abs=1e-9)
    assert evaluate("equilibrium", rules, solution=sol).exploitability == pytest.approx(0.0, abs=1e-9)


def test_user_strategies_through_the_table_path():
    rules = Rules(4, "carry", "win")
    sol = solve(rules)
    built = evaluate("lowest", rules, solution=sol)
    user = evaluate("stratfuncs:lowest_as_list", rules, solution=sol)
    assert user.vs_opponent.to_dict() == pytest.approx(built.vs_opponent.to_dict(), abs=1e-12)
    assert user.exploitability == pytest.approx(built.exploitability, abs=1e-12)
    # a diff-dependent user strategy: its best response must track the score
    e = evaluate("stratfuncs:lead_when_ahead", Rules(4, "carry", "points"), against="uniform")
    naive_s = lambda h, o, pot, hid, d: {(max(h) if d < 0 else min(h)): 1.0}  # noqa: E731
    assert e.vs_best_response.value == pytest.approx(naive.best_response_value(4, "carry", "points", naive_s))


def test_evaluate_errors():
    with pytest.raises(ValueError, match="solution is for"):  # a single game's solution for a match
        evaluate("equilibrium", Rules(4, match="session"), solution=solve(Rules(4)))
    with pytest.raises(ValueError, match="solution is for"):
        evaluate("equilibrium", Rules(4), solution=solve(Rules(4, "discard")))


# -- command line -----------------------------------------------------------------------

def test_cli_evaluate_and_simulate(tmp_path):
    path = tmp_path / "s4.gops"
    solve(Rules(4, "discard", "points"), out=path)
    r = run("evaluate", "--strategy", "match", "-n", 4, "--tie", "discard", "--solution", path, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)  # stdout: the old --strategy adds its warning on stderr
    assert data["strategy"] == "match" and data["against"] == "equilibrium" and data["exploitability"] > 0
    text = run("evaluate", "--strategy", "uniform", "--against", "highest", "-n", 3)
    assert text.exit_code == 0 and "exploitability" in text.output
    s = run("simulate", "--a", "match", "--b", "uniform", "-n", 4, "--games", 500, "--seed", 3, "--json")
    assert s.exit_code == 0
    sd = json.loads(s.output)
    assert sd["games"] == 500 and sd["win"] + sd["draw"] + sd["loss"] == pytest.approx(1)
    c = run("simulate", "--a", "match", "--b", "uniform", "-n", 4, "--games", 500, "--seed", 3, "--csv")
    head, row = c.output.strip().split("\n")
    assert dict(zip(head.split(","), row.split(",")))["margin"] == f"{sd['margin']:.6g}"
    # a fixed prize order
    f = run("evaluate", "--strategy", "match", "-n", 4, "--order", "descending", "--objective", "win", "--json")
    assert f.exit_code == 0, f.output
    fd = json.loads(f.stdout)
    assert fd["rules"]["order"] == "descending" and fd["exploitability"] > 0
    fs = run("simulate", "--a", "match", "--b", "equilibrium", "-n", 4, "--order", "2,4,1,3", "--games", 200,
             "--json")
    # past the measured sizes only on request (deterministic against deterministic stays small)
    big = run("evaluate", "--strategy", "highest", "--against", "lowest", "-n", 11, "--allow-large", "--json", "-q")
    assert big.exit_code == 0, big.output
    out = json.loads(big.stdout)["vs_opponent"]
    assert out["win"] + out["draw"] + out["loss"] == pytest.approx(1.0)
    assert fs.exit_code == 0 and json.loads(fs.output)["rules"]["order"] == "2,4,1,3"


@pytest.mark.parametrize("args", [
    ("evaluate", "--strategy", "nope", "-n", 4),
    ("evaluate", "--strategy", "match"),
    ("evaluate", "--strategy", "match", "-n", 14),
    ("evaluate", "--strategy", "stratfuncs:broken", "-n", 3),
    ("simulate", "--a", "match", "--b", "uniform", "-n", 4, "--games", 0),
    ("simulate", "--a", "match", "--b", "uniform", "-n", 4, "--games", 5, "--json", "--csv"),
    ("simulate", "--a", "match", "--b", "x:y", "-n", 4, "--games", 5),
    ("evaluate", "--strategy", "match", "-n", 4, "--order", "1,2,2,4"),
    ("evaluate", "--strategy", "uniform", "-n", 11),
    ("evaluate", "--strategy", "nope", "--against", "equilibrium", "-n", 4, "--order", "descending"),
])
def test_cli_errors_are_one_line(args):
    r = run(*args)
    assert r.exit_code == 2, r.output
    # the old --strategy/--against still work, each with a one-line warning before the error
    out = "".join(line for line in r.output.splitlines(True) if not line.startswith("warning: "))
    assert out.startswith("error:") and out.count("\n") == 1
