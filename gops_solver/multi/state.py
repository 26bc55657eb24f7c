"""Decision states of the 3- and 4-player games: validation and canonical keys.

A decision state (docs/rules.md "Three and four players") is one hand per player
(equal sizes), the pot, the hidden prizes and the scores so far.

Two reductions make states share their values:

* **Relabelling.** Bid cards only ever meet in comparisons and score
  nothing, so the hands enter the game only through the order of their cards:
  each hand becomes a bit mask over the ranks of the cards in the union of
  all hands (the two-player encoding does the same per pair).
* **Player symmetry.** Permuting the players together with their hands and
  scores permutes the values. States are stored once, with the players
  sorted by ``(mask, score key)``; :func:`canonical` returns that order.

Under ``points`` the scores only add to the values (value = score +
continuation), so they are not part of the key; under ``win`` they are,
relative to the leader and clipped for players who can no longer reach the
top (their exact deficit cannot change anyone's payoff).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gops_solver.game.cards import format_cards, parse_cards
from gops_solver.game.rules import Rules, validate_state

__all__ = ["MultiState", "validate_multi_state", "relabel", "canonical", "parse_hands", "parse_scores"]


@dataclass(frozen=True)
class MultiState:
    """A validated decision state of a 3- or 4-player game.

    Attributes
    ----------
    hands : tuple of tuple of int
        Each player's remaining bid cards, ascending.
    pot : int
        Revealed prize plus carried pot.
    prizes : tuple of int
        Hidden prizes, ascending for a random order, in reveal order otherwise.
    scores : tuple of int
        Points each player has won so far.
    """

    hands: tuple
    pot: int
    prizes: tuple
    scores: tuple

    @property
    def k(self) -> int:
        """Cards in each hand."""
        return len(self.hands[0])

    def describe(self) -> str:
        """One line for people."""
        hands = " | ".join(f"P{i + 1} {format_cards(h)}" for i, h in enumerate(self.hands))
        scores = ",".join(map(str, self.scores))
        return f"{hands} | pot {self.pot} | hidden {format_cards(self.prizes) or '-'} | scores {scores}"


def parse_hands(text: str) -> list:
    """Split ``"1,2,3;2,3,4;1,3,4"`` into one card list per player (cards parsed later)."""
    return [part.strip() for part in str(text).split(";")]


def parse_scores(text) -> tuple:
    """``"0,3,5"`` (or a sequence) -> tuple of int; one line on bad input."""
    items = str(text).replace(" ", "").split(",") if isinstance(text, str) else list(text)
    out = []
    for item in items:
        try:
            value = int(item)
        except (TypeError, ValueError):
            raise ValueError(f"score {item!r} is not a whole number: give scores like 0,3,5") from None
        if isinstance(item, float) and item != value:
            raise ValueError(f"score {item!r} is not a whole number: give scores like 0,3,5")
        out.append(value)
    return tuple(out)


def validate_multi_state(rules: Rules, hands, pot, prizes=(), scores=None) -> MultiState:
    """Check that a decision state can occur under ``rules`` (3 or 4 players).

    Parameters
    ----------
    rules : Rules
        With ``players`` 3 or 4.
    hands : sequence of (iterable of int or str, or comma-separated str)
        One hand per player; a single string ``"1,2;3,4;1,4"`` also works.
    pot : int
        The revealed prize plus any carried pot.
    prizes : iterable
        Hidden prizes (hand size - 1 of them).
    scores : sequence of int, optional
        Points won so far, one per player (default all 0).

    Returns
    -------
    MultiState

    Raises
    ------
    ValueError
        One line naming what is wrong and how to fix it.
    """
    m, n = rules.players, rules.n
    if isinstance(hands, str):
        hands = parse_hands(hands)
    hands = list(hands)
    if len(hands) != m:
        raise ValueError(f"{len(hands)} hands given for {m} players: give one hand per player")
    parsed = tuple(tuple(sorted(parse_cards(h, n, what=f"hand of player {i + 1}"))) for i, h in enumerate(hands))
    sizes = [len(h) for h in parsed]
    if min(sizes) == 0:
        raise ValueError("a hand is empty: give each player at least one card")
    if len(set(sizes)) != 1:
        raise ValueError(f"hands differ in size ({', '.join(map(str, sizes))} cards): "
                         "every player holds the same number of cards")
    # pot and hidden prizes follow the two-player rules exactly (same deck, same tie rule)
    two = validate_state(rules, parsed[0], parsed[1], pot, prizes, 0)
    scores = (0,) * m if scores is None else (parse_scores(scores) if isinstance(scores, str) else tuple(scores))
    if len(scores) != m:
        raise ValueError(f"{len(scores)} scores given for {m} players: give one score per player")
    scores = parse_scores(scores)
    if min(scores) < 0:
        raise ValueError(f"score {min(scores)} is negative: scores are points won so far, 0 or more")
    if not _scores_possible(rules, two.prizes, two.pot, two.carry_chain, scores):
        raise ValueError(f"scores {','.join(map(str, scores))} cannot occur: each must be a sum of distinct "
                         f"prizes already revealed and taken (not the ones in the pot), no prize counted twice")
    return MultiState(parsed, two.pot, two.prizes, scores)


def _scores_possible(rules: Rules, hidden, pot, chain, scores) -> bool:
    """Can the revealed prizes be split into disjoint wins giving ``scores``, with ``pot`` left in the pot?

    Every revealed prize was won by one player, or is in the pot, or (only
    under ``discard``) was discarded by a tie. Under a fixed order the pot's
    cards are known; under a random one the pot is the current prize plus
    any subset of the earlier ones.
    """
    n = rules.n
    revealed = [v for v in range(1, n + 1) if v not in hidden]
    if rules.random_order:
        cards, pot_left = revealed, pot
    else:
        k = len(hidden) + 1
        seq = rules.sequence
        in_pot = set(seq[n - k - chain:n - k + 1])
        cards, pot_left = [v for v in revealed if v not in in_pot], 0
    discard = rules.tie == "discard"

    @lru_cache(maxsize=None)
    def fits(i, need, pot_need):
        if i == len(cards):
            return pot_need == 0 and all(x == 0 for x in need)
        c = cards[i]
        if pot_need >= c and fits(i + 1, need, pot_need - c):
            return True
        if discard and fits(i + 1, need, pot_need):
            return True
        for j, x in enumerate(need):
            if x >= c and fits(i + 1, need[:j] + (x - c,) + need[j + 1:], pot_need):
                return True
        return False

    return fits(0, tuple(scores), pot_left)


def relabel(hands) -> tuple:
    """Hands -> bit masks over the ranks of their union (only the order of cards matters)."""
    union = sorted(set().union(*map(set, hands)))
    rank = {c: r for r, c in enumerate(union)}
    return tuple(sum(1 << rank[c] for c in h) for h in hands)


def canonical(masks, score_keys) -> tuple:
    """Canonical player order: ``perm[j]`` is the player at canonical position ``j``.

    Players are sorted by ``(mask, score key)``; equal entries are
    interchangeable, so any order among them gives the same values.
    """
    return tuple(sorted(range(len(masks)), key=lambda i: (masks[i], score_keys[i])))
