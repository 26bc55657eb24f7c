"""Small helpers of the command line: parsing, strict JSON, warnings and exit codes."""

from __future__ import annotations

import math
import sys
import warnings

from .jsonout import dumps  # every --json output goes through it

__all__ = ["dumps", "exit_code_of", "parse_match_score", "show_warnings_as_lines"]


def exit_code_of(exc: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM (see :mod:`~.entry`)."""
    from .entry import Terminated
    return 143 if isinstance(exc, Terminated) else 130


def show_warnings_as_lines() -> None:
    """Print the solver's notes (a damaged checkpoint recomputed, a stale file removed) as one line each."""
    from .storage import IntegrityWarning
    warnings.simplefilter("always", IntegrityWarning)  # each repair is worth its line, even when repeated
    default = warnings.showwarning
    if getattr(default, "gops_lines", False):
        return  # installed already (the CLI run again in one process)

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, IntegrityWarning):
            print(f"note: {message}", file=sys.stderr)
        else:
            default(message, category, filename, lineno, file, line)

    show.gops_lines = True
    warnings.showwarning = show


def parse_match_score(text):
    """``-4`` (a session total) or ``1-0`` / ``1.5-0.5`` (best-of games won); None when absent.

    Raises
    ------
    ValueError
        Naming ``--match-score`` and the forms it takes (also for inf and nan).
    """
    if text is None:
        return None
    t = text.strip()
    if "-" in t.lstrip("-+"):
        a, b = t.lstrip("+").rsplit("-", 1) if not t.startswith("-") else (None, None)
        if a is None:
            raise ValueError(f"--match-score {text!r}: write a session total like -4 or games won like 1-0")
        try:
            pair = float(a), float(b)
        except ValueError:
            raise ValueError(f"--match-score {text!r}: write games won like 1-0 or 1.5-0.5") from None
        if not all(math.isfinite(v) for v in pair):
            raise ValueError(f"--match-score {text!r}: games won must be finite numbers, like 1-0 or 1.5-0.5")
        return pair
    try:
        return int(t)
    except ValueError:
        raise ValueError(f"--match-score {text!r}: write a session total like -4 or games won like 1-0") from None
