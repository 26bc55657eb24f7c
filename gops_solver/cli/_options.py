"""The options every command shares: the rules of a game, a solution file, a match format."""

from __future__ import annotations

import click
from click.core import ParameterSource

from gops_solver.game.constants import MAX_CARDS  # noqa: F401  (defaults of --cards)
from gops_solver.game.rules import DRAWS, MATCHES, NAMED_ORDERS, OBJECTIVES, TIES, rules_from_options


def one_line(message: str) -> str:
    """An error message as one line: click's lists of choices joined, any other control character
    (a newline in a file name the message echoes) written as its escape, as ``repr`` does."""
    message = message.replace(":\n\t", ": ").replace(",\n\t", ", ")
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)


def rules_options(cards_default):
    """The options that describe a game: --cards, --tie, --objective, --order."""
    def wrap(f):
        f = click.option("--order", default=None, metavar="ORDER",
                         help=f"prize order: {', '.join(NAMED_ORDERS)} or a permutation like 3,1,5,2,4 [random]")(f)
        f = click.option("--objective", default=None, type=click.Choice(OBJECTIVES),
                         help="points: expected margin; win: P(win)-P(loss) [points]")(f)
        f = click.option("--tie", default=None, type=click.Choice(TIES),
                         help="carry: a tie carries the pot (last-round tie discards); discard [carry]")(f)
        f = click.option("--cards", "-n", default=None, type=int, metavar="N",
                         help=f"deck size 1..{MAX_CARDS}" + (f" [{cards_default}]" if cards_default else " (required)"))(f)
        return f
    return wrap


def make_rules(cards, tie, objective, order, cards_default=None, match=None, draw=None):
    """The :class:`Rules` of the rule options (built by :func:`~.rules.rules_from_options`)."""
    if cards is None and cards_default is None:
        raise click.UsageError("missing --cards N: give the deck size, e.g. --cards 6")
    return rules_from_options(cards, tie, objective, order, match, draw, cards_default)



def solution_option(help_text):
    """--solution FILE: a file written by gops solve --out."""
    return click.option("--solution", "-s", type=click.Path(), default=None, help=help_text)


def match_options(f):
    """The options that make a game a match: --match, --draw."""
    f = click.option("--draw", default=None, type=click.Choice(DRAWS),
                     help="best-of: a drawn game is replayed, or counts half to each [replay]")(f)
    f = click.option("--match", default=None, type=click.Choice(MATCHES),
                     help="single game, a 3-game session, or a best-of match (played to win) [single]")(f)
    return f


# ---------------------------------------------------------------------------
# one vocabulary: the spellings every command shares, and the old ones kept for a release
# ---------------------------------------------------------------------------

_RENAMED = "gops_renamed"  # ctx.meta key: old spellings given on this command line


def deprecation_warning(old, new):
    """One line on stderr: ``old`` still works this release; ``new`` is its spelling."""
    click.echo(f"warning: {old} is deprecated, use {new} (it will be removed in the next release)", err=True)


def _keep_old(new, dest, old=None):
    def keep(ctx, param, value):
        if value is None or ctx.resilient_parsing:
            return None
        spelt = old or param.opts[0]
        deprecation_warning(spelt, new)
        ctx.meta.setdefault(_RENAMED, []).append((spelt, new, dest, value))
        return None
    return keep


def renamed(old, new, dest, **attrs):
    """The old spelling ``old`` of option ``new`` (parameter ``dest``): hidden from --help, still
    accepted this release with a one-line warning (:class:`Command` hands its value to ``dest``)."""
    # a name of its own: sharing ``dest`` would make the new option look given whenever the old one is
    return click.option(old, "old_" + old.lstrip("-").replace("-", "_"), expose_value=False, hidden=True,
                        callback=_keep_old(new, dest), **attrs)


def old_option(old, new, **attrs):
    """An old option that several new ones replace (``--seats`` -> ``--a``, ``--b``, ...): hidden from
    --help, its value still passed on this release, with a one-line warning."""
    def warn(ctx, param, value):
        if value is not None and not ctx.resilient_parsing:
            deprecation_warning(old, new)
        return value
    return click.option(old, hidden=True, callback=warn, **attrs)


class _OldPositional(click.Argument):
    """A positional argument kept for a release: accepted, absent from the usage line."""

    def get_usage_pieces(self, ctx):
        return []


def renamed_positional(name, old, new, dest):
    """A positional ``name`` (spelt ``old`` in the warning) replaced by option ``new``."""
    return click.argument(name, cls=_OldPositional, required=False, expose_value=False,
                          callback=_keep_old(new, dest, old), type=click.Path())


def required(message):
    """Mark the option of the decorator just below this one as required, with ``message`` when missing.

    click's own ``required=True`` would refuse a command line that gives the
    option by its old name, before :class:`Command` can merge it.
    """
    def wrap(f):
        f.__click_params__[-1].gops_required = message
        return f
    return wrap


class Command(click.Command):
    """A command that takes the old spellings of its options (see :func:`renamed`)."""

    def parse_args(self, ctx, args):
        rest = super().parse_args(ctx, args)
        for old, new, dest, value in ctx.meta.pop(_RENAMED, []):
            if ctx.get_parameter_source(dest) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
                raise click.UsageError(f"give {new} only: {old} is its old spelling", ctx=ctx)
            ctx.params[dest] = value
        if not ctx.resilient_parsing:
            for p in self.get_params(ctx):
                if getattr(p, "gops_required", None) and ctx.params.get(p.name) is None:
                    raise click.UsageError(p.gops_required, ctx=ctx)
        return rest


class Group(click.Group):
    """A group whose commands are :class:`Command`."""

    command_class = Command


def players_option(command):
    """--players, shown in the help of the two-player form of ``command``.

    The group routes ``--players 3|4`` to :mod:`._multi` and drops ``--players 2``
    before the command parses (``_Gops.resolve_command``), so the value never
    reaches the command: the option is here to be documented.
    """
    return click.option("--players", type=click.Choice(("2", "3", "4")), default="2", metavar="P",
                        expose_value=False,
                        help=f"players at the table, 2 to 4; 3 and 4 have their own options "
                             f"(gops {command} --players 3 --help) [2]")


def quiet_option(f):
    """-q/--quiet: no progress bars and no notes on stderr (warnings and errors still print)."""
    return click.option("--quiet", "-q", is_flag=True, help="no progress bars or notes on stderr")(f)


def json_option(f):
    """--json: one object of strict JSON on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="print one JSON object")(f)


def check_play_seat(strat_b):
    """``gops play --b``: the computer's seat plays the equilibrium (the hints and the value given up
    are measured against it); refuse any other strategy in one line."""
    if strat_b != "equilibrium":
        raise click.UsageError(f"gops play --b {strat_b}: the two-player computer plays the equilibrium only; "
                               f"drop --b, or pit {strat_b} against a strategy with gops simulate --a S --b {strat_b}")
