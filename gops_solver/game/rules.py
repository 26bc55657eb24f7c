"""Rules: the validated description of one Goofspiel game (docs/rules.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gops_solver.game.cards import parse_cards
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.errors import InputValueError

TIES = ("carry", "discard")
OBJECTIVES = ("points", "win")
NAMED_ORDERS = ("random", "ascending", "descending")
MATCHES = ("single", "session", "best-of-3", "best-of-5")
DRAWS = ("replay", "half")
TIEBREAKS = ("share", "extra-game", "total-score")
BID_CARDS = (1, 2)
#: games in a session (document 000)
SESSION_GAMES = 3
#: players at the table: 2 is the classic game, 3 and 4 are 002's multi-player games
PLAYERS = (2, 3, 4)


@dataclass(frozen=True)
class Rules:
    """A two-player Goofspiel game, validated on construction.

    Parameters
    ----------
    n : int
        Deck size, 1..13 (13 is the full game).
    tie : {"carry", "discard"}
        ``carry`` (the documents' rule): a tie keeps the pot for the next
        round, a tie in the last round discards it. ``discard``: a tie
        discards the pot.
    objective : {"points", "win"}
        ``points``: A's payoff is the final score margin; ``win``: +1/0/-1.
    order : {"random", "ascending", "descending"} or sequence of int or str
        Prize order: uniformly random, or fixed and public (a permutation of
        1..n, e.g. ``(3, 1, 5, 2, 4)`` or ``"3,1,5,2,4"``).
    match : {"single", "session", "best-of-3", "best-of-5"}
        ``single``: one game. ``session``: 3 games, score totals summed, the
        larger total wins (under ``points`` the value is the expected total
        margin). ``best-of-N``: games won count, the first to win a majority
        of N takes the match; needs ``objective="win"`` (the value is
        P(A wins the match) - P(B wins it)).
    draw : {"replay", "half"}
        Best-of matches: a drawn game is replayed (the match score stays), or
        counts half a game to each player (at most N games; equal match
        scores after N games draw the match).
    bid_cards : {1, 2}
        Cards each player bids per round; 2: the sum of a pair bids
        (docs/rules.md "Two-card bids").
    open_prizes : int
        Prizes face up in the row, 1..n; 1 is the classic game (docs/rules.md
        "Open prizes").
    tiebreak : {"share", "extra-game", "total-score"}
        How a best-of match that ends level (``draw="half"``) is settled
        (docs/rules.md "Match tiebreak"); anything but ``share`` needs a best-of
        match with ``draw="half"``.
    players : {2, 3, 4}
        Players at the table (docs/rules.md "Three and four players"); 3 and 4
        are solved by :mod:`gops_solver.multi` (single games only).

    Raises
    ------
    ValueError
        With a one-line message naming the problem and the fix.
    """

    n: int = MAX_CARDS
    tie: str = "carry"
    objective: str = "points"
    order: object = "random"
    match: str = "single"
    draw: str = "replay"
    bid_cards: int = 1
    open_prizes: int = 1
    tiebreak: str = "share"
    players: int = 2
    sequence: tuple | None = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        n = self.n
        if isinstance(n, bool) or not isinstance(n, int):
            try:
                n = int(str(n))
            except ValueError:
                raise InputValueError(f"n={self.n!r} is not a whole number: give a deck size 1..{MAX_CARDS}",
                                      f"--cards {self.n!r} is not a whole number: give a deck size 1..{MAX_CARDS}") from None
            object.__setattr__(self, "n", n)
        if not 1 <= n <= MAX_CARDS:
            raise InputValueError(f"n={n} is outside 1..{MAX_CARDS}: choose a deck size between 1 and {MAX_CARDS}",
                                  f"--cards {n} is outside 1..{MAX_CARDS}: choose a deck size between 1 and {MAX_CARDS}")
        tie = str(self.tie).lower()
        if tie not in TIES:
            raise ValueError(f"unknown tie rule {self.tie!r}: use one of {', '.join(TIES)}")
        objective = str(self.objective).lower()
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.objective!r}: use one of {', '.join(OBJECTIVES)}")
        object.__setattr__(self, "tie", tie)
        object.__setattr__(self, "objective", objective)
        order = self.order
        if isinstance(order, (set, frozenset, dict)):
            raise ValueError(f"order {order!r} has no order of its own ({type(order).__name__}): give a list "
                             f"or tuple such as {list(range(1, n + 1))}, or random, ascending, descending")
        if isinstance(order, str) and order.strip().lower() in NAMED_ORDERS:
            order = order.strip().lower()
            seq = {"random": None,
                   "ascending": tuple(range(1, n + 1)),
                   "descending": tuple(range(n, 0, -1))}[order]
        else:
            try:
                seq = parse_cards(order, n, what="order")
            except ValueError as exc:
                if isinstance(order, str) and "," not in order and not order.strip().isdigit():
                    raise ValueError(f"unknown order {order!r}: use random, ascending, descending "
                                     f"or a permutation of 1..{n} such as "
                                     f"{','.join(str(i) for i in range(1, n + 1))}") from None
                raise ValueError(f"order is not a permutation of 1..{n}: {exc}") from None
            if sorted(seq) != list(range(1, n + 1)):
                raise ValueError(f"order {','.join(map(str, seq))} is not a permutation of 1..{n}: "
                                 f"list every card 1..{n} exactly once")
            if seq == tuple(range(1, n + 1)):
                order = "ascending"
            elif seq == tuple(range(n, 0, -1)):
                order = "descending"
            else:
                order = seq
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "sequence", seq)
        match, draw = str(self.match).lower(), str(self.draw).lower()
        if match not in MATCHES:
            raise ValueError(f"unknown match format {self.match!r}: use one of {', '.join(MATCHES)}")
        if draw not in DRAWS:
            raise ValueError(f"unknown draw rule {self.draw!r}: use replay or half")
        if match.startswith("best-of") and objective != "win":
            raise ValueError(f"{match} counts games won, so each game is played to win: use objective win")
        if match.startswith("best-of") and draw == "replay" and n == 1:
            raise ValueError("with n=1 every game is a draw, so a replayed draw never ends: use draw half or n >= 2")
        object.__setattr__(self, "match", match)
        object.__setattr__(self, "draw", draw if match.startswith("best-of") else "replay")
        players = self.players
        if isinstance(players, bool) or str(players).strip() not in {str(p) for p in PLAYERS}:
            raise ValueError(f"players={players!r} is not supported: use 2, 3 or 4")
        object.__setattr__(self, "players", int(str(players).strip()))
        if self.players != 2 and match != "single":
            raise ValueError(f"{match} matches are two-player formats: use match single with {self.players} players")
        self._check_variants()

    def _check_variants(self):
        """Validate ``bid_cards``, ``open_prizes`` and ``tiebreak`` (docs/rules.md "Variants of 002")."""
        bid = self.bid_cards
        if isinstance(bid, bool) or str(bid).strip() not in ("1", "2"):
            raise InputValueError(f"bid_cards={bid!r} is not allowed: each player bids 1 or 2 cards a round",
                                  f"--bid-cards {bid} is not allowed: each player bids 1 or 2 cards a round")
        m = self.open_prizes
        try:
            m_int = int(str(m).strip()) if not isinstance(m, bool) else None
        except ValueError:
            m_int = None
        if m_int is None or not 1 <= m_int <= self.n:
            raise InputValueError(f"open_prizes={m!r} is outside 1..{self.n}: the row holds 1..n prizes (1 is the classic game)",
                                  f"--open-prizes {m} is outside 1..{self.n}: the row holds 1..n prizes (1 is the classic game)")
        tiebreak = str(self.tiebreak).lower()
        if tiebreak not in TIEBREAKS:
            raise ValueError(f"unknown tiebreak {self.tiebreak!r}: use one of {', '.join(TIEBREAKS)}")
        if tiebreak != "share" and not self.match.startswith("best-of"):
            raise ValueError(f"tiebreak {tiebreak} settles a level best-of match: use match best-of-3 or best-of-5")
        if tiebreak != "share" and self.draw != "half":
            raise ValueError(f"tiebreak {tiebreak} settles a level match, and with replayed draws a best-of "
                             f"match never ends level: use draw half")
        if (int(bid) != 1 or m_int != 1) and self.match != "single":
            raise ValueError("matches of the two-card and open-prize variants are not supported: "
                             "use match single with bid_cards/open_prizes, or the classic game in a match")
        if (int(bid) != 1 or m_int != 1) and self.players != 2:
            raise ValueError(f"the two-card and open-prize variants are two-player games: use players 2 with "
                             f"bid_cards/open_prizes, or the classic game with {self.players} players")
        object.__setattr__(self, "bid_cards", int(bid))
        object.__setattr__(self, "open_prizes", m_int)
        object.__setattr__(self, "tiebreak", tiebreak)

    @property
    def classic(self) -> bool:
        """True for the classic game and its match formats (one-card bids, one open prize, shared ties)."""
        return self.bid_cards == 1 and self.open_prizes == 1 and self.tiebreak == "share"

    @property
    def random_order(self) -> bool:
        """True when the prizes come in a uniformly random, hidden order."""
        return self.sequence is None

    @property
    def total(self) -> int:
        """Sum of all prize values, n(n+1)/2."""
        return self.n * (self.n + 1) // 2

    @property
    def order_name(self) -> str:
        """``random``, ``ascending``, ``descending`` or the permutation as text."""
        return self.order if isinstance(self.order, str) else ",".join(map(str, self.order))

    @property
    def best_of(self) -> int:
        """Games of a best-of match (3 or 5); 0 for other formats."""
        return int(self.match.split("-")[-1]) if self.match.startswith("best-of") else 0

    def to_dict(self) -> dict:
        """Plain-data form, as stored in solution files and JSON output (single games omit the match)."""
        out = {"n": self.n, "tie": self.tie, "objective": self.objective, "order": self.order_name}
        if self.match != "single":
            out["match"] = self.match
        if self.best_of:
            out["draw"] = self.draw
        # the variants' keys only when set, so classic files and JSON stay as they were
        if self.bid_cards != 1:
            out["bid_cards"] = self.bid_cards
        if self.open_prizes != 1:
            out["open_prizes"] = self.open_prizes
        if self.tiebreak != "share":
            out["tiebreak"] = self.tiebreak
        if self.players != 2:
            out["players"] = self.players
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Rules":
        """Inverse of :meth:`to_dict`."""
        return cls(n=int(data["n"]), tie=data["tie"], objective=data["objective"], order=data["order"],
                   match=data.get("match", "single"), draw=data.get("draw", "replay"),
                   bid_cards=data.get("bid_cards", 1), open_prizes=data.get("open_prizes", 1),
                   tiebreak=data.get("tiebreak", "share"), players=int(data.get("players", 2)))

    def describe(self) -> str:
        """One line for people: ``n=8 tie=carry objective=points order=random`` (+ the match format)."""
        extra = f" match={self.match}" if self.match != "single" else ""
        extra += f" draw={self.draw}" if self.best_of else ""
        extra += f" bid_cards={self.bid_cards}" if self.bid_cards != 1 else ""
        extra += f" open_prizes={self.open_prizes}" if self.open_prizes != 1 else ""
        extra += f" tiebreak={self.tiebreak}" if self.tiebreak != "share" else ""
        extra += f" players={self.players}" if self.players != 2 else ""
        return f"n={self.n} tie={self.tie} objective={self.objective} order={self.order_name}{extra}"


@dataclass(frozen=True)
class DecisionState:
    """A validated decision state (docs/rules.md "States, values and strategies").

    ``prizes`` lists the hidden prizes in reveal order for a fixed order and
    sorted for a random one; ``carry_chain`` (fixed order only) is how many
    tied rounds' prizes the pot holds besides the revealed one.
    """

    hand_a: tuple
    hand_b: tuple
    pot: int
    prizes: tuple
    diff: int
    carry_chain: int = 0

    @property
    def k(self) -> int:
        """Cards in each hand."""
        return len(self.hand_a)


def _subset_sums(values) -> set:
    sums = {0}
    for v in values:
        sums |= {s + v for s in sums}
    return sums


def validate_state(rules: Rules, hand_a, hand_b, pot, prizes=(), diff=0) -> DecisionState:
    """Check that a decision state can occur under ``rules``.

    Parameters
    ----------
    rules : Rules
    hand_a, hand_b : iterable of int or str, or comma-separated str
        Remaining bid cards (equal size, at least one).
    pot : int
        Points at stake this round: the revealed prize plus any carried pot.
    prizes : iterable
        Hidden prizes (k - 1 of them).
    diff : int
        Score A - score B so far.

    Returns
    -------
    DecisionState

    Raises
    ------
    ValueError
        One line naming what is wrong and how to fix it.
    """
    n = rules.n
    a = parse_cards(hand_a, n, what="hand A")
    b = parse_cards(hand_b, n, what="hand B")
    p = parse_cards(prizes, n, what="prizes")
    if not a or not b:
        raise ValueError("a hand is empty: give each player at least one card")
    if len(a) != len(b):
        raise ValueError(f"hands differ in size ({len(a)} and {len(b)} cards): both players hold the same number of cards")
    k = len(a)
    if len(p) != k - 1:
        raise ValueError(f"{len(p)} hidden prizes given for hands of {k} cards: list exactly {k - 1} (hand size - 1)")
    pot, diff = _whole(pot, "pot"), _whole(diff, "diff")
    limit = rules.total - sum(p)
    if pot < 1 or pot > limit:
        raise ValueError(f"pot {pot} is impossible: with these prizes hidden it lies between 1 and {limit}")
    revealed = [v for v in range(1, n + 1) if v not in p]
    chain = 0
    if rules.random_order:
        if rules.tie == "discard" and pot not in revealed:
            raise ValueError(f"pot {pot} is impossible under the discard rule: the pot is the revealed prize, "
                             f"a card 1..{n} not among the hidden prizes")
        if rules.tie == "carry" and not any(pot - r in _subset_sums([v for v in revealed if v != r])
                                            for r in revealed if r <= pot):
            raise ValueError(f"pot {pot} is impossible: it must be the revealed prize plus prizes carried from ties")
        p = tuple(sorted(p))
    else:
        seq = rules.sequence
        expect = seq[n - k + 1:]
        if set(p) != set(expect):
            raise ValueError(f"with {k} cards left the hidden prizes of order {rules.order_name} are "
                             f"{','.join(map(str, expect)) or 'none'}: list those")
        p = tuple(expect)
        shown = seq[n - k]
        chains = [sum(seq[n - k - j:n - k]) for j in range(n - k + 1)] if rules.tie == "carry" else [0]
        if pot - shown not in chains:
            allowed = ", ".join(str(shown + c) for c in chains)
            raise ValueError(f"pot {pot} cannot occur at this point of order {rules.order_name}: "
                             f"it must be one of {allowed}")
        chain = chains.index(pot - shown)
    reach = rules.total - sum(p) - pot
    if abs(diff) > reach:
        raise ValueError(f"diff {diff} is unreachable: only {reach} points have been handed out, "
                         f"so |diff| <= {reach}")
    return DecisionState(a, b, pot, p, diff, chain)


def _whole(value, name) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} {value!r} is not a whole number: give an integer")
    try:
        out = int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: infinity
        raise ValueError(f"{name} {value!r} is not a whole number: give an integer") from None
    if out != value and not isinstance(value, str):
        raise ValueError(f"{name} {value!r} is not a whole number: give an integer")
    return out


def rules_from_options(cards=None, tie=None, objective=None, order=None, match=None, draw=None,
                       cards_default=None, bid_cards=None, open_prizes=None, tiebreak=None) -> Rules:
    """The :class:`Rules` of the command line's rule options, with their defaults.

    The one place the options' defaults are applied, for ``gops`` and the
    explorer's API alike: tie ``carry``, order ``random``, objective
    ``points`` (``win`` for best-of matches, which count games won).

    Parameters
    ----------
    cards, tie, objective, order, match, draw, bid_cards, open_prizes, tiebreak : optional
        The options as given; None where absent.
    cards_default : int, optional
        The deck size when ``cards`` is None; without one, ``cards`` is required.

    Raises
    ------
    ValueError
        A missing deck size, or any option :class:`Rules` refuses.
    """
    if cards is None:
        if cards_default is None:
            raise ValueError("missing --cards N: give the deck size, e.g. --cards 6")
        cards = cards_default
    match = match or "single"
    objective = objective or ("win" if match.startswith("best-of") else "points")
    return Rules(n=cards, tie=tie or "carry", objective=objective, order="random" if order is None else order,
                 match=match, draw=draw or "replay", bid_cards=1 if bid_cards is None else bid_cards,
                 open_prizes=1 if open_prizes is None else open_prizes, tiebreak=tiebreak or "share")


def with_options(rules: Rules, **options) -> Rules | None:
    """``rules`` (a solution file's) changed by the rule options given; None when none was given."""
    given = {k: v for k, v in options.items() if v is not None}
    return Rules(**{**rules.to_dict(), **given}) if given else None


def parse_match_score(text):
    """``-4`` (a session total) or ``1-0`` / ``1.5-0.5`` (best-of games won); None when absent.

    Raises
    ------
    ValueError
        Naming ``--match-score`` and the forms it takes (also for inf and nan).
    """
    if text is None:
        return None
    t = text.strip()
    shown = text if len(text) <= 40 else text[:20] + "..." + text[-8:]  # messages never echo 400 digits
    if "-" in t.lstrip("-+"):
        a, b = t.lstrip("+").rsplit("-", 1) if not t.startswith("-") else (None, None)
        if a is None:
            raise ValueError(f"--match-score {shown!r}: write a session total like -4 or games won like 1-0")
        try:
            pair = float(a), float(b)
        except (ValueError, OverflowError):
            raise ValueError(f"--match-score {shown!r}: write games won like 1-0 or 1.5-0.5") from None
        if not all(math.isfinite(v) for v in pair):
            raise ValueError(f"--match-score {shown!r}: games won must be finite numbers, like 1-0 or 1.5-0.5")
        return pair
    if len(t.lstrip("+-")) > 18:  # no session total has so many digits; int() of 10**400 would not fit anything
        raise ValueError(f"--match-score {shown!r}: too large; write a session total like -4 or games won like 1-0")
    try:
        return int(t)
    except ValueError:
        raise ValueError(f"--match-score {shown!r}: write a session total like -4 or games won like 1-0") from None
