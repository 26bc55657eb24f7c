"""Two-card bids and open prizes: the fast solver against the naive oracle, hand-worked cases, bad input."""

import itertools
import random

import numpy as np
import pytest

from naive_variants import Game
from gops_solver import Rules, solve
from gops_solver.variants.solution import VariantSolution

TOL = 1e-9


def random_state(game, rng):
    """Play random bids, fills and prize choices from the start; stop before a random round.

    Returns the decision state as ``(a, b, row, carry, pile, diff)`` (naive
    conventions), the pile in reveal order for a fixed order.
    """
    n = game.n
    a = b = tuple(range(1, n + 1))
    pile = game.order if game.order is not None else tuple(range(1, n + 1))
    row, carry, diff = (), 0, 0
    rounds = -(-n // game.bid)
    stop = rng.randrange(rounds)
    for t in range(rounds):
        need = min(game.m - len(row), len(pile))
        drawn = pile[:need] if game.order is not None else tuple(rng.sample(pile, need))
        pile = tuple(p for p in pile if p not in drawn)
        row = tuple(sorted(row + drawn))
        if t == stop:
            return a, b, row, carry, pile, diff
        size = min(game.bid, len(a))
        x, y = rng.sample(a, size), rng.sample(b, size)
        a = tuple(c for c in a if c not in x)
        b = tuple(c for c in b if c not in y)
        if sum(x) != sum(y):
            r = rng.choice(row)
            diff += (1 if sum(x) > sum(y) else -1) * (carry + r)
            row, carry = tuple(p for p in row if p != r), 0
        else:
            low = row[0]
            row = row[1:]
            carry = carry + low if game.tie == "carry" else 0
    raise AssertionError("unreachable")


def query_args(rules, state):
    a, b, row, carry, pile, diff = state
    if rules.open_prizes == 1:
        return dict(hand_a=a, hand_b=b, pot=carry + row[0], prizes=pile, diff=diff)
    return dict(hand_a=a, hand_b=b, pot=carry, prizes=pile, diff=diff, row=row)


def naive_game(rules):
    return Game(rules.n, rules.bid_cards, rules.open_prizes, rules.tie, rules.objective, rules.sequence)


# small enough for the oracle's full-tree LPs (n = 5 runs in tests/test_variants_slow.py)
CASES = [dict(bid_cards=2, n=n) for n in (3, 4)] + [dict(open_prizes=m, n=n) for n, m in ((3, 2), (4, 2), (4, 3))]


@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("order", ["random", "descending", "fixed"])
def test_against_naive(case, tie, objective, order):
    n = case["n"]
    if order == "fixed":
        order = tuple(random.Random(n).sample(range(1, n + 1), n))
    rules = Rules(tie=tie, objective=objective, order=order, **case)
    sol = solve(rules)
    assert isinstance(sol, VariantSolution)
    game = naive_game(rules)
    assert sol.value == pytest.approx(game.start(), abs=TOL)
    rng = random.Random(hash((tie, objective, str(order), n)) & 0xFFFF)
    for _ in range(8):
        st = random_state(game, rng)
        res = sol.query(**query_args(rules, st))
        assert res.value == pytest.approx(game.decision(*st), abs=TOL), st
        # the strategies guarantee the value against every pure reply
        x = np.array(list(res.strategy_a.values()))
        y = np.array(list(res.strategy_b.values()))
        stage = res.value - res.offset
        assert (x @ res.matrix).min() >= stage - TOL
        assert (res.matrix @ y).max() <= stage + TOL
        M, bids_a, bids_b = game.matrix(*st)
        assert list(res.strategy_a) == bids_a and list(res.strategy_b) == bids_b
        np.testing.assert_allclose(res.matrix + res.offset, M, atol=TOL)


@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("order", ["random", "ascending", (3, 1, 5, 2, 4)])
def test_defaults_engine_equals_classic(tie, objective, order):
    """With one-card bids and one open prize the variant engine gives the classic solver's values."""
    from gops_solver.variants.solution import solve_variant
    rules = Rules(n=5, tie=tie, objective=objective, order=order)
    classic = solve(rules)
    engine = solve_variant(rules)
    assert engine.value == pytest.approx(classic.value, abs=TOL)
    game = naive_game(rules)
    rng = random.Random(7)
    for _ in range(15):
        st = random_state(game, rng)
        args = query_args(rules, st)
        assert engine.query(**args).value == pytest.approx(classic.query(**args).value, abs=TOL)


def test_defaults_are_the_classic_game():
    r = Rules(n=6)
    assert (r.bid_cards, r.open_prizes, r.tiebreak) == (1, 1, "share")
    assert r.to_dict() == {"n": 6, "tie": "carry", "objective": "points", "order": "random"}
    assert r.classic and Rules(**{**r.to_dict(), "bid_cards": 1, "open_prizes": 1}) == r
    assert not isinstance(solve(r), VariantSolution)


def test_open_prizes_one_takes_the_revealed_prize_as_its_row():
    # one open prize: row=[r] names the revealed prize and pot is the carried pot, as with open prizes
    sol = solve(Rules(n=4, bid_cards=2))
    got = sol.query([1, 2], [3, 4], pot=4, prizes=[1, 2], row=[3])
    want = sol.query([1, 2], [3, 4], pot=7, prizes=[1, 2])
    assert got.value == want.value and got.strategy_a == want.strategy_a
    with pytest.raises(ValueError, match="one open prize it holds the revealed prize"):
        sol.query([1, 2], [3, 4], pot=4, prizes=[1, 2], row=[3, 4])
    with pytest.raises(ValueError, match="both in the row and face down"):
        sol.query([1, 2], [3, 4], pot=4, prizes=[1, 2], row=[2])


def test_two_card_n2_worked():
    # n = 2, two-card bids: one round, both bid 1+2 = 3: a tie. The only prize
    # turned is the pot; a last-round tie discards it under carry, and the
    # discard rule discards it too: every game ends 0-0 and is worth 0.
    for tie in ("carry", "discard"):
        sol = solve(Rules(n=2, bid_cards=2, tie=tie))
        res = sol.query([1, 2], [1, 2], pot=2, prizes=[1])
        assert res.value == 0.0 and res.strategy_a == {(1, 2): 1.0}


def test_two_card_n3_worked():
    # n = 3, two-card bids: round 1 bids pairs from {1,2,3} (sums 3, 4, 5),
    # round 2 bids the card left (a card c leaves the pair summing 6 - c).
    # Prize p is turned in round 1 and q in round 2 (q from the 2 left).
    # Points, diff 0, A holds 1,2,3 and B holds 1,2,3, p = 3, pile {1, 2}:
    # A's pair with sum s leaves A the card 6 - s. If A bids 2+3 (5) vs B's
    # 1+2 (3): A wins 3 and keeps 1 against B's 3: B wins round 2's q.
    # The stage game is symmetric (equal hands), so its value is 0.
    sol = solve(Rules(n=3, bid_cards=2))
    assert sol.query([1, 2, 3], [1, 2, 3], pot=3, prizes=[1, 2]).value == pytest.approx(0, abs=TOL)
    # Last round, A holds 3 and B holds 1, pot 2 (prize 2), diff -1: A wins 2,
    # the game ends 1 up: points value -1 + 2 = 1.
    res = sol.query([3], [1], pot=2, prizes=[1], diff=-1)
    assert res.value == pytest.approx(1.0) and res.strategy_a == {(3,): 1.0}
    # Round 1 with A = {1,2,3}, B = {1,2,3}, pot 1 (prize 1), pile {2,3}, points.
    # A bids 2+3 (leaves 1), 1+3 (leaves 2) or 1+2 (leaves 3); B likewise.
    # Round 2's prize q is 2 or 3 (mean 2.5); its winner is whoever kept the
    # larger card, and a round-2 tie discards. Cell (A leaves x, B leaves y):
    # round 1: A wins 1 if x < y (larger pair), loses 1 if x > y, ties
    # (carry: +1 to the pot, which round 2 then takes or discards) if x = y.
    # round 2: A wins 2.5 if x > y, loses 2.5 if x < y, nothing if equal.
    # So x < y gives 1 - 2.5 = -1.5, x > y gives +1.5, x = y gives 0: a
    # symmetric game (cyclic-free: keeping the 3 always wins round 2):
    # A keeps 3 (bids 1+2): against y < 3 gives +1.5, y = 3 gives 0; so the
    # pure pair (1+2, 1+2) is a saddle point with value 0.
    res = sol.query([1, 2, 3], [1, 2, 3], pot=1, prizes=[2, 3])
    assert res.value == pytest.approx(0, abs=TOL)
    assert res.strategy_a == {(1, 2): 1.0, (1, 3): 0.0, (2, 3): 0.0}
    M = res.matrix  # rows/cols (1,2), (1,3), (2,3): leaves 3, 2, 1
    np.testing.assert_allclose(M, [[0, 1.5, 1.5], [-1.5, 0, 1.5], [-1.5, -1.5, 0]])


def test_open_prizes_m1_equals_classic():
    for tie in ("carry", "discard"):
        for objective in ("points", "win"):
            classic = solve(Rules(n=5, tie=tie, objective=objective))
            from gops_solver.variants.solution import solve_variant
            assert solve_variant(Rules(n=5, tie=tie, objective=objective)).value == pytest.approx(classic.value, abs=TOL)


def test_open_prizes_choice_worked():
    # n = 2, two open prizes, points: the row is {1, 2}, both hands {1, 2}.
    # A winner takes the 2 (then the 1 is left for round 2). Bids (2 vs 1):
    # A takes 2, round 2 B's 2 beats A's 1: B takes 1: margin +1. (1 vs 2): -1.
    # Ties (1,1): the lowest prize 1 joins the pot (carry); round 2 (2 vs 2)
    # ties in the last round: discarded: 0. (2,2): same, 0. Value 0, and the
    # winner always chooses the 2.
    sol = solve(Rules(n=2, open_prizes=2))
    res = sol.query([1, 2], [1, 2], pot=0, prizes=[], row=[1, 2])
    np.testing.assert_allclose(res.matrix, [[0, -1], [1, 0]])
    assert res.choices == {((1,), (2,)): 2, ((2,), (1,)): 2}
    # the matrix [[0,-1],[1,0]] has the saddle point (2, 2): value 0
    assert res.value == pytest.approx(0.0, abs=TOL)
    assert res.to_dict()["choices"] == {"1|2": 2, "2|1": 2}


@pytest.mark.parametrize("kw, msg", [
    (dict(hand_a=[1, 2, 7], hand_b=[1, 2, 3]), "outside 1..5"),
    (dict(hand_a=[1, 2, 3, 4], hand_b=[1, 2, 3, 4]), "never occur"),
])
def test_bad_states_two_card(kw, msg):
    sol = solve(Rules(n=5, bid_cards=2))
    with pytest.raises(ValueError, match=msg):
        sol.query(pot=3, prizes=[1, 2, 4, 5], **kw)


def test_bad_row():
    sol = solve(Rules(n=4, open_prizes=2))
    with pytest.raises(ValueError, match="need the row"):
        sol.query([1, 2, 3, 4], [1, 2, 3, 4], pot=0, prizes=[1, 2])
    with pytest.raises(ValueError, match="holds 1 prizes"):
        sol.query([1, 2, 3, 4], [1, 2, 3, 4], pot=0, prizes=[1, 2, 3], row=[4])
    with pytest.raises(ValueError, match="cannot occur"):
        sol.query([1, 2, 3, 4], [1, 2, 3, 4], pot=5, prizes=[1, 2], row=[3, 4])
    with pytest.raises(ValueError, match="both in the row and in the pile"):
        sol.query([1, 2, 3, 4], [1, 2, 3, 4], pot=0, prizes=[1, 3], row=[3, 4])


@pytest.mark.parametrize("kw, msg", [
    (dict(bid_cards=3), "bid_cards=3"),
    (dict(open_prizes=0), "outside 1..5"),
    (dict(open_prizes=6), "outside 1..5"),
    (dict(tiebreak="extra-game"), "best-of"),
    (dict(tiebreak="total-score", match="best-of-3", objective="win"), "draw half"),
    (dict(tiebreak="coin"), "unknown tiebreak"),
])
def test_bad_rules(kw, msg):
    with pytest.raises(ValueError, match=msg):
        Rules(n=5, **kw)


def test_save_load_verify(tmp_path):
    from gops_solver import load
    rules = Rules(n=3, open_prizes=2, objective="win")
    sol = solve(rules)
    path = tmp_path / "v.gops"
    sol.save(path)
    back = load(path)
    assert back.rules == rules and back.value == sol.value
    # round 2: the 1 tied in round 1 and joined the pot, the 2 filled the row
    args = dict(hand_a=[1, 3], hand_b=[2, 3], pot=1, prizes=[], row=[2, 3], diff=0)
    assert back.query(**args).value == sol.query(**args).value
    v = back.verify()
    assert v.ok and v.checked == back.states and v.max_residual <= 1e-9
    # a flipped byte in a table fails the checksum
    data = bytearray(path.read_bytes())
    data[-9] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        load(path)


def test_verify_catches_a_wrong_value():
    sol = solve(Rules(n=4, bid_cards=2))
    sol.tables[1] = sol.tables[1].copy()
    sol.tables[1][0, 0, 0] += 1e-6
    assert not sol.verify().ok


@pytest.mark.parametrize("objective", ["points", "win"])
def test_two_card_bids_with_open_prizes(objective):
    # the two variants combine: pairs are bid and the winner picks from the row
    rules = Rules(n=4, bid_cards=2, open_prizes=2, objective=objective)
    sol = solve(rules)
    game = naive_game(rules)
    assert sol.value == pytest.approx(game.start(), abs=TOL)
    rng = random.Random(3)
    for _ in range(8):
        st = random_state(game, rng)
        assert sol.query(**query_args(rules, st)).value == pytest.approx(game.decision(*st), abs=TOL)


@pytest.mark.parametrize("kw", [dict(n=4, bid_cards=2, tie="carry", objective="win"),
                                dict(n=5, bid_cards=2, tie="discard", objective="points", order="descending"),
                                dict(n=3, open_prizes=2, tie="discard", objective="win"),
                                dict(n=4, open_prizes=3, tie="carry", objective="points", order="ascending")],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_shortcuts_equal_the_plain_induction(kw):
    """The kernel's shortcuts (one class of each mirror pair, one game per decision state, a
    repeated game not solved again) give the tables of the plain slot-by-slot HiGHS induction,
    every slot, empty (unreachable) slots included; and verify's independent jitted recomputation
    agrees with both."""
    rules = Rules(**kw)
    fast = solve(rules)
    plain = solve(rules, stage_solver="highs")
    for a, b in zip(fast.tables, plain.tables):
        np.testing.assert_allclose(a, b, atol=TOL, equal_nan=True)
    v = fast.verify()
    assert v.ok and v.checked == sum(t.size for t in fast.tables[:-1]) and v.stage_games > 0
    assert fast.verify(sample=20, backend="highs").ok


def test_mirror_negates_the_value():
    # exchanging the hands (and the sign of diff) negates the value, at random reachable states
    rules = Rules(n=6, bid_cards=2, objective="win", tie="discard")
    sol = solve(rules)
    game = naive_game(rules)
    rng = random.Random(11)
    for _ in range(12):
        st = random_state(game, rng)
        args = query_args(rules, st)
        swapped = dict(args, hand_a=args["hand_b"], hand_b=args["hand_a"], diff=-args["diff"])
        assert sol.query(**swapped).value == pytest.approx(-sol.query(**args).value, abs=TOL)


def test_unreachable_diff_refused():
    sol = solve(Rules(n=4, bid_cards=2, objective="win"))
    # round 2: the 4 was turned and taken (carry 0): |diff| <= 4 and diff is even
    with pytest.raises(ValueError, match="diff 3 is unreachable.*parity of 4"):
        sol.query([1, 2], [3, 4], pot=3, prizes=[1, 2], diff=3)
    with pytest.raises(ValueError, match=r"diff -6 is unreachable.*\|diff\| <= 4"):
        sol.query([1, 2], [3, 4], pot=3, prizes=[1, 2], diff=-6)
    assert sol.query([1, 2], [3, 4], pot=3, prizes=[1, 2], diff=4).value == pytest.approx(1.0)


@pytest.mark.nojit
@pytest.mark.parametrize("kw", [dict(n=4, bid_cards=2, objective="win"), dict(n=3, open_prizes=2, tie="discard")])
def test_kernels_as_plain_python(kw):
    # CI also runs this with NUMBA_DISABLE_JIT=1: the kernels' integer and array semantics hold in Python too
    rules = Rules(**kw)
    sol = solve(rules)
    assert sol.value == pytest.approx(naive_game(rules).start(), abs=TOL)
    assert sol.verify().ok


@pytest.mark.parametrize("kw", [dict(n=6, bid_cards=2, objective="win", tie="carry"),
                                dict(n=5, open_prizes=2, objective="points", tie="discard")])
def test_failed_slots_are_redone_with_highs(kw):
    # the kernel leaves a slot NaN when a stage game fails its certificate; the
    # redo must restore exactly the slots that should hold a value, and no other
    from gops_solver.variants.solution import _redo_failed
    sol = solve(Rules(**kw))
    sp = sol.space
    rng = np.random.default_rng(3)
    for t in range(sp.R):
        table = sol.tables[t]
        filled = np.flatnonzero(~np.isnan(table))
        hit = rng.choice(filled, size=min(25, filled.size), replace=False)
        broken = table.copy()
        broken.reshape(-1)[hit] = np.nan
        games = _redo_failed(sp, t, sol.tables[t + 1], broken)
        assert games >= 1
        np.testing.assert_allclose(broken, table, atol=TOL, equal_nan=True)
