"""The game and its stage games for Gambit, built and written by pygambit.

* :func:`extensive_game` builds the whole game tree of a small deck as a
  ``pygambit.ExtensiveGame``: chance reveals each prize (under a random
  order), A bids, B bids without seeing A's bid (one information set over
  A's bids), and every earlier bid and prize is public. Payoffs are A's and
  B's payoffs under the objective (the margin, or +-1/0), so the game's
  value is the solution's ``value``. The last round, in which every move is
  forced (one card each, one prize), is played out into the payoffs.
* :func:`strategic_game` builds a decision state's stage game
  (:func:`~gops_solver.analysis.stagegame.stage_game`) as a
  ``pygambit.StrategicGame``: A's cards are rows, B's are columns, payoffs
  A's value and its negation.

Both are written by pygambit's own writers (``to_efg``, ``to_nfg``).
The tree has ``(n!)**2`` terminal histories under a fixed order and
``(n!)**3`` under a random one, so it is built only while it has at most
:data:`EFG_MAX_TERMINALS` (n <= 4 under a random order, n <= 5 under a fixed one).
Needs ``pip install "gops-solver[gambit]"``.
"""

from __future__ import annotations

import math

from gops_solver.game.cards import format_card
from gops_solver.game.rules import Rules

#: the largest tree written as an .efg: n = 4 under a random order has 13,824 terminal histories and n = 5 under a
#: fixed order 14,400; the next sizes (n = 6 fixed: 518,400; n = 5 random: 1,728,000) take pygambit minutes and
#: hundreds of megabytes
EFG_MAX_TERMINALS = 100_000


def _pygambit():
    try:
        import pygambit
    except ImportError:
        raise ValueError("Gambit files need pygambit: pip install 'gops-solver[gambit]'") from None
    return pygambit


def efg_terminals(rules: Rules) -> int:
    """Terminal histories of the game tree: ``(n!)**2`` bid sequences, times ``n!`` prize orders when random."""
    f = math.factorial(rules.n)
    return f ** (3 if rules.random_order else 2)


def check_efg_rules(rules: Rules) -> None:
    """Refuse, in one line, rules whose tree is not written (not the classic single game, or too large)."""
    if rules.players != 2 or not rules.classic or rules.match != "single":
        raise ValueError(f"the extensive form is written for single two-player games with one-card bids, not "
                         f"{rules.describe()}: drop --players/--bid-cards/--open-prizes/--match")
    size = efg_terminals(rules)
    if size > EFG_MAX_TERMINALS:
        raise ValueError(f"the game tree of {rules.describe()} has {size:,} terminal histories "
                         f"((n!)^{3 if rules.random_order else 2}), more than the {EFG_MAX_TERMINALS:,} written as "
                         f"an .efg: use --cards 4 under any order, or --cards 5 under a fixed --order")


def _payoff(rules, diff) -> int:
    if rules.objective == "points":
        return diff
    return (diff > 0) - (diff < 0)


def extensive_game(rules: Rules):
    """The game tree of ``rules`` as a ``pygambit.ExtensiveGame`` (players ``A`` and ``B``).

    Parameters
    ----------
    rules : Rules
        A single two-player game with one-card bids and at most
        :data:`EFG_MAX_TERMINALS` terminal histories (:func:`check_efg_rules`).

    Returns
    -------
    pygambit.ExtensiveGame
        Chance actions ``prize c`` (equally likely), bids ``bid c``; B's
        information set at a round holds every bid A may have made. Its
        value for A is ``solve(rules).value``.
    """
    check_efg_rules(rules)
    gbt = _pygambit()
    from pygambit import H
    n, seq = rules.n, rules.sequence
    game = gbt.ExtensiveGame(["A", "B"], title=f"Goofspiel {rules.describe()}")
    game.description = ("Goofspiel written by gops-solver: A's payoff is "
                        + ("the margin (A's points minus B's)" if rules.objective == "points"
                           else "+1 for a win, 0 for a draw, -1 for a loss") + "; B's is its negation.")
    outcomes = [0]

    def finish(path, hand_a, hand_b, prizes, carry, diff):
        # the last round is forced: one card each, the last prize
        a, b = hand_a[0], hand_b[0]
        pot = carry + next(iter(prizes))
        diff += pot if a > b else -pot if b > a else 0  # a tie in the last round throws the pot away
        pay = _payoff(rules, diff)
        outcomes[0] += 1
        game.make_outcome(H.path(*path), {"A": pay, "B": -pay}, f"{outcomes[0]}: margin {diff:+d}")

    def reveal(path, hand_a, hand_b, prizes, carry, diff, rnd):
        if rnd == n - 1:
            finish(path, hand_a, hand_b, prizes, carry, diff)
            return
        if seq is None:
            shown = sorted(prizes)
            game.append_event(H.path(*path), {f"prize {format_card(p)}": gbt.Rational(1, len(shown))
                                              for p in shown})
            branches = [(path + [f"prize {format_card(p)}"], p) for p in shown]
        else:
            branches = [(path, seq[rnd])]
        for at, prize in branches:
            game.append_move(H.path(*at), "A", [f"bid {format_card(c)}" for c in hand_a])
            # B does not see A's bid of this round: one information set over all of them
            game.append_move(H.path(*at, ...), "B", [f"bid {format_card(c)}" for c in hand_b])
            pot = carry + prize
            for a in hand_a:
                for b in hand_b:
                    tie = a == b
                    reveal(at + [f"bid {format_card(a)}", f"bid {format_card(b)}"],
                           tuple(c for c in hand_a if c != a), tuple(c for c in hand_b if c != b), prizes - {prize},
                           pot if tie and rules.tie == "carry" else 0,
                           diff + (0 if tie else pot if a > b else -pot), rnd + 1)

    full = tuple(range(1, n + 1))
    reveal([], full, full, frozenset(full), 0, 0, 0)
    return game


def write_efg(rules: Rules, out) -> int:
    """Write :func:`extensive_game` of ``rules`` to ``out`` (a path) with pygambit's ``to_efg``.

    Returns
    -------
    int
        The terminal histories written.
    """
    extensive_game(rules).to_efg(out)
    return efg_terminals(rules)


def strategic_game(stage, title: str = "Goofspiel stage game"):
    """A stage game (:class:`~gops_solver.analysis.stagegame.StageGame`) as a ``pygambit.StrategicGame``.

    Rows are A's cards (strategies ``bid c``), columns B's; A's payoff is
    ``stage.payoff``, B's its negation, so its value is the state's value.
    """
    gbt = _pygambit()
    import numpy as np
    pay = np.asarray(stage.payoff, dtype=float)
    game = gbt.StrategicGame.from_dict({"A": pay, "B": -pay}, title=title)
    for player, cards in (("A", stage.cards_a), ("B", stage.cards_b)):
        game.relabel_strategies(player, {str(i + 1): f"bid {format_card(c)}" for i, c in enumerate(cards)})
    return game
