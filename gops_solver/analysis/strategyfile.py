"""Strategies stored in files: ``make_strategy("model.json", solution)`` plays the file.

:func:`read_strategy_file` dispatches on the file's content: a JSON opponent
model (:mod:`.models`) is played through its prediction. Each file kind has a
reader of its own here.
"""

from __future__ import annotations

import os


#: strategy names that are never files (a file of that name in the working folder does not shadow them)
_NAMES = ("uniform", "match", "match+1", "highest", "lowest", "proportional", "equilibrium")


def is_strategy_file(spec) -> bool:
    """Whether a strategy spec names a strategy file (a name ending in ``.json``, or an existing file
    that is neither a strategy's name nor ``module:function``)."""
    if not isinstance(spec, (str, os.PathLike)):
        return False
    text = os.fspath(spec).strip()
    if text.lower() in _NAMES:
        return False
    return text.lower().endswith(".json") or (":" not in text and os.path.isfile(text))


def read_strategy_file(path, solution=None, make=None):
    """The :class:`~.strategies.Strategy` stored in ``path``.

    Parameters
    ----------
    path : str or os.PathLike
    solution : Solution, optional
        A solution of the game played; the file's rules must be its rules.
    make : callable
        The strategy factory :func:`~.strategies.make_strategy` (handed in: this
        module sits below :mod:`.strategies`, which calls it).

    Raises
    ------
    ValueError
        Unreadable file, unknown kind, a model for other rules (one line naming the field).
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError as exc:
        raise ValueError(f"cannot read strategy file {path}: {exc.strerror}") from None
    if head.lstrip().startswith(b"{"):
        return _json_model(path, solution, make)
    raise ValueError(f"{path} is not a strategy file (a JSON model of gops model fit)")


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
    from gops_solver.analysis.models import read_model
    model = read_model(path)
    if rules is not None and model.rules != rules:
        raise ValueError(f"{path}: the model is for {model.rules.describe()}, not {rules.describe()}: "
                         f"fit one for these rules or play its rules")
    return any(c == "equilibrium" and w > 0 for c, w in zip(model.components, model.weights))
