"""What the commands print: CSV rows for ``--csv`` and numbers for people (JSON keeps the raw floats)."""

from __future__ import annotations

import csv
import io

from gops_solver.game.cards import format_card
from gops_solver.game.constants import ZERO_PRINT_TOL


def csv_text(header, rows) -> str:
    """The CSV text (no trailing newline) of ``rows`` under ``header``.

    Parameters
    ----------
    header : sequence of str
    rows : iterable of sequence
        Values as written by :mod:`csv` (floats with ``repr`` precision).
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow(row)
    return buf.getvalue().rstrip("\n")


def rules_cells(rules) -> list:
    """``n, tie, objective, order`` of a game, the first cells of every CSV row."""
    return [rules.n, rules.tie, rules.objective, rules.order_name]


RULES_HEADER = ["n", "tie", "objective", "order"]

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
    cells = [[f"{nozero(v):.{digits}f}" for v in row] for row in game.payoff]
    width = max([len(c) for row in cells for c in row] + [3])
    lines = ["A \\ B " + " ".join(f"{format_card(c):>{width}}" for c in game.cards_b)]
    for card, row in zip(game.cards_a, cells):
        lines.append(f"{format_card(card):>5} " + " ".join(f"{c:>{width}}" for c in row))
    return lines
