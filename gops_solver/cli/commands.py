"""The ``gops`` command line: click commands only (parse, call the API, print)."""

from __future__ import annotations

import os
import sys
import time

import click

from gops_solver import __version__
from gops_solver.cli._util import (advance as _advance, dumps, exit_code_of, print_simulation, print_solve_summary,
                      progress_bar as _progress_bar, show_warnings_as_lines)
from gops_solver.game.cards import format_card, format_cards, parse_cards
from gops_solver.cli._variants import variant_options
from gops_solver.cli._compile import compile_notice
from gops_solver.game.constants import MAX_CARDS, VALUE_TOL, tol_text
from gops_solver.cli._format import RULES_HEADER, csv_text, rules_cells
from gops_solver.engine.projection import EVAL_MEASURED_MAX_CARDS, evaluation_measured
from gops_solver.game.rules import DRAWS, MATCHES, NAMED_ORDERS, OBJECTIVES, TIES, rules_from_options
from gops_solver.analysis.stagegame import stage_game
from gops_solver.cli._options import (Group, check_play_seat, json_option, make_rules, match_options, one_line,
                                      players_option, quiet_option, renamed, renamed_positional, required,
                                      rules_options, solution_option)
from gops_solver.cli._query import query
from gops_solver.cli._format import matrix_text, nozero

_PROGRESS_MIN_SIM_GAMES = 1_000_000  # fewer games take about a second
_PROGRESS_MIN_EVAL_CARDS = 8  # exact evaluations of smaller decks take a few seconds at most


#: ``gops --help`` lists the commands by what they are for; a command missing here is listed under "Other"
COMMAND_SECTIONS = (("Solve and inspect", ("solve", "info", "query", "verify", "warmup")),
                    ("Analyse strategies", ("evaluate", "simulate", "score", "exploit", "model", "records")),
                    ("Play", ("play",)),
                    ("Export and explore", ("export", "explore")))


def _help_path(ctx) -> str:
    """The help to point an option error to: the three- and four-player form has options of its own."""
    from gops_solver.cli._multi import multi
    if ctx.command in multi.commands.values():
        return f"{ctx.command_path} --players 3"
    return ctx.command_path


class _Gops(Group):
    """Turns every input error into one line on stderr and exit status 2; lists the commands by section."""

    def format_commands(self, ctx, formatter):
        """``gops --help``: the commands under the headings of :data:`COMMAND_SECTIONS`."""
        commands = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        commands = {name: cmd for name, cmd in commands.items() if cmd is not None and not cmd.hidden}
        if not commands:
            return
        limit = formatter.width - 6 - max(map(len, commands))
        placed = {name for _, names in COMMAND_SECTIONS for name in names}
        sections = [*COMMAND_SECTIONS, ("Other", tuple(sorted(set(commands) - placed)))]
        for title, names in sections:
            rows = [(name, commands[name].get_short_help_str(limit)) for name in names if name in commands]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        show_warnings_as_lines()
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort as exc:
            # click turns Ctrl-C (and SIGTERM, see entry.py) into Abort, and so the end of input at a prompt
            from gops_solver.cli.signals import interrupt_of, word
            interrupt = interrupt_of(exc)
            if interrupt is not None:
                click.echo(f"\n{word(interrupt)}", err=True)
                sys.exit(exit_code_of(interrupt))
            click.echo("\nend of input: goodbye", err=True)
            sys.exit(0)
        except click.ClickException as exc:
            hint = f" (see {_help_path(exc.ctx)} --help)" if getattr(exc, "ctx", None) is not None else ""
            click.echo(f"error: {one_line(exc.format_message())}{hint}", err=True)
            sys.exit(2)
        except (ValueError, TypeError) as exc:
            from gops_solver.game.errors import cli_message
            click.echo(f"error: {one_line(cli_message(exc))}", err=True)
            sys.exit(2)
        except MemoryError:
            # a projection that undershot (the checks before each long pass refuse what they can foresee)
            click.echo("error: out of memory: choose fewer cards, or a machine with more memory", err=True)
            sys.exit(1)
        except KeyboardInterrupt as exc:
            click.echo("\ninterrupted", err=True)
            sys.exit(exit_code_of(exc))
        sys.exit(rv if isinstance(rv, int) else 0)

    def resolve_command(self, ctx, args):
        """``--players 3|4`` sends solve/query/info/verify to :mod:`gops_solver.cli._multi`; ``--players 2`` is the default."""
        from gops_solver.cli._multi import multi, players_in_args, strip_players
        if args and players_in_args(args) != 2:
            if args[0] not in multi.commands:
                raise ValueError(f"gops {args[0]} has no --players option: {', '.join(multi.commands)} do")
            return args[0], multi.commands[args[0]], args[1:]
        return super().resolve_command(ctx, strip_players(args))


@click.group(cls=_Gops, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gops")
def cli():
    """Exact equilibria of two-player Goofspiel (GOPS). The rules: docs/rules.md."""


_rules_options, _make_rules, _solution_option, _match_options = rules_options, make_rules, solution_option, match_options


@cli.command()
@variant_options("solve")
@_rules_options(None)
@click.option("--out", "-o", type=click.Path(), default=None,
              help="save the solution to FILE (with --memory/--workers: to the block-store FOLDER)")
@json_option
@click.option("--stage-solver", type=click.Choice(["numba", "highs"]), default="numba",
              help="stage-game backend; highs (scipy) is slow, for checking [numba]")
@click.option("--resume", is_flag=True, help="continue an interrupted solve from its last finished level (or block)")
@click.option("--restart", is_flag=True, help="discard the checkpoints of an interrupted solve and start afresh")
@quiet_option
@click.option("--memory", default=None, metavar="SIZE",
              help="solve block by block into the folder --out, holding about SIZE (e.g. 1GB) instead of whole levels")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="solve the blocks on a local Dask cluster of N worker processes (implies a block store)")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="solve the blocks on the Dask cluster at ADDRESS (tcp://host:8786); --out must reach every worker")
@_match_options
@players_option("solve")
def solve(cards, tie, objective, order, out, as_json, stage_solver, resume, restart, quiet, memory, workers,
          scheduler, match, draw):
    """Solve a whole game (or match) exactly and print its value."""
    from gops_solver.engine.projection import NEEDS_OUT, TOO_LARGE, project
    from gops_solver.api import solve as solve_rules
    from gops_solver.engine.storage import check_out_path
    rules = _make_rules(cards, tie, objective, order, match=match, draw=draw)
    if stage_solver == "numba" and not quiet:
        compile_notice("solve", rules)
    if memory is not None or workers is not None or scheduler is not None:
        from gops_solver.cli._blocked import solve_blocked_cmd
        return solve_blocked_cmd(rules, out, as_json, resume, restart, quiet, memory, workers, scheduler,
                                 stage_solver)
    if out is not None:
        check_out_path(out, checkpoints=True)
    if (resume or restart) and out is None:
        raise click.UsageError("--resume and --restart need --out FILE: checkpoints live beside the output file")
    if resume and restart:
        raise click.UsageError("choose one of --resume (continue the checkpoints) and --restart (discard them)")
    pr = project(rules)
    fit = pr.solve_fit(with_out=out is not None)
    if fit == NEEDS_OUT:
        raise click.UsageError(f"holding every level of this solve needs {pr.table_bytes / 2**30:.1f} GiB of "
                               f"{pr.machine_bytes / 2**30:.1f} GiB: add --out FILE so finished levels go to disk "
                               f"(peak {pr.peak_bytes / 2**30:.1f} GiB)")
    if fit == TOO_LARGE:
        raise click.UsageError(f"this solve needs {pr.peak_bytes / 2**30:.1f} GiB for two levels but the machine "
                               f"has {pr.machine_bytes / 2**30:.1f} GiB: see gops info, choose fewer cards")
    bar = _progress_bar(pr.stage_games, quiet)
    try:
        sol = solve_rules(rules, progress=(lambda level, g, done=False: _advance(bar, g, done)) if bar else None,
                          stage_solver=stage_solver, out=out, resume=resume, restart=restart)
    except KeyboardInterrupt as exc:
        if bar:
            bar.close()
        where = "; rerun with --resume to continue from the last finished level" if out else ""
        from gops_solver.cli.signals import word
        click.echo(f"\n{word(exc)}{where}", err=True)
        sys.exit(exit_code_of(exc))
    finally:
        if bar:
            bar.close()
    print_solve_summary(rules, sol, out, as_json)


cli.add_command(query)


@cli.command()
@variant_options("play")
@_rules_options(None)
@_solution_option("a file written by gops solve --out (its rules are played)")
@click.option("--a", "-a", "strat_a", default="you", metavar="S",
              help="seat A: you (bids read from standard input), or a strategy as in gops simulate [you]")
@click.option("--b", "-b", "strat_b", default="equilibrium", metavar="S",
              help="seat B, the computer: equilibrium; any strategy when --a is one too [equilibrium]")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="seed of the prize shuffles and of B's draws [random]")
@click.option("--hint", is_flag=True, help="show the equilibrium distribution before you choose")
@quiet_option
@click.option("--record", default=None, metavar="FILE", help="append one JSON line per finished game to FILE")
@click.option("--adapt", is_flag=True, help="B adapts: refits a model of A between games and exploits it "
              "safely, risking only what A's mistakes gave (a session of --games games)")
@click.option("--games", type=click.IntRange(min=1), default=None, metavar="N",
              help="with --adapt: games in the session [10]")
@_match_options
@click.option("--json", "as_json", is_flag=True,
              help="a transcript in JSON lines on stdout (a start line, one per round, one per game of a match, "
                   "a summary); prompts and the narration go to stderr")
@players_option("play")
def play(cards, tie, objective, order, solution, strat_a, strat_b, seed, hint, quiet, match, draw, as_json,
         record, adapt, games):
    """Play a game (or match) as A against the equilibrium (B). Type a card each round.

    With --adapt: a session in which B learns how A plays and exploits it safely."""
    import contextlib
    from gops_solver.analysis.play import SeatPlayer
    human = strat_a.strip().lower() in ("you", "human")
    if adapt or games is not None:
        return _play_adapt(cards, tie, objective, order, solution, None if human else strat_a, strat_b, seed,
                           quiet, match, draw, as_json, record, adapt, games)
    if human:
        check_play_seat(strat_b)
    stdout = sys.stdout
    emit = (lambda obj: click.echo(dumps(obj), file=stdout)) if as_json else None
    # under --json the narration is for a person: stderr, so stdout holds JSON lines only
    with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
        return _play_two(cards, tie, objective, order, solution, None if human else strat_a, strat_b, seed, hint,
                         quiet, match, draw, emit, SeatPlayer, record)


def _play_adapt(cards, tie, objective, order, solution, strat_a, strat_b, seed, quiet, match, draw, as_json,
                record, adapt, games):
    """``gops play --adapt``: checks, then the session of :func:`gops_solver.cli._adapt.run_session`."""
    import numpy as np
    if not adapt:
        raise click.UsageError("--games goes with --adapt: add --adapt, or play one game without it")
    if strat_b.strip().lower() != "equilibrium":
        raise click.UsageError("with --adapt the computer plays B itself: drop --b")
    if match not in (None, "single") or draw is not None or solution is not None:
        raise click.UsageError("--adapt plays single classic games against a model it fits: leave out --match, "
                               "--draw and -s (it solves the game itself)")
    if record == "-":
        raise click.UsageError("gops play prints the game on standard output: give --record a file")
    if strat_a is None and (sys.stdin is None or sys.stdin.closed):
        raise click.UsageError("standard input is closed: gops play --adapt reads your bids from it; "
                               "or give --a S")
    rules = _make_rules(cards, tie, objective, order)
    from gops_solver.api import solve as solve_rules
    from gops_solver.engine.projection import duration, project
    if not quiet:
        click.echo(f"solving the whole game once (about {duration(project(rules).seconds)})...", err=True)
    sol = solve_rules(rules)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    writer = None
    if record is not None:
        from gops_solver.analysis.records import RecordWriter
        writer = RecordWriter(record)
    from gops_solver.cli._adapt import run_session
    try:
        return run_session(rules, sol, np.random.default_rng(seed), games or 10, strat_a, as_json, writer, _ask_bid,
                           _show_round, quiet, seed)
    finally:
        if writer is not None:
            writer.close()


def _play_two(cards, tie, objective, order, solution, strat_a, strat_b, seed, hint, quiet, match, draw, emit,
              SeatPlayer, record=None):
    """``gops play`` of a two-player game: A is you (``strat_a`` None) or a strategy; ``record`` a file
    that receives one record line per finished game."""
    import numpy as np
    from gops_solver.analysis.play import Opponent, needs_full_solve
    from gops_solver.engine.projection import duration, project
    from gops_solver.api import load, solve as solve_rules
    if record == "-":
        raise click.UsageError("gops play prints the game on standard output: give --record a file")
    if strat_a is None and (sys.stdin is None or sys.stdin.closed):
        raise click.UsageError("standard input is closed: gops play reads your bids from it; run it in a "
                               "terminal or pipe the bids in")
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        sol = load(solution)
        rules = file_rules(sol.rules, solution, n=cards, tie=tie, objective=objective, order=order, match=match,
                           draw=draw)
    else:
        rules = _make_rules(cards, tie, objective, order, match=match, draw=draw)
        sol = None
        if rules.match != "single":
            # every game of a match is played with what its end is worth to the match: solve it all once
            if not quiet:
                click.echo(f"solving the {rules.match} match once"
                           + (f" (draws {'replayed' if rules.draw == 'replay' else 'count half'})"
                              if rules.best_of else "") + "...", err=True)
            sol = solve_rules(rules)
        elif needs_full_solve(rules):
            if not quiet:
                click.echo(f"solving the whole game once (about {duration(project(rules).seconds)})...", err=True)
            sol = solve_rules(rules)
    bots = None
    if strat_a is not None:
        bots = (SeatPlayer(strat_a, rules, sol), SeatPlayer(strat_b, rules, sol))
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    rng = np.random.default_rng(seed)
    opp = Opponent(rules, sol)
    writer = None
    if record is not None:
        from gops_solver.analysis.records import RecordWriter
        if not rules.classic or rules.match != "single":
            raise click.UsageError("--record writes single classic games (one card a bid, one prize a round, "
                                   "no match): drop --record")
        writer = RecordWriter(record)
    try:
        return _play_session(rules, opp, rng, hint, seed, writer, emit, strat_a, strat_b, bots)
    finally:
        if writer is not None:
            writer.close()


def _play_session(rules, opp, rng, hint, seed, writer, emit, strat_a, strat_b, bots):
    """The games of ``gops play`` at the prompt (a single game or a match); each finished game recorded."""
    from gops_solver.analysis.play import Match, deal
    m = Match(rules)
    if emit:
        emit({"type": "start", "rules": rules.to_dict(), "seed": seed,
              "a": "you" if strat_a is None else strat_a, "b": strat_b})
    single = rules.match == "single"
    if single:
        unit = "expected points" if rules.objective == "points" else "P(win) - P(loss)"
    elif rules.match == "session" and rules.objective == "points":
        unit = "expected session margin"
    else:
        unit = "P(win match) - P(lose match)"
    click.echo(f"gops play  {rules.describe()}  seed {seed}")
    if strat_a is None:
        click.echo("You are A; the equilibrium is B. Type a card (number or A, J, Q, K); Ctrl-D ends.")
    else:
        click.echo(f"A plays {strat_a}, B plays {strat_b}.")
    given_up = 0.0
    while not m.over:
        game = deal(rules, rng)  # a fresh deal each game, from the one seeded generator
        if not single:
            click.echo("")
            click.echo(f"=== Game {m.game} of the {_match_name(rules)}: match score {_match_score(m)} ===")
        number = m.game
        lost, stop = _play_game(game, opp, rng, hint, m.position(), bots,
                                None if emit is None else (lambda obj: emit({**obj, "game": number}) if not single
                                                           else emit(obj)))
        given_up += lost
        if stop is not None:
            where = f"game abandoned in round {game.round}" if single else \
                f"match abandoned in game {m.game}, round {game.round}"
            click.echo(f"\n{stop}: {where} (score you {game.score_a} - me {game.score_b})")
            if emit:
                emit({"type": "end", "abandoned": stop, "round": game.round, **({} if single else {"game": m.game}),
                      "score_a": game.score_a, "score_b": game.score_b, "value_given_up": given_up})
            return {"end of input": 0, "terminated": 143}.get(stop, 130)
        d = game.diff
        if writer is not None:
            from gops_solver.analysis.records import record_line, replay_rounds
            h = game.history
            writer.write([record_line(rules, "human" if strat_a is None else strat_a, strat_b, replay_rounds(
                rules, [r.prize for r in h], [r.bid_a for r in h], [r.bid_b for r in h]))])
        outcome = m.record(game)
        if emit and not single:
            emit({"type": "game", "game": number, "score_a": game.score_a, "score_b": game.score_b,
                  "outcome": "A" if d > 0 else ("B" if d < 0 else "draw"), "match_score": _match_score_obj(m)})
        result = "you win" if d > 0 else ("I win" if d < 0 else "a draw")
        click.echo("")
        if single:
            click.echo(f"final score      you {game.score_a} - me {game.score_b}: {result}")
        else:
            replay = " (replayed: a draw does not count)" if outcome == 0 and rules.best_of \
                and rules.draw == "replay" else ""
            click.echo(f"game {m.game - 1} over      you {game.score_a} - me {game.score_b}: {result}{replay}; "
                       f"match score {_match_score(m)}")
    if not single:
        res = m.result
        verdict = "you win the match" if res > 0 else ("I win the match" if res < 0 else "the match is shared")
        click.echo("")
        click.echo(f"match result     {verdict}, {_match_score(m)}")
        games = ", ".join(f"{a}-{b}" for a, b in m.results)
        click.echo(f"games            {len(m.results)} ({games})"
                   + (f", {m.replays} drawn and replayed" if m.replays else ""))
    click.echo(f"value given up   {given_up:.4f} in total ({unit})")
    if emit:
        last = m.results[-1] if single else None
        summary = {"type": "end", "value_given_up": given_up, "unit": unit}
        if single:
            summary.update(score_a=last[0], score_b=last[1], diff=last[0] - last[1],
                           outcome="A" if last[0] > last[1] else ("B" if last[0] < last[1] else "draw"))
        else:
            summary.update(outcome="A" if m.result > 0 else ("B" if m.result < 0 else "shared"),
                           match_score=_match_score_obj(m), games=[list(g) for g in m.results], replays=m.replays)
        emit(summary)
    return 0


def _match_score_obj(m) -> dict:
    """The match score for --json: summed totals of a session, games won of a best-of."""
    if m.rules.match == "session":
        return {"total_a": m.total_a, "total_b": m.total_b}
    return {"wins_a": m.wins_a, "wins_b": m.wins_b}


def _play_game(game, opp, rng, hint, position, bots=None, emit=None):
    """Play one game: (value given up, None) or (so far, why it stopped).

    ``bots``: the two seats' :class:`~gops_solver.analysis.play.SeatPlayer` when no one types
    (None: A's bids are read from stdin, B plays the equilibrium); ``emit(obj)`` writes a JSON line
    per round.
    """
    rules = game.rules
    given_up = 0.0
    while not game.over:
        res = opp.query(game, position)
        _show_round(game, rules)
        if hint:
            click.echo(f"  hint            {_dist(res.strategy_a)}")
        if bots is None:
            try:
                bid = _ask_bid(game)
            except EOFError:
                return given_up, "end of input"
            except KeyboardInterrupt as exc:
                from gops_solver.cli.signals import word
                return given_up, word(exc)
            mine = opp.draw(res.strategy_b, rng)
        else:
            bid = bots[0].bid(game, "a", res, rng)
            mine = bots[1].bid(game, "b", res, rng)
        r = game.play(bid, mine)
        lost = res.value_given_up(bid)
        given_up += lost
        if emit:
            emit({"type": "round", "round": r.round, "prize": r.prize, "carried_in": r.carried_in, "pot": r.pot,
                  "bid_a": r.bid_a, "bid_b": r.bid_b, "outcome": {1: "A", -1: "B", 0: "tie"}[r.outcome],
                  "score_a": game.score_a, "score_b": game.score_b, "value_given_up": lost})
        click.echo(f"  you bid {format_card(bid)}, I bid {format_card(mine)}: {_verdict(r)}"
                   f"   score you {game.score_a} - me {game.score_b}")
        click.echo(f"  equilibrium     {_dist(res.strategy_a)}")
        why = "in the equilibrium's support" if lost == 0.0 else "outside the equilibrium's support"
        click.echo(f"  value given up  {lost:.4f} ({format_card(bid)} is {why})")
    return given_up, None


def _match_name(rules) -> str:
    if rules.match == "session":
        return "session (3 games, totals summed)"
    return f"{rules.match} match (draws {'replayed' if rules.draw == 'replay' else 'count half'})"


def _match_score(m) -> str:
    """The match score as a person reads it: summed totals of a session, games won of a best-of."""
    if m.rules.match == "session":
        return f"you {m.total_a} - me {m.total_b} (totals)"
    return f"you {m.wins_a:g} - me {m.wins_b:g} (games won)"


def _show_round(game, rules):
    """Print what both players know at the start of a round."""
    carried = f" + {game.carry} carried from ties = pot {game.pot}" if game.carry else f"; pot {game.pot}"
    click.echo("")
    click.echo(f"Round {game.round}/{rules.n}: prize {format_card(game.prize)} revealed{carried}")
    hidden = format_cards(game.hidden) or "-"
    click.echo(f"  hidden prizes   {hidden}" + (" (order unknown)" if rules.random_order and len(game.hidden) > 1
                                                 else (" (in this order)" if len(game.hidden) > 1 else "")))
    click.echo(f"  your hand       {format_cards(game.hand_a)}" + (f"   used {format_cards(game.used_a)}" if game.used_a else ""))
    click.echo(f"  my hand         {format_cards(game.hand_b)}" + (f"   used {format_cards(game.used_b)}" if game.used_b else ""))
    click.echo(f"  score           you {game.score_a} - me {game.score_b}")


def _ask_bid(game) -> int:
    """Read one bid; re-ask on anything that is not a card in A's hand.

    Raises EOFError at the end of input (KeyboardInterrupt passes through).
    """
    stdin = sys.stdin  # one stream for the whole game: a fresh wrapper would drop buffered input
    while True:
        click.echo(f"your bid [{format_cards(game.hand_a)}]> ", nl=False)
        line = stdin.readline()
        if line == "":
            raise EOFError
        text = line.strip()
        if not stdin.isatty():
            click.echo(text)  # piped input: echo it so the transcript reads like a terminal
        if not text:
            click.echo(f"  type one card from your hand ({format_cards(game.hand_a)}), then Enter")
            continue
        try:
            card = parse_cards(text, game.rules.n, what="bid")
        except ValueError as exc:
            click.echo(f"  {exc}")
            continue
        if len(card) != 1:
            click.echo(f"  bid one card, not {len(card)}: choose one of {format_cards(game.hand_a)}")
        elif card[0] not in game.hand_a:
            spent = " (already played)" if card[0] in game.used_a else ""
            click.echo(f"  you do not hold {format_card(card[0])}{spent}: choose one of {format_cards(game.hand_a)}")
        else:
            return card[0]


def _verdict(r) -> str:
    if r.outcome > 0:
        return f"you take {r.pot}"
    if r.outcome < 0:
        return f"I take {r.pot}"
    if r.carried_out:
        return f"tie, the pot of {r.pot} carries to the next round"
    return f"tie in the last round, the pot of {r.pot} is discarded" if r.last_round \
        else f"tie, the pot of {r.pot} is discarded"


def _dist(strategy) -> str:
    return "  ".join(f"{format_card(c)}:{p:.3f}" for c, p in strategy.items())


@cli.command()
@variant_options("verify", options=False)
@renamed_positional("file", "gops verify FILE", "gops verify -s FILE", "solution")
@required("missing -s FILE: the solution file to check, e.g. gops verify -s s.gops")
@_solution_option("the solution file to check (a file written by gops solve --out or gops export --format "
                  "solution)")
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="check N table slots drawn at random (seeded) instead of all")
@click.option("--blocks", type=click.IntRange(min=1), default=None, metavar="N",
              help="a block store or top-levels file: check every slot of N whole blocks drawn at random "
                   "(seeded), at least one from each level")
@click.option("--seed", type=int, default=0, help="seed of the sample or of --blocks [0]")
@click.option("--tol", type=click.FloatRange(min=0.0), default=VALUE_TOL,
              help=f"largest residual and exploitability accepted [{tol_text(VALUE_TOL)}]")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--csv", "as_csv", is_flag=True, help="print a header line and one CSV row")
@players_option("verify")
def verify(solution, sample, blocks, seed, tol, as_json, as_csv):
    """Recompute every stored value from the level below; exit 1 if any is off."""
    from gops_solver.api import load
    # a failed checksum is reported, not fatal: the recomputation below is
    # the real test (it also catches a file altered with its checksum fixed)
    try:
        sol, checksum_ok = load(solution), True
    except ValueError as exc:
        if "checksum" not in str(exc):
            raise
        sol, checksum_ok = load(solution, check=False), False
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    res = sol.verify(sample=sample, seed=seed, tol=tol, blocks=blocks)
    ok = res.ok and checksum_ok
    if as_csv:
        click.echo(csv_text(RULES_HEADER + ["slots", "states", "sample", "seed", "stage_games", "max_residual",
                                            "max_exploitability", "tol", "checksum_ok", "ok", "seconds"],
                            [rules_cells(sol.rules) + [res.slots, res.states, res.sample or "", res.seed,
                                                       res.stage_games, res.max_residual, res.max_exploitability,
                                                       tol, checksum_ok, ok, round(res.seconds, 3)]]))
    elif as_json:
        click.echo(dumps({"rules": sol.rules.to_dict(), **res.to_dict(), "checksum_ok": checksum_ok,
                          "ok": ok, "certifies": _certifies(res)}))
    else:
        click.echo(f"rules              {sol.rules.describe()}")
        click.echo(f"checked            {res.slots:,} slots ({res.states:,} stored states)"
                   + (f", sample of {res.sample:,} (seed {res.seed})" if res.sample else "")
                   + (f", {_count_blocks(res.blocks)} whole blocks (seed {res.seed})" if res.blocks else ""))
        if res.blocks:
            click.echo("blocks             " + "  ".join(f"level {k}: {len(r)}" for k, r in sorted(res.blocks.items())))
        click.echo(f"stage games        {res.stage_games:,}")
        click.echo(f"max residual       {res.max_residual:.3g}")
        click.echo(f"max exploitability {res.max_exploitability:.3g}")
        click.echo(f"checksums          {'OK' if checksum_ok else 'FAILED (the file was altered or damaged)'}")
        click.echo(f"certifies          {_certifies(res)}")
        click.echo(f"time               {res.seconds:.2f} s")
        if ok:
            click.echo(f"verdict            OK (both <= {tol:g})")
        else:
            bad = res.worst if res.max_residual > tol or res.ok else res.worst_exploit
            click.echo(f"verdict            FAILED (tolerance {tol:g})")
            click.echo(f"worst state        {_slot_text(bad)}")
    return 0 if ok else 1


def _certifies(res) -> str:
    """What a verify run vouches for: a sample checks its slots, the checksums the rest of the file.

    A top-levels file's lowest level has no level below it in the file: said in the same line.
    """
    of = lowest = ""
    if res.unchecked:
        of = (f" of level {res.levels[0]}" if len(res.levels) == 1
              else f" of levels {res.levels[0]}..{res.levels[-1]}")
        lowest = (f"; level {', '.join(map(str, res.unchecked))}, the lowest this file holds, has no level below "
                  f"it here: only its checksums vouch for it")
    if res.blocks:
        return (f"every slot of the {_count_blocks(res.blocks):,} drawn blocks{of} is recomputed{lowest}; every other "
                f"block only matches what the solver wrote (checksums): drop --blocks to check all")
    if res.sample:
        return (f"the {res.slots:,} sampled slots{of} are recomputed{lowest}; every other value only matches what "
                f"the solver wrote (checksums), so a value computed wrongly elsewhere is not found: drop --sample "
                f"to check all")
    return f"every stored value{of} is recomputed from the level below{lowest}"


def _count_blocks(blocks) -> int:
    return sum(len(r) for r in blocks.values())


def _slot_text(d) -> str:
    text = (f"level {d['level']} (slot {d['slot']}): hand A {format_cards(d['hand_a'])} | hand B "
            f"{format_cards(d['hand_b'])} | hidden {format_cards(d['prizes']) or '-'} | carry {d['carry']} "
            f"| diff {d['diff']:+d} | stored {d['stored']:.12g}")
    if "recomputed" in d:
        text += f" | recomputed {d['recomputed']:.12g}"
    if "exploitability" in d:
        text += f" | exploitability {d['exploitability']:.3g}"
    return text


def _game_rules(cards, tie, objective, order, path, match=None, draw=None, tiebreak=None):
    """The rules of evaluate/simulate: the --solution file's (rule options given must agree), else the options'."""
    if path is None:
        if tiebreak is not None:
            return rules_from_options(cards, tie, objective, order, match, draw, tiebreak=tiebreak) \
                if cards is not None else _make_rules(cards, tie, objective, order), None
        return _make_rules(cards, tie, objective, order, match=match, draw=draw), None
    from gops_solver.analysis.answer import file_rules
    from gops_solver.api import load
    sol = load(path)
    extra = {"tiebreak": tiebreak} if tiebreak is not None else {}
    return file_rules(sol.rules, path, n=cards, tie=tie, objective=objective, order=order, match=match, draw=draw,
                      **extra), sol


def _solution_for(path, rules, specs, quiet, loaded=None):
    """The solution the equilibrium strategy reads: ``loaded`` from --solution, solved here (with a
    progress bar on long solves) when one of ``specs`` is the equilibrium, else None."""
    if path is not None:
        return loaded
    from gops_solver.analysis._common import check_rules, needs_solution
    if not needs_solution(*specs):
        return None
    from gops_solver.engine.projection import project
    from gops_solver.analysis.strategies import make_strategy
    from gops_solver.api import solve as solve_rules
    check_rules(rules)  # refuse what evaluate/simulate refuse before the solve, not after it
    for s in specs:
        if not needs_solution(s):
            make_strategy(s)
    bar = _progress_bar(project(rules).stage_games, quiet)
    try:
        return solve_rules(rules, progress=(lambda level, g, done=False: _advance(bar, g, done)) if bar else None)
    finally:
        if bar:
            bar.close()


def _game_options(f):
    """The rule options of a single game, and --solution for the equilibrium strategy."""
    f = _solution_option("solution file for the equilibrium strategy (otherwise solved here)")(f)
    return _rules_options(None)(f)


_STRATEGY_HELP = "uniform, match, match+1, highest, lowest, proportional, equilibrium or module:function"


# The two seats of a two-player game are --a and --b in evaluate, simulate and play alike
# (the 3-4 player commands add --c and --d): evaluate rates seat A's strategy against seat B's.
@cli.command()
@variant_options("evaluate")
@required("missing --a S: the strategy to evaluate, e.g. --a match")
@click.option("--a", "-a", "strategy", default=None, metavar="S", help="seat A, the strategy evaluated: " + _STRATEGY_HELP)
@click.option("--b", "-b", "against", default="equilibrium", metavar="S", help="seat B, the opponent [equilibrium]")
@renamed("--strategy", "--a", "strategy", metavar="S")
@renamed("--against", "--b", "against", metavar="S")
@_game_options
@json_option
@quiet_option
@click.option("--allow-large", is_flag=True,
              help=f"evaluate decks over {EVAL_MEASURED_MAX_CARDS} cards (unmeasured; may exhaust memory)")
@click.option("--csv", "as_csv", is_flag=True, help="print a header line and one CSV row per opponent")
@_match_options
def evaluate(strategy, against, cards, tie, objective, order, solution, as_json, quiet, allow_large, as_csv,
             match=None, draw=None, tiebreak=None):
    """Exact margin, win/draw/loss and exploitability of a strategy (no sampling).

    With --match: the match's figures (win/draw/loss of the match; margin, the final match-score
    difference; the best reply knows the match score)."""
    from gops_solver.analysis.evaluate import evaluate as evaluate_exact, evaluation_steps
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    rules, loaded = _game_rules(cards, tie, objective, order, solution, match, draw, tiebreak)
    if not evaluation_measured(rules) and not allow_large:
        raise click.UsageError(f"exact evaluation of {rules.n} cards is unmeasured: uniform took 5.7 GB at n = 10, "
                               f"6.6 times its n = 9 peak; use gops simulate for large decks, or add --allow-large "
                               f"to try")
    if not quiet:
        compile_notice("evaluate", rules)
    sol = _solution_for(solution, rules, (strategy, against), quiet, loaded)
    bar = None
    if not quiet and rules.n >= _PROGRESS_MIN_EVAL_CARDS and rules.match == "single":
        from tqdm import tqdm
        bar = tqdm(total=evaluation_steps(rules), unit="round", desc="evaluating", file=sys.stderr,
                   dynamic_ncols=True)
    try:
        ev = evaluate_exact(strategy, rules, against, sol, progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    if as_json:
        click.echo(dumps(ev.to_dict()))
        return
    if as_csv:
        click.echo(csv_text(RULES_HEADER + ["strategy", "versus", "margin", "win", "draw", "loss", "value",
                                            "game_value", "exploitability", "seconds"],
                            [rules_cells(rules) + [ev.strategy, who, o.margin, o.win, o.draw, o.loss, o.value,
                                                   ev.game_value, ev.exploitability, round(ev.seconds, 3)]
                             for who, o in ((ev.against, ev.vs_opponent), ("best-reply", ev.vs_best_response))]))
        return
    click.echo(f"rules           {rules.describe()}")
    z = nozero
    for label, out in ((f"vs {ev.against}", ev.vs_opponent), ("vs best reply", ev.vs_best_response)):
        click.echo(f"{label:<15} margin {z(out.margin):+.6f}  win {z(out.win):.6f}  draw {z(out.draw):.6f}  "
                   f"loss {z(out.loss):.6f}  value {z(out.value):+.6f}")
    click.echo(f"game value      {z(ev.game_value):+.6f}")
    click.echo(f"exploitability  {z(ev.exploitability):.6f}")
    click.echo(f"time            {ev.seconds:.2f} s")


@cli.command()
@variant_options("simulate")
@click.option("--a", "-a", "strat_a", required=True, metavar="S", help="seat A: " + _STRATEGY_HELP)
@click.option("--b", "-b", "strat_b", required=True, metavar="S", help="seat B")
@click.option("--games", required=True, type=click.IntRange(min=1), metavar="G", help="games to play")
@click.option("--seed", default=0, type=click.IntRange(0, 2**32 - 1), help="random seed [0]")
@_game_options
@json_option
@click.option("--csv", "as_csv", is_flag=True, help="print a header line and one CSV row")
@quiet_option
@click.option("--record", default=None, metavar="FILE",
              help="append one JSON line per game to FILE (- streams them; the summary then goes to stderr)")
@players_option("simulate")
@_match_options
def simulate(strat_a, strat_b, games, seed, cards, tie, objective, order, solution, as_json, as_csv, quiet,
             record, match=None, draw=None, tiebreak=None):
    """Play G games and report mean margin and win/draw/loss rates with 95% intervals.

    With --match: G whole matches, and the match's figures."""
    from gops_solver.analysis.simulate import simulate as run_games
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    rules, loaded = _game_rules(cards, tie, objective, order, solution, match, draw, tiebreak)
    if record is not None and (not rules.classic or rules.match != "single"):  # refused before any solve
        raise click.UsageError("--record writes single classic games (one card a bid, one prize a round, "
                               "no match): drop --record")
    sol = _solution_for(solution, rules, (strat_a, strat_b), quiet, loaded)
    bar = None
    if not quiet and games >= _PROGRESS_MIN_SIM_GAMES:
        from tqdm import tqdm
        bar = tqdm(total=games, unit="game", unit_scale=True, desc="simulating", file=sys.stderr, dynamic_ncols=True)
    import contextlib
    writer = None
    if record is not None:
        from gops_solver.analysis.records import RecordWriter
        writer = RecordWriter(record)
    try:
        res = run_games(strat_a, strat_b, rules, games, seed, sol, progress=bar.update if bar else None,
                        record=writer)
    finally:
        if bar:
            bar.close()
        if writer is not None:
            writer.close()
    with contextlib.redirect_stdout(sys.stderr) if record == "-" else contextlib.nullcontext():
        print_simulation(res, rules, as_json, as_csv,
                         lead=(("n", rules.n), ("tie", rules.tie), ("objective", rules.objective)))


from gops_solver.cli._explore import explore as _explore  # noqa: E402
cli.add_command(_explore)


def main():
    """Entry point of the ``gops`` script."""
    cli(prog_name="gops")  # also under python -m gops_solver, messages say "gops ..."


@cli.command()
@variant_options("info")
@_rules_options(None)
@json_option
@click.option("--csv", "as_csv", is_flag=True, help="print a header line and one CSV row per level")
@click.option("--store", type=click.Path(), default=None, metavar="DIR",
              help="where the block store DIR stands: levels and blocks done, time spent and left")
@_solution_option("what the solution FILE (or block store) holds: its rules, kind, rounds and value")
@_match_options
@players_option("info")
def info(cards, tie, objective, order, as_json, as_csv, store, solution, match, draw):
    """Project states, stage games, memory and time of a solve, without solving.

    With -s FILE: what a stored solution holds (its rules, kind, the rounds it answers, its value)."""
    from gops_solver.engine.projection import duration, project
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    if solution is not None:
        if store is not None or any(x is not None for x in (cards, tie, objective, order, match, draw)):
            raise click.UsageError("-s reads the rules from the solution: drop --store, --cards, --tie, --objective, "
                                   "--order and --match")
        return _solution_info(solution, as_json, as_csv)
    if store is not None:
        from gops_solver.cli._blocked import store_info
        if any(x is not None for x in (cards, tie, objective, order, match, draw)):
            raise click.UsageError("--store reads the rules from the store: drop --cards, --tie, --objective, "
                                   "--order and --match")
        return store_info(store, as_json, as_csv)
    rules = _make_rules(cards, tie, objective, order, match=match, draw=draw)
    if rules.match != "single":
        return _match_info(rules, as_json, as_csv)
    pr = project(rules)
    gib, ram = 2**30, pr.machine_bytes
    plan = pr.block_plan
    if as_json:
        click.echo(dumps({**pr.to_dict(), "blocked": plan.to_dict() if plan else None}))
        return
    if as_csv:
        click.echo(csv_text(RULES_HEADER + ["k", "stage_games", "stage_solves", "table_bytes"],
                            [rules_cells(rules) + [lv["k"], lv["stage_games"], lv["stage_solves"], lv["table_bytes"]]
                             for lv in pr.levels]))
        return
    click.echo(f"rules          {rules.describe()}")
    click.echo(f"table entries  {pr.table_entries:,}")
    solved = f" ({pr.stage_solves:,} solved: equal games once)" if pr.stage_solves != pr.stage_games else ""
    click.echo(f"stage games    {pr.stage_games:,}{solved}")
    click.echo(f"memory         {pr.memory_bytes / gib:.2f} GiB with --out (this machine: {ram / gib:.1f} GiB); "
               f"{pr.in_memory_bytes / gib:.2f} GiB without")
    click.echo(f"solution file  {pr.table_bytes / gib:.2f} GiB")
    if plan is None:
        click.echo(f"time           about {duration(pr.seconds)} in memory, on this machine")
        click.echo(f"               from {pr.basis} (gops_solver/engine/projection.py)")
    else:
        click.echo(f"time           about {duration(pr.seconds)} in memory | about {duration(plan.seconds)} "
                   f"as a block store (--memory), on this machine")
        click.echo(f"               from {pr.basis} | {pr.blocked_basis} (gops_solver/engine/projection.py)")
    if pr.fits and not pr.fits_in_memory:
        click.echo("verdict        fits on this machine with --out FILE (levels streamed to disk)")
    elif pr.fits:
        click.echo("verdict        fits on this machine")
    else:
        from gops_solver.cli._blocked import fits_here
        blocked = " in memory; fits as a block store (--memory, below)" if plan and fits_here(plan, pr) else ""
        click.echo(f"verdict        will NOT fit{blocked}: needs {pr.memory_bytes / gib:.1f} GiB of {ram / gib:.1f} GiB")
    if plan is not None:
        from gops_solver.cli._blocked import block_plan_lines
        for line in block_plan_lines(rules, pr, plan):
            click.echo(line)


def _solution_info(path, as_json, as_csv):
    """``gops info -s FILE``: what a stored solution holds (a top-levels file: which rounds)."""
    from gops_solver.api import load
    sol = load(path)
    rules, kind = sol.rules, sol.kind
    n = rules.n
    top = getattr(sol, "top", None)
    try:
        value = float(sol.value)
    except ValueError:  # a game without one two-player value (3-4 players)
        value = None
    fields = {"rules": rules.to_dict(), "solution": str(path), "kind": kind,
              "rounds": top.rounds if top is not None else n,
              "levels": top.levels if top is not None else None, "value": value,
              "states": getattr(sol, "states", None)}
    if top is not None:
        fields.update(entries=top.raw_bytes // 8, raw_bytes=top.raw_bytes, bytes=os.path.getsize(path))
    if as_json:
        click.echo(dumps(fields))
        return
    if as_csv:
        cols = ["solution", "kind", "rounds", "value", "states"]
        click.echo(csv_text(RULES_HEADER + cols, [rules_cells(rules) + ["" if fields[c] is None else fields[c]
                                                                         for c in cols]]))
        return
    click.echo(f"solution       {path}")
    click.echo(f"rules          {rules.describe()}")
    if top is not None:
        click.echo(f"kind           {kind}: the top levels of the game (gops export --format solution)")
        click.echo(f"holds          rounds 1..{top.rounds} exactly: the values of levels {top.levels[0]}.."
                   f"{top.levels[-1]} (cards in each hand); a deeper state is solved as its own sub-game")
        click.echo(f"entries        {top.raw_bytes // 8:,} ({top.raw_bytes:,} bytes raw, {fields['bytes']:,} in the "
                   f"file, zstd)")
    else:
        store = " (a block store)" if getattr(sol, "store", None) is not None else ""
        click.echo(f"kind           {kind}{store}")
        click.echo(f"holds          every round (1..{n})")
    if value is not None:
        click.echo(f"value          {value:.12g}")
    if fields["states"] is not None:
        click.echo(f"states         {fields['states']:,}")


def _match_info(rules, as_json, as_csv):
    """``gops info --match``: a match solves whole games in memory, one per match position."""
    from gops_solver.engine.projection import duration, project_match
    pr = project_match(rules)
    fields = pr.fields()
    if as_json:
        click.echo(dumps(pr.to_dict()))
        return
    if as_csv:
        click.echo(csv_text(RULES_HEADER + ["match", "draw"] + list(fields),
                            [rules_cells(rules) + [rules.match, rules.draw if rules.best_of else ""]
                             + list(fields.values())]))
        return
    gib, least = 2**30, pr.lower_bound
    more = " (at least: replayed draws solve uneven positions several times)" if least else ""
    click.echo(f"rules          {rules.describe()}")
    click.echo(f"games solved   {pr.games_solved}{' at least' if least else ''}")
    click.echo(f"stage games    {pr.stage_games:,}{more}")
    click.echo(f"memory         {pr.memory_bytes / gib:.2f} GiB, every game held in memory "
               f"(this machine: {pr.machine_bytes / gib:.1f} GiB)")
    click.echo(f"time           about {duration(pr.seconds)} on 2 cores{' or more' if least else ''}")
    click.echo("verdict        fits on this machine" if pr.fits else
               f"verdict        will NOT fit: needs {pr.memory_bytes / gib:.1f} GiB of {pr.machine_bytes / gib:.1f} GiB")


from gops_solver.cli._export import export as _export  # noqa: E402  (its own module: one concern each)
cli.add_command(_export)
from gops_solver.cli._score import score as _score  # noqa: E402
cli.add_command(_score)
from gops_solver.cli._exploit import exploit as _exploit  # noqa: E402
cli.add_command(_exploit)
from gops_solver.cli._model import model as _model, records as _records  # noqa: E402
cli.add_command(_model)
cli.add_command(_records)


@cli.command()
def warmup():
    """Compile the solver's kernels once now (about a minute), so first runs start at once."""
    from gops_solver.analysis.warmup import warm_up
    click.echo("compiling the kernels of solve, query, evaluate and simulate once (later runs reuse them)", err=True)
    t0 = time.perf_counter()
    warm_up(lambda step, seconds: click.echo(f"  {step:<24} {seconds:6.1f} s", err=True))
    click.echo(f"ready in {time.perf_counter() - t0:.1f} s", err=True)
