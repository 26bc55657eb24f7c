"""Strict JSON for every ``--json`` output: no ``NaN`` or ``Infinity`` tokens.

Python's ``json`` writes non-finite floats as ``NaN`` / ``Infinity``, which
standard JSON parsers refuse. A figure that is not finite is undefined here
(e.g. the confidence interval of a single game), so it is written as ``null``.
"""

from __future__ import annotations

import json
import math

import numpy as np


def strict(obj):
    """``obj`` with non-finite floats as None, numpy scalars and arrays as Python values, tuples as lists."""
    if isinstance(obj, dict):
        return {str(k): strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return strict(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj


def dumps(obj, **kw) -> str:
    """One line of strict JSON (RFC 8259): non-finite numbers become ``null``.

    Raises
    ------
    ValueError
        Never for numbers (they are mapped first); ``json.dumps`` still refuses
        objects it cannot write (TypeError).
    """
    return json.dumps(strict(obj), allow_nan=False, **kw)
