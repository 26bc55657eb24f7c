"""Match formats (RULES.md "Match formats") against brute force over the match (tests/naive_match.py)."""

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.game.constants import GUARANTEE_TOL

import naive_match as nm

ORDERS = ["random", "ascending", (2, 3, 1)]


def _rules(n, tie, objective, order, match, draw="replay"):
    return Rules(n, tie, objective, order, match=match, draw=draw)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("order", ["random", "descending"])
def test_session_win_against_brute_force(n, tie, order):
    sol = solve(_rules(n, tie, "win", order, "session"))
    assert sol.value == pytest.approx(nm.session_value(n, tie, order, "win"), abs=1e-9)
    T = n * (n + 1) // 2
    # the start of games 2 and 3 from every reachable running total
    for game in (2, 3):
        end = nm.session_end(n, tie, order, "win", game)
        for carried in range(-(game - 1) * T, (game - 1) * T + 1):
            deck = list(range(1, n + 1))
            seq = list(range(n, 0, -1)) if order == "descending" else None
            first = seq[0] if seq else 1
            hidden = seq[1:] if seq else deck[1:]
            q = sol.query(deck, deck, first, hidden, 0, game=game, match_score=carried)
            expect = nm.state_value(n, tie, order, end, deck, deck, first, hidden, carried)
            assert q.value == pytest.approx(expect, abs=1e-9), (game, carried)


def test_session_win_mid_game_queries_and_guarantees():
    n, tie, order = 4, "carry", (3, 1, 4, 2)
    sol = solve(_rules(n, tie, "win", order, "session"))
    end2 = nm.session_end(n, tie, order, "win", 2)
    rng = np.random.default_rng(3)
    for _ in range(15):
        k = int(rng.integers(1, n + 1))
        ha = sorted(int(c) for c in rng.choice(range(1, n + 1), k, replace=False))
        hb = sorted(int(c) for c in rng.choice(range(1, n + 1), k, replace=False))
        seq = list(order)
        pot, hidden = seq[n - k], seq[n - k + 1:]
        spent = sum(seq[:n - k])
        diff = int(rng.integers(-spent, spent + 1))
        carried = int(rng.integers(-10, 11))
        q = sol.query(ha, hb, pot, hidden, diff, game=2, match_score=carried)
        assert q.value == pytest.approx(nm.state_value(n, tie, order, end2, ha, hb, pot, hidden, carried + diff),
                                       abs=1e-9)
        for c in ha:  # B's mix holds every bid of A to the value, A's support earns it
            assert q.value_given_up(c) >= 0.0
            if q.strategy_a[c] > 1e-9:
                assert q.value_given_up(c) == 0.0
        y = np.array([sum(q.strategy_b[c] for c in cls) for cls in q.classes_b])
        x = np.array([sum(q.strategy_a[c] for c in cls) for cls in q.classes_a])
        assert (x @ q.matrix).min() >= q.value - q.offset - GUARANTEE_TOL
        assert (q.matrix @ y).max() <= q.value - q.offset + GUARANTEE_TOL


@pytest.mark.parametrize("tie, order", [("carry", "random"), ("discard", (2, 3, 1))])
def test_points_session_is_three_single_games(tie, order):
    # under points the session margin is the sum of the games' margins: each game is the single game
    single = solve(Rules(3, tie, "points", order))
    sess = solve(_rules(3, tie, "points", order, "session"))
    assert sess.match is None and sess.value == pytest.approx(nm.session_value(3, tie, order, "points"), abs=1e-9)
    end = nm.session_end(3, tie, order, "points", 2)
    seq = single.rules.sequence
    pot, hidden = (2, (1, 3)) if seq is None else (seq[0], seq[1:])
    for carried in (-6, -1, 0, 4):
        q = sess.query([1, 2, 3], [1, 2, 3], pot, hidden, 0, game=2, match_score=carried)
        assert q.value == pytest.approx(nm.state_value(3, tie, order, end, [1, 2, 3], [1, 2, 3], pot, hidden, carried),
                                       abs=1e-9)
        assert q.value == pytest.approx(carried + single.query([1, 2, 3], [1, 2, 3], pot, hidden).value, abs=1e-12)


@pytest.mark.parametrize("n, games, draw, tie, order", [
    *[(3, g, "half", t, o) for g in (3, 5) for t, o in (("carry", "random"), ("discard", "ascending"),
                                                        ("carry", (2, 3, 1)))],
    (4, 3, "replay", "carry", "descending"), (4, 3, "replay", "discard", (3, 1, 4, 2))])
def test_best_of_against_brute_force(n, games, draw, tie, order):
    sol = solve(_rules(n, tie, "win", order, f"best-of-{games}", draw))
    V, val = nm.best_of_values(n, tie, order, games, draw)
    assert sol.value == pytest.approx(V[(0, 0)], abs=1e-9)
    seq = sol.rules.sequence
    pot, hidden = (n, tuple(range(1, n))) if seq is None else (seq[0], seq[1:])
    deck = list(range(1, n + 1))
    for a, b in V:
        # the first reveal of a game at this match score, and a position one round in
        q = sol.query(deck, deck, pot, hidden, 0, match_score=(a, b))
        expect = nm.state_value(n, tie, order, nm._wdl(val(a + 1, b), val(a + .5, b + .5) if draw == "half"
                                                       else V[(a, b)], val(a, b + 1)), deck, deck, pot, hidden, 0)
        assert q.value == pytest.approx(expect, abs=1e-9), (a, b)
        # one round later: A bid 2 against B's n and lost the first pot
        ha, hb = [c for c in deck if c != 2], deck[:-1]
        nxt, rest = (hidden[0], hidden[1:]) if seq is not None else (hidden[-1], hidden[:-1])
        q2 = sol.query(ha, hb, nxt, rest, -pot, match_score=(a, b))
        f = nm._wdl(val(a + 1, b), val(a + .5, b + .5) if draw == "half" else V[(a, b)], val(a, b + 1))
        assert q2.value == pytest.approx(nm.state_value(n, tie, order, f, ha, hb, nxt, rest, -pot), abs=1e-9)


def test_replay_without_a_value_is_refused():
    # n = 3, ascending: each player can hold every game to a draw, so a replayed match need never end
    with pytest.raises(ValueError, match="sure draw"):
        solve(Rules(3, "carry", "win", "ascending", match="best-of-3"))


def test_replayed_draws_play_like_single_games():
    # with replays the match value is (W + L) / 2 at every position: each game is the single win game
    sol = solve(Rules(4, "carry", "win", match="best-of-5"))
    single = solve(Rules(4, "carry", "win"))
    assert sol.match.values[(2, 0)] == pytest.approx((sol.match.values[(4, 0)] + 0) / 2, abs=1e-12)
    q = sol.query([1, 2, 4], [2, 3, 4], 3, [1, 4], 1, match_score=(1, 0))
    s = single.query([1, 2, 4], [2, 3, 4], 3, [1, 4], 1)
    w, loss = sol.match.values[(4, 0)], 0.0
    assert q.value == pytest.approx((w + loss) / 2 + (w - loss) / 2 * s.value, abs=1e-9)


def test_mirror_positions_negate():
    sol = solve(Rules(3, "carry", "win", "random", match="best-of-3", draw="half"))
    a = sol.query([1, 3], [2, 3], 2, [1], 1, match_score=(1.5, 0.5))
    b = sol.query([2, 3], [1, 3], 2, [1], -1, match_score=(0.5, 1.5))
    assert a.value == pytest.approx(-b.value, abs=1e-12)
    assert a.strategy_a == b.strategy_b and a.strategy_b == b.strategy_a


@pytest.mark.parametrize("kwargs, msg", [
    (dict(match="tournament"), "unknown match format"),
    (dict(match="best-of-3"), "use objective win"),
    (dict(match="best-of-3", objective="win", draw="coin"), "unknown draw rule"),
    (dict(n=1, match="best-of-3", objective="win"), "never ends"),
])
def test_match_rules_validation(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        Rules(**{"n": 3, **kwargs})


def test_match_query_validation_and_save():
    ses = solve(Rules(3, "carry", "win", match="session"))
    bo = solve(Rules(3, "carry", "win", match="best-of-3", draw="half"))
    single = solve(Rules(3))
    cases = [(ses, dict(game=4), "outside 1..3"), (ses, dict(game=2, match_score=7), "unreachable"),
             (ses, dict(match_score=1), "unreachable before game 1"),
             (bo, dict(match_score=(2, 0)), "already decided"), (bo, dict(match_score=(1, 0), game=3), "next game is game 2"),
             (bo, dict(match_score=(0.25, 0)), "not games won"), (bo, dict(match_score=3), "not a pair"),
             (single, dict(game=2), "no match position")]
    for sol, kw, msg in cases:
        with pytest.raises(ValueError, match=msg):
            sol.query([1, 2, 3], [1, 2, 3], 2, [1, 3], **kw)
    rp = solve(Rules(4, "carry", "win", "descending", match="best-of-3"))
    with pytest.raises(ValueError, match="over"):
        rp.query([1, 2, 3, 4], [1, 2, 3, 4], 4, [3, 2, 1], match_score=(0, 2))
    assert Rules.from_dict(bo.rules.to_dict()) == bo.rules and "draw=half" in bo.rules.describe()


@pytest.mark.parametrize("rules", [Rules(4, "carry", "win", match="session"),
                                   Rules(5, "discard", "win", "descending", match="best-of-3"),
                                   Rules(3, "carry", "win", match="best-of-5", draw="half")])
def test_win_matches_save_and_load(tmp_path, rules):
    from gops_solver import load
    sol = solve(rules)
    path = tmp_path / "m.gops"
    sol.save(path)
    back = load(path)
    assert back.rules == rules and back.value == sol.value and back.states == sol.states
    assert sorted(back.match.games, key=str) == sorted(sol.match.games, key=str)
    assert back.match.values == sol.match.values
    for key, (space, tabs) in sol.match.games.items():
        bspace, btabs = back.match.games[key]
        assert np.array_equal(bspace.term, space.term) and bspace.diff_reach == space.diff_reach
        for a, b in zip(tabs, btabs):
            assert np.array_equal(np.nan_to_num(a), np.nan_to_num(np.asarray(b)))
    n = rules.n
    hand = list(range(1, n + 1))
    if rules.random_order:
        pot, prizes = 2, [p for p in hand if p != 2]
    else:
        pot, prizes = rules.sequence[0], list(rules.sequence[1:])
    positions = ([dict(game=g, match_score=ms) for g, ms in ((1, 0), (2, 1), (3, -2))]
                 if rules.match == "session" else [dict(match_score=ms) for ms in ((0, 0), (1, 0), (0, 1))])
    for kw in positions:
        want, got = sol.query(hand, hand, pot, prizes, **kw), back.query(hand, hand, pot, prizes, **kw)
        assert got.value == want.value and got.strategy_a == want.strategy_a
    # damage is caught by the header's checksums, as for a single game
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="checksum"):
        load(path)
