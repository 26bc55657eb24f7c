"""Solution API: values, queries, save/load round trip and file errors."""

import os

import numpy as np
import pytest

from gops_solver import Rules, load, solve
from gops_solver.lp.stage import highs_stage

# small cases: also run as plain Python (the NUMBA_DISABLE_JIT=1 pass of CI)
pytestmark = pytest.mark.nojit


@pytest.fixture(scope="module")
def sol5():
    return solve(Rules(5, "carry", "points"))


def test_symmetric_positions_are_zero(sol5):
    # RULES.md: any symmetric position (equal hands, equal scores) has value 0
    for hand, pot, prizes in [((1, 2, 3), 4, (5, 1)), ((2, 5), 9, (3,)), ((1, 2, 3, 4, 5), 3, (1, 2, 4, 5))]:
        assert abs(sol5.query(hand, hand, pot, prizes).value) < 1e-12
    assert abs(sol5.value) < 1e-12


def test_antisymmetry(sol5):
    # swapping the players negates the value (and the score difference)
    q = sol5.query((1, 4, 5), (2, 3, 5), 3, (1, 2), diff=2)
    r = sol5.query((2, 3, 5), (1, 4, 5), 3, (1, 2), diff=-2)
    assert abs(q.value + r.value) < 1e-9


def test_one_card_positions_by_hand():
    # one card each: the higher card takes the pot; a last-round tie discards it (RULES.md)
    for tie in ("carry", "discard"):
        s = solve(Rules(4, tie, "points"))
        assert s.query([3], [1], 4, (), diff=1).value == pytest.approx(5)
        assert s.query([1], [3], 4, (), diff=1).value == pytest.approx(-3)
        assert s.query([2], [2], 4, (), diff=-1).value == pytest.approx(-1)
        w = solve(Rules(4, tie, "win"))
        assert w.query([1], [3], 4, (), diff=3).value == pytest.approx(-1)
        assert w.query([1], [3], 4, (), diff=4).value == pytest.approx(0)
        assert w.query([2], [2], 4, (), diff=0).value == pytest.approx(0)


def test_two_card_carry_position_by_hand():
    # A holds {1,2}, B holds {1,2}, pot 3, hidden {4}: symmetric, value 0.
    # A holds {2,3}, B holds {1,3}, pot 1, hidden {2} (n=3, carry, points):
    # A's bids: 2 or 3; B's: 1 or 3.  Next round the last cards meet.
    #   A2 vs B1: A wins 1, then A3 vs B3 tie in the last round, discarded -> +1
    #   A2 vs B3: B wins 1, then A3 vs B1: A wins 2 -> +1
    #   A3 vs B1: A wins 1, then A2 vs B3: B wins 2 -> -1
    #   A3 vs B3: tie, pot 1 carried; A2 vs B1: A wins 1+2 = 3 -> +3
    # matrix [[1, 1], [-1, 3]]: row 2 (bid 2) guarantees 1; column... value 1.
    s = solve(Rules(3, "carry", "points"))
    q = s.query([2, 3], [1, 3], 1, [2])
    assert q.value == pytest.approx(1.0)
    # the same under discard: the tie discards 1, then A2 vs B1 gives +2
    d = solve(Rules(3, "discard", "points"))
    assert d.query([2, 3], [1, 3], 1, [2]).value == pytest.approx(1.0)
    assert highs_stage([[1, 1], [-1, 2]]).value == pytest.approx(1.0)


def test_highs_backend_agrees(monkeypatch):
    from gops_solver.engine import induction
    calls = []
    real = induction._highs_value
    monkeypatch.setattr(induction, "_highs_value", lambda M, na, nb: calls.append(1) or real(M, na, nb))
    a = solve(Rules(4, "carry", "win", "ascending"))
    b = solve(Rules(4, "carry", "win", "ascending"), stage_solver="highs")
    assert calls, "the highs backend solved no stage game by HiGHS"
    for ta, tb in zip(a.tables, b.tables):
        assert np.allclose(np.nan_to_num(ta, nan=99), np.nan_to_num(tb, nan=99), atol=1e-9, rtol=0)
    q = a.query([1, 2], [2, 3], 3, [4], stage_solver="highs")
    assert q.value == pytest.approx(a.query([1, 2], [2, 3], 3, [4]).value, abs=1e-9)


def test_save_load_round_trip(tmp_path, sol5):
    path = tmp_path / "s.gops"
    sol5.save(path)
    back = load(path, rules=Rules(5, "carry", "points"))
    assert back.rules == sol5.rules
    for a, b in zip(back.tables, sol5.tables):
        assert np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(np.nan_to_num(a), np.nan_to_num(b))
    q1 = back.query((1, 4, 5), (2, 3, 5), 3, (1, 2))
    q2 = sol5.query((1, 4, 5), (2, 3, 5), 3, (1, 2))
    assert q1.value == q2.value


def test_load_errors(tmp_path, sol5):
    path = tmp_path / "s.gops"
    sol5.save(path)
    with pytest.raises(ValueError, match="not n=5 tie=discard"):
        load(path, rules=Rules(5, "discard", "points"))
    data = path.read_bytes()
    (tmp_path / "trunc.gops").write_bytes(data[:-100])
    with pytest.raises(ValueError, match="truncated|corrupted"):
        load(tmp_path / "trunc.gops")
    flipped = bytearray(data)
    flipped[-50] ^= 0xFF
    (tmp_path / "flip.gops").write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="corrupted"):
        load(tmp_path / "flip.gops")
    (tmp_path / "junk.gops").write_bytes(b"hello world")
    with pytest.raises(ValueError, match="not a gops solution"):
        load(tmp_path / "junk.gops")
    with pytest.raises(ValueError, match="cannot read"):
        load(tmp_path / "missing.gops")


def test_save_never_leaves_a_half_written_file(tmp_path, sol5):
    path = tmp_path / "s.gops"
    path.write_bytes(b"precious")
    with pytest.raises(ValueError, match="does not exist"):
        sol5.save(tmp_path / "nope" / "s.gops")
    assert path.read_bytes() == b"precious"
    sol5.save(path)
    assert load(path).rules == sol5.rules
    assert [f for f in os.listdir(tmp_path) if f.startswith(".gops-")] == []
