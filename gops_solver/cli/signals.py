"""Signal handling every command shares: what a SIGTERM raises, and how an interrupt is reported.

Kept free of imports: :mod:`~.entry` installs its handler before anything heavy loads.
"""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so every cleanup path (temporary files, locks) runs."""


#: functions in whose frames a signal handler must not raise (see :mod:`~.entry`): the interrupt is
#: sent again a moment later. ``_new_temp`` creates a temporary file (an interrupt there would leave
#: it empty beside the target); ``_EventCap.__call__`` is run by pygambit's C++ code, which hands
#: a Python exception back as a RuntimeError.
NO_RAISE = frozenset({"_new_temp", "_EventCap.__call__"})


def interrupt_of(exc):
    """The KeyboardInterrupt (or :class:`Terminated`) behind ``exc``, following its chain, or None.

    click wraps Ctrl-C at a prompt in ``Abort`` (``from None``: only ``__context__`` keeps it).
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def exit_code(exc) -> int:
    """130 for Ctrl-C, 143 for SIGTERM."""
    return 143 if isinstance(exc, Terminated) else 130


def word(exc) -> str:
    """How the interrupt is reported: ``interrupted`` (Ctrl-C) or ``terminated`` (SIGTERM)."""
    return "terminated" if isinstance(exc, Terminated) else "interrupted"
