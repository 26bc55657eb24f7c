"""How big a 3- or 4-player solve is: canonical hand patterns per hand size."""

from __future__ import annotations

import itertools

from .state import relabel

__all__ = ["count_patterns"]


def count_patterns(rules) -> dict:
    """Canonical hand patterns (relabelled, players sorted) reachable at each hand size.

    Parameters
    ----------
    rules : Rules

    Returns
    -------
    dict
        Hand size k -> number of patterns. Each pattern's stage games have
        ``k ** players`` bid profiles; a solve holds one state per pattern,
        pot, hidden-prize set (and, under ``win``, score keys).
    """
    n, m = rules.n, rules.players
    full = tuple(range(n))
    level = {tuple(sorted(relabel((full,) * m))): (full,) * m}
    out = {}
    for k in range(n, 0, -1):
        out[k] = len(level)
        if k == 1:
            break
        nxt = {}
        for hands in level.values():
            for bids in itertools.product(*hands):
                new = tuple(tuple(c for c in h if c != b) for h, b in zip(hands, bids))
                key = tuple(sorted(relabel(new)))
                if key not in nxt:
                    nxt[key] = new
        level = nxt
    return out
