"""Files of solved 3- and 4-player games: the solution container of kind ``multi``.

Layout (:mod:`gops_solver.engine.storage`)::

    MAGIC (8 bytes) | header length L (8, little-endian) | header (L bytes of JSON)
    | CRC-32 of the 16 + L bytes before it (4) | zero padding to 4096 | tables

The header names the kind (``multi``), the rules, how the values are kept
(``layout``; files before the container called it ``kind``: ``levels``: the level
tables of a ``points`` solve, per hand size security ``(P, S, m)``,
equilibrium ``(P, S, m)`` and deviation gains ``(P, S)``; ``states``: the
memoised states of a ``win`` solve, keys ``(N, 2m + 2)`` int64 and values
``(N, 2m)`` float64: security then equilibrium, whether the recursion or
the ``win`` level solver found them) and every table's shape,
type and CRC-32. Written by :func:`gops_solver.engine.storage.atomic_write` (locked
temporary file, fsync, the whole file read back and checked, then renamed
over the target), so a file is either the old one or a complete, checked new
one; read by the classic files' checks (:func:`~gops_solver.engine.storage.read_header`,
:func:`~gops_solver.engine.storage.map_tables`).
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from gops_solver import __version__
from gops_solver.game.jsonout import strict
from gops_solver.game.rules import Rules
from gops_solver.engine.storage import FORMAT_VERSION as CONTAINER_FORMAT, MAGIC as CONTAINER_MAGIC
from gops_solver.engine.storage import (FileKind, atomic_write, has_magic, header_bytes, map_tables, open_table_file, read_header,
                       table_parts)
from .equilibrium import SELECTIONS

__all__ = ["MAGIC", "save_multi", "read_multi", "is_multi_file"]

MAGIC = CONTAINER_MAGIC
FORMAT_VERSION = CONTAINER_FORMAT
MULTI_FILE = FileKind(("multi",), "3-4 player solution file", "gops solve --players 3 --out FILE",
                      (b"GOPSMUL\x01", 1), table="table")


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
    if hasattr(ind, "values") and sol.rules.objective == "points":  # the points level solver's (P, S) tables
        tables = []
        for k in range(1, sol.rules.n + 1):
            out = ind.values[k]
            tables += [out.sec, out.eq, out.gain]
        return "levels", tables
    return "states", list(_state_rows(ind))


def save_multi(path, sol, lock: bool = True) -> None:
    """Write a solved 3- or 4-player game to ``path`` atomically (see the module docstring).

    ``lock``: take the target's writer lock (False: the caller, a solve, holds it).

    Raises
    ------
    ValueError
        The file cannot be written (one line naming the cause).
    """
    path = os.fspath(path)
    layout, tables = _tables(sol)
    tables = [np.ascontiguousarray(t) for t in tables]
    # values a security-only solve leaves undefined (NaN) are stored as null: the header is strict JSON
    header = {"format": FORMAT_VERSION, "package_version": __version__, "rules": sol.rules.to_dict(),
              "kind": "multi", "layout": layout, "security": strict(sol.security), "values": strict(sol.values),
              "seconds": sol.seconds, "stage_games": sol.stage_games, "methods": sol.methods,
              "max_deviation_gain": strict(sol.max_deviation_gain), "equilibrium": sol.induction.with_equilibrium,
              "selection": sol.selection,
              "tables": [{"shape": list(t.shape), "dtype": t.dtype.str, "crc32": _crc(t)} for t in tables]}

    def check(tmp):  # the written bytes are read back and checked before they replace anything
        _read(tmp, check=True)

    atomic_write(path, table_parts(header_bytes(header, MULTI_FILE), tables), check=check, lock=lock)


def is_multi_file(path) -> bool:
    """True when ``path`` is a regular file that starts like a 3-4 player solution file."""
    return has_magic(path, MULTI_FILE)


def _multi_fields(header) -> None:
    for t in header["tables"]:
        [int(x) for x in t["shape"]], np.dtype(t["dtype"]), int(t["crc32"])


def _read(path, check=True):
    """Header and tables of a file; ValueError (one line) when it is damaged."""
    path = os.fspath(path)
    with open_table_file(path, path) as (fh, actual):
        header, start = read_header(fh, path, MULTI_FILE, _multi_fields)
    specs = [(tuple(int(x) for x in t["shape"]), t["dtype"], int(t["crc32"])) for t in header["tables"]]
    return header, map_tables(path, path, start, actual, specs, check, MULTI_FILE)


def read_multi(path, rules=None, check=True):
    """Read a file written by :func:`save_multi` (every checksum checked) into its induction.

    Parameters
    ----------
    path : path-like
    rules : Rules, optional
        If given, the file must hold these rules.

    Returns
    -------
    tuple
        ``(rules, induction, security, values, seconds)``: the arguments of
        :class:`~gops_solver.multi.solution.MultiSolution`, which
        :func:`~gops_solver.multi.solution.load_multi` builds from them.

    Raises
    ------
    ValueError
        One line: not such a file, damaged, other rules.
    """
    from .levelkernel import LevelOut
    from .levels import LevelInduction
    from .induction import Induction

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
    selection = header.get("selection", "logit")  # files from before the pure selection: logit
    if selection not in SELECTIONS:
        raise ValueError(f"{path} was solved with the equilibrium selection {selection!r}, which this version "
                         f"does not know: upgrade gops-solver or solve again")
    layout = header.get("layout", header.get("kind"))  # files before the container: "kind"
    if layout == "levels":
        ind = LevelInduction.__new__(LevelInduction)
        LevelInduction.__init__(ind, saved, "numba", with_eq, selection)
        if len(tables) != 3 * n:
            raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
        for k in range(1, n + 1):
            sec, eq, gain = tables[3 * (k - 1):3 * k]
            P, S = len(ind.patterns[k]), len(ind.slots[k])
            if sec.shape != (P, S, m) or eq.shape != (P, S, m) or gain.shape != (P, S):
                raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
            ind.values[k] = LevelOut(sec, eq, gain, np.zeros((P, S), dtype=np.int8), np.zeros((P, S), dtype=np.int8))
    elif layout == "states":
        ind = Induction(saved, "numba", with_eq, selection)
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
    gain = header.get("max_deviation_gain", 0.0)
    ind.max_gain = float("nan") if gain is None else float(gain)
    return (saved, ind, _floats(header.get("security"), m), _floats(header.get("values"), m),
            float(header.get("seconds", 0.0)))


def _floats(values, m) -> list:
    """A header's list of values, null (undefined, as a security-only solve leaves them) read as NaN."""
    if values is None:
        return [float("nan")] * m
    return [float("nan") if v is None else float(v) for v in values]
