"""The variants' command-line options (--bid-cards, --open-prizes, --row, --tiebreak).

:func:`variant_options` wraps a ``gops`` command: without the options (and
without a variant solution file) the command runs as before; with them the
command's variant handler here runs instead, or the command refuses them in
one line where the variant does not apply.
"""

from __future__ import annotations

import functools
import sys

import click

from gops_solver.game.cards import format_card, format_cards, parse_cards
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.jsonout import dumps
from gops_solver.cli._options import check_play_seat
from gops_solver.cli._util import print_simulation
from gops_solver.engine.projection import OVERHEAD_BYTES, duration, machine_memory
from gops_solver.game.rules import TIEBREAKS, parse_match_score, rules_from_options

#: stage-game cells per second of the variant kernel on 2 cores (benchmarks/variants.py). Under
#: points the floors (two-card n = 10, open prizes n = 9) ran at 1.3e7 to 2.4e7 cells per CPU second
#: (shared machine). Under win, one-entry cells are gathered along the diff: two-card n = 10 ran at
#: 8.6e7 (carry) and 1.06e8 (discard) cells per second on two free cores; open prizes (a choice of
#: prize per cell) at 3.6e7 (m = 3 n = 9 carry). The lower figure of each is used.
CELLS_PER_SECOND = {"points": 3.4e7, "win": 8.6e7, "win-open": 3.6e7}


def cells_per_second(rules) -> float:
    """Projected stage-game cells per second on this machine's 2 cores for a variant."""
    if rules.objective == "points":
        return CELLS_PER_SECOND["points"]
    return CELLS_PER_SECOND["win" if rules.open_prizes == 1 else "win-open"]


def _is_variant_file(path) -> bool:
    from gops_solver.variants.solution import is_variant_file
    return path is not None and is_variant_file(path)


def variant_options(command: str, row: bool = False, supported: bool = True, options: bool = True):
    """Add the variant options to a click command function (apply below ``@cli.command()``).

    Parameters
    ----------
    command : str
        The command's name (picks the handler).
    row : bool
        Also add ``--row`` and ``--match-total`` (query).
    supported : bool
        False: the command refuses the options in one line.
    options : bool
        False: add no options, only route variant solution files (verify).
    """
    def wrap(f):
        @functools.wraps(f)
        def inner(*args, bid_cards=None, open_prizes=None, tiebreak=None, row=None, match_total=None, **kw):
            given = [name for name, v in (("--bid-cards", bid_cards), ("--open-prizes", open_prizes),
                                          ("--tiebreak", tiebreak), ("--row", row),
                                          ("--match-total", match_total)) if v is not None]
            variant_file = _is_variant_file(kw.get("solution"))
            if not given and not variant_file:
                return f(*args, **kw)
            if command in ("evaluate", "simulate"):
                if given == ["--tiebreak"] and not variant_file:
                    return f(*args, tiebreak=tiebreak, **kw)  # a tiebreak match of classic games
                match, draw = kw.pop("match", None), kw.pop("draw", None)
                if match not in (None, "single") or draw is not None:
                    raise click.UsageError("matches of the two-card and open-prize variants are not supported: "
                                           "drop --match/--draw, or play the classic game in a match")
            if not supported:
                what = ", ".join(given) or "a variant solution file"
                raise click.UsageError(f"gops {command} does not support {what} yet: it takes the classic game "
                                       f"(use solve, query, info, play, verify, evaluate or simulate for the "
                                       f"variants)")
            extra = dict(bid_cards=bid_cards, open_prizes=open_prizes, tiebreak=tiebreak)
            if command == "query":
                extra.update(row=row, match_total=match_total)
            return _HANDLERS[command](**kw, **extra)
        if not options:
            return inner
        if row:
            inner = click.option("--match-total", default=None, type=int, metavar="D",
                                 help="total-score tiebreak: total score A - B of the match's earlier games [0]")(inner)
            inner = click.option("--row", default=None, metavar="CARDS",
                                 help="open prizes: the face-up row after this round's fill, e.g. 3,7")(inner)
        inner = click.option("--tiebreak", default=None, type=click.Choice(TIEBREAKS),
                             help="best-of matches with --draw half: how a level match is settled [share]")(inner)
        inner = click.option("--open-prizes", default=None, type=int, metavar="M",
                             help="prizes face up in a row, 1..n; the winner picks one [1]")(inner)
        inner = click.option("--bid-cards", default=None, type=int, metavar="B",
                             help="cards bid per round, 1 or 2 (the sum of a pair bids) [1]")(inner)
        return inner
    return wrap


def _rules(cards, tie, objective, order, match, draw, bid_cards, open_prizes, tiebreak, default_n=None):
    """The variant's :class:`~.rules.Rules` (by the one rule builder, :func:`~.rules.rules_from_options`)."""
    if cards is None and default_n is None:
        raise click.UsageError("missing --cards N: give the deck size, e.g. --cards 6")
    return rules_from_options(cards, tie, objective, order, match, draw, default_n, bid_cards=bid_cards,
                              open_prizes=open_prizes, tiebreak=tiebreak)


def _check_size(rules, what="this solve"):
    """Refuse a variant solve the machine cannot hold or finish soon (one line)."""
    if rules.tiebreak != "share":
        return
    from gops_solver.variants.solution import projected_variant
    w = projected_variant(rules)
    ram = machine_memory()
    if w["total_bytes"] > 0.6 * ram:
        raise click.UsageError(f"{what} needs {w['total_bytes'] / 2**30:.1f} GiB of tables "
                               f"({ram / 2**30:.1f} GiB here): see gops info, choose fewer cards")


def _bid(bid) -> str:
    return "+".join(format_card(c) for c in bid)


def _dist(strategy) -> str:
    return "  ".join(f"{_bid(b) if isinstance(b, tuple) else format_card(b)}:{p:.4f}" for b, p in strategy.items())


# ---------------------------------------------------------------------------
# handlers
# ---------------------------------------------------------------------------

def _solve(cards, tie, objective, order, out, as_json, stage_solver, resume, restart, quiet, match, draw,
           bid_cards, open_prizes, tiebreak, memory=None, workers=None, scheduler=None):
    from gops_solver.api import solve as solve_rules
    rules = _rules(cards, tie, objective, order, match, draw, bid_cards, open_prizes, tiebreak)
    if memory is not None or workers is not None or scheduler is not None:
        raise click.UsageError("--memory, --workers and --scheduler solve the classic game in blocks: solve "
                               "variants without them")
    if resume or restart:
        raise click.UsageError("--resume and --restart are for the classic game's checkpoints: solve variants "
                               "without them")
    _check_size(rules)
    sol = solve_rules(rules, stage_solver=stage_solver, out=out)
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), "value": sol.value, "states": sol.states,
                               "stage_games": sol.stage_games, "seconds": round(sol.seconds, 3), "out": out}))
        return
    click.echo(f"rules        {rules.describe()}")
    click.echo(f"value        {sol.value:.12g}")
    click.echo(f"states       {sol.states:,}")
    click.echo(f"stage games  {sol.stage_games:,}")
    click.echo(f"time         {sol.seconds:.2f} s")
    if out is not None:
        click.echo(f"saved        {out}")


def _query(solution, cards, tie, objective, order, hand_a, hand_b, pot, prizes, diff, as_json, stage_solver,
           match, draw, game, match_score, show_matrix, bid_cards, open_prizes, tiebreak, row, match_total,
           fmt="text"):
    from gops_solver.api import load, solve as solve_rules
    if show_matrix or fmt != "text":
        raise click.UsageError("--matrix shows the classic game's stage game; the variants' strategies are "
                               "printed without it")
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        sol = load(solution)
        rules = file_rules(sol.rules, solution, n=cards, tie=tie, objective=objective, order=order, match=match,
                           draw=draw, bid_cards=bid_cards, open_prizes=open_prizes, tiebreak=tiebreak)
    else:
        rules = _rules(cards, tie, objective, order, match, draw, bid_cards, open_prizes, tiebreak, default_n=MAX_CARDS)
        _check_size(rules, "this query (the whole game is solved first)")
        sol = solve_rules(rules)
    n = rules.n
    pile = parse_cards(prizes, n, "prizes")
    if rules.tiebreak != "share" or rules.match != "single":
        if row is not None:
            raise click.UsageError("--row is for open prizes (--open-prizes 2 or more)")
        ms = parse_match_score(match_score)
        if match_total is not None:
            if rules.tiebreak != "total-score":
                raise click.UsageError("--match-total is for the total-score tiebreak")
            a, b = ms if isinstance(ms, tuple) else (0, 0)
            ms = (a, b, match_total)
        res = sol.query(hand_a, hand_b, pot, pile, diff, stage_solver, game=game, match_score=ms)
        state = {"hand_a": sorted(res.state.hand_a), "hand_b": sorted(res.state.hand_b), "pot": res.state.pot,
                 "prizes": list(res.state.prizes), "diff": res.state.diff}
        out = res.to_dict()
    else:
        if match_total is not None or match_score is not None or game not in (None, 1):
            raise click.UsageError("--game, --match-score and --match-total need a best-of --match")
        rw = None if row is None else parse_cards(row, n, "row")
        res = sol.query(hand_a, hand_b, pot, pile, diff, row=rw, stage_solver=stage_solver)
        state = {"hand_a": sorted(parse_cards(hand_a, n, "hand A")), "hand_b": sorted(parse_cards(hand_b, n, "hand B")),
                 "pot": pot, "prizes": sorted(pile), "diff": diff}
        if rw is not None:
            state["row"] = sorted(rw)
        out = res.to_dict()
    if as_json:
        click.echo(dumps({**out, "rules": rules.to_dict(), "state": state}))
        return
    click.echo(f"rules   {rules.describe()}")
    rowtext = f" | row {format_cards(state['row'])}" if "row" in state else ""
    potname = "carried pot" if "row" in state else "pot"
    click.echo(f"state   hand A {format_cards(state['hand_a'])} | hand B {format_cards(state['hand_b'])}{rowtext} | "
               f"{potname} {state['pot']} | face down {format_cards(state['prizes']) or '-'} | diff {state['diff']:+d}")
    click.echo(f"value   {res.value:.12g}")
    click.echo(f"A bids  {_dist(res.strategy_a)}")
    click.echo(f"B bids  {_dist(res.strategy_b)}")
    choices = getattr(res, "choices", None)
    if choices:
        played = {b for b, p in res.strategy_a.items() if p > 0}, {b for b, p in res.strategy_b.items() if p > 0}
        cells = [f"{_bid(x)} vs {_bid(y)}: {'A' if sum(x) > sum(y) else 'B'} takes {format_card(r)}"
                 for (x, y), r in choices.items() if x in played[0] and y in played[1]]
        click.echo(f"choices {'; '.join(cells) or 'no decisive pair in the supports'}")


def _info(cards, tie, objective, order, as_json, as_csv, match, draw, bid_cards, open_prizes, tiebreak, store=None,
          solution=None):
    from gops_solver.variants.solution import projected_variant
    if solution is not None:
        raise click.UsageError("-s reads the rules from the solution: drop --bid-cards, --open-prizes and --tiebreak")
    if store is not None:
        raise click.UsageError("--store reads a block store of the classic game: drop --bid-cards, --open-prizes "
                               "and --tiebreak")
    if as_csv:
        raise click.UsageError("--csv lists the classic game's levels; use --json for a variant")
    rules = _rules(cards, tie, objective, order, match, draw, bid_cards, open_prizes, tiebreak)
    if rules.tiebreak != "share":
        from gops_solver.variants.tiebreak import projected_tiebreak
        p = projected_tiebreak(rules)
        if as_json:
            click.echo(dumps({"rules": rules.to_dict(), **p}))
            return
        click.echo(f"rules          {rules.describe()}")
        click.echo(f"games solved   {p['games']:,} (one per match position)")
        click.echo(f"stage games    {p['stage_games']:,}")
        click.echo(f"table entries  {p['table_entries']:,} (held in memory)")
        return
    w = projected_variant(rules)
    ram = machine_memory()
    seconds = w["total_cells"] / cells_per_second(rules)
    need = w["total_bytes"] + OVERHEAD_BYTES
    fits = need <= 0.6 * ram
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), "table_entries": w["total_bytes"] // 8,
                               "stage_games": w["total_games"], "stage_cells": w["total_cells"],
                               "memory_bytes": need, "file_bytes": w["total_bytes"], "projected_seconds": seconds,
                               "machine_memory_bytes": ram, "fits": fits,
                               "levels": [{"round": t + 1, "hand_classes": c, "hand_pairs": h, "stage_games": g,
                                           "table_entries": e}
                                          for t, (c, h, g, e) in enumerate(zip(w["classes"], w["hand_pairs"],
                                                                               w["stage_games"], w["table_entries"]))]}))
        return
    click.echo(f"rules          {rules.describe()}")
    click.echo(f"hand classes   {sum(w['classes']):,} of {sum(w['hand_pairs']):,} hand pairs "
               f"(comparison-signature reduction)")
    click.echo(f"table entries  {w['total_bytes'] // 8:,}")
    click.echo(f"stage games    {w['total_games']:,} ({w['total_cells']:,} matrix cells)")
    click.echo(f"memory         {need / 2**30:.2f} GiB (this machine: {ram / 2**30:.1f} GiB)")
    click.echo(f"time           about {duration(seconds)} on 2 cores")
    click.echo("verdict        " + ("fits on this machine" if fits else "will NOT fit on this machine"))


def _verify(solution, sample, seed, tol, as_json, as_csv=False, blocks=None, **_):
    from gops_solver.variants.solution import load_variant
    if blocks is not None:
        raise click.UsageError(f"--blocks checks the blocks of a block store, and {solution} is a variant "
                               f"solution file: use --sample N")
    if as_csv:
        raise click.UsageError("--csv is for classic solution files; use --json for a variant file")
    try:
        sol, checksum_ok = load_variant(solution), True
    except ValueError as exc:
        if "checksum" not in str(exc):
            raise
        sol, checksum_ok = load_variant(solution, check=False), False
    res = sol.verify(sample=sample, seed=seed, tol=tol)
    ok = res.ok and checksum_ok
    if as_json:
        click.echo(dumps({"rules": sol.rules.to_dict(), "checked": res.checked, "stage_games": res.stage_games,
                               "max_residual": res.max_residual, "max_exploitability": res.max_exploitability,
                               "checksum_ok": checksum_ok, "ok": ok}))
    else:
        click.echo(f"rules              {sol.rules.describe()}")
        click.echo(f"checked            {res.checked:,} slots" + (f" (sample of {sample} per level)" if sample else ""))
        click.echo(f"stage games        {res.stage_games:,} (jitted solver, strategies checked against every pure reply)")
        click.echo(f"max residual       {res.max_residual:.3g}")
        click.echo(f"max exploitability {res.max_exploitability:.3g}")
        click.echo(f"checksums          {'OK' if checksum_ok else 'FAILED (the file was altered or damaged)'}")
        click.echo(f"verdict            {'OK' if ok else 'FAILED'} (tolerance {tol:g})")
    sys.exit(0 if ok else 1)


def _play(cards, tie, objective, order, solution, strat_a, strat_b, seed, hint, quiet, match, draw, as_json,
          bid_cards, open_prizes, tiebreak, record=None, adapt=False, games=None):
    import contextlib
    if adapt or games is not None:
        raise click.UsageError("--adapt plays single classic games against a model it fits: leave out "
                               "--bid-cards, --open-prizes and --tiebreak")
    if record is not None:
        raise click.UsageError("--record writes single classic games (one card a bid, one prize a round, "
                               "no match): drop --record")
    from gops_solver.analysis._variant_matchup import check_strategy
    from gops_solver.analysis._variant_play import play_variant
    from gops_solver.api import load, solve as solve_rules
    human = strat_a.strip().lower() in ("you", "human")
    if human:
        check_play_seat(strat_b)
    else:
        strat_a, strat_b = check_strategy(strat_a.strip().lower()), check_strategy(strat_b.strip().lower())
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        sol = load(solution)
        rules = file_rules(sol.rules, solution, n=cards, tie=tie, objective=objective, order=order, match=match,
                           draw=draw, bid_cards=bid_cards, open_prizes=open_prizes, tiebreak=tiebreak)
    else:
        rules = _rules(cards, tie, objective, order, match, draw, bid_cards, open_prizes, tiebreak)
        if rules.tiebreak != "share":
            raise click.UsageError("play does not play tiebreak matches yet: use gops query --tiebreak")
        _check_size(rules)
        if not quiet:
            click.echo("solving the whole game once...", err=True)
        sol = solve_rules(rules)
    stdout = sys.stdout
    emit = (lambda obj: click.echo(dumps(obj), file=stdout)) if as_json else None
    # under --json the narration is for a person: stderr, so stdout holds JSON lines only
    with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
        return play_variant(sol, seed, hint, emit=emit, strat_a=None if human else strat_a, strat_b=strat_b)


def _matchup_solution(cards, tie, objective, order, solution, bid_cards, open_prizes, tiebreak, quiet,
                      check=None):
    """The variant solution to play: the file given (rules as stored, or checked) or a fresh solve.

    ``check(rules)`` runs before a solve (it may refuse the rules).
    """
    from gops_solver.api import load, solve as solve_rules
    if tiebreak not in (None, "share"):
        raise click.UsageError("evaluate and simulate play single games: drop --tiebreak (a match option)")
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        sol = load(solution)
        file_rules(sol.rules, solution, n=cards, tie=tie, objective=objective, order=order, bid_cards=bid_cards,
                   open_prizes=open_prizes)
    else:
        rules = _rules(cards, tie, objective, order, None, None, bid_cards, open_prizes, tiebreak)
        if check is not None:
            check(rules)
        _check_size(rules)
        if not quiet:
            click.echo("solving the whole game once...", err=True)
        sol = solve_rules(rules)
    if sol.rules.classic:
        raise click.UsageError(f"{solution} holds the classic game: drop --bid-cards/--open-prizes")
    return sol


def _evaluate(strategy, against, cards, tie, objective, order, solution, as_json, quiet, allow_large, as_csv,
              bid_cards, open_prizes, tiebreak):
    from gops_solver.analysis._variant_matchup import check_evaluable, check_strategy, evaluate_variant
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    check_strategy(strategy)
    check_strategy(against)
    sol = _matchup_solution(cards, tie, objective, order, solution, bid_cards, open_prizes, tiebreak, quiet,
                            check=check_evaluable)
    ev = evaluate_variant(strategy, sol, against)
    if as_json:
        click.echo(dumps(ev.to_dict()))
        return
    rows = ((ev.against, ev.vs_opponent), ("best-reply", ev.vs_best_response))
    if as_csv:
        click.echo("strategy,versus,margin,win,draw,loss,value,game_value,exploitability")
        for who, o in rows:
            click.echo(f"{ev.strategy},{who},{o.margin:.9g},{o.win:.9g},{o.draw:.9g},{o.loss:.9g},{o.value:.9g},"
                       f"{ev.game_value:.9g},{ev.exploitability:.9g}")
        return
    click.echo(f"rules           {sol.rules.describe()}")
    for who, o in rows:
        label = f"vs {who}" if who != "best-reply" else "vs best reply"
        click.echo(f"{label:<15} margin {o.margin + 0:+.6f}  win {o.win:.6f}  draw {o.draw:.6f}  "
                   f"loss {o.loss:.6f}  value {o.value + 0:+.6f}")
    click.echo(f"game value      {ev.game_value + 0:+.6f}")
    click.echo(f"exploitability  {ev.exploitability + 0:.6f}")
    click.echo(f"time            {ev.seconds:.2f} s")


def _simulate(strat_a, strat_b, games, seed, cards, tie, objective, order, solution, as_json, as_csv, quiet,
              bid_cards, open_prizes, tiebreak, record=None):
    from gops_solver.analysis._variant_matchup import check_strategy, simulate_variant
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    if record is not None:
        raise click.UsageError("--record writes single classic games (one card a bid, one prize a round, "
                               "no match): drop --record")
    check_strategy(strat_a)
    check_strategy(strat_b)
    sol = _matchup_solution(cards, tie, objective, order, solution, bid_cards, open_prizes, tiebreak, quiet)
    res = simulate_variant(strat_a, strat_b, sol, games, seed)
    print_simulation(res, sol.rules, as_json, as_csv)


_HANDLERS = {"solve": _solve, "query": _query, "info": _info, "verify": _verify, "play": _play,
             "evaluate": _evaluate, "simulate": _simulate}
