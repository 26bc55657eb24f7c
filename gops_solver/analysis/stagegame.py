"""The stage game of a decision state, card by card: why the equilibrium mixes.

A :class:`~gops_solver.QueryResult` holds its stage game over *classes* of
interchangeable cards (the matrix the solver solved). :func:`stage_game`
spreads it back over the actual cards and adds what the tables leave out
(the score difference under ``points``), so each entry reads as "the value
for A if A bids this card and B that one".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StageGame:
    """A decision state's stage game over the cards in hand.

    Attributes
    ----------
    cards_a, cards_b : tuple of int
        A's cards (rows) and B's cards (columns), ascending.
    payoff : ndarray, shape (len(cards_a), len(cards_b))
        ``payoff[i, j]``: the value for A, in the units of the state's value
        (``diff`` included under ``points``), when A bids ``cards_a[i]`` and
        B bids ``cards_b[j]``, averaged over the prize shown next.
        Interchangeable cards (no card of the opponent between them) have
        equal rows or columns.
    """

    cards_a: tuple
    cards_b: tuple
    payoff: np.ndarray

    def to_dict(self) -> dict:
        """JSON-ready form: ``rows``, ``columns`` (cards) and ``payoff`` (list of rows)."""
        return {"rows": list(self.cards_a), "columns": list(self.cards_b),
                "payoff": [[float(v) for v in row] for row in self.payoff]}


def stage_game(result) -> StageGame:
    """The stage game a query solved, one row per A card and one column per B card.

    Parameters
    ----------
    result : QueryResult
        From :meth:`Solution.query` (or ``gops query``).

    Returns
    -------
    StageGame
        Both players' optimal strategies in ``result`` are optimal in it,
        and its value is ``result.value``.
    """
    rows = [(c, i) for i, cls in enumerate(result.classes_a) for c in cls]
    cols = [(c, j) for j, cls in enumerate(result.classes_b) for c in cls]
    rows.sort()
    cols.sort()
    m = np.asarray(result.matrix, dtype=float)
    payoff = m[np.ix_([i for _, i in rows], [j for _, j in cols])] + result.offset
    return StageGame(tuple(c for c, _ in rows), tuple(c for c, _ in cols), payoff)
