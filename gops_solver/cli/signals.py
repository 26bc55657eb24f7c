"""The exception a SIGTERM raises, so every cleanup path written for Ctrl-C runs for it too.

Kept free of imports: :mod:`~.entry` installs its handler before anything heavy loads.
"""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so every cleanup path (temporary files, locks) runs."""
