"""``gops solve --memory / --workers / --scheduler``: a blocked solve into a block store.

The command-line face of :mod:`~.blocked`: checks the options, starts or
joins a Dask cluster when asked, shows progress over blocks with an ETA,
and prints the same summary as an in-memory solve.
"""

from __future__ import annotations

import sys

import click

from gops_solver.cli._util import advance as _advance, exit_code_of, print_solve_summary, progress_bar as _progress_bar


def _client(workers, scheduler, quiet):
    """A Dask client: a local cluster of ``workers`` processes, or the scheduler at ``scheduler``."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise click.UsageError("--workers and --scheduler need Dask: pip install 'gops-solver[dask]'") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise click.UsageError(f"cannot reach the Dask scheduler {scheduler} ({exc}): check the address "
                                   f"(tcp://host:8786) and that the scheduler runs") from None
        cluster = None
    else:
        # one thread per worker: a block's kernel is the unit of work, workers are the parallelism
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                               env={"NUMBA_NUM_THREADS": "1"})
        client = Client(cluster)
    link = getattr(client, "dashboard_link", None)
    if link and not quiet:
        click.echo(f"dask dashboard {link}", err=True)
    return client, cluster


def solve_blocked_cmd(rules, out, as_json, resume, restart, quiet, memory, workers, scheduler, stage_solver):
    """Run ``gops solve`` with a block store; see :func:`gops_solver.solve`."""
    from gops_solver.engine.blocked import parse_memory
    from gops_solver.engine.projection import project
    from gops_solver.api import solve as solve_rules
    if out is None:
        raise click.UsageError("--memory, --workers and --scheduler write a block store: add --out FOLDER")
    if workers is not None and scheduler is not None:
        raise click.UsageError("choose one of --workers N (a local cluster) and --scheduler ADDRESS (a running one)")
    if resume and restart:
        raise click.UsageError("choose one of --resume (continue the finished blocks) and --restart (discard them)")
    if rules.players != 2:
        raise click.UsageError("--memory, --workers and --scheduler solve two-player games: drop them for "
                               "--players 3 or 4")
    if rules.match != "single":
        raise click.UsageError(f"--memory, --workers and --scheduler solve single games: solve the {rules.match} "
                               f"match without them")
    if stage_solver != "numba":
        raise click.UsageError("a blocked solve uses the numba stage solver: drop --stage-solver, then check "
                               "the store with gops verify")
    budget = parse_memory(memory) if memory is not None else None  # solve_blocked checks it is enough
    pr = project(rules)
    client = cluster = None
    if workers is not None or scheduler is not None:
        client, cluster = _client(workers, scheduler, quiet)
    bar = _progress_bar(pr.stage_games, quiet)
    blocks = [0, 0]

    def block_done(count, total):
        # the bar's rate and ETA run on stage games (blocks differ a lot in size); it also counts blocks
        blocks[0] += count
        blocks[1] = total or blocks[1]
        bar.set_postfix_str(f"block {blocks[0]:,}/{blocks[1]:,}", refresh=False)

    try:
        sol = solve_rules(rules, progress=(lambda level, g, done=False: _advance(bar, g, done)) if bar else None,
                          out=out, resume=resume, restart=restart, memory=budget, client=client,
                          block_done=block_done if bar else None)
    except KeyboardInterrupt as exc:
        if bar:
            bar.close()
        from gops_solver.cli.signals import word
        click.echo(f"\n{word(exc)}; rerun with --resume to continue from the finished blocks", err=True)
        sys.exit(exit_code_of(exc))
    finally:
        if bar:
            bar.close()
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    store = sol.store
    nblocks = int(sum(store.nsets))
    print_solve_summary(rules, sol, out, as_json,
                        saved=f"{out} ({nblocks:,} blocks, {store.disk_bytes() / 1e6:,.1f} MB)",
                        extra={"blocks": nblocks, "bytes": store.disk_bytes()})


def fits_here(plan, pr) -> bool:
    """Whether a blocked solve fits this machine: the store on the current folder's disk, one worker in memory."""
    import os
    import shutil
    return plan.disk_bytes <= shutil.disk_usage(os.getcwd()).free and plan.worker_bytes <= 0.8 * pr.machine_bytes


def block_plan_lines(rules, pr, plan) -> list:
    """``gops info``'s lines on a blocked solve: blocks, disk, memory, CPU time, and a cluster plan."""
    import os
    import shutil
    from gops_solver.engine.projection import BLOCK_RATES, block_rate, duration

    def rate(k):
        return block_rate(k, rules.objective, rules.tie)
    measured = BLOCK_RATES[rules.objective, rules.tie]
    low, top = min(measured), max(measured)
    gb = 1e9
    free = shutil.disk_usage(os.getcwd()).free
    mem = max(plan.worker_bytes, int(1e9))
    lines = [f"blocked        {plan.blocks:,} blocks of up to {plan.max_block_bytes / 1e6:,.1f} MB "
             f"(mean {plan.mean_block_bytes / 1e6:,.1f} MB); block store {plan.disk_bytes / gb:,.1f} GB on disk "
             f"({plan.raw_bytes / gb:,.1f} GB raw, zstd)",
             f"               a worker needs {plan.worker_bytes / gb:.2f} GB; {plan.cpu_hours:,.1f} CPU-hours "
             f"at {rate(low) / 1e6:.2f} (level {low}) to {rate(top) / 1e6:.2f} (level {top}) M positions "
             f"per core-second (measured on n = 13 blocks)"]
    if fits_here(plan, pr):
        lines.append(f"               here: about {duration(plan.seconds)}, with "
                     f"gops solve --cards {rules.n} --tie {rules.tie} --objective {rules.objective} "
                     f"--order {rules.order_name} --out DIR --memory {int(mem / 1e9 + 1)}GB")
    else:
        why = (f"{plan.disk_bytes / gb:,.0f} GB of disk, {free / gb:,.0f} GB free" if plan.disk_bytes > free
               else f"{plan.worker_bytes / gb:.1f} GB per worker")
        lines.append(f"               not on this machine ({why})")
    for c in plan.clusters:
        lines.append(f"cluster plan   {c['workers']} workers x {int(plan.worker_bytes / 1e9 + 1)} GB, "
                     f"{plan.disk_bytes / gb * 1.1:,.0f} GB shared storage: about {duration(c['seconds'])}")
    return lines


def store_info(path, as_json, as_csv) -> None:
    """``gops info --store DIR``: a block store's levels, blocks done, time spent and time left."""
    from gops_solver.cli._format import csv_text
    from gops_solver.engine.projection import duration, store_status
    from gops_solver.game.jsonout import dumps
    try:
        st = store_status(path)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    rules = st["rules"]
    if as_json:
        click.echo(dumps({**st, "rules": rules.to_dict(), "store": str(path)}))
        return
    cols = ["k", "blocks", "done", "stage_games", "seconds", "work", "work_done", "seconds_left"]
    if as_csv:
        click.echo(csv_text(cols, [[lv[c] if lv[c] is not None else "" for c in cols] for lv in st["levels"]]))
        return
    state = "finished" if st["complete"] else ("not started" if st["done"] == 0 else "unfinished")
    click.echo(f"store          {path} ({state})")
    click.echo(f"rules          {rules.describe()}")
    click.echo(f"blocks         {st['done']:,} of {st['blocks']:,} ({st['bytes'] / 1e9:,.2f} GB on disk)")
    click.echo(f"time spent     {duration(st['seconds'])} (the blocks' own solve times)")
    if not st["complete"]:
        left = st["seconds_left"]
        click.echo("time left      " + (f"about {duration(left)} at the rates of the finished blocks"
                                        if left is not None else "unknown until a block is finished"))
    click.echo("  level   blocks done   stage games    seconds   left")
    for lv in st["levels"]:
        if lv["k"] == 0:
            continue
        left = "" if lv["done"] == lv["blocks"] else (duration(lv["seconds_left"]) if lv["seconds_left"] is not None
                                                      else "?")
        click.echo(f"  {lv['k']:5d} {lv['done']:6,}/{lv['blocks']:<6,} {lv['stage_games']:13,} "
                   f"{lv['seconds']:10.1f}   {left}")
