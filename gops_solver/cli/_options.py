"""The options every command shares: the rules of a game, a solution file, a match format."""

from __future__ import annotations

import click

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
