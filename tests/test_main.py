"""``python -m gops_solver`` is the ``gops`` command: same output, same exit status."""

import os
import subprocess
import sys

from click.testing import CliRunner

from gops_solver.cli.commands import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _module(*args):
    # a fixed width, so help text wraps and abbreviates as under CliRunner (terminal_width below)
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "gops_solver", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT)


def test_same_output_as_the_gops_command():
    for args in (["info", "-n", "5", "--json"], ["--help"], ["query", "--help"]):
        got = _module(*args)
        want = CliRunner().invoke(cli, args, prog_name="gops", terminal_width=80)
        assert got.returncode == want.exit_code == 0
        assert got.stdout.split() == want.output.split()
        assert got.stdout.startswith("Usage: gops ") or args[0] != "--help"


def test_errors_are_one_line_with_status_2():
    got = _module("info", "-n", "99")
    assert got.returncode == 2
    assert got.stderr.strip().count("\n") == 0 and got.stderr.startswith("error: ")
