"""``gops export``: the equilibrium at every decision state of the first rounds, as a table file."""

from __future__ import annotations

import os
import time

import click

from gops_solver.game.jsonout import dumps

from gops_solver.game.rules import NAMED_ORDERS, OBJECTIVES, TIES, Rules

_FORMATS = ("csv", "parquet", "npz", "openspiel", "efg", "solution")
#: an export without --solution solves the game first; past this it asks for a stored solution
_MAX_SOLVE_SECONDS = 600


@click.command()
@click.option("--solution", "-s", type=click.Path(), default=None,
              help="a file written by gops solve --out (otherwise the game is solved here, in memory)")
@click.option("--cards", "-n", default=None, type=int, metavar="N", help="deck size 1..13 (without --solution)")
@click.option("--tie", default=None, type=click.Choice(TIES), help="carry or discard [carry]")
@click.option("--objective", default=None, type=click.Choice(OBJECTIVES), help="points or win [points]")
@click.option("--order", default=None, metavar="ORDER",
              help=f"prize order: {', '.join(NAMED_ORDERS)} or a permutation like 3,1,5,2,4 [random]")
@click.option("--rounds", "-r", default=None, type=int, metavar="R",
              help="export rounds 1..R [all, or --level's; --format solution: required, 1..N-1]")
@click.option("--level", "-k", default=None, type=int, metavar="K",
              help="only the states with K cards in each hand (round N - K + 1)")
@click.option("--format", "fmt", required=True, type=click.Choice(_FORMATS),
              help="csv, parquet, npz (columns in docs/export.md), openspiel (a tabular policy), efg (Gambit's "
                   "extensive form of the whole game, n <= 5), or solution (the value tables that answer rounds "
                   "1..R exactly, a small file gops query -s reads; docs/files.md)")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="file to write (atomically), or - for standard output (csv, openspiel)")
@click.option("--max-rows", default=None, type=click.IntRange(min=1), metavar="M",
              help="refuse exports of more rows than this [2,000,000]")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object describing the file written")
@click.option("--csv", "as_csv", is_flag=True, help="print a header line and one CSV row describing the file written")
def export(solution, cards, tie, objective, order, rounds, level, fmt, out, max_rows, as_json, as_csv):
    """Export values and both strategies of the first rounds.

    One row per reachable decision state of the first R rounds (or of one
    level): the value and both optimal bid distributions. --format solution
    writes instead the value tables behind rounds 1..R: a small solution file
    that gops query, explore, export and verify read with -s.
    """
    from gops_solver.engine.export import DEFAULT_MAX_ROWS, equilibrium_table, frame_table, write, write_table
    from gops_solver.engine.projection import FITS, project
    from gops_solver.api import load, solve
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    to_stdout = out == "-"
    if to_stdout and fmt in ("parquet", "npz", "solution"):
        raise click.UsageError(f"{fmt} is a binary format and is not written to standard output: "
                               f"give a file with --out")
    from gops_solver.engine.storage import check_out_path
    check_out_path(out, stdout=True)  # a path that cannot be written, or another writer's: refused before the work
    t0 = time.perf_counter()
    if fmt == "efg":  # the game itself, not its solution: nothing to solve
        _export_efg(solution, cards, tie, objective, order, rounds, level, max_rows, out, as_json, as_csv, t0)
        return
    if fmt == "solution":
        if level is not None or max_rows is not None:
            raise click.UsageError("--format solution writes whole levels of the first rounds: drop --level and "
                                   "--max-rows, give --rounds R")
        if rounds is None:
            raise click.UsageError("--format solution needs --rounds R: the file answers rounds 1..R exactly "
                                   "(R from 1 to N-1)")
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        sol = load(solution)
        rules = file_rules(sol.rules, solution, n=cards, tie=tie, objective=objective, order=order)
    else:
        if cards is None:
            raise click.UsageError("give --solution FILE, or --cards N (and the rules) to solve here")
        rules = Rules(n=cards, tie=tie or "carry", objective=objective or "points", order=order or "random")
        if fmt == "solution":
            from gops_solver.engine.top import check_rounds
            check_rounds(rules, rounds)  # before the solve
        pr = project(rules)
        if pr.solve_fit(with_out=False) != FITS:
            raise click.UsageError(f"solving {rules.describe()} in memory needs {pr.table_bytes / 2**30:.1f} GiB of "
                                   f"{pr.machine_bytes / 2**30:.1f} GiB: solve it once with gops solve --out FILE, "
                                   f"then export --solution FILE")
        seconds = pr.seconds
        if seconds > _MAX_SOLVE_SECONDS:
            raise click.UsageError(f"solving {rules.describe()} takes about {seconds / 60:.0f} min: solve it once "
                                   f"with gops solve --out FILE, then export --solution FILE")
        sol = solve(rules)
    if fmt == "solution":
        _export_top(sol, rules, rounds, out, as_json, as_csv, t0)
        return
    limit = DEFAULT_MAX_ROWS if max_rows is None else max_rows
    if fmt == "openspiel":
        from gops_solver.analysis.openspiel import write_tabular_policy
        if to_stdout:
            import tempfile
            # the policy is one JSON document: written whole to a private folder, then copied out
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "policy.json")
                rows = write_tabular_policy(sol, path, rounds=rounds, level=level, max_rows=limit)
                with open(path, "rb") as fh:
                    data = fh.read()
            stream = click.get_binary_stream("stdout")
            stream.write(data)
            stream.flush()
            size = len(data)
        else:
            rows = write_tabular_policy(sol, out, rounds=rounds, level=level, max_rows=limit)
            size = os.path.getsize(out)
        columns = None
    else:
        target = click.get_binary_stream("stdout") if to_stdout else out
        if sol.kind in ("classic", "top"):  # the vectorised walk of the classic tables
            table = equilibrium_table(sol, rounds=rounds, level=level, max_rows=limit)
            size = write_table(table, target, fmt)
            rows, columns = len(table), table.columns
        else:  # every other engine's own table
            frame = sol.to_frame(rounds=rounds, level=level, max_rows=limit)
            size = write(frame, target, fmt) if not to_stdout else write_table(frame_table(frame), target, fmt)
            rows, columns = len(frame), list(frame.columns)
        if size is not None and size < 0:  # streamed into a pipe: its size is not known
            size = None
    seconds = time.perf_counter() - t0
    # with --out - the table is standard output: the report goes to standard error
    echo = (lambda text: click.echo(text, err=True)) if to_stdout else click.echo
    if as_json:
        echo(dumps({"rules": rules.to_dict(), "format": fmt, "out": out, "rows": rows, "bytes": size,
                         "seconds": round(seconds, 3), "rounds": rounds, "level": level, "columns": columns}))
        return
    if as_csv:
        from gops_solver.cli._format import RULES_HEADER, csv_text, rules_cells
        echo(csv_text(RULES_HEADER + ["format", "out", "rows", "bytes", "seconds", "rounds", "level"],
                      [rules_cells(rules) + [fmt, out, rows, size, round(seconds, 3),
                                             "" if rounds is None else rounds, "" if level is None else level]]))
        return
    what = f"level {level}" if level is not None else f"rounds 1..{rounds if rounds is not None else rules.n}"
    echo(f"rules    {rules.describe()}")
    echo(f"wrote    {rows:,} decision states ({what}) to {out}, {fmt}" + (f", {size:,} bytes" if size is not None else ""))
    echo(f"time     {seconds:.2f} s")


def _export_top(sol, rules, rounds, out, as_json, as_csv, t0):
    """``--format solution``: the top levels of ``sol`` (rounds 1..R), written by :func:`~.top.write_top`."""
    from gops_solver.engine.top import write_top
    got = write_top(out, sol, rounds)
    seconds = time.perf_counter() - t0
    levels = got["levels"]
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), "format": "solution", "out": out, "rounds": rounds,
                          "levels": levels, "entries": got["entries"], "raw_bytes": got["raw_bytes"],
                          "bytes": got["bytes"], "seconds": round(seconds, 3)}))
        return
    if as_csv:
        from gops_solver.cli._format import RULES_HEADER, csv_text, rules_cells
        click.echo(csv_text(RULES_HEADER + ["format", "out", "rounds", "levels", "entries", "raw_bytes", "bytes",
                                            "seconds"],
                            [rules_cells(rules) + ["solution", out, rounds, " ".join(map(str, levels)),
                                                   got["entries"], got["raw_bytes"], got["bytes"], round(seconds, 3)]]))
        return
    click.echo(f"rules    {rules.describe()}")
    click.echo(f"wrote    rounds 1..{rounds} (the values of levels {levels[0]}..{levels[-1]}, {got['entries']:,} "
               f"entries) to {out}, solution, {got['bytes']:,} bytes ({got['raw_bytes']:,} raw)")
    click.echo(f"time     {seconds:.2f} s")


def _export_efg(solution, cards, tie, objective, order, rounds, level, max_rows, out, as_json, as_csv, t0):
    """``--format efg``: the game tree of the rules (given, or of the solution file), written by pygambit."""
    from gops_solver.analysis.gambit import check_efg_rules, extensive_game, efg_terminals
    if rounds is not None or level is not None or max_rows is not None:
        raise click.UsageError("--format efg writes the whole game tree: drop --rounds/--level/--max-rows")
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        from gops_solver.api import load
        rules = file_rules(load(solution).rules, solution, n=cards, tie=tie, objective=objective, order=order)
    elif cards is None:
        raise click.UsageError("give --cards N (and the rules), or --solution FILE for its rules")
    else:
        rules = Rules(n=cards, tie=tie or "carry", objective=objective or "points", order=order or "random")
    try:
        check_efg_rules(rules)
        game = extensive_game(rules)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    text = game.to_efg()  # pygambit's own writer
    data = text.encode("utf-8")
    from gops_solver.engine.storage import atomic_write
    atomic_write(out, [data], stdout=True)
    seconds = time.perf_counter() - t0
    echo = (lambda line: click.echo(line, err=True)) if out == "-" else click.echo
    terminals = efg_terminals(rules)
    if as_json:
        echo(dumps({"rules": rules.to_dict(), "format": "efg", "out": out, "terminals": terminals,
                    "bytes": len(data), "seconds": round(seconds, 3)}))
        return
    if as_csv:
        from gops_solver.cli._format import RULES_HEADER, csv_text, rules_cells
        echo(csv_text(RULES_HEADER + ["format", "out", "terminals", "bytes", "seconds"],
                      [rules_cells(rules) + ["efg", out, terminals, len(data), round(seconds, 3)]]))
        return
    echo(f"rules    {rules.describe()}")
    echo(f"wrote    the game tree ({terminals:,} terminal histories) to {out}, efg, {len(data):,} bytes")
    echo(f"time     {seconds:.2f} s")
