"""``gops explore``: serve the position explorer on this machine and open it."""

from __future__ import annotations

import sys

import click

from gops_solver.game.rules import NAMED_ORDERS, OBJECTIVES, TIES


@click.command()
@click.option("--solution", "-s", type=click.Path(), default=None,
              help="a file written by gops solve --out (otherwise each position's sub-game is solved)")
@click.option("--cards", "-n", default=None, type=int, metavar="N", help="deck size 1..13 [13]")
@click.option("--tie", default=None, type=click.Choice(TIES), help="carry or discard [carry]")
@click.option("--objective", default=None, type=click.Choice(OBJECTIVES), help="points or win [points]")
@click.option("--order", default=None, metavar="ORDER",
              help=f"prize order: {', '.join(NAMED_ORDERS)} or a permutation like 3,1,5,2,4 [random]")
@click.option("--port", "-p", default=8013, type=click.IntRange(0, 65535), help="TCP port; 0 picks a free one [8013]")
@click.option("--host", default="127.0.0.1",
              help="address to listen on; anything but 127.0.0.1 exposes the explorer to the network [127.0.0.1]")
@click.option("--no-browser", is_flag=True, help="do not open a browser tab")
def explore(solution, cards, tie, objective, order, port, host, no_browser):
    """Explore positions in the browser: values, bid distributions, stage matrices."""
    try:
        import uvicorn
        from gops_solver.explore.server import Explorer, create_app
    except ImportError as exc:
        raise click.UsageError(f"gops explore needs the web extra ({exc.name} is missing): "
                               f"pip install 'gops-solver[explore]'") from None
    from gops_solver.analysis.answer import query_rules
    from gops_solver.api import load
    if solution is not None:
        sol = load(solution)
        given = {k: v for k, v in (("n", cards), ("tie", tie), ("objective", objective), ("order", order))
                 if v is not None}
        if given and sol.rules != type(sol.rules)(**{**sol.rules.to_dict(), **given}):
            raise ValueError(f"{solution} holds a solution for {sol.rules.describe()}: drop the rule options "
                             f"or use a matching file")
        explorer = Explorer(sol, solution)
    else:
        explorer = Explorer(rules=query_rules(cards, tie, objective, order))
    _check_port(host, port)
    # answer the opening page once now: numba compiles the stage solver here, not on the first click
    from urllib.parse import parse_qsl
    explorer.answer(parse_qsl(explorer.start_params([]), keep_blank_values=True))
    config = uvicorn.Config(create_app(explorer), host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    _announce_when_up(server, host, no_browser)
    server.run()


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
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{sock[1]}/"
        click.echo(f"gops explore serving {url}  (Ctrl-C stops)", err=False)
        sys.stdout.flush()
        if not no_browser:
            import webbrowser
            webbrowser.open(url)

    threading.Thread(target=watch, daemon=True).start()
