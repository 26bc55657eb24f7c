"""``python -m gops_solver``: the ``gops`` command."""

from .entry import main

main()
