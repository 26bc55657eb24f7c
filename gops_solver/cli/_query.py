"""``gops query``: the value and optimal bids of one decision state (the explorer parses its requests with it)."""

from __future__ import annotations

import click

from gops_solver.analysis.stagegame import stage_game
from gops_solver.cli._format import matrix_text, nozero
from gops_solver.cli._options import (Command, json_option, match_options, players_option, rules_options,
                                      solution_option)
from gops_solver.cli._variants import variant_options
from gops_solver.game.cards import format_card, format_cards
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.jsonout import dumps


@click.command(cls=Command)
@variant_options("query", row=True)
@solution_option("a file written by gops solve --out or gops export --format solution (otherwise only this "
                 "state's sub-game is solved)")
@rules_options(MAX_CARDS)
@click.option("--hand-a", required=True, help="A's cards, e.g. 1,3,5 or A,J,K")
@click.option("--hand-b", required=True, help="B's cards")
@click.option("--pot", required=True, type=int, help="revealed prize plus carried pot")
@click.option("--prizes", default="", help="hidden prizes (hand size - 1 of them) [none]")
@click.option("--diff", default=0, type=int, help="score A - score B so far [0]")
@json_option
@click.option("--stage-solver", type=click.Choice(["numba", "highs"]), default="numba", help="stage-game backend [numba]")
@match_options
@click.option("--game", default=None, type=int, help="matches: which game (session 1..3) [1]")
@click.option("--match-score", default=None, metavar="SCORE",
              help="matches: session total A-B of earlier games (e.g. -4), or best-of games won A-B (e.g. 1-0)")
@click.option("--matrix", "show_matrix", is_flag=True, help="also show the stage game: A's value for each pair of bids")
@click.option("--format", "fmt", type=click.Choice(["text", "nfg"]), default="text",
              help="nfg: with --matrix, print the stage game as a Gambit .nfg file (pygambit's writer) [text]")
@players_option("query")
def query(solution, cards, tie, objective, order, hand_a, hand_b, pot, prizes, diff, as_json, stage_solver,
          match, draw, game, match_score, show_matrix, fmt):
    """Value and optimal bid distributions of one decision state."""
    from gops_solver.analysis.answer import answer_query
    from gops_solver.api import load
    if fmt == "nfg" and (not show_matrix or as_json):
        raise click.UsageError("--format nfg prints the stage game alone: give --matrix, without --json")
    ans = answer_query(hand_a, hand_b, pot, prizes, diff, cards=cards, tie=tie, objective=objective, order=order,
                       match=match, draw=draw, game=game, match_score=match_score, stage_solver=stage_solver,
                       solution=None if solution is None else load(solution), solution_name=solution)
    if ans.note:  # a top-levels file, and a state below its rounds
        click.echo(f"note: {ans.note}", err=True)
    if fmt == "nfg":
        from gops_solver.analysis.gambit import strategic_game
        st = ans.state
        title = (f"Goofspiel {ans.rules.describe()} stage game: hand A {format_cards(sorted(st.hand_a))} | hand B "
                 f"{format_cards(sorted(st.hand_b))} | pot {st.pot} | hidden {format_cards(st.prizes) or '-'} | "
                 f"diff {st.diff:+d}")
        try:
            text = strategic_game(stage_game(ans.result), title).to_nfg()  # pygambit's own writer
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        click.echo(text, nl=not text.endswith("\n"))
        return
    if as_json:
        if show_matrix:
            click.echo(dumps({**ans.to_dict(), "matrix": stage_game(ans.result).to_dict()}))
        else:
            click.echo(ans.to_json())
        return
    rules, st, res = ans.rules, ans.state, ans.result
    click.echo(f"rules   {rules.describe()}")
    click.echo(f"state   hand A {format_cards(sorted(st.hand_a))} | hand B {format_cards(sorted(st.hand_b))} | pot {st.pot}"
               f" | hidden {format_cards(st.prizes) or '-'} | diff {st.diff:+d}")
    click.echo(f"value   {nozero(res.value):.12g}")
    for name, strat in (("A bids", res.strategy_a), ("B bids", res.strategy_b)):
        cells = "  ".join(f"{format_card(c)}:{p:.4f}" for c, p in strat.items())
        click.echo(f"{name}  {cells}")
    if show_matrix:
        click.echo("stage game: A's value when A bids the row card and B the column card")
        for line in matrix_text(stage_game(res)):
            click.echo(f"  {line}")
