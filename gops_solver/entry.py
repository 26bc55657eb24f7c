"""The ``gops`` script's entry point: signals are handled before anything heavy is imported.

Importing the solver (numba, numpy) takes seconds; a Ctrl-C or SIGTERM then
must end the program with one line, not a traceback, so this module imports
nothing of the package until the handlers are in place.
"""

import os
import signal
import sys

from .signals import Terminated  # imports nothing else


def _on_sigterm(signum, frame):
    raise Terminated()


def main():
    """Run the command line; an interrupt at any moment gives one line and exit 130 (SIGTERM: 143)."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        from .cli import main as cli_main
        cli_main()
    except SystemExit as exc:
        if exc.code in (130, 143):
            # the command has reported the interrupt and cleaned up on its way out; the
            # interpreter's own shutdown could still end in a raw signal death (seen about once in
            # seven runs of tests/test_signals.py, a signal 1.5 s into a solve), so leave at once
            _leave(exc.code)
        raise
    except BaseException as exc:
        # reached only when the interrupt came before the commands' own handling (while the
        # solver's modules were still importing): nothing is written yet, and a half-imported
        # module's shutdown hooks could turn the exit back into a raw SIGINT death, so leave at once.
        # The interrupt may arrive wrapped: one raised inside a class body's __set_name__ (numpy's
        # finfo while numpy imports) comes out as a RuntimeError caused by the KeyboardInterrupt.
        interrupt = _interrupt_in(exc)
        if interrupt is None:
            raise
        terminated = isinstance(interrupt, Terminated)
        print("\nterminated" if terminated else "\ninterrupted", file=sys.stderr)
        _leave(143 if terminated else 130)


def _interrupt_in(exc):
    """The KeyboardInterrupt (or Terminated) that caused ``exc``, following its chain, or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _leave(code):
    """Flush the output and end the process now, skipping the interpreter's shutdown."""
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(code)
