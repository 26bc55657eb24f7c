"""The ``gops`` script's entry point: signals are handled before anything heavy is imported.

Importing the solver (numba, numpy) takes seconds; a Ctrl-C or SIGTERM then
must end the program with one line, not a traceback, so this module imports
nothing of the package until the handlers are in place.
"""

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
    except Terminated:
        print("\nterminated", file=sys.stderr)
        sys.exit(143)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
