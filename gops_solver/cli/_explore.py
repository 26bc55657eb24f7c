"""``gops explore``: serve the position explorer on this machine and open it."""

from __future__ import annotations

import sys

import click

from gops_solver.game.rules import NAMED_ORDERS, OBJECTIVES, TIEBREAKS, TIES
from gops_solver.game.errors import cli_message


@click.command()
@click.option("--solution", "-s", type=click.Path(), default=None,
              help="a file written by gops solve --out or gops export --format solution (otherwise each "
                   "position's sub-game is solved)")
@click.option("--cards", "-n", default=None, type=int, metavar="N", help="deck size 1..13 [13]")
@click.option("--tie", default=None, type=click.Choice(TIES), help="carry or discard [carry]")
@click.option("--objective", default=None, type=click.Choice(OBJECTIVES), help="points or win [points]")
@click.option("--order", default=None, metavar="ORDER",
              help=f"prize order: {', '.join(NAMED_ORDERS)} or a permutation like 3,1,5,2,4 [random]")
@click.option("--bid-cards", default=None, type=int, metavar="B", help="cards bid per round, 1 or 2 [1]")
@click.option("--open-prizes", default=None, type=int, metavar="M", help="prizes face up in a row, 1..n [1]")
@click.option("--match", default=None, type=click.Choice(["single", "session", "best-of-3", "best-of-5"]),
              help="the game the page opens with: one game or a match [single]")
@click.option("--draw", default=None, type=click.Choice(["replay", "half"]), help="best-of matches: a drawn game [replay]")
@click.option("--tiebreak", default=None, type=click.Choice(TIEBREAKS),
              help="best-of matches with --draw half: how a level match is settled [share]")
@click.option("--response", "response_file", type=click.Path(), default=None, metavar="FILE",
              help="a response saved by gops exploit --out: its bids shown beside the equilibrium's")
@click.option("--model", "-m", default=None, metavar="M",
              help="compute the response to this model of B at start (as gops exploit --model) and show it")
@click.option("--p", "p", type=click.FloatRange(0, 1), default=None,
              help="with --model: the weight P of the restricted response R(P) [1: the best response]")
@click.option("--port", "-p", default=8013, type=click.IntRange(0, 65535), help="TCP port; 0 picks a free one [8013]")
@click.option("--host", default="127.0.0.1",
              help="address to listen on; anything but 127.0.0.1 exposes the explorer to the network [127.0.0.1]")
@click.option("--no-browser", is_flag=True, help="do not open a browser tab")
def explore(solution, cards, tie, objective, order, bid_cards, open_prizes, match, draw, tiebreak, response_file,
            model, p, port, host, no_browser):
    """Explore positions in the browser: values, bid distributions, stage matrices.

    With --response FILE or --model M: a response to a model of B, beside the equilibrium."""
    try:
        import uvicorn
        from gops_solver.explore.server import Explorer, create_app
    except ImportError as exc:
        raise click.UsageError(f"gops explore needs the web extra ({exc.name} is missing): "
                               f"pip install 'gops-solver[explore]'") from None
    from gops_solver.api import load
    _check_host(host)
    if response_file is not None and model is not None:
        raise click.UsageError("give one of --response FILE and --model M")
    if p is not None and model is None:
        raise click.UsageError("--p goes with --model: add --model M, or drop --p")
    response = _read_response(response_file) if response_file is not None else None
    if response is not None and solution is None and all(v is None for v in (cards, tie, objective, order)):
        made = response.meta["rules"]  # the page opens on the response's game
        cards, tie, objective, order = made.n, made.tie, made.objective, made.order_name
    if solution is not None:
        from gops_solver.analysis.answer import file_rules
        sol = load(solution)
        file_rules(sol.rules, solution, n=cards, tie=tie, objective=objective, order=order, match=match, draw=draw,
                   bid_cards=bid_cards, open_prizes=open_prizes, tiebreak=tiebreak)
        if sol.rules.players != 2:
            raise click.UsageError(f"{solution} holds a solution for {sol.rules.describe()}; the explorer shows "
                                   f"two-player games (one value, two bid distributions), which a "
                                   f"{sol.rules.players}-player game does not define: read this file with "
                                   f"gops query -s or gops play -s")
        explorer = Explorer(sol, solution, response=response)
    else:
        from gops_solver.game.constants import MAX_CARDS
        from gops_solver.game.rules import rules_from_options
        explorer = Explorer(rules=rules_from_options(cards, tie, objective, order, match, draw, MAX_CARDS,
                                                     bid_cards=bid_cards, open_prizes=open_prizes,
                                                     tiebreak=tiebreak), response=response)
    if model is not None:
        explorer.response = _model_response(explorer.rules, model, p, explorer.solution)
    if response is not None and response.meta["rules"] != explorer.rules:
        raise click.UsageError(f"the response in {response_file} was computed for "
                               f"{response.meta['rules'].describe()}, not {explorer.rules.describe()}: "
                               f"drop the rule options or give its rules")
    _check_port(host, port)
    # answer the opening page once now: numba compiles the stage solver here, not on the first click
    from urllib.parse import parse_qsl
    explorer.answer(parse_qsl(explorer.start_params([]), keep_blank_values=True))
    config = uvicorn.Config(create_app(explorer), host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    _announce_when_up(server, host, no_browser)
    server.run()


def _read_response(path):
    """The response stored in ``path`` (written by ``gops exploit --out``); one line if it is not one."""
    from gops_solver.analysis.strategies import make_strategy
    try:
        strategy = make_strategy(path)
    except ValueError as exc:
        raise click.UsageError(cli_message(exc)) from None
    if getattr(strategy, "meta", {}).get("kind") != "response":
        raise click.UsageError(f"{path} is not a response: give a file written by gops exploit --out")
    return strategy


def _model_response(rules, model, p, solution):
    """The restricted response R(p) to ``model`` (seat B) under ``rules``, computed now."""
    from gops_solver.game.constants import LIVE_RESPONSE_MAX_CARDS
    from gops_solver.opponent.response import check_exploit_rules, exploit
    if rules.n > LIVE_RESPONSE_MAX_CARDS:
        raise click.UsageError(f"--model computes the response at start, up to --cards {LIVE_RESPONSE_MAX_CARDS}; "
                               f"for n={rules.n} save it once with gops exploit --out FILE and give --response FILE")
    from gops_solver.analysis._common import needs_solution
    from gops_solver.analysis.strategies import make_strategy
    try:
        check_exploit_rules(rules)
        if solution is None and needs_solution(model):
            from gops_solver.api import solve
            solution = solve(rules)
        make_strategy(model, solution)  # a bad model is refused before the long part starts
        click.echo(f"computing the response to {model} (P = {1.0 if p is None else p:g})...", err=True)
        return exploit(rules, model, p=1.0 if p is None else p, solution=solution).strategy
    except ValueError as exc:
        raise click.UsageError(cli_message(exc)) from None


#: addresses that reach this machine only
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _check_host(host) -> None:
    """Refuse an empty --host (it would listen on every interface while looking like the default)."""
    if not host.strip():
        raise click.UsageError("--host is empty: give 127.0.0.1 (this machine only) or, to expose the explorer "
                               "to the network, the address to listen on (0.0.0.0 for every interface)")


def _exposed(host) -> bool:
    """Whether listening on ``host`` lets other machines connect."""
    import ipaddress
    if host.strip().lower() in _LOOPBACK:
        return False
    try:
        return not ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return True  # a host name: it may resolve to a public address


def _check_port(host, port) -> None:
    """One line, not uvicorn's log, when the address is taken or not ours."""
    import socket
    try:
        with socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
            pass
    except OSError as exc:
        raise click.UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}): "
                               f"choose another --port or --host") from None


def _announce_when_up(server, host, no_browser) -> None:
    """Print the address (and open the browser) once the server listens."""
    import threading
    import time

    def watch():
        while not server.started:
            if getattr(server, "should_exit", False):
                return
            time.sleep(0.05)
        sock = server.servers[0].sockets[0].getsockname()
        bound = sock[0]
        # a wildcard address is not one to browse to: this machine reaches it on loopback
        shown = ("::1" if ":" in bound else "127.0.0.1") if bound in ("0.0.0.0", "::") else bound
        url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{sock[1]}/"
        if _exposed(host):
            where = "every network interface" if bound in ("0.0.0.0", "::") else "the network"
            click.echo(f"warning: gops explore listens on {bound}:{sock[1]} ({where}): anyone who can reach "
                       f"this machine can use it and start solves; use --host 127.0.0.1 to keep it local", err=True)
        click.echo(f"gops explore serving {url}  (Ctrl-C stops)", err=False)
        sys.stdout.flush()
        if not no_browser:
            import webbrowser
            webbrowser.open(url)

    threading.Thread(target=watch, daemon=True).start()
