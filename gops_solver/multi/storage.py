"""Files of solved 3- and 4-player games: the classic files' guarantees, a format of their own.

Layout::

    MAGIC (8 bytes) | header length L (8, little-endian) | header (L bytes of JSON)
    | CRC-32 of the 16 + L bytes before it (4) | zero padding to 4096 | tables

The header names the rules, how the values are kept (``levels``: the level
tables of a ``points`` solve, per hand size security ``(P, S, m)``,
equilibrium ``(P, S, m)`` and deviation gains ``(P, S)``; ``states``: the
memoised states of a ``win`` solve, keys ``(N, 2m + 2)`` int64 and values
``(N, 2m)`` float64: security then equilibrium) and every table's shape, type and CRC-32. Written
by :func:`gops_solver.storage.atomic_write` (locked temporary file, fsync,
the whole file read back and checked, then renamed over the target), so a
file is either the old one or a complete, checked new one.
"""

from __future__ import annotations

import json
import os
import zlib

import numpy as np

from .. import __version__
from ..rules import Rules
from ..storage import atomic_write

__all__ = ["MAGIC", "save_multi", "load_multi", "is_multi_file"]

MAGIC = b"GOPSMUL\x01"
FORMAT_VERSION = 1
_ALIGN = 4096
_MAX_HEADER = 1 << 24


def _crc(a) -> int:
    return zlib.crc32(memoryview(np.ascontiguousarray(a)).cast("B"))


def _state_rows(ind):
    """The memoised table as arrays: keys (masks, pot, hidden mask, score keys) and values."""
    m = ind.m
    items = list(ind.table.items())
    keys = np.empty((len(items), 2 * m + 2), dtype=np.int64)
    vals = np.empty((len(items), 2 * m))
    for r, ((cm, pot, hidden, cs), (sec, eq)) in enumerate(items):
        keys[r, :m] = cm
        keys[r, m] = pot
        keys[r, m + 1] = sum(1 << (p - 1) for p in hidden)
        keys[r, m + 2:] = cs
        vals[r, :m] = sec
        vals[r, m:] = eq
    return keys, vals


def _tables(sol):
    ind = sol.induction
    if hasattr(ind, "values"):  # the level solver
        tables = []
        for k in range(1, sol.rules.n + 1):
            out = ind.values[k]
            tables += [out.sec, out.eq, out.gain]
        return "levels", tables
    return "states", list(_state_rows(ind))


def save_multi(path, sol) -> None:
    """Write a solved 3- or 4-player game to ``path`` atomically (see the module docstring).

    Raises
    ------
    ValueError
        The file cannot be written (one line naming the cause).
    """
    path = os.fspath(path)
    kind, tables = _tables(sol)
    tables = [np.ascontiguousarray(t) for t in tables]
    header = {"format": FORMAT_VERSION, "package_version": __version__, "rules": sol.rules.to_dict(),
              "kind": kind, "security": sol.security, "values": sol.values, "seconds": sol.seconds,
              "stage_games": sol.stage_games, "methods": sol.methods,
              "max_deviation_gain": sol.max_deviation_gain, "equilibrium": sol.induction.with_equilibrium,
              "tables": [{"shape": list(t.shape), "dtype": t.dtype.str, "crc32": _crc(t)} for t in tables]}
    blob = json.dumps(header).encode()
    head = MAGIC + len(blob).to_bytes(8, "little") + blob
    head += zlib.crc32(head).to_bytes(4, "little")
    head += b"\0" * (-len(head) % _ALIGN)

    def check(tmp):  # the written bytes are read back and checked before they replace anything
        _read(tmp, check=True)

    atomic_write(path, [head, *tables], check=check)


def is_multi_file(path) -> bool:
    """True when ``path`` is a regular file that starts like a 3-4 player solution file."""
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _read(path, check=True):
    """Header and tables of a file; ValueError (one line) when it is damaged."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                raise ValueError(f"{path} is not a 3-4 player solution file: write one with "
                                 f"gops solve --players 3 --out FILE")
            raw = fh.read(8)
            size = int.from_bytes(raw, "little")
            if len(raw) != 8 or size > _MAX_HEADER:
                raise ValueError(f"{path} is corrupted (unreadable header): solve again with gops solve --out")
            blob = fh.read(size)
            crc = fh.read(4)
    except OSError as exc:
        raise ValueError(f"cannot read solution {path}: {exc.strerror}; give the file written by "
                         f"gops solve --players N --out") from None
    if len(blob) != size or len(crc) != 4 or zlib.crc32(MAGIC + raw + blob) != int.from_bytes(crc, "little"):
        raise ValueError(f"{path} is corrupted (header checksum fails): solve again with gops solve --out")
    try:
        header = json.loads(blob.decode())
        shapes = [tuple(int(x) for x in t["shape"]) for t in header["tables"]]
        dtypes = [np.dtype(t["dtype"]) for t in header["tables"]]
        crcs = [int(t["crc32"]) for t in header["tables"]]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValueError(f"{path} is corrupted (unreadable header): solve again with gops solve --out") from None
    if header.get("format") != FORMAT_VERSION:
        raise ValueError(f"{path} has format {header.get('format')}, this gops reads format {FORMAT_VERSION}: "
                         f"solve again")
    start = len(MAGIC) + 8 + size + 4
    start += -start % _ALIGN
    total = start + sum(int(np.prod(s)) * d.itemsize for s, d in zip(shapes, dtypes))
    actual = os.path.getsize(path)
    if actual != total:
        raise ValueError(f"{path} is {'truncated' if actual < total else 'corrupted (unexpected length)'}: "
                         f"solve again with gops solve --out")
    tables, offset = [], start
    for t, (shape, dtype, crc) in enumerate(zip(shapes, dtypes, crcs)):
        a = np.fromfile(path, dtype=dtype, count=int(np.prod(shape)), offset=offset).reshape(shape)
        if check and _crc(a) != crc:
            raise ValueError(f"{path} is corrupted (checksum of table {t} fails): solve again")
        tables.append(a)
        offset += int(np.prod(shape)) * dtype.itemsize
    return header, tables


def load_multi(path, rules=None, check=True):
    """Open a file written by :func:`save_multi` (every checksum checked).

    Parameters
    ----------
    path : path-like
    rules : Rules, optional
        If given, the file must hold these rules.

    Returns
    -------
    MultiSolution

    Raises
    ------
    ValueError
        One line: not such a file, damaged, other rules.
    """
    from .levelkernel import LevelOut
    from .levels import LevelInduction
    from .induction import Induction
    from .solution import MultiSolution

    path = os.fspath(path)
    header, tables = _read(path, check)
    try:
        saved = Rules.from_dict(header["rules"])
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path} is corrupted (its rules cannot be read): solve again") from None
    if saved.players not in (3, 4) and saved.players != 2:
        raise ValueError(f"{path} is not a 3-4 player solution: solve again")
    if rules is not None and saved != rules:
        raise ValueError(f"{path} holds a solution for {saved.describe()}, not {rules.describe()}: "
                         f"use a matching file or solve these rules")
    m, n = saved.players, saved.n
    with_eq = bool(header.get("equilibrium", True))
    if header.get("kind") == "levels":
        ind = LevelInduction.__new__(LevelInduction)
        LevelInduction.__init__(ind, saved, "numba", with_eq)
        if len(tables) != 3 * n:
            raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
        for k in range(1, n + 1):
            sec, eq, gain = tables[3 * (k - 1):3 * k]
            P, S = len(ind.patterns[k]), len(ind.slots[k])
            if sec.shape != (P, S, m) or eq.shape != (P, S, m) or gain.shape != (P, S):
                raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
            ind.values[k] = LevelOut(sec, eq, gain, np.zeros((P, S), dtype=np.int8), np.zeros((P, S), dtype=np.int8))
    elif header.get("kind") == "states":
        ind = Induction(saved, "numba", with_eq)
        if len(tables) != 2 or tables[0].shape[1:] != (2 * m + 2,) or tables[1].shape != (len(tables[0]), 2 * m):
            raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
        seq = tuple(saved.sequence) if not saved.random_order else None
        for row, val in zip(tables[0].tolist(), tables[1]):
            hmask = row[m + 1]
            bits = [p for p in range(1, n + 1) if hmask >> (p - 1) & 1]
            hidden = tuple(bits) if seq is None else seq[n - len(bits):]
            key = (tuple(row[:m]), row[m], hidden, tuple(row[m + 2:]))
            ind.table[key] = (np.array(val[:m]), np.array(val[m:]))
    else:
        raise ValueError(f"{path} is corrupted (unknown kind of tables): solve again")
    ind.stage_games = int(header.get("stage_games", 0))
    ind.methods = dict(header.get("methods", ind.methods))
    ind.max_gain = float(header.get("max_deviation_gain", 0.0))
    return MultiSolution(saved, ind, header.get("security", [float("nan")] * m),
                         header.get("values", [float("nan")] * m), float(header.get("seconds", 0.0)))
