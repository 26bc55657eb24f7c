"""``gops model fit|show`` and ``gops records convert``: opponent models from game records."""

from __future__ import annotations

import click

from gops_solver.cli._options import make_rules, quiet_option, rules_options
from gops_solver.game.jsonout import dumps


@click.group()
def model():
    """Fit opponent models to game records, and show them."""


@model.command()
@click.argument("records", type=click.Path())
@click.option("--player", "-p", type=click.Choice(["a", "b"]), required=True, help="the seat whose bids are fitted")
@click.option("--out", "-o", default=None, type=click.Path(dir_okay=False), help="model file to write (JSON)")
@click.option("--kind", type=click.Choice(["auto", "mixture", "tabular"]), default="auto",
              help="mixture, tabular (mixture backoff), or auto: the better held-out log-likelihood [auto]")
@click.option("--strategy", "extra", multiple=True, metavar="S",
              help="a further mixture component (module:function or path/to/file.py:function); repeatable")
@click.option("--tremble", type=float, default=0.01, show_default=True,
              help="probability of a uniform bid mixed into every component")
@click.option("--folds", type=int, default=5, show_default=True, help="k of the k-fold held-out log-likelihood")
@click.option("--prior", type=float, default=10.0, show_default=True,
              help="tabular backoff: Dirichlet pseudo-counts centred on the mixture")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, help="seed of the split into folds [0]")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@quiet_option
def fit(records, player, out, kind, extra, tremble, folds, prior, seed, as_json, quiet):
    """Fit what PLAYER did in RECORDS: a mixture of strategies, or a table with mixture backoff."""
    from gops_solver.engine.storage import check_out_path
    from gops_solver.opponent.fit import DEFAULT_COMPONENTS, fit_model
    from gops_solver.opponent.records import read_records
    if out is not None:
        check_out_path(out)  # before the work: a bad path is refused at once
    recs = read_records(records)
    if not quiet:  # the fit is refitted once per fold; a component that plays the equilibrium solves first
        rounds = sum(len(g.prizes) for g in recs)
        click.echo(f"fitting player {player} to {len(recs):,} games ({rounds:,} rounds), {folds} folds held out...",
                   err=True)
    m = fit_model(recs, player=player, kind=kind, strategies=list(DEFAULT_COMPONENTS) + list(extra),
                  tremble=tremble, folds=folds, prior=prior, seed=seed)
    if out is not None:
        m.save(out)
    _show(m, as_json, out)


@model.command()
@click.argument("path", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def show(path, as_json):
    """Show a model file's weights and fit figures."""
    from gops_solver.analysis.models import read_model
    _show(read_model(path), as_json, None)


def _show(m, as_json, out):
    if as_json:
        d = m.to_dict()
        d.pop("table")
        d["cells"] = len(m.table)
        if out is not None:
            d["out"] = out
        click.echo(dumps(d))
        return
    f = m.fit
    click.echo(f"rules      {m.rules.describe()}")
    click.echo(f"player     {m.player}   kind {m.kind}   tremble {m.tremble:g}"
               + (f"   prior {m.prior:g}   cells {len(m.table)}" if m.kind == "tabular" else ""))
    if f:
        click.echo(f"records    {f['games']:,} games, {f['rounds']:,} rounds of {m.player}")
    click.echo("weights")
    for c, w in sorted(zip(m.components, m.weights), key=lambda t: -t[1]):
        click.echo(f"  {c:<14} {w:.4f}")
    if f:
        click.echo(f"log-likelihood per round   mixture {f['mixture_loglik_per_round']:.4f}   "
                   f"tabular {f['tabular_loglik_per_round']:.4f}")
        click.echo(f"held-out ({f['folds']}-fold)         mixture {f['mixture_heldout_loglik_per_round']:.4f}   "
                   f"tabular {f['tabular_heldout_loglik_per_round']:.4f}")
    if out is not None:
        click.echo(f"wrote      {out}")


@click.group()
def records():
    """Convert game records from other formats."""


@records.command()
@click.argument("source", type=click.Path())
@click.option("--from", "fmt", type=click.Choice(["csv", "openspiel"]), required=True,
              help="csv: rows game,round,prize,bid_a,bid_b; openspiel: one goofspiel action history a line")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="records file to write (replaced atomically), or - for standard output")
@rules_options(None)
@click.option("--seats", default="a,b", metavar="A,B", help="names of the seats in the records [a,b]")
@quiet_option
def convert(source, fmt, out, cards, tie, objective, order, seats, quiet):
    """Convert SOURCE (a CSV of rounds or OpenSpiel histories) into gops records."""
    from gops_solver.opponent.records import convert as run
    names = seats.split(",")
    if len(names) != 2 or not all(x.strip() for x in names):
        raise click.UsageError(f"--seats {seats!r}: give two names, A,B")
    rules = make_rules(cards, tie, objective, order)
    games = run(fmt, source, rules, out, seats=tuple(x.strip() for x in names))
    if out != "-" and not quiet:
        click.echo(f"wrote {games:,} games to {out}", err=True)
