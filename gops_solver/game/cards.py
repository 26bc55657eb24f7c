"""Parsing and printing cards: the one place that knows A, J, Q, K.

Card values are 1..n with A = 1, J = 11, Q = 12, K = 13 (docs/rules.md).
"""

from __future__ import annotations

from typing import Iterable

from gops_solver.game.constants import MAX_CARDS

_NAMES = {"A": 1, "J": 11, "Q": 12, "K": 13}
_PRINT = {1: "A", 11: "J", 12: "Q", 13: "K"}


def parse_card(token, n: int | None = None) -> int:
    """Parse one card written as a number or as A, J, Q, K.

    Parameters
    ----------
    token : str or int
        ``"7"``, ``7``, ``"A"``, ``"q"`` ...
    n : int, optional
        Deck size; when given the card must lie in 1..n.

    Returns
    -------
    int
        The card's value.

    Raises
    ------
    ValueError
        For an unknown name or a value outside the deck.
    """
    if isinstance(token, bool):
        raise ValueError(f"card {token!r} is not a card: write a number or A, J, Q, K")
    if isinstance(token, (int,)) or (hasattr(token, "__index__") and not isinstance(token, str)):
        value = int(token)
    else:
        text = str(token).strip().upper()
        if text in _NAMES:
            value = _NAMES[text]
        elif text.lstrip("+-").isdigit():
            value = int(text)
        else:
            raise ValueError(f"unknown card {str(token).strip()!r}: write a number or A, J, Q, K")
    if n is not None and not 1 <= value <= n:
        raise ValueError(f"card {value} is outside 1..{n}: use cards between 1 and {n}")
    if value < 1 or value > MAX_CARDS:
        raise ValueError(f"card {value} is outside 1..{MAX_CARDS}: use cards between 1 and {MAX_CARDS}")
    return value


def parse_cards(spec, n: int | None = None, what: str = "cards", allow_empty: bool = True) -> tuple[int, ...]:
    """Parse a comma-separated list (or an iterable) of cards, keeping its order.

    Duplicates are rejected: each suit holds each value once.
    """
    if spec is None:
        items: list = []
    elif isinstance(spec, str):
        items = [t for t in spec.replace(" ", "").split(",") if t != ""]
    else:
        items = list(spec)
    values = tuple(parse_card(t, n) for t in items)
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{what} list card {format_card(v)} twice: each card appears once")
        seen.add(v)
    if not allow_empty and not values:
        raise ValueError(f"{what} is empty: give at least one card")
    return values


def format_card(value: int) -> str:
    """Print a card value the way players write it (A, 2..10, J, Q, K)."""
    return _PRINT.get(int(value), str(int(value)))


def format_cards(values: Iterable[int]) -> str:
    """Comma-separated card names."""
    return ",".join(format_card(v) for v in values)
