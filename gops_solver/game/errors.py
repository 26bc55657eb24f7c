"""Errors of bad input worded twice: for the Python API and for the command line.

The library validates its input and raises ``ValueError`` with a message that
names the fix. Where that fix is a Python argument (``equilibrium=True``,
``open_prizes=2``), the command line must name its own option or command
instead: :class:`InputValueError` carries both, and the ``gops`` commands
print :func:`cli_message`.
"""

from __future__ import annotations


class InputValueError(ValueError):
    """A ``ValueError`` whose message names Python arguments, with the command line's wording beside it.

    Parameters
    ----------
    message : str
        The message for Python (``str(exc)``).
    cli : str
        The same fault and its fix in the command line's words (options, commands).
    """

    def __init__(self, message: str, cli: str):
        super().__init__(message)
        self.cli = cli


def cli_message(exc: BaseException) -> str:
    """The words the command line shows for ``exc``: its ``cli`` wording if it has one, else its message."""
    return getattr(exc, "cli", None) or str(exc)
