"""Numbers for people: what the text output of the commands prints (JSON keeps the raw floats)."""

from __future__ import annotations

from .constants import ZERO_PRINT_TOL


def nozero(x: float) -> float:
    """``x``, or ``0.0`` when ``|x| <= ZERO_PRINT_TOL`` (so it never prints as ``-0`` or ``1e-16``)."""
    return 0.0 if abs(x) <= ZERO_PRINT_TOL else float(x)


def matrix_text(game, digits: int = 4) -> list:
    """Lines of a stage game table: a header of B's cards, then one row per A card.

    Parameters
    ----------
    game : StageGame
    digits : int
        Decimals printed.

    Returns
    -------
    list of str
    """
    from .cards import format_card
    cells = [[f"{nozero(v):.{digits}f}" for v in row] for row in game.payoff]
    width = max([len(c) for row in cells for c in row] + [3])
    lines = ["A \\ B " + " ".join(f"{format_card(c):>{width}}" for c in game.cards_b)]
    for card, row in zip(game.cards_a, cells):
        lines.append(f"{format_card(card):>5} " + " ".join(f"{c:>{width}}" for c in row))
    return lines
