"""The variants' rounds over actual cards: fills, bids, outcomes, and the export that walks them.

A state before the fill is ``(hand_a, hand_b, pile, row, carry, diff)``:
sorted hands, the face-down pile (in reveal order for a fixed order, else
sorted), the face-up row (sorted), the carried pot and the score difference.
A round fills the row from the pile (docs/rules.md "Variants of 002"), both
players bid, the larger total takes the carried pot and a prize of the
winner's choice from the row, and a tie moves the lowest prize out of the
row (into the pot under ``carry``). :mod:`gops_solver.analysis` plays
strategies on the same mechanics.
"""

from __future__ import annotations

import itertools

import numpy as np

#: rows an export builds unless told otherwise (as the classic export)
DEFAULT_MAX_ROWS = 2_000_000


def start(rules) -> tuple:
    """The state before the first fill."""
    n = rules.n
    full = tuple(range(1, n + 1))
    pile = tuple(rules.sequence) if not rules.random_order else full
    return (full, full, pile, (), 0, 0)


def fills(rules, state) -> list:
    """``[(probability, state after the fill)]`` of a state before the fill."""
    a, b, pile, row, carry, diff = state
    need = min(rules.open_prizes - len(row), len(pile))
    draws = [pile[:need]] if not rules.random_order else list(itertools.combinations(pile, need))
    out = []
    for d in draws:
        rest = tuple(p for p in pile if p not in d)
        out.append((1.0 / len(draws), (a, b, rest, tuple(sorted(row + tuple(d))), carry, diff)))
    return out


def bids(rules, hand) -> list:
    """Every bid of ``hand``: tuples of ``min(bid_cards, cards left)`` cards, ascending."""
    return list(itertools.combinations(hand, min(rules.bid_cards, len(hand))))


def after(rules, state, x, y, prize) -> tuple:
    """The state after bids ``x``, ``y`` at a decision state; ``prize`` is the winner's pick (unused on a tie)."""
    a, b, pile, row, carry, diff = state
    a2 = tuple(c for c in a if c not in x)
    b2 = tuple(c for c in b if c not in y)
    sx, sy = sum(x), sum(y)
    if sx != sy:
        gain = carry + prize
        return (a2, b2, pile, tuple(p for p in row if p != prize), 0, diff + (gain if sx > sy else -gain))
    kept = carry + row[0] if rules.tie == "carry" else 0
    return (a2, b2, pile, row[1:], kept, diff)


def query_args(rules, state) -> dict:
    """The keyword arguments of ``solution.query`` at a decision state (after the fill)."""
    a, b, pile, row, carry, diff = state
    if rules.open_prizes == 1:
        return dict(hand_a=a, hand_b=b, pot=carry + row[0], prizes=pile, diff=diff)
    return dict(hand_a=a, hand_b=b, pot=carry, prizes=pile, diff=diff, row=row)


def decision_states(rules, rounds=None, level=None, max_rows=DEFAULT_MAX_ROWS) -> list:
    """``(round, state)`` for every reachable decision state of the first rounds (or of one level).

    Raises
    ------
    ValueError
        Bad ``rounds``/``level`` or more states than ``max_rows``.
    """
    n = rules.n
    sizes = []
    k = n
    while k > 0:
        sizes.append(k)
        k -= min(rules.bid_cards, k)
    R = len(sizes)
    if level is not None:
        if int(level) not in sizes:
            raise ValueError(f"level {level} never occurs with {rules.bid_cards}-card bids and n={n}: use one of "
                             f"{', '.join(map(str, sizes))} cards in each hand")
        first = last = sizes.index(int(level)) + 1
        if rounds is not None and last > rounds:
            raise ValueError(f"level {level} is round {last}, after the {rounds} rounds asked for: drop rounds "
                             f"or choose a later level")
    else:
        last = R if rounds is None else int(rounds)
        if not 1 <= last <= R:
            raise ValueError(f"rounds {rounds} is outside 1..{R}: give how many rounds to export")
        first = 1
    frontier = {start(rules)}
    out = []
    for rnd in range(1, last + 1):
        decided = sorted({st for s in frontier for _, st in fills(rules, s)})
        if rnd >= first:
            if len(out) + len(decided) > max_rows:
                raise ValueError(f"round {rnd} brings the export to more than the {max_rows:,} rows allowed: "
                                 f"export fewer rounds, one level, or raise max_rows")
            out.extend((rnd, st) for st in decided)
        if rnd == last:
            break
        nxt = set()
        for st in decided:
            for x in bids(rules, st[0]):
                for y in bids(rules, st[1]):
                    picks = st[3] if sum(x) != sum(y) else (None,)
                    for prize in picks:
                        nxt.add(after(rules, st, x, y, prize))
        frontier = nxt
    return out


def _text(cards) -> str:
    return ",".join(map(str, cards))


def variant_frame(sol, rounds=None, level=None, max_rows=None):
    """:meth:`VariantSolution.to_frame <gops_solver.variants.solution.VariantSolution.to_frame>`."""
    try:
        import pandas as pd
    except ImportError:
        raise ValueError("export needs pandas and pyarrow: pip install 'gops-solver[export]'") from None
    rules = sol.rules
    n = rules.n
    states = decision_states(rules, rounds, level, DEFAULT_MAX_ROWS if max_rows is None else max_rows)
    rows = len(states)
    sa, sb = np.zeros((rows, n)), np.zeros((rows, n))
    values = np.empty(rows)
    bids_a, bids_b, pots = [], [], []
    for i, (_, st) in enumerate(states):
        args = query_args(rules, st)
        q = sol.query(**args)
        values[i] = q.value
        pots.append(args["pot"])
        for c, p in q.cards_a.items():
            sa[i, c - 1] = p
        for c, p in q.cards_b.items():
            sb[i, c - 1] = p
        bids_a.append(" ".join(f"{'+'.join(map(str, x))}:{p:.17g}" for x, p in q.bids_a.items()))
        bids_b.append(" ".join(f"{'+'.join(map(str, y))}:{p:.17g}" for y, p in q.bids_b.items()))
    cols = {"round": np.array([r for r, _ in states], dtype=np.int8),
            "k": np.array([len(st[0]) for _, st in states], dtype=np.int8),
            "hand_a": [st[0] for _, st in states],
            "hand_b": [st[1] for _, st in states],
            "pot": np.array(pots, dtype=np.int16),
            "row": [_text(st[3]) if rules.open_prizes > 1 else "" for _, st in states],
            "prizes": [st[2] for _, st in states],
            "diff": np.array([st[5] for _, st in states], dtype=np.int16),
            "value": values}
    cols.update({f"a_{c}": sa[:, c - 1] for c in range(1, n + 1)})
    cols.update({f"b_{c}": sb[:, c - 1] for c in range(1, n + 1)})
    cols.update({"bids_a": bids_a, "bids_b": bids_b})
    frame = pd.DataFrame(cols)
    frame.attrs["rules"] = rules.to_dict()
    return frame
