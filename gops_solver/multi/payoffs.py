"""Expected payoffs of the cards of an n-player stage game against mixed strategies.

A stage game is a payoff tensor ``U`` of shape ``(m, k, ..., k)``:
``U[i, b_0, ..., b_{m-1}]`` is player ``i``'s payoff when player ``j`` bids
their ``b_j``-th lowest card (:mod:`.equilibrium`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["pure_payoffs", "deviation_gain"]


def pure_payoffs(U, strategies, player) -> np.ndarray:
    """Expected payoff of each of ``player``'s cards against the others' mixes.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    strategies : sequence of numpy.ndarray, each shape (k,)
    player : int

    Returns
    -------
    numpy.ndarray, shape (k,)
    """
    m = U.shape[0]
    t = U[player]
    for j in reversed(range(m)):  # highest axis first, so lower axis numbers stay valid
        if j != player:
            t = np.tensordot(t, strategies[j], axes=([j], [0]))
    return t


def deviation_gain(U, strategies) -> float:
    """Largest gain any player makes by a pure deviation from ``strategies``.

    0 exactly at a Nash equilibrium (up to rounding); the contract asks for
    at most ``DEVIATION_TOL``.
    """
    best = 0.0
    for i in range(U.shape[0]):
        own = pure_payoffs(U, strategies, i)
        best = max(best, float(own.max() - own @ strategies[i]))
    return best
