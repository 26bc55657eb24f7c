"""Strategies stored in files: a strategy spec that names an existing file is read here.

A strategy file of this project is the one container of :mod:`gops_solver.engine.storage`
(``GOPSSOL\\x03``) with ``kind`` ``"response"`` in its header (written by ``gops exploit --out``):
the rules it was computed for, the model it responds to, its weight P, and two tables, the sorted
decision keys and the rows of probabilities of a precomputed
:class:`~gops_solver.analysis.strategies.Strategy`. Other file formats (JSON opponent models)
join the dispatch in :func:`read_strategy_file`.
"""

from __future__ import annotations

import io
import os
import zlib
from typing import NamedTuple

import numpy as np

from gops_solver.engine.storage import (FORMAT_VERSION, MAGIC, FileKind, atomic_write, check_out_path,
                                        header_bytes, read_header, table_parts)
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.rules import Rules

RESPONSE = FileKind(("response",), "gops strategy file", "gops exploit --out")

#: the strategy file's own layout version (beside the container's ``format``)
STRATEGY_FORMAT = 1


def is_strategy_file(spec) -> bool:
    """Whether a strategy spec names an existing regular file (then it is read as a strategy file)."""
    return isinstance(spec, (str, os.PathLike)) and os.path.isfile(spec)


def write_strategy_file(path, strategy, rules: Rules) -> None:
    """Write a precomputed strategy (a response) to ``path`` atomically.

    Raises
    ------
    ValueError
        ``strategy`` is not precomputed, or ``path`` cannot be written.
    """
    if getattr(strategy, "meta", {}).get("kind") != "response":
        raise ValueError(f"strategy {strategy.name} is not a precomputed table: only responses are saved")
    check_out_path(path)
    keys, probs = strategy.table
    meta = getattr(strategy, "meta", {})
    tables = [np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(probs, np.float64)]
    header = {"kind": "response", "format": FORMAT_VERSION, "strategy_format": STRATEGY_FORMAT,
              "name": strategy.name, "rules": rules.to_dict(), "model": meta.get("model"), "p": meta.get("p"),
              "risk": meta.get("risk"), "uses_diff": bool(strategy.uses_diff), "ranks": bool(strategy.rank_only),
              "rows": int(len(keys)),
              "crc32": [zlib.crc32(memoryview(t).cast("B")) for t in tables]}
    head = header_bytes(header, RESPONSE)

    def check(tmp):
        read_strategy_file(tmp)

    atomic_write(path, list(table_parts(head, tables)), check=check)


def _fields(header) -> None:
    if header["kind"] != "response" or not isinstance(header["rules"], dict) or not isinstance(header["rows"], int) \
            or header["rows"] < 0 or not isinstance(header["name"], str) or len(header["crc32"]) != 2:
        raise TypeError


class StoredStrategy(NamedTuple):
    """What a strategy file holds: :func:`~.strategies.make_strategy` turns it into a precomputed strategy."""

    name: str
    keys: np.ndarray
    probs: np.ndarray
    uses_diff: bool
    ranks: bool
    meta: dict


def read_strategy_file(path, solution=None) -> StoredStrategy:
    """The strategy stored in the file ``path``.

    Parameters
    ----------
    path : str or path-like
    solution : Solution, optional
        Unused by responses (kept for the file kinds that need one).

    Returns
    -------
    StoredStrategy
        The tables and ``meta`` (kind, model, p, risk, rules) from the header.

    Raises
    ------
    ValueError
        One line: not a strategy file, damaged, or of an unknown version.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read strategy file {name}: {exc.strerror}") from None
    if raw[:len(MAGIC)] != MAGIC:
        if raw[:1] in (b"{", b"[") or raw.lstrip()[:1] == b"{":
            raise ValueError(f"{name} is a JSON file, not a strategy this gops reads: give a file written by "
                             f"gops exploit --out")
        raise ValueError(f"{name} is not a strategy file: give a file written by gops exploit --out, a strategy "
                         f"name or module:function")
    fh = io.BytesIO(raw)
    header, start = read_header(fh, name, RESPONSE, validate=_fields)
    if header.get("strategy_format") != STRATEGY_FORMAT:
        raise ValueError(f"{name} has strategy format {header.get('strategy_format')!r}; this gops reads "
                         f"{STRATEGY_FORMAT}: write it again with gops exploit --out")
    m = header["rows"]
    nk, np_ = 8 * m, 8 * m * MAX_CARDS
    if len(raw) != start + nk + np_:
        raise ValueError(f"{name} is truncated or corrupted (unexpected length): write it again with "
                         f"gops exploit --out")
    kb, pb = raw[start:start + nk], raw[start + nk:]
    if [zlib.crc32(kb), zlib.crc32(pb)] != header["crc32"]:
        raise ValueError(f"{name} is corrupted (table checksum fails): write it again with gops exploit --out")
    keys = np.frombuffer(kb, "<i8").astype(np.int64)
    probs = np.frombuffer(pb, "<f8").astype(np.float64).reshape(m, MAX_CARDS)
    rules = Rules.from_dict(header["rules"])
    meta = {"kind": "response", "model": header.get("model"), "p": header.get("p"), "risk": header.get("risk"),
            "rules": rules, "path": name}
    return StoredStrategy(header["name"], keys, probs, bool(header["uses_diff"]), bool(header["ranks"]), meta)
