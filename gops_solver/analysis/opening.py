"""The opening of a solved game: the equilibrium's first bid against each first prize."""

from __future__ import annotations


def opening(solution) -> list:
    """A's equilibrium first-bid distribution for each prize that can open the game.

    Parameters
    ----------
    solution : Solution
        A solved game or match (for a match: its first game, from an even
        match score).

    Returns
    -------
    list of (int, dict)
        ``(first prize, {card: probability})``, one pair per possible first
        prize (one pair for a fixed order). The start is symmetric, so B's
        mirror strategy is optimal too.
    """
    rules = solution.rules
    n = rules.n
    hand = tuple(range(1, n + 1))
    firsts = hand if rules.random_order else (rules.sequence[0],)
    rows = []
    for p in firsts:
        hidden = tuple(c for c in hand if c != p) if rules.random_order else rules.sequence[1:]
        res = solution.query(hand, hand, p, hidden, 0)
        rows.append((p, dict(res.strategy_a)))
    return rows


def opening_text(rows, digits: int = 3) -> list:
    """Lines of a compact table of :func:`opening`'s rows: a prize per line, a card per column.

    Probabilities below half a unit of the last digit print as ``.``.
    """
    from gops_solver.game.cards import format_card
    if not rows:
        return []
    cards = sorted(rows[0][1])
    width = digits + 2
    lines = ["prize " + " ".join(f"{format_card(c):>{width}}" for c in cards)]
    for prize, strat in rows:
        cells = []
        for c in cards:
            p = strat.get(c, 0.0)
            cells.append(f"{'.':>{width}}" if p < 0.5 * 10 ** -digits else f"{p:>{width}.{digits}f}")
        lines.append(f"{format_card(prize):>5} " + " ".join(cells))
    return lines
