"""``gops explore``: serve the position explorer on this machine and open it."""

from __future__ import annotations

import sys

import click

from gops_solver.game.rules import NAMED_ORDERS, OBJECTIVES, TIEBREAKS, TIES


@click.command()
@click.option("--solution", "-s", type=click.Path(), default=None,
              help="a file written by gops solve --out (otherwise each position's sub-game is solved)")
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
@click.option("--port", "-p", default=8013, type=click.IntRange(0, 65535), help="TCP port; 0 picks a free one [8013]")
@click.option("--host", default="127.0.0.1",
              help="address to listen on; anything but 127.0.0.1 exposes the explorer to the network [127.0.0.1]")
@click.option("--no-browser", is_flag=True, help="do not open a browser tab")
def explore(solution, cards, tie, objective, order, bid_cards, open_prizes, match, draw, tiebreak, port, host,
            no_browser):
    """Explore positions in the browser: values, bid distributions, stage matrices."""
    try:
        import uvicorn
        from gops_solver.explore.server import Explorer, create_app
    except ImportError as exc:
        raise click.UsageError(f"gops explore needs the web extra ({exc.name} is missing): "
                               f"pip install 'gops-solver[explore]'") from None
    from gops_solver.api import load
    _check_host(host)
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
        explorer = Explorer(sol, solution)
    else:
        from gops_solver.game.constants import MAX_CARDS
        from gops_solver.game.rules import rules_from_options
        explorer = Explorer(rules=rules_from_options(cards, tie, objective, order, match, draw, MAX_CARDS,
                                                     bid_cards=bid_cards, open_prizes=open_prizes,
                                                     tiebreak=tiebreak))
    _check_port(host, port)
    # answer the opening page once now: numba compiles the stage solver here, not on the first click
    from urllib.parse import parse_qsl
    explorer.answer(parse_qsl(explorer.start_params([]), keep_blank_values=True))
    config = uvicorn.Config(create_app(explorer), host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    _announce_when_up(server, host, no_browser)
    server.run()


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
