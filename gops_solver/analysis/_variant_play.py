"""Play a two-card-bid or open-prize game at the terminal as A against the equilibrium (B), or two strategies."""

from __future__ import annotations

import sys

import click
import numpy as np

from gops_solver.game.cards import format_card, format_cards, parse_cards
from gops_solver.game.constants import GUARANTEE_TOL


def _bid_text(bid) -> str:
    return "+".join(format_card(c) for c in bid)


def _read(prompt):
    click.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if line == "":
        raise EOFError
    text = line.strip()
    if not sys.stdin.isatty():
        click.echo(text)  # piped input: echo it so the transcript reads like a terminal
    return text


def _ask_bid(hand, size, n):
    while True:
        text = _read(f"your bid [{format_cards(hand)}]> ")
        try:
            cards = parse_cards(text.replace("+", ","), n, what="bid")
        except ValueError as exc:
            click.echo(f"  {exc}")
            continue
        if len(cards) != size or len(set(cards)) != size:
            click.echo(f"  bid {size} different card{'s' if size > 1 else ''}, e.g. "
                       f"{'+'.join(map(format_card, sorted(hand)[:size]))}")
        elif not set(cards) <= set(hand):
            click.echo(f"  you do not hold {format_cards(sorted(set(cards) - set(hand)))}: choose from {format_cards(hand)}")
        else:
            return tuple(sorted(cards))


def _ask_prize(row, n):
    while True:
        text = _read(f"you won: take a prize [{format_cards(row)}]> ")
        try:
            c = parse_cards(text, n, what="prize")
        except ValueError as exc:
            click.echo(f"  {exc}")
            continue
        if len(c) == 1 and c[0] in row:
            return c[0]
        click.echo(f"  take one prize of the row: {format_cards(row)}")


def play_variant(sol, seed=None, hint=False, emit=None, strat_a=None, strat_b="equilibrium") -> int:
    """Play one game of ``sol.rules``; return the exit status.

    Parameters
    ----------
    sol : VariantSolution
    seed : int, optional
    hint : bool
        Show A's equilibrium distribution before each bid.
    emit : callable, optional
        ``emit(obj)`` for each JSON line of the transcript (start, rounds, end).
    strat_a : str, optional
        None: A's bids are read from stdin; otherwise a strategy of
        :data:`~gops_solver.analysis._variant_matchup.STRATEGIES` plays A.
    strat_b : str
        B's strategy (the equilibrium when a person plays A).
    """
    from gops_solver.analysis._variant_matchup import Table
    table = Table(sol)
    rules = sol.rules
    n, m = rules.n, rules.open_prizes
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    rng = np.random.default_rng(seed)
    pile = list(rules.sequence) if not rules.random_order else [int(c) for c in rng.permutation(np.arange(1, n + 1))]
    hand_a, hand_b = list(range(1, n + 1)), list(range(1, n + 1))
    row, carry, score_a, score_b, given_up = [], 0, 0, 0, 0.0
    click.echo(f"gops play  {rules.describe()}  seed {seed}")
    if strat_a is None:
        click.echo("You are A; the equilibrium is B. Bid "
                   + ("two cards as 3+5 (one card when one is left)" if rules.bid_cards == 2 else "a card")
                   + "; Ctrl-D ends.")
    else:
        click.echo(f"A plays {strat_a}, B plays {strat_b}.")
    if emit:
        emit({"type": "start", "rules": rules.to_dict(), "seed": seed, "a": strat_a or "you", "b": strat_b})

    def draw(mix):
        keys = list(mix)
        q = np.clip(np.array([mix[k] for k in keys], dtype=float), 0, None)
        return keys[int(rng.choice(len(keys), p=q / q.sum()))]
    rnd = 0
    try:
        while hand_a:
            rnd += 1
            while len(row) < m and pile:
                row.append(pile.pop(0))
            row.sort()
            size = min(rules.bid_cards, len(hand_a))
            last = len(hand_a) == size
            diff = score_a - score_b
            if m == 1:
                res = sol.query(hand_a, hand_b, carry + row[0], pile, diff)
            else:
                res = sol.query(hand_a, hand_b, carry, pile, diff, row=row)
            click.echo("")
            if m == 1:
                extra = f" + {carry} carried = pot {carry + row[0]}" if carry else ""
                click.echo(f"Round {rnd}: prize {format_card(row[0])} revealed{extra}")
            else:
                click.echo(f"Round {rnd}: row {format_cards(row)}" + (f", carried pot {carry}" if carry else ""))
            click.echo(f"  face down       {len(pile)} prize{'s' if len(pile) != 1 else ''}"
                       + (f" ({format_cards(sorted(pile))})" if pile else ""))
            click.echo(f"  your hand       {format_cards(sorted(hand_a))}")
            click.echo(f"  my hand         {format_cards(sorted(hand_b))}")
            click.echo(f"  score           you {score_a} - me {score_b}")
            if hint:
                click.echo("  hint            " + "  ".join(f"{_bid_text(b)}:{p:.3f}" for b, p in res.strategy_a.items()))
            state = (tuple(sorted(hand_a)), tuple(sorted(hand_b)), tuple(pile), tuple(row), carry, diff)
            if strat_a is None:
                mine_a = _ask_bid(hand_a, size, n)
            else:
                mine_a = draw(table.mix(strat_a, state, "a"))
            bids_b = list(res.strategy_b)
            p = np.clip(np.array([res.strategy_b[b] for b in bids_b]), 0, None)
            if strat_b == "equilibrium":
                mine_b = bids_b[int(rng.choice(len(bids_b), p=p / p.sum()))]
            else:
                mine_b = draw(table.mix(strat_b, state, "b"))
            round_row, round_carry = list(row), carry
            y = p / p.sum()
            rows = res.matrix @ y + res.offset
            i = list(res.strategy_a).index(mine_a)
            lost = max(0.0, res.value - float(rows[i]))
            lost = 0.0 if lost <= GUARANTEE_TOL * max(1.0, abs(res.value)) else lost
            given_up += lost
            for c in mine_a:
                hand_a.remove(c)
            for c in mine_b:
                hand_b.remove(c)
            sa, sb = sum(mine_a), sum(mine_b)
            head = f"  you bid {_bid_text(mine_a)} ({sa}), I bid {_bid_text(mine_b)} ({sb}): "
            if sa != sb:
                if m == 1:
                    prize = row[0]
                elif sa > sb:
                    click.echo(head + "you win")
                    prize = _ask_prize(row, n) if strat_a is None else table.choice(strat_a, state, mine_a, mine_b)
                else:
                    prize = table.choice(strat_b, state, mine_a, mine_b)
                gain = carry + prize
                row.remove(prize)
                carry = 0
                if sa > sb:
                    score_a += gain
                    click.echo((head if m == 1 else "  ") + f"you take {gain}")
                else:
                    score_b += gain
                    click.echo(head + f"I take {gain}" + (f" (prize {format_card(prize)})" if m > 1 else ""))
            else:
                low = row.pop(0)
                if rules.tie == "carry" and not last:
                    carry += low
                    click.echo(head + f"tie, {format_card(low)} joins the pot (now {carry})")
                else:
                    click.echo(head + f"tie, {format_card(low)} and the pot are discarded")
                    carry = 0
            click.echo("  equilibrium     " + "  ".join(f"{_bid_text(b)}:{q:.3f}" for b, q in res.strategy_a.items()))
            click.echo(f"  value given up  {lost:.4f}")
            if emit:
                emit({"type": "round", "round": rnd, "row": round_row, "carried_in": round_carry,
                      "bid_a": list(mine_a), "bid_b": list(mine_b),
                      "outcome": "A" if sa > sb else ("B" if sb > sa else "tie"),
                      "prize_taken": None if sa == sb else prize, "score_a": score_a, "score_b": score_b,
                      "value_given_up": lost})
    except EOFError:
        click.echo(f"\nend of input: game abandoned in round {rnd} (score you {score_a} - me {score_b})")
        if emit:
            emit({"type": "end", "abandoned": "end of input", "round": rnd, "score_a": score_a, "score_b": score_b,
                  "value_given_up": given_up})
        return 0
    d = score_a - score_b
    click.echo("")
    click.echo(f"final score      you {score_a} - me {score_b}: {'you win' if d > 0 else 'I win' if d < 0 else 'a draw'}")
    unit = "expected points" if rules.objective == "points" else "P(win) - P(loss)"
    click.echo(f"value given up   {given_up:.4f} in total ({unit})")
    if emit:
        emit({"type": "end", "value_given_up": given_up, "unit": unit, "score_a": score_a, "score_b": score_b,
              "diff": d, "outcome": "A" if d > 0 else ("B" if d < 0 else "draw")})
    return 0
