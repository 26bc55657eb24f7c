"""``python -m gops_solver``: the ``gops`` command line, the same commands, options and output."""

from gops_solver.cli.entry import main

if __name__ == "__main__":
    main()
