"""Small helpers of the command line: parsing, strict JSON, warnings and exit codes."""

from __future__ import annotations

import sys
import warnings

from gops_solver.game.jsonout import dumps  # every --json output goes through it
from gops_solver.game.rules import parse_match_score  # noqa: F401  (re-exported: the CLI's parsers in one place)

__all__ = ["dumps", "exit_code_of", "parse_match_score", "show_warnings_as_lines"]


def exit_code_of(exc: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM (see :mod:`~.entry`, :mod:`~.signals`)."""
    from gops_solver.cli.signals import exit_code
    return exit_code(exc)


def show_warnings_as_lines() -> None:
    """Print the solver's notes (a damaged checkpoint recomputed, a stale file removed) as one line each."""
    from gops_solver.engine.storage import IntegrityWarning
    warnings.simplefilter("always", IntegrityWarning)  # each repair is worth its line, even when repeated
    default = warnings.showwarning
    if getattr(default, "gops_lines", False):
        return  # installed already (the CLI run again in one process)

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, IntegrityWarning):
            print(f"note: {message}", file=sys.stderr)
        else:
            default(message, category, filename, lineno, file, line)

    show.gops_lines = True
    warnings.showwarning = show


_PROGRESS_MIN_GAMES = 2_000_000  # smaller solves finish in about a second


def advance(bar, games, done):
    """Move a solve's progress bar by ``games`` (``done``: work a resumed solve found finished)."""
    if done:  # a resumed solve: count the finished levels without skewing the rate and ETA
        bar.initial = bar.n = games
        bar.refresh()
    else:
        bar.update(games)


def progress_bar(total, quiet):
    """A tqdm bar with ETA on stderr for long solves; None for short ones."""
    if quiet or total < _PROGRESS_MIN_GAMES:
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="game", unit_scale=True, desc="solving", file=sys.stderr,
                dynamic_ncols=True, smoothing=0.05)


def print_solve_summary(rules, sol, out, as_json, saved=None, extra=None):
    """Print what ``gops solve`` found: value, size, time, where it went and the opening.

    ``saved`` replaces the plain ``saved  OUT`` line (a block store adds its
    blocks and bytes); ``extra`` adds fields to the JSON object.
    """
    import click

    from gops_solver.analysis.opening import opening, opening_text
    from gops_solver.cli._format import nozero
    first = opening(sol)
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), "value": sol.value, "states": sol.states,
                          "stage_games": sol.stage_games, "seconds": round(sol.seconds, 3),
                          "seconds_this_run": round(sol.seconds_this_run, 3), "out": out, **(extra or {}),
                          "opening": [{"prize": p, "strategy_a": {str(c): q for c, q in s.items()}}
                                      for p, s in first]}))
        return
    click.echo(f"rules        {rules.describe()}")
    click.echo(f"value        {nozero(sol.value):.12g}")
    click.echo(f"states       {sol.states:,}")
    click.echo(f"stage games  {sol.stage_games:,}")
    click.echo(f"time         {sol.seconds:.2f} s"
               + (f" ({sol.seconds_this_run:.2f} s in this run)" if sol.seconds_this_run != sol.seconds else ""))
    if out is not None:
        click.echo(f"saved        {saved or out}")
    click.echo("opening      A's first bid (columns) against each first prize (rows); B's mirror is optimal too")
    for line in opening_text(first):
        click.echo(f"  {line}")


def print_simulation(res, rules, as_json, as_csv, lead=()) -> None:
    """Print what ``gops simulate`` measured: margin, win, draw and loss with their 95 % intervals.

    ``lead`` is ``(column, value)`` pairs the CSV row starts with (the classic
    game's rules; a variant's are in its file).
    """
    import click
    if as_json:
        click.echo(dumps(res.to_dict()))
        return
    rows = [("margin", res.margin, res.margin_ci), ("win", res.win, res.win_ci),
            ("draw", res.draw, res.draw_ci), ("loss", res.loss, res.loss_ci)]
    if as_csv:
        head = [c for c, _ in lead] + ["a", "b", "games", "seed"]
        cells = [str(v) for _, v in lead] + [str(res.a), str(res.b), str(res.games), str(res.seed)]
        click.echo(",".join(head) + "," + ",".join(f"{k},{k}_lo,{k}_hi" for k, _, _ in rows))
        click.echo(",".join(cells) + "," + ",".join(f"{v:.6g},{ci[0]:.6g},{ci[1]:.6g}" for _, v, ci in rows))
        return
    click.echo(f"rules   {rules.describe()}")
    unit = "games" if getattr(rules, "match", "single") == "single" else "matches"  # --match: whole matches
    click.echo(f"{unit:<7} {res.games:,} of {res.a} (A) vs {res.b} (B), seed {res.seed}")
    for name, v, ci in rows:
        click.echo(f"{name:<7} {v:+.5f}  95% CI [{ci[0]:+.5f}, {ci[1]:+.5f}]")
