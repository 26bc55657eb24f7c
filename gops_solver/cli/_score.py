"""``gops score``: agents scored exactly against the equilibrium, the heuristics and each other."""

from __future__ import annotations

import click

from gops_solver.cli._format import RULES_HEADER, csv_text, nozero, rules_cells
from gops_solver.cli._options import json_option, make_rules, quiet_option, rules_options, solution_option
from gops_solver.cli._util import dumps


@click.command()
@click.argument("agents", nargs=-1, required=True, metavar="AGENT...")
@rules_options(None)
@solution_option("solution file for the equilibrium (otherwise solved here)")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="stop an agent whose call takes longer than SECONDS")
@click.option("--games", type=click.IntRange(min=2), default=2000, metavar="G",
              help="games per opponent when an agent must be sampled [2000]")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, help="seed of the sampled games [0]")
@click.option("--out", type=click.Path(), default=None, help="also write every figure as CSV rows to FILE")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="also draw the round robin of two or more agents to FILE (.png or .svg)")
@json_option
@quiet_option
def score(agents, cards, tie, objective, order, solution, timeout, games, seed, out, plot, as_json, quiet):
    """Score agents: exact results against the equilibrium and each heuristic, and exploitability.

    AGENT is module:function (of the state), module:Class (with act(observation, action_mask)),
    module:name of an OpenSpiel policy, text:module:function (prompt -> reply), or a built-in
    strategy. Several agents also play a round robin. An agent that misbehaves is reported,
    not scored (exit status 1)."""
    from gops_solver.env.agents import load_agent
    from gops_solver.env.score import check_score_rules, round_robin, score_agent
    if plot is not None and (len(agents) < 2 or not plot.lower().endswith((".png", ".svg"))):
        raise click.UsageError(f"--plot {plot}: it draws the round robin, so give two or more agents and a file "
                               f"ending in .png or .svg")
    rules = make_rules(cards, tie, objective, order)
    check_score_rules(rules)
    loaded = [load_agent(a, rules, timeout) for a in agents]  # every spec checked before any work
    sol = _solution(solution, rules)
    scores = [score_agent(a, rules, sol, timeout, games, seed) for a in loaded]
    names, cells = round_robin(loaded, rules, sol, timeout, games, seed) if len(loaded) > 1 else ([], {})
    if out is not None:
        _write_csv(out, rules, scores, names, cells)
    if plot is not None:
        _write_plot(plot, rules, names, cells)
    if as_json:
        rr = [{"a": names[i], "b": names[j], **(c.to_dict() if not isinstance(c, str) else {"failure": c})}
              for (i, j), c in sorted(cells.items())]
        click.echo(dumps({"rules": rules.to_dict(), "agents": [s.to_dict() for s in scores], "round_robin": rr}))
    else:
        _print(rules, scores, names, cells, out, plot)
    failed = any(s.failure for s in scores) or any(isinstance(c, str) for c in cells.values())
    click.get_current_context().exit(1 if failed else 0)


def _solution(path, rules):
    if path is None:
        return None
    from gops_solver.analysis.answer import file_rules
    from gops_solver.api import load
    sol = load(path)
    file_rules(sol.rules, path, n=rules.n, tie=rules.tie, objective=rules.objective, order=rules.order_name)
    return sol


def _cell(f) -> str:
    if isinstance(f, str):
        return "failed"
    text = f"{nozero(f.value):+.6f}"
    return text if f.ci is None else f"{text} [{nozero(f.ci[0]):+.4f}, {nozero(f.ci[1]):+.4f}]"


def _print(rules, scores, names, cells, out, plot=None):
    click.echo(f"rules           {rules.describe()}")
    for s in scores:
        click.echo(f"agent           {s.agent} ({s.kind}; {s.method})")
        if s.failure:
            click.echo(f"failed          {s.failure}")
            continue
        for opp, f in s.against.items():
            click.echo(f"{'vs ' + opp:<15} {_cell(f)}" + (f"  (95% CI, {f.games} games)" if f.ci else ""))
        if s.exploitability is not None:
            ex = f"{nozero(s.exploitability):.6f}"
        elif s.lower_bound is not None:
            lb = s.lower_bound
            ex = (f">= {nozero(lb['ci'][0]):.4f} (sampled: estimate {nozero(lb['value']):+.4f}, the best reply to a "
                  f"{lb['model']} model fitted to {lb['games']} of its games)")
        else:
            ex = "not computed (sampled)"
        click.echo(f"exploitability  {ex}")
    if names:
        width = max(12, *(len(n) for n in names)) + 2
        click.echo(f"round robin     value of the row agent (seat A) against the column agent (seat B)")
        click.echo(" " * width + "".join(f"{n[:width - 2]:>{width}}" for n in names))
        for i, n in enumerate(names):
            row = "".join(f"{'.' if i == j else _cell(cells[(i, j)]).split(' [')[0]:>{width}}" for j in range(len(names)))
            click.echo(f"{n[:width - 2]:<{width}}{row}")
        for (i, j), c in sorted(cells.items()):
            if isinstance(c, str) and i < j:
                click.echo(f"failed          {names[i]} vs {names[j]}: {c}")
    if out is not None:
        click.echo(f"wrote           {out}")
    if plot is not None:
        click.echo(f"plotted         {plot}")


def _write_csv(path, rules, scores, names, cells):
    rows = []
    for s in scores:
        if s.failure:
            rows.append(rules_cells(rules) + [s.agent, "", s.method, "", "", "", "", "", "", "", "", s.failure])
            continue
        for opp, f in list(s.against.items()) + [("best-reply", None)]:
            if f is None:
                if s.exploitability is not None:
                    rows.append(rules_cells(rules) + [s.agent, opp, s.method, s.game_value - s.exploitability, "", "",
                                                      "", "", "", "", s.exploitability, ""])
                continue
            rows.append(rules_cells(rules) + _figure_cells(s.agent, opp, s.method, f) + [s.exploitability, ""])
    for (i, j), c in sorted(cells.items()):
        if isinstance(c, str):
            rows.append(rules_cells(rules) + [names[i], names[j], "round robin"] + [""] * 8 + [c])
        else:
            rows.append(rules_cells(rules) + _figure_cells(names[i], names[j], "round robin", c) + ["", ""])
    header = RULES_HEADER + ["agent", "versus", "method", "value", "margin", "win", "draw", "loss", "ci_low",
                             "ci_high", "exploitability", "failure"]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(csv_text(header, rows) + "\n")


def _figure_cells(agent, opp, method, f):
    lo, hi = f.ci if f.ci is not None else ("", "")
    return [agent, opp, method, f.value, f.margin, f.win, f.draw, f.loss, lo, hi]


def round_robin_figure(rules, names, cells):
    """The round robin as a matplotlib figure: cell (i, j) is agent i's value in seat A against agent j.

    A failed game is left blank and marked ``failed``; the diagonal is blank.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    k = len(names)
    grid = np.full((k, k), np.nan)
    for (i, j), c in cells.items():
        if not isinstance(c, str):
            grid[i, j] = c.value
    top = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 0.0
    top = top if top > 0 else 1.0  # every game drawn (or failed): any symmetric colour range
    fig, ax = plt.subplots(figsize=(1.2 * k + 2.5, 1.0 * k + 1.5))
    im = ax.imshow(grid, cmap="RdBu", vmin=-top, vmax=top)
    for (i, j), c in cells.items():
        ax.text(j, i, "failed" if isinstance(c, str) else f"{c.value:+.3f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(k), [n.rsplit(":", 1)[-1] for n in names], rotation=30, ha="right")
    ax.set_yticks(range(k), [n.rsplit(":", 1)[-1] for n in names])
    ax.set_xlabel("seat B")
    ax.set_ylabel("seat A")
    ax.set_title(f"round robin, value for seat A ({rules.describe()})", fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    return fig


def _write_plot(path, rules, names, cells):
    import io
    import matplotlib.pyplot as plt
    from gops_solver.engine.storage import atomic_write
    fig = round_robin_figure(rules, names, cells)
    buf = io.BytesIO()
    fig.savefig(buf, format="svg" if path.lower().endswith(".svg") else "png", dpi=110)
    plt.close(fig)
    atomic_write(path, [buf.getvalue()])
