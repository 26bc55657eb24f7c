"""Pattern encoding: counts, successors and classes against raw hand sets."""

from math import comb, factorial

import numpy as np
import pytest

from gops_solver.game.encoding import (LUT_OFF, PatternTable, PrizeSets, classes, hands_to_pattern,
                                  min_ties_table, successor)

# small cases: also run as plain Python (the NUMBA_DISABLE_JIT=1 pass of CI)
pytestmark = pytest.mark.nojit


def pattern_count(k, n):
    # sequences of u tokens with u-k A-only, u-k B-only and 2k-u shared tokens
    return sum(factorial(u) // (factorial(u - k) ** 2 * factorial(2 * k - u)) for u in range(k, min(2 * k, n) + 1))


@pytest.mark.parametrize("n", [1, 4, 7, 13])
def test_pattern_counts_match_formula(n):
    pt = PatternTable(n, n)
    assert [pt.count(k) for k in range(n + 1)] == [pattern_count(k, n) for k in range(n + 1)]


def test_pattern_count_13_cards_total():
    # 3.4e8 states of the 13-card discard game (the mission's figure) = sum patterns(k) * C(13, k)
    pt = PatternTable(13, 13)
    assert sum(pt.count(k) * comb(13, k) for k in range(14)) == 336525646


def test_swap_is_an_involution():
    pt = PatternTable(8, 8)
    for k in range(9):
        sw = pt.level_swap[k]
        assert np.array_equal(sw[sw], np.arange(pt.count(k)))


def _pattern_of(a, b, pt):
    tokens, _ = hands_to_pattern(a, b)
    return pt.index(tokens)


def test_successors_and_classes_match_raw_hands():
    rng = np.random.default_rng(7)
    n = 9
    pt = PatternTable(n, n)
    tmp = np.empty(16, np.int64)
    for _ in range(300):
        k = int(rng.integers(1, n + 1))
        a = sorted(rng.choice(np.arange(1, n + 1), k, replace=False).tolist())
        b = sorted(rng.choice(np.arange(1, n + 1), k, replace=False).tolist())
        tokens, values = hands_to_pattern(a, b)
        u = len(tokens)
        tok = np.array(tokens + [0] * (16 - u), np.int64)
        ca, cb = np.empty(13, np.int64), np.empty(13, np.int64)
        na, nb = classes(tok, u, ca, cb)
        # every card of A belongs to exactly one class position: its run start or itself
        assert na <= k and nb <= k
        for i in range(na):
            for j in range(nb):
                va, vb = values[ca[i]], values[cb[j]]
                assert va in a and vb in b
                idx, out = successor(tok, u, ca[i], cb[j], pt.lut, LUT_OFF, tmp)
                a2 = [c for c in a if c != va]
                b2 = [c for c in b if c != vb]
                assert idx == _pattern_of(a2, b2, pt) if a2 else idx == 0
                assert out == (va > vb) - (va < vb)
        # cards in one class are interchangeable: same outcomes against every B card
        for ia, x in enumerate(a):
            for y in a[ia + 1:]:
                between = [c for c in b if x <= c <= y]
                if not between:
                    assert [(x > c) - (x < c) for c in b] == [(y > c) - (y < c) for c in b]


def test_prize_set_ranks_are_a_bijection_per_size():
    ps = PrizeSets(range(1, 8))
    for k in range(8):
        masks = ps.level_sets[k]
        assert len(masks) == comb(7, k)
        assert np.array_equal(ps.set_rank[masks], np.arange(len(masks)))
    assert ps.set_sum[ps.mask([2, 5, 7])] == 14


def test_min_ties_counts_fewest_prizes():
    values = np.arange(1, 6)
    hidden = PrizeSets(values).mask([1, 2])  # revealed 3, 4, 5
    mt = min_ties_table(np.array([hidden]), values, 0, 12)[0]
    assert mt[0] == 0 and mt[3] == 1 and mt[7] == 2 and mt[12] == 3
    assert mt[1] == 127 and mt[2] == 127 and mt[6] == 127
