"""hashtable.py: open-addressing tables of packed states agree with a dict."""

import numpy as np
import pytest

from gops_solver.analysis._hashtable import EMPTY, add, empty_table, find, hashed, next_value, rehash, slots_for

pytestmark = pytest.mark.nojit


def test_add_rehash_and_read_agree_with_a_dict():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 2**50, 150)
    keys = np.concatenate([keys, keys[:60]])  # repeats add up
    want = {}
    hk, hv = empty_table(slots_for(8))  # too small for all of them: grown below
    used = 0
    for key in keys:
        p = float(rng.random())
        want[int(key)] = want.get(int(key), 0.0) + p
        if 2 * (used + 1) > len(hk):  # keep it at most half full, as evaluate does
            hk2, hv2 = empty_table(2 * len(hk))
            rehash(hk, hv, hk2, hv2)
            hk, hv = hk2, hv2
        used += add(hk, hv, int(key), p)
    assert used == len(want) == int(np.count_nonzero(hk != EMPTY))
    for key, p in want.items():
        i = find(hk, key)
        assert hk[i] == key and hv[i] == pytest.approx(p)
    # a level's values, hashed for reading: present keys give their value, absent ones NaN
    ks = np.array(sorted(want), np.int64)
    vs = np.array([want[k] for k in ks])
    nk, nv = hashed(ks, vs)
    assert all(next_value(int(k), nk, nv) == pytest.approx(want[int(k)]) for k in ks)
    absent = int(max(want)) + 1
    assert np.isnan(next_value(absent, nk, nv))
    assert np.isnan(next_value(absent, *hashed(np.zeros(0, np.int64), np.zeros(0))))
