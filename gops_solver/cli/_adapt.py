"""``gops play --adapt``: a session in which the computer (seat B) exploits you safely.

The computer refits its model of seat A between games and plays the response of
largest gain its budget allows (:mod:`gops_solver.opponent.adapt`). Seat A is you
at the prompt, or a strategy (``--a S``) for a session without a person.
"""

from __future__ import annotations

import json

import click
from gops_solver.analysis.strategies import View


def _num(x, sign=True) -> str:
    """``x`` to four decimals, with no negative zero for a rounding residue."""
    x = 0.0 if abs(x) < 5e-5 else x
    return f"{x:+.4f}" if sign else f"{x:.4f}"


def _report_line(rep, game) -> str:
    return (f"game {rep.game}: I played {rep.played} (risk {_num(rep.risk, False)} of budget "
            f"{_num(rep.budget_before, False)}); score A {game.score_a} - B {game.score_b}; gifts {_num(rep.gifts)}")


def run_session(rules, sol, rng, games, strat_a, as_json, writer, ask=None, show=None, quiet=False, seed=None):
    """Play ``games`` games of the adaptive computer (B) against a person or ``strat_a`` (A); an exit status.

    ``ask(game)`` reads a person's bid and ``show(game)`` prints the round (the prompt's own helpers,
    passed in by the command); EOFError/KeyboardInterrupt from ``ask`` end the session early.
    """
    from gops_solver.analysis.play import Opponent, deal
    from gops_solver.analysis.records import record_line, replay_rounds
    from gops_solver.analysis.strategies import make_strategy
    from gops_solver.opponent.adapt import AdaptivePlayer
    player = AdaptivePlayer(rules, sol, seat="b")
    opp = make_strategy(strat_a, player.solution) if strat_a is not None else None
    name_a = opp.name if opp is not None else "human"
    say = (lambda text: click.echo(text, err=True)) if as_json else click.echo
    if not quiet or not as_json:
        say(f"gops play --adapt  {rules.describe()}  {games} games; I am B and adapt to A ({name_a})"
            + ("" if seed is None else f"  seed {seed}"))
    if as_json:
        click.echo(json.dumps({"type": "start", "rules": rules.to_dict(), "seed": seed, "a": name_a,
                               "b": "adaptive", "games": games}, allow_nan=False))
    status = 0
    for _ in range(games):
        choice = player.plan()
        if opp is None:
            say(f"\n=== Game {len(player.summary.games) + 1}: I play {choice.label} ===")
        game = deal(rules, rng)
        try:
            while not game.over:
                y = player.distribution(game)
                if opp is None:
                    show(game, rules)
                    bid_a = ask(game)
                else:
                    st = game.state()
                    x = opp.distribution(View(tuple(st.hand_a), tuple(st.hand_b), st.pot, tuple(sorted(st.prizes)),
                                              st.diff), rules.n)
                    bid_a = Opponent.draw(x, rng)
                bid_b = Opponent.draw(y, rng)
                r = game.play(bid_a, bid_b)
                if opp is None:
                    say(f"  you bid {bid_a}, I bid {bid_b}   score you {game.score_a} - me {game.score_b}")
        except EOFError:
            say("\nend of input: session over")
            break
        except KeyboardInterrupt as exc:
            from gops_solver.cli.signals import word
            say(f"\n{word(exc)}: session over")
            status = 143 if word(exc) == "terminated" else 130
            break
        rep = player.finish(game)
        if writer is not None:
            h = game.history
            writer.write([record_line(rules, name_a, "adaptive", replay_rounds(
                rules, [x.prize for x in h], [x.bid_a for x in h], [x.bid_b for x in h]))])
        if as_json:
            click.echo(json.dumps({"type": "game", "game": rep.game, "played": rep.played, "risk": rep.risk,
                                   "budget_before": rep.budget_before, "gifts": rep.gifts,
                                   "score_a": game.score_a, "score_b": game.score_b}, allow_nan=False))
        else:
            click.echo(_report_line(rep, game))
    s = player.summary
    summary = {"games": len(s.games), "game_value": s.game_value, "total_b": s.total, "gained": s.gained,
               "risk_taken": s.risk_taken, "gifts": s.gifts, "budget_left": player.budget.left}
    if as_json:
        click.echo(json.dumps({"type": "end", **summary}, allow_nan=False))
    else:
        unit = "points" if rules.objective == "points" else "wins - losses"
        click.echo(f"session       {len(s.games)} games; my total {s.total:+g} {unit}; game value {_num(s.game_value)} "
                   f"a game")
        click.echo(f"gained        {_num(s.gained)} over what the equilibrium guarantees")
        click.echo(f"risk taken    {_num(s.risk_taken, False)} (summed exploitability of the risky games); "
                   f"gifts {_num(s.gifts, False)}; budget left {_num(player.budget.left, False)}")
    return status

