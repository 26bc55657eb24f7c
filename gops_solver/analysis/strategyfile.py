"""Strategies stored in files: a strategy spec that names an existing file is read here.

A strategy file of this project is the one container of :mod:`gops_solver.engine.storage`
(``GOPSSOL\\x03``) with ``kind`` ``"response"`` in its header (written by ``gops exploit --out``):
the rules it was computed for, the model it responds to, its weight P, and two tables, the sorted
decision keys and the rows of probabilities of a precomputed
:class:`~gops_solver.analysis.strategies.Strategy`. A JSON opponent model (written by
``gops model fit``, :mod:`.models`) is played through its prediction. :func:`read_strategy_file`
dispatches on the file's first bytes.
"""

from __future__ import annotations

import io
import os
import zlib
from typing import NamedTuple

import numpy as np

from gops_solver.engine.storage import (FORMAT_VERSION, MAGIC, FileKind, atomic_write, check_out_path,
                                        header_bytes, read_header, table_parts)
from gops_solver.game.constants import HEURISTICS, MAX_CARDS
from gops_solver.game.rules import Rules

RESPONSE = FileKind(("response",), "gops strategy file", "gops exploit --out")

#: the strategy file's own layout version (beside the container's ``format``)
STRATEGY_FORMAT = 1


#: strategy names that are never files (a file of that name in the working folder does not shadow them)
_NAMES = HEURISTICS + ("equilibrium",)


def is_strategy_file(spec) -> bool:
    """Whether a strategy spec names a strategy file (a name ending in ``.json``, or an existing file
    that is neither a strategy's name nor ``module:function``)."""
    if not isinstance(spec, (str, os.PathLike)):
        return False
    text = os.fspath(spec).strip()
    if text.lower() in _NAMES:
        return False
    return text.lower().endswith(".json") or (":" not in text and os.path.isfile(text))


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
    if header.get("kind") != "response":
        return  # another kind of file (a solution): read_header names what it holds
    if not isinstance(header["rules"], dict) or not isinstance(header["rows"], int) \
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


def read_strategy_file(path, solution=None, make=None):
    """The strategy stored in the file ``path``.

    Parameters
    ----------
    path : str or path-like
    solution : Solution, optional
        A solution of the game played (a model that plays the equilibrium needs it; responses do not).
    make : callable, optional
        The strategy factory :func:`~.strategies.make_strategy`, for JSON models (handed in: this
        module sits below :mod:`.strategies`, which calls it).

    Returns
    -------
    StoredStrategy or Strategy
        A response's tables and ``meta`` (kind, model, p, risk, rules) from its header, or the
        strategy a JSON model plays.

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
        if raw.lstrip()[:1] == b"{":
            return _json_model(name, solution, make)
        raise ValueError(f"{name} is not a strategy file: give a file written by gops exploit --out or "
                         f"gops model fit, a strategy name or module:function")
    fh = io.BytesIO(raw)
    try:
        header, start = read_header(fh, name, RESPONSE, validate=_fields)
    except ValueError as exc:
        if " solution, not a " not in str(exc):
            raise
        raise ValueError(f"{name} holds a solution, not a strategy: give it with --solution and play it as "
                         f"equilibrium") from None
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


def _json_model(path, solution, make):
    from gops_solver.analysis.models import read_model
    return read_model(path).strategy(solution, name=path, make=make)


def file_needs(path, rules=None) -> bool:
    """Whether the strategy file ``path`` plays the equilibrium (so needs a solution of its rules).

    Raises
    ------
    ValueError
        The file is unreadable, or (given ``rules``) for other rules than ``rules``.
    """
    if _is_response(path):  # a response reads no solution
        stored = read_strategy_file(path)
        if rules is not None and stored.meta["rules"] != rules:
            raise ValueError(f"{path}: the response was computed for {stored.meta['rules'].describe()}, not "
                             f"{rules.describe()}: play it under its own rules")
        return False
    from gops_solver.analysis.models import read_model
    model = read_model(path)
    if rules is not None and model.rules != rules:
        raise ValueError(f"{path}: the model is for {model.rules.describe()}, not {rules.describe()}: "
                         f"fit one for these rules or play its rules")
    return any(c == "equilibrium" and w > 0 for c, w in zip(model.components, model.weights))


def _is_response(path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except OSError:
        return False
