"""What the explorer shows about a position, built from the public query API.

No web code here: the default position of a rule set, the successor of a
position after both bids and the next prize (docs/rules.md, "The game" and "Tie
rules"), the stage matrix spread over single cards, and the first-round table.
"""

from __future__ import annotations

from gops_solver.game.cards import parse_card
from gops_solver.game.rules import Rules, validate_state

#: hand size of the default position when no stored solution is served: its
#: sub-game solves in well under a second on the reference machine
DEFAULT_LIVE_HAND = 7
#: a card is in a strategy's support when played with at least this probability
#: (the stage solver's exact zeros come back as 0 or within rounding of it)
SUPPORT_MIN_PROB = 1e-9


def default_position(rules: Rules, stored: bool) -> dict:
    """A valid position to open the page at, as query parameters.

    The opening position (all cards in hand, diff 0) when a stored solution
    is served or the deck is small; otherwise a late position whose sub-game
    solves quickly. Random order: the top ``k`` cards in hand, the lowest of
    them revealed. Fixed order: the order decides the revealed and hidden prizes.
    """
    n = rules.n
    m = rules.open_prizes
    if m >= 2:
        # open prizes: the row after the first fill, nothing carried
        hand = list(range(1, n + 1))
        deck = list(rules.sequence) if not rules.random_order else hand
        row = sorted(deck[:m])
        return {"hand_a": _cards(hand), "hand_b": _cards(hand), "pot": "0", "row": _cards(row),
                "prizes": _cards(deck[m:]), "diff": "0"}
    k = n if stored or n <= DEFAULT_LIVE_HAND else DEFAULT_LIVE_HAND
    hand = list(range(n - k + 1, n + 1))
    if rules.random_order:
        pot, hidden = n - k + 1, hand[1:]
    else:
        pot, hidden = rules.sequence[n - k], list(rules.sequence[n - k + 1:])
    return {"hand_a": _cards(hand), "hand_b": _cards(hand), "pot": str(pot), "prizes": _cards(hidden),
            "diff": "0"}


def step(rules: Rules, state, bid_a, bid_b, next_prize=None) -> dict:
    """The position after both bids and the next prize's reveal.

    Parameters
    ----------
    rules : Rules
    state : DecisionState
        A validated state (see :func:`~gops_solver.game.rules.validate_state`).
    bid_a, bid_b : int or str
        Cards from A's and B's hands.
    next_prize : int or str, optional
        The hidden prize revealed next; under a fixed order it must be the
        order's next prize (None picks it).

    Returns
    -------
    dict
        ``outcome`` (``"A"``, ``"B"`` or ``"tie"``), ``taken`` (points won this
        round), ``carried`` (pot carried into the next round) and either
        ``position`` (query parameters of the successor) or, after the last
        round, ``final_diff`` (score A - B at the end of the game).

    Raises
    ------
    ValueError
        If a bid is not in its player's hand or the prize is not the next one.
    """
    a, b = parse_card(bid_a, rules.n), parse_card(bid_b, rules.n)
    if a not in state.hand_a:
        raise ValueError(f"A does not hold {a}: bid one of {_cards(sorted(state.hand_a))}")
    if b not in state.hand_b:
        raise ValueError(f"B does not hold {b}: bid one of {_cards(sorted(state.hand_b))}")
    diff, pot = state.diff, state.pot
    outcome = "A" if a > b else ("B" if b > a else "tie")
    diff += pot if a > b else (-pot if b > a else 0)
    last = state.k == 1
    # carry: a tie keeps the pot for the next prize, except in the last round (docs/rules.md)
    carried = pot if outcome == "tie" and rules.tie == "carry" and not last else 0
    out = {"outcome": outcome, "taken": 0 if outcome == "tie" else pot, "carried": carried}
    if last:
        return {**out, "final_diff": diff}
    if next_prize is None or next_prize == "":
        if rules.random_order:
            raise ValueError(f"choose the next prize: one of {_cards(state.prizes)}")
        nxt = state.prizes[0]
    else:
        nxt = parse_card(next_prize, rules.n)
    allowed = state.prizes if rules.random_order else state.prizes[:1]
    if nxt not in allowed:
        raise ValueError(f"prize {nxt} cannot come next: choose one of {_cards(allowed)}")
    hand_a = [c for c in state.hand_a if c != a]
    hand_b = [c for c in state.hand_b if c != b]
    prizes = [p for p in state.prizes if p != nxt]
    nxt_state = validate_state(rules, hand_a, hand_b, nxt + carried, prizes, diff)  # must hold: checked here
    return {**out, "position": {"hand_a": _cards(sorted(nxt_state.hand_a)), "hand_b": _cards(sorted(nxt_state.hand_b)),
                                "pot": str(nxt_state.pot), "prizes": _cards(nxt_state.prizes),
                                "diff": str(nxt_state.diff)}}


def stage_view(result) -> dict:
    """The stage game of a query over single cards, for the heatmap.

    Parameters
    ----------
    result : QueryResult

    Returns
    -------
    dict
        ``cards_a`` and ``cards_b`` (rows and columns, ascending), ``matrix``
        (value for A when A bids the row card and B the column card, in the
        units of the query's value: the stage matrix plus its offset; cards
        of one class share their class's entries), and ``support_a``,
        ``support_b``: the cards the optimal strategies play.
    """
    row_of = {c: i for i, cls in enumerate(result.classes_a) for c in cls}
    col_of = {c: j for j, cls in enumerate(result.classes_b) for c in cls}
    cards_a, cards_b = sorted(row_of), sorted(col_of)
    m, off = result.matrix, result.offset
    matrix = [[float(m[row_of[a], col_of[b]] + off) for b in cards_b] for a in cards_a]
    return {"cards_a": cards_a, "cards_b": cards_b, "matrix": matrix,
            "support_a": [c for c in cards_a if result.strategy_a[c] > SUPPORT_MIN_PROB],
            "support_b": [c for c in cards_b if result.strategy_b[c] > SUPPORT_MIN_PROB]}


def first_round_positions(rules: Rules) -> list:
    """The opening positions, one per possible first prize (one for a fixed order)."""
    n = rules.n
    hand = _cards(range(1, n + 1))
    firsts = range(1, n + 1) if rules.random_order else rules.sequence[:1]
    return [{"hand_a": hand, "hand_b": hand, "pot": str(p),
             "prizes": _cards(c for c in (range(1, n + 1) if rules.random_order else rules.sequence[1:]) if c != p),
             "diff": "0"} for p in firsts]


def _cards(cards) -> str:
    return ",".join(str(c) for c in cards)


def bid_label(bid) -> str:
    """A variant's bid as the page and the API write it: ``3+5`` for a pair, ``4`` for one card."""
    return "+".join(str(c) for c in bid) if isinstance(bid, tuple) else str(bid)


def variant_stage_view(result) -> dict:
    """The stage game of a variant's query over its bids (pairs of cards for two-card bids).

    Parameters
    ----------
    result : QueryResult
        A variant solution's answer: each row and column of ``matrix`` is one bid,
        in the order of ``strategy_a`` and ``strategy_b``.

    Returns
    -------
    dict
        As :func:`stage_view`, with ``cards_a``/``cards_b`` the bids' labels
        (``"3+5"``) and ``support_a``/``support_b`` those played; open prizes
        add ``choices``: ``"bid_a|bid_b"`` -> the prize the winner takes.
    """
    bids_a, bids_b = list(result.strategy_a), list(result.strategy_b)
    m, off = result.matrix, result.offset
    return {"cards_a": [bid_label(b) for b in bids_a], "cards_b": [bid_label(b) for b in bids_b],
            "matrix": [[float(m[i, j] + off) for j in range(len(bids_b))] for i in range(len(bids_a))],
            "support_a": [bid_label(b) for b in bids_a if result.strategy_a[b] > SUPPORT_MIN_PROB],
            "support_b": [bid_label(b) for b in bids_b if result.strategy_b[b] > SUPPORT_MIN_PROB],
            "choices": {f"{bid_label(a)}|{bid_label(b)}": int(r) for (a, b), r in result.choices.items()}}


def variant_first_round(rules: Rules, opening) -> dict:
    """The first-round table of a variant from its :class:`~gops_solver.engine.base.Opening`.

    One row per first reveal (the revealed prize, or the row of open prizes),
    one column per opening bid (labels as :func:`bid_label`).
    """
    bids = list(opening.decisions[0].result.strategy_a)
    rows = []
    for d in opening.decisions:
        rows.append({"prize": _cards(d.row) if d.row else str(d.pot), "value": float(d.result.value),
                     "strategy": [float(d.result.strategy_a.get(b, 0.0)) for b in bids]})
    return {"rules": {**rules.to_dict(), "match": rules.match, "draw": rules.draw}, "cards": [bid_label(b) for b in bids],
            "rows": rows, "value": float(opening.value)}
