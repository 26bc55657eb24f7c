"""simd.py: the lane permute used to build the ``points`` games in lanes picks ``v[idx[l]]`` in every lane."""

import numpy as np
from numba import njit

import gops_solver.lp._simd as simd


@njit(cache=False)
def _permute(v, idx, out):
    simd.vstore(out, 0, simd.vpermute(simd.vload(v, 0), simd.vload(idx, 0)))


def test_permute_picks_the_indexed_lane():
    rng = np.random.default_rng(7)
    v = np.array([1.5, -0.0, np.inf, -2.25, np.nan, 3.0, 1e-300, -7.0])
    for _ in range(200):
        idx = rng.integers(0, simd.LANES, simd.LANES).astype(np.float64)  # repeats allowed: lanes share a slot
        out = np.full(simd.LANES, 99.0)
        _permute(v, idx, out)
        # bit for bit, NaN and the sign of zero included
        assert out.tobytes() == v[idx.astype(np.int64)].tobytes()
