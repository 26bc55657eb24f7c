"""Packed states: a state of an actual deal (hands, hidden prizes, pot, diff) in one int64.

Exact evaluation (:mod:`~.evaluate`) and the strategies' lookup tables key
states this way: A's hand, B's hand and the hidden prizes as bitmasks (bit
``v - 1`` for card ``v``), the pot (or, before a reveal, the carried pot)
and the score difference.
"""

from __future__ import annotations

from numba import njit

from gops_solver.game.constants import MAX_CARDS


@njit(cache=True)
def _popcount(x):
    """Number of set bits of ``x`` (cards in a hand mask)."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


#: bit layout of packed keys: the diff lowest (8 bits, offset by 91), then 7 bits of pot or
#: carry and three MAX_CARDS-bit masks; keys sorted in order keep one state's diffs together
_S_POT, _S_OWN = 8, 15
_S_OPP = _S_OWN + MAX_CARDS
_S_PM = _S_OPP + MAX_CARDS
_DIFF_OFF = 91


@njit(cache=True)
def decision_key(own, opp, pm, pot, diff):
    """Pack a decision state (or, with the carry as ``pot``, a pre-reveal state) into one int64."""
    return (diff + _DIFF_OFF) | (pot << _S_POT) | (own << _S_OWN) | (opp << _S_OPP) | (pm << _S_PM)


@njit(cache=True)
def unpack_key(key):
    """Inverse of :func:`decision_key`: ``(own, opp, pm, pot, diff)``."""
    m = (1 << MAX_CARDS) - 1
    return ((key >> _S_OWN) & m, (key >> _S_OPP) & m, (key >> _S_PM) & m, (key >> _S_POT) & 127,
            (key & 255) - _DIFF_OFF)


def mask_of(cards) -> int:
    """Bitmask of a set of card values (bit ``v - 1`` for card ``v``)."""
    out = 0
    for c in cards:
        out |= 1 << (int(c) - 1)
    return out


def cards_of(mask: int, n: int = MAX_CARDS) -> tuple:
    """Sorted card values of a bitmask."""
    return tuple(v for v in range(1, n + 1) if (mask >> (v - 1)) & 1)
