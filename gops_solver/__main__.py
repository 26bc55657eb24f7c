"""``python -m gops_solver``: the ``gops`` command line, the same commands, options and output."""

from .cli import cli

if __name__ == "__main__":
    cli.main(prog_name="gops")
