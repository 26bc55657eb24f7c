"""Open-addressing hash tables of packed states (keys) and their numbers (values).

Exact evaluation (:mod:`~.evaluate`) merges the children of a level in
these tables and reads the next level's values from them. A table is a pair
of arrays ``(hk, hv)`` of a power-of-two length; a free slot holds
:data:`EMPTY` (packed keys are >= 0). Linear probing stays fast while a
table is at most half full, so tables are sized (:func:`slots_for`) and
grown to stay below that.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = -1  # free slot of a hash table (packed keys are >= 0)


@njit(cache=True)
def home_slot(key, mask):
    """Home slot of ``key`` in a power-of-two hash table.

    The state is hashed (Fibonacci hashing) and the diff, the key's low
    byte, added: the children of one state's diffs, which come one after
    the other, then land in the same cache lines.
    """
    h = np.int64((np.uint64(key >> 8) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20))
    return (h + (key & 255)) & mask


@njit(cache=True)
def find(hk, key):
    """Slot of ``key`` in the open-addressing table ``hk``, or of the free slot where it would go."""
    mask = len(hk) - 1
    i = home_slot(key, mask)
    while hk[i] != key and hk[i] != EMPTY:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def next_value(key, next_keys, next_vals):
    """Value of ``key`` in a hash table built by :func:`hashed` (NaN when absent)."""
    if len(next_keys) == 0:
        return np.nan
    i = find(next_keys, key)
    return next_vals[i] if next_keys[i] == key else np.nan


@njit(cache=True)
def add(hk, hv, key, p):
    """Add ``p`` to ``key``'s entry of the open-addressing table ``hk``/``hv``; 1 if the key is new."""
    i = find(hk, key)
    if hk[i] == key:
        hv[i] += p
        return 0
    hk[i] = key
    hv[i] = p
    return 1


@njit(cache=True)
def rehash(hk, hv, hk2, hv2):
    """Add every entry of ``hk``/``hv`` into ``hk2``/``hv2`` (a larger table, modified in place)."""
    for i in range(len(hk)):
        if hk[i] != EMPTY:
            add(hk2, hv2, hk[i], hv[i])


def empty_table(slots):
    """An empty hash table of ``slots`` (a power of two) entries."""
    return np.full(slots, EMPTY, np.int64), np.zeros(slots)


def slots_for(n_keys):
    """Slots that keep ``n_keys`` keys at most half full."""
    return 1 << max(10, int(2 * n_keys).bit_length())


def hashed(keys, vals):
    """Hash table (at most half full) of a level's values, for :func:`next_value`."""
    if len(keys) == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    hk, hv = empty_table(slots_for(len(keys)))
    rehash(keys, vals, hk, hv)
    return hk, hv
