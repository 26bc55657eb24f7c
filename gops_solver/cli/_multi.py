"""``gops ... --players 3|4``: the command line of the 3- and 4-player games.

``gops solve|query|info|verify --players 3`` land here (see
``_Gops.resolve_command`` in :mod:`gops_solver.cli.commands`); click code only: parse,
call :mod:`gops_solver.multi`, print.
"""

from __future__ import annotations

import math

import click

from gops_solver.cli._options import Group, json_option, old_option, quiet_option, solution_option
from gops_solver.game.cards import format_card
from gops_solver.game.jsonout import dumps  # strict JSON: an undefined value is null, never NaN
from gops_solver.game.rules import NAMED_ORDERS, OBJECTIVES, TIES, Rules

__all__ = ["multi", "players_in_args"]


def players_in_args(args) -> int:
    """The ``--players`` value in a command line (2 when absent)."""
    for i, a in enumerate(args):
        if a == "--players":
            if i + 1 == len(args) or args[i + 1].startswith("-"):
                raise ValueError("--players needs a value: give 2, 3 or 4 (--players 3)")
            return _players(args[i + 1])
        if a.startswith("--players="):
            return _players(a.split("=", 1)[1])
    return 2


def strip_players(args) -> list:
    """The command line without ``--players 2`` (the two-player commands do not know it)."""
    out, skip = [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a == "--players":
            skip = True
            continue
        if a.startswith("--players="):
            continue
        out.append(a)
    return out


def _players(text) -> int:
    if str(text).strip() not in ("2", "3", "4"):
        raise ValueError(f"--players {text} is not supported: use 2, 3 or 4")
    return int(text)


#: The seats of a table, A to D: the letters of the two-player commands' --a/--b and --hand-a/--hand-b,
#: so one spelling names a seat whatever the number of players (A is P1 in the output, B is P2, ...).
SEATS = "abcd"


def _options(f):
    f = json_option(f)
    f = click.option("--order", default="random", metavar="ORDER",
                     help=f"prize order: {', '.join(NAMED_ORDERS)} or a permutation [random]")(f)
    f = click.option("--objective", default="points", type=click.Choice(OBJECTIVES),
                     help="points: own final score; win: 1 to the top scorer, shared ties split 1 [points]")(f)
    f = click.option("--tie", default="carry", type=click.Choice(TIES), help="tie rule [carry]")(f)
    f = click.option("--cards", "-n", type=int, metavar="N", help="deck size (required unless --solution)")(f)
    f = click.option("--players", required=True, type=click.IntRange(2, 4), metavar="P",
                     help="players at the table, 3 or 4 (2: see gops COMMAND --help)")(f)
    return f


def _selection_option(f):
    return click.option("--selection", default=None, type=click.Choice(("logit", "pure")),
                        help="equilibrium selection: logit (a pure equilibrium only where it is the only one, "
                             "else the logit limit) or pure (the first pure equilibrium in which players with "
                             "equal hands and scores bid alike, where there is one; much faster under win) "
                             "[logit, or the --solution file's]")(f)


def _rules(players, cards, tie, objective, order) -> Rules:
    if cards is None:
        raise click.UsageError("missing --cards N: give the deck size, e.g. --cards 5 (or --solution FILE)")
    return Rules(n=cards, tie=tie, objective=objective, order=order, players=players)


def _stored(path, players, cards, tie, objective, order, selection=None):
    """The solution in ``path``; rule options (and ``--selection``) given as well must match it."""
    from gops_solver.api import load
    from gops_solver.multi.solution import MultiSolution
    sol = load(path)  # read as every command reads a solution (storage.WHERE_SOLUTIONS_LIVE), then its kind
    if not isinstance(sol, MultiSolution):
        raise ValueError(f"{path} holds a two-player solution of {sol.rules.describe()}: leave out --players")
    if selection is not None and selection != sol.selection:
        raise ValueError(f"{path} was solved with the {sol.selection} selection: drop --selection "
                         f"or solve again with --selection {selection}")
    if cards is not None:
        from gops_solver.analysis.answer import file_rules
        file_rules(sol.rules, path, n=cards, tie=tie, objective=objective, order=order)
    if sol.rules.players != players:
        raise ValueError(f"{path} holds a {sol.rules.players}-player solution: use --players {sol.rules.players}")
    return sol


def _vec(values) -> str:
    return "  ".join(f"P{i + 1} {v:.6f}" for i, v in enumerate(values))


_MULTI_STRATEGIES = "equilibrium, uniform, highest, lowest or match"


def _seat_options(flag, dest, help_text, defaults=None, required=False, first=0):
    """One option per seat, A to D (``flag`` and ``dest`` take the seat's letter): --a ... --d, --hand-a ... --hand-d.

    Seats past the table's players are refused by :func:`_seats`; ``first``
    skips the seats taken by the person at the keyboard (play: A).
    """
    def wrap(f):
        for i in reversed(range(first, len(SEATS))):
            letter = SEATS[i]
            words = help_text.format(letter.upper(), i + 1, defaults[i] if defaults else "")
            if required:
                words += " (required" + (")" if i < 3 else " with 4 players)")
            elif i == 3:
                words = words[:-1] + ", 4 players]"
            flags = [flag.format(letter)] + ([f"-{letter}"] if flag == "--{}" else [])  # -a, as two players spell it
            f = click.option(*flags, dest.format(letter), default=None, metavar="CARDS" if required else "S",
                             help=words)(f)
        return f
    return wrap


def _seats(players, flag, values, old=None):
    """The per-seat values of a table of ``players``; a value given for a seat past the table is refused."""
    for i in range(players, len(SEATS)):
        if values[i] is not None:
            raise click.UsageError(f"{flag.format(SEATS[i])} is seat {SEATS[i].upper()}, "
                                   f"but this game has {players} players (--players {i + 1} for more)")
    return tuple(values[:players])


@click.group(cls=Group)
def multi():
    """Three- and four-player games (docs/rules.md "Three and four players")."""


def _failures(f):
    """An equilibrium the selection rule cannot certify: one line and exit status 1 (not an input error)."""
    import functools

    @functools.wraps(f)
    def run(*args, **kwargs):
        from gops_solver.multi.equilibrium import EquilibriumError
        try:
            return f(*args, **kwargs)
        except EquilibriumError as exc:
            click.echo(f"error: {exc}", err=True)
            raise SystemExit(1)
    return run


@multi.command()
@_options
@click.option("--security-only", is_flag=True, help="security values only (no n-player equilibria; much faster)")
@_selection_option
@click.option("--out", "-o", type=click.Path(), default=None, help="save the solution to FILE (atomic, checksummed)")
@quiet_option
@_failures
def solve(players, cards, tie, objective, order, as_json, security_only, selection, out, quiet):
    """Solve the game: security values and equilibrium values at the start."""
    from gops_solver.multi import solve_multi
    from gops_solver.engine.storage import check_out_path, writer_lock
    rules = _rules(players, cards, tie, objective, order)
    if out is None:
        sol = solve_multi(rules, equilibrium=not security_only, selection=selection or "logit")
    else:
        check_out_path(out, probe_lock=False)  # a bad path: refused before the work
        # out's writer lock for the whole solve: another writer refuses now, in one line, instead of racing it
        with writer_lock(out, "gops solve"):
            sol = solve_multi(rules, equilibrium=not security_only, selection=selection or "logit")
            sol.save(out, lock=False)
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), "security": sol.security, "values": sol.values,
                               "states": sol.states, "stage_games": sol.stage_games, "methods": sol.methods,
                               "max_deviation_gain": sol.max_deviation_gain, "seconds": sol.seconds,
                               "selection": sol.selection, "out": out}))
        return
    click.echo(f"rules       {rules.describe()}")
    click.echo(f"security    {_vec(sol.security)}")
    if not security_only:
        click.echo(f"values      {_vec(sol.values)}")
    click.echo(f"states      {sol.states:,} ({sol.stage_games:,} stage games)")
    m = sol.methods
    if not security_only:
        from gops_solver.multi.equilibrium import METHODS
        counts = ", ".join(f"{m.get(name, 0):,} {words}" for name, words in METHODS.items())
        click.echo(f"equilibria  {counts}; largest deviation gain {sol.max_deviation_gain:.1e} "
                   f"({sol.selection} selection)")
    click.echo(f"time        {sol.seconds:.2f} s")
    if out is not None:
        click.echo(f"written     {out}")


@multi.command()
@_options
@_seat_options("--hand-{}", "hand_{}", "hand of seat {} (P{}), e.g. 1,3,5", required=True)
@old_option("--hands", "--hand-a, --hand-b, ...", default=None)
@click.option("--pot", required=True, type=int, help="revealed prize plus carried pot")
@click.option("--prizes", default="", help="hidden prizes, e.g. 4,5")
@click.option("--scores", default=None, help="points won so far, e.g. 0,3,5 [all 0]")
@solution_option("read the values from FILE (gops solve --out)")
@_selection_option
@_failures
def query(players, cards, tie, objective, order, as_json, hand_a, hand_b, hand_c, hand_d, hands, pot, prizes, scores,
          solution, selection):
    """Security values, equilibrium values and bid distributions at one state."""
    from gops_solver.multi.solution import subgame_solver
    from gops_solver.multi.state import parse_hands, validate_multi_state
    given = _seats(players, "--hand-{}", (hand_a, hand_b, hand_c, hand_d), "--hands")
    if hands is not None:
        if any(given):
            raise click.UsageError("give --hand-a, --hand-b, ... only: --hands is their old spelling")
        hand_list = parse_hands(hands)
    else:
        missing = [f"--hand-{SEATS[i]}" for i, h in enumerate(given) if h is None]
        if missing:
            raise click.UsageError(f"missing {', '.join(missing)}: {players} players need one hand each, "
                                   f"--hand-a to --hand-{SEATS[players - 1]}")
        hand_list = list(given)
    if solution is not None:
        sol = _stored(solution, players, cards, tie, objective, order, selection)
        rules = sol.rules
        state = validate_multi_state(rules, hand_list, pot, prizes, scores)
    else:
        rules = _rules(players, cards, tie, objective, order)
        state = validate_multi_state(rules, hand_list, pot, prizes, scores)  # fail fast, before solving
        sol = subgame_solver(rules, selection=selection or "logit")  # solves only the sub-game below the state
    q = sol.query(list(state.hands), state.pot, state.prizes, state.scores)
    if as_json:
        out = q.to_dict()
        out["rules"] = rules.to_dict()
        click.echo(dumps(out))
        return
    click.echo(f"rules      {rules.describe()}")
    click.echo(f"state      {state.describe()}")
    click.echo(f"security   {_vec(q.security)}")
    click.echo(f"values     {_vec(q.values)}")
    for i, strat in enumerate(q.strategies):
        bids = "  ".join(f"{format_card(c)}:{p:.4f}" for c, p in strat.items())
        click.echo(f"P{i + 1} bids    {bids}")
    click.echo(f"deviation  {q.deviation_gain:.1e} ({q.method})")


@multi.command()
@_options
def info(players, cards, tie, objective, order, as_json):
    """Count the canonical hand patterns a solve visits (no stage games are solved)."""
    from gops_solver.multi.info import count_patterns
    rules = _rules(players, cards, tie, objective, order)
    counts = count_patterns(rules)
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), "patterns_per_hand_size": counts,
                               "patterns": sum(counts.values()),
                               "profiles": sum(c * k ** players for k, c in counts.items())}))
        return
    click.echo(f"rules      {rules.describe()}")
    for k in sorted(counts, reverse=True):
        click.echo(f"k={k:<2}       {counts[k]:,} hand patterns, {k ** players:,} bid profiles each")
    click.echo(f"patterns   {sum(counts.values()):,} (each holds one state per pot, hidden set"
               f"{' and scores' if objective == 'win' else ''})")


@multi.command()
@_options
@solution_option("check the solution stored in FILE instead of solving")
@_selection_option
@_failures
def verify(players, cards, tie, objective, order, as_json, solution, selection):
    """Solve (or read FILE), then recompute every stage: security residuals (HiGHS) and deviation gains."""
    from gops_solver.multi import solve_multi
    if solution is not None:
        sol = _stored(solution, players, cards, tie, objective, order, selection)
        rules = sol.rules
    else:
        rules = _rules(players, cards, tie, objective, order)
        sol = solve_multi(rules, selection=selection or "logit")
    report = sol.verify()
    if as_json:
        click.echo(dumps({"rules": rules.to_dict(), **report}))
    else:
        click.echo(f"rules               {rules.describe()}")
        click.echo(f"states              {report['states']:,}")
        click.echo(f"security residual   {report['security_residual']:.1e} (HiGHS re-solve; limit 1e-9)")
        click.echo(f"value residual      {report['value_residual']:.1e}")
        click.echo(f"max deviation gain  {report['max_deviation_gain']:.1e} (limit 1e-6)")
        click.echo(f"symmetry spread     {report['symmetry_spread']:.1e} (largest value difference between "
                   f"players with equal hands and scores; reported, not checked)")
        click.echo(f"verdict             {'ok' if report['ok'] else 'FAILED'}")
    if not report["ok"] or not math.isfinite(report["max_deviation_gain"]):
        raise SystemExit(1)


def _solution(players, cards, tie, objective, order, solution, selection):
    """The stored solution, or a fresh solve of the rules."""
    from gops_solver.multi import solve_multi
    if solution is not None:
        return _stored(solution, players, cards, tie, objective, order, selection)
    return solve_multi(_rules(players, cards, tie, objective, order), selection=selection or "logit")


@multi.command()
@_options
@_seat_options("--{}", "seat_{}", "seat {} (P{}): " + _MULTI_STRATEGIES + " [{}]",
               defaults=("equilibrium", "uniform", "uniform", "uniform"))
@old_option("--seats", "--a, --b, ...", default=None, metavar="S1,S2,..")
@click.option("--games", default=1000, type=click.IntRange(1), help="games to play [1000]")
@click.option("--seed", default=0, type=int, help="random seed [0]")
@solution_option("the equilibrium stored in FILE (gops solve --out)")
@_selection_option
@quiet_option
@_failures
def simulate(players, cards, tie, objective, order, as_json, seat_a, seat_b, seat_c, seat_d, seats, games, seed,
             solution, selection, quiet):
    """Play equilibrium bots and heuristics against each other: mean payoffs with standard errors."""
    from gops_solver.multi.simulate import check_seats, simulate_multi
    given = _seats(players, "--{}", (seat_a, seat_b, seat_c, seat_d), "--seats")
    if seats is not None and any(given):
        raise click.UsageError("give --a, --b, ... only: --seats is their old spelling")
    if seats is None:
        seats = [s or ("equilibrium" if i == 0 else "uniform") for i, s in enumerate(given)]
    seats = check_seats(seats, players)
    sol = _solution(players, cards, tie, objective, order, solution, selection)
    if "equilibrium" in seats:
        sol.check_equilibrium()  # before the progress bar: the games would stop at the first decision
    bar = None
    if not as_json and not quiet:
        from tqdm import tqdm
        bar = tqdm(total=games, unit="game", file=click.get_text_stream("stderr"), leave=False)
    res = simulate_multi(sol, seats, games, seed, None if bar is None else (lambda done: bar.update(done - bar.n)))
    if bar is not None:
        bar.close()
    if not as_json:
        click.echo(f"rules   {sol.rules.describe()}")
        click.echo(f"games   {games:,} (seed {seed})")
        for i, (name, mu, se) in enumerate(zip(res.seats, res.mean, res.stderr)):
            click.echo(f"P{i + 1}      {name:<12} mean {mu:.4f} ± {se:.4f}")
        return
    click.echo(dumps({"rules": sol.rules.to_dict(), "seed": seed, **res.to_dict()}))


@multi.command()
@_options
@_seat_options("--{}", "seat_{}", "seat {} (P{}), a bot: " + _MULTI_STRATEGIES + " [{}]", first=1,
               defaults=("you", "equilibrium", "equilibrium", "equilibrium"))
@click.option("--seed", default=None, type=int, help="random seed of the prize order and the bots [fresh]")
@solution_option("the equilibrium stored in FILE (gops solve --out)")
@_selection_option
@quiet_option
@_failures
def play(players, cards, tie, objective, order, as_json, seat_b, seat_c, seat_d, seed, solution, selection, quiet):
    """Play seat 1 against equilibrium bots in the terminal (type a card each round)."""
    import numpy as np

    from gops_solver.game.cards import parse_cards
    from gops_solver.multi.simulate import check_seats, play_game
    sol = _solution(players, cards, tie, objective, order, solution, selection)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    rng = np.random.default_rng(seed)
    log = []

    def choose(state, ans):
        if not as_json:
            click.echo(f"prize {state.pot}  hidden {','.join(map(str, state.prizes)) or '-'}  "
                       f"scores {','.join(map(str, state.scores))}  your hand {','.join(map(str, state.hands[0]))}")
        while True:
            text = click.prompt("your bid", prompt_suffix=": ", err=as_json)
            try:
                card = parse_cards(text, sol.rules.n, what="bid")
                if len(card) == 1 and card[0] in state.hands[0]:
                    return card[0]
            except ValueError:
                pass
            click.echo(f"bid one card of your hand: {','.join(map(str, state.hands[0]))}", err=True)

    def report(state, bids, scores):
        log.append({"pot": state.pot, "bids": bids, "scores": scores})
        if as_json:  # JSON lines as the two-player play: a start line, one per round, an end line
            click.echo(dumps({"type": "round", "round": len(log), **log[-1]}))
        else:
            click.echo(f"bids  {'  '.join(f'P{i + 1} {b}' for i, b in enumerate(bids))}  ->  "
                       f"scores {','.join(map(str, scores))}")

    bots = [s or "equilibrium" for s in _seats(players, "--{}", (None, seat_b, seat_c, seat_d))[1:]]
    seats = ["you"] + check_seats(bots, players - 1)
    if as_json:
        click.echo(dumps({"type": "start", "rules": sol.rules.to_dict(), "seed": seed, "seats": seats}))
    try:
        payoffs = play_game(sol, seats, rng, choose=choose, report=report)
    except click.exceptions.Abort as exc:  # end of input or a signal at the prompt: the end line says which
        if as_json:
            from gops_solver.cli.signals import interrupt_of, word
            interrupt = interrupt_of(exc)
            click.echo(dumps({"type": "end", "abandoned": "end of input" if interrupt is None else word(interrupt),
                              "round": len(log) + 1, "rounds": log}))
        raise
    if as_json:  # the end line holds the whole game
        click.echo(dumps({"type": "end", "rules": sol.rules.to_dict(), "rounds": log, "payoffs": payoffs}))
    else:
        click.echo(f"payoffs  {_vec(payoffs)}")
