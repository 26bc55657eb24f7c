"""The ``gops`` command line: click commands that parse, call the library and print.

- :mod:`.entry` -- the script's entry point; installs the signal handlers before anything heavy.
- :mod:`.commands` -- the command group and the solve, play, verify, evaluate, simulate, info commands.
- :mod:`._query`, :mod:`._export`, :mod:`._explore`, :mod:`._blocked`, :mod:`._multi`,
  :mod:`._variants` -- one module per concern; :mod:`._options` the options they share.
- :mod:`.devtools` -- developer chores (``python -m gops_solver.cli.devtools clean-cache``).

Importing this package imports nothing heavy (see :mod:`.entry`).
"""

from gops_solver.cli.entry import main

__all__ = ["main"]
