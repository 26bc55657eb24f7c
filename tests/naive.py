"""Slow, obviously-correct reference solver for Goofspiel (the test oracle).

Everything here follows ``/work/shared/RULES.md`` literally and is written
for clarity, not speed: states are raw frozensets of card values, the game
tree is walked by plain recursion memoised with :func:`functools.lru_cache`,
every stage game is the full card-level matrix (no merging of equivalent
cards), and every stage game is solved by
``scipy.optimize.linprog(method="highs")`` with its status checked (except
1 x 1 games and games with a pure saddle point, see :func:`solve_lp`); every
stage value is certified by the bounds its two strategies guarantee.

The fast solver in ``gops_solver`` is compared with these functions on many
random states (``tests/test_against_naive.py``); these functions are checked
against hand-computed answers in ``tests/test_naive.py``.

Conventions (RULES.md, "States, values and strategies"):

- ``tie``: ``"carry"`` or ``"discard"``; ``objective``: ``"points"`` or
  ``"win"``.
- A decision state is ``hand_a``, ``hand_b`` (equal size k >= 1), ``pot``
  (revealed prize + carried pot), ``prizes`` (the k - 1 hidden prizes: a set
  for random order, a sequence in reveal order for a fixed order) and
  ``diff`` (score A - score B so far).
- The value of a state includes ``diff``: under ``"points"`` it is the
  expected *final* margin, under ``"win"`` P(A wins) - P(B wins).

Two shortcuts in the recursion come straight from RULES.md and only let
states that differ in the score share one solve: under ``"points"`` the
value is ``diff`` plus the value at ``diff = 0``; under ``"win"`` a state
whose ``|diff|`` exceeds all the points still to come is decided.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
from scipy.optimize import linprog

TIES = ("carry", "discard")
OBJECTIVES = ("points", "win")

#: Two game values closer than this are equal (RULES.md).  The oracle keeps
#: its own copy of ``gops_solver.game.constants.VALUE_TOL`` so that it and its
#: tests never import the package they are meant to check.
VALUE_TOL = 1e-9

#: Largest gap allowed between the two certified bounds of a stage value
#: (``min_j x @ M[:, j]`` and ``max_i M[i, :] @ y``).  Stricter than the
#: 1e-9 contract of RULES.md so that errors summed over the (at most n)
#: levels of the recursion stay well inside it.
LP_GAP_TOL = 1e-10


# ---------------------------------------------------------------------------
# Stage games
# ---------------------------------------------------------------------------


def _maximin_lp(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Optimal strategies of ``M`` from one linear program.

    Primal over ``(x_1, ..., x_m, v)``: maximise ``v`` subject to
    ``sum_i x_i M[i, j] >= v`` for every column ``j``, ``sum_i x_i = 1``,
    ``x >= 0``, ``v`` free.  Its dual is the column player's problem, so the
    multipliers of the ``p`` column constraints are an optimal ``y``
    (von Neumann; e.g. Maschler, Solan & Zamir, *Game Theory*, sec. 5.2.2).
    """
    m, p = M.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0  # linprog minimises; minimise -v
    # v - sum_i x_i M[i, j] <= 0 for every column j
    A_ub = np.hstack([-M.T, np.ones((p, 1))])
    b_ub = np.zeros(p)
    A_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    b_eq = np.ones(1)
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(
        c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
        method="highs",
    )
    if not res.success:
        raise RuntimeError(
            f"linprog failed on a {m}x{p} stage game "
            f"(status {res.status}): {res.message}"
        )
    x = np.clip(res.x[:m], 0.0, None)
    # d(-v)/d(b_ub[j]) <= 0; its negation is the weight of column j.
    y = np.clip(-np.asarray(res.ineqlin.marginals, dtype=float), 0.0, None)
    return x / x.sum(), y / y.sum()


def _bounds(M, x, y) -> tuple[float, float]:
    """What ``x`` guarantees and what ``y`` concedes; the value lies between."""
    return float(np.min(x @ M)), float(np.max(M @ y))


def solve_lp(M) -> tuple[float, np.ndarray, np.ndarray]:
    """Solve the zero-sum matrix game ``M`` (row player maximises).

    For any mixed strategies ``x`` and ``y``, ``lower = min_j (x @ M)[j]``
    (what ``x`` guarantees) and ``upper = max_i (M @ y)[i]`` (what ``y``
    concedes) bracket the value.  The function finds ``x`` and ``y``, checks
    that ``upper - lower <= LP_GAP_TOL`` (raising otherwise) and returns the
    midpoint, so every value it returns is certified.

    ``x`` and ``y`` come from ``linprog(method="highs")`` (status checked),
    except in two cases settled without it: a 1 x 1 game, and a game with a
    pure saddle point (``max_i min_j M == min_j max_i M``), where the pure
    maximin row and minimax column are optimal.  Most stage games of
    Goofspiel endgames are of these kinds, so skipping the LP there is what
    keeps the oracle fast; the certificate is the same.

    Parameters
    ----------
    M : array_like, shape (m, p)
        Payoffs to the row player; finite.

    Returns
    -------
    value : float
    x : ndarray, shape (m,)
        Optimal row strategy (non-negative, sums to 1).
    y : ndarray, shape (p,)
        Optimal column strategy (non-negative, sums to 1).
    """
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] == 0 or M.shape[1] == 0:
        raise ValueError(f"M must be a non-empty 2-D matrix, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError("M must be finite")
    m, p = M.shape
    x = np.zeros(m)
    x[np.argmax(M.min(axis=1))] = 1.0
    y = np.zeros(p)
    y[np.argmin(M.max(axis=0))] = 1.0
    lower, upper = _bounds(M, x, y)
    if upper - lower > LP_GAP_TOL:  # no pure saddle point: solve the LP
        x, y = _maximin_lp(M)
        lower, upper = _bounds(M, x, y)
        if not upper - lower <= LP_GAP_TOL:
            raise RuntimeError(
                f"stage solve not certified: bounds [{lower!r}, {upper!r}] "
                f"differ by more than {LP_GAP_TOL}"
            )
    return 0.5 * (lower + upper), x, y


# ---------------------------------------------------------------------------
# One round and the recursion
# ---------------------------------------------------------------------------


def naive_step(tie, hand_a, hand_b, pot, diff, bid_a, bid_b):
    """Apply one round of bids (RULES.md, "A round" and "Tie rules").

    Parameters
    ----------
    tie : {"carry", "discard"}
    hand_a, hand_b : iterable of int
        The hands *before* the bids.
    pot : number
        Points at stake this round (revealed prize + carried pot).
    diff : number
        Score A - score B before this round.
    bid_a, bid_b : int
        The bid cards; each must be in its player's hand.

    Returns
    -------
    hand_a, hand_b : frozenset of int
        The hands after the bids (both bid cards spent, win or lose).
    carry : number
        The pot left on the table for the next round: the whole pot after a
        tie under ``"carry"`` unless this was the last round, else 0.
    diff : number
        Score A - score B after this round.
    """
    _check_tie(tie)
    hand_a = frozenset(hand_a)
    hand_b = frozenset(hand_b)
    if bid_a not in hand_a:
        raise ValueError(f"A bids {bid_a}, which is not in A's hand {sorted(hand_a)}")
    if bid_b not in hand_b:
        raise ValueError(f"B bids {bid_b}, which is not in B's hand {sorted(hand_b)}")
    hand_a = hand_a - {bid_a}
    hand_b = hand_b - {bid_b}
    if bid_a > bid_b:
        return hand_a, hand_b, 0, diff + pot
    if bid_a < bid_b:
        return hand_a, hand_b, 0, diff - pot
    last_round = not hand_a
    if tie == "carry" and not last_round:
        return hand_a, hand_b, pot, diff
    return hand_a, hand_b, 0, diff  # the pot is discarded


def _payoff(objective, diff):
    """A's payoff once the game is over with score difference ``diff``."""
    if objective == "points":
        return diff
    return (diff > 0) - (diff < 0)


def _stage_matrix(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order):
    cards_a = sorted(hand_a)
    cards_b = sorted(hand_b)
    M = np.empty((len(cards_a), len(cards_b)))
    for i, a in enumerate(cards_a):
        for j, b in enumerate(cards_b):
            next_a, next_b, carry, next_diff = naive_step(
                tie, hand_a, hand_b, pot, diff, a, b
            )
            if not next_a:
                M[i, j] = _payoff(objective, next_diff)
            elif random_order:
                # The next prize is uniformly random among the hidden ones.
                M[i, j] = sum(
                    _value(
                        tie, objective, next_a, next_b, carry + p,
                        prizes - {p}, next_diff, True,
                    )
                    for p in sorted(prizes)
                ) / len(prizes)
            else:
                M[i, j] = _value(
                    tie, objective, next_a, next_b, carry + prizes[0],
                    prizes[1:], next_diff, False,
                )
    return cards_a, cards_b, M


@functools.lru_cache(maxsize=None)
def _value(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order):
    # Two shortcuts that RULES.md states outright, so that states differing
    # only in the score share one solve:
    if objective == "points" and diff != 0:
        # "under points it does not [matter]": every payoff below is diff + a
        # term that does not depend on diff, so every stage matrix shifts by
        # diff and so does its value.
        return diff + _value(tie, objective, hand_a, hand_b, pot, prizes, 0, random_order)
    if objective == "win" and abs(diff) > pot + sum(prizes):
        # Decided: the points still to come cannot change the sign of diff.
        return float((diff > 0) - (diff < 0))
    _, _, M = _stage_matrix(
        tie, objective, hand_a, hand_b, pot, prizes, diff, random_order
    )
    return solve_lp(M)[0]


# ---------------------------------------------------------------------------
# Public API: validation, then the cached recursion
# ---------------------------------------------------------------------------


def _check_tie(tie):
    if tie not in TIES:
        raise ValueError(f"tie must be one of {TIES}, got {tie!r}")


def _check_objective(objective):
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")


def _state(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order):
    """Validate a decision state and return it in the cache's canonical form."""
    _check_tie(tie)
    _check_objective(objective)
    hand_a = frozenset(int(c) for c in hand_a)
    hand_b = frozenset(int(c) for c in hand_b)
    prize_list = [int(p) for p in prizes]
    k = len(hand_a)
    if k < 1 or len(hand_b) != k:
        raise ValueError(
            f"hands must have equal size >= 1, got {sorted(hand_a)} and {sorted(hand_b)}"
        )
    if len(set(prize_list)) != len(prize_list):
        raise ValueError(f"hidden prizes must be distinct, got {prize_list}")
    if len(prize_list) != k - 1:
        raise ValueError(
            f"with {k} cards in hand there are {k - 1} hidden prizes, got {prize_list}"
        )
    prizes = frozenset(prize_list) if random_order else tuple(prize_list)
    return tie, objective, hand_a, hand_b, pot, prizes, diff, bool(random_order)


def naive_stage_matrix(
    tie, objective, hand_a, hand_b, pot, prizes, diff, random_order: bool
) -> tuple[list[int], list[int], np.ndarray]:
    """Card-level stage game of a decision state.

    Returns
    -------
    cards_a, cards_b : list of int
        The players' cards, sorted ascending.
    M : ndarray, shape (k, k)
        ``M[i, j]`` is the value of the state after A bids ``cards_a[i]`` and
        B bids ``cards_b[j]``: the expectation over the next revealed prize
        for random order, the terminal payoff after the last round.
    """
    return _stage_matrix(
        *_state(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order)
    )


def naive_value(
    tie, objective, hand_a, hand_b, pot, prizes, diff, random_order: bool
) -> float:
    """Value of a decision state (including ``diff``), from A's side."""
    return _value(
        *_state(tie, objective, hand_a, hand_b, pot, prizes, diff, random_order)
    )


def prize_sequence(n, order):
    """The fixed reveal order of the prizes, or ``None`` for random order.

    ``order`` is ``"random"``, ``"ascending"``, ``"descending"`` or a
    permutation of 1..n.
    """
    if isinstance(order, str):
        if order == "random":
            return None
        if order == "ascending":
            return tuple(range(1, n + 1))
        if order == "descending":
            return tuple(range(n, 0, -1))
        raise ValueError(
            f"order must be 'random', 'ascending', 'descending' or a permutation "
            f"of 1..{n}, got {order!r}"
        )
    seq = tuple(int(p) for p in order)
    if sorted(seq) != list(range(1, n + 1)):
        raise ValueError(f"order {order!r} is not a permutation of 1..{n}")
    return seq


def naive_game_value(n, tie, objective, order) -> float:
    """Value of the whole game at its start (hands 1..n, no pot, diff 0).

    For random order this is the average over the first revealed prize.
    """
    if not 1 <= n <= 13:
        raise ValueError(f"n must be in 1..13, got {n}")
    seq = prize_sequence(n, order)
    deck = frozenset(range(1, n + 1))
    if seq is None:
        return sum(
            naive_value(tie, objective, deck, deck, p, deck - {p}, 0, True)
            for p in sorted(deck)
        ) / n
    return naive_value(tie, objective, deck, deck, seq[0], seq[1:], 0, False)


def naive_clear_cache():
    """Forget all memoised state values."""
    _value.cache_clear()


# ---------------------------------------------------------------------------
# Reachable states for queries
# ---------------------------------------------------------------------------


def random_state(rng, n, tie, objective, order) -> dict:
    """A random decision state that can really occur in play.

    The state is produced by playing out a random history of ``n - k``
    rounds with :func:`naive_step`, so it is reachable by construction:

    - ``k`` uniform in 1..n; both hands uniform k-subsets of 1..n;
    - random order: the hidden prizes a uniform (k-1)-subset, the revealed
      prize a uniform non-hidden value, the past prizes the remaining values
      in a random reveal order; fixed order: past prizes ``seq[:n-k]``,
      revealed ``seq[n-k]``, hidden ``seq[n-k+1:]``;
    - the past bids pair the played cards (1..n minus each hand).  With
      probability 1/2 the last ``j`` past rounds are ties, ``1 <= j <=
      min(n - k, n - |hand_a | hand_b|)`` (a tie spends the same value from
      both hands), so that under ``"carry"`` the pot carries the ``j``
      prizes revealed just before; the other past rounds pair the remaining
      played cards at random, or (probability 1/2 under ``"win"``, 1/4
      under ``"points"``) lopsidedly in one player's favour, which yields
      decided positions;
    - ``pot`` (revealed + carry) and ``diff`` result from that history.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
    tie, objective : str
    order : "random", "ascending", "descending" or a permutation of 1..n

    Returns
    -------
    dict
        ``hand_a``, ``hand_b`` (sorted tuples), ``pot`` (int), ``prizes``
        (tuple: sorted for random order, reveal order for fixed order),
        ``diff`` (int).
    """
    _check_tie(tie)
    _check_objective(objective)
    seq = prize_sequence(n, order)
    deck = list(range(1, n + 1))
    k = int(rng.integers(1, n + 1))
    hand_a = frozenset(int(c) for c in rng.choice(deck, size=k, replace=False))
    hand_b = frozenset(int(c) for c in rng.choice(deck, size=k, replace=False))
    played = n - k  # rounds already played

    if seq is None:
        hidden = [int(p) for p in rng.choice(deck, size=k - 1, replace=False)]
        shown = [p for p in deck if p not in hidden]
        revealed = int(rng.choice(shown))
        past = [int(p) for p in rng.permutation([p for p in shown if p != revealed])]
        prizes = tuple(sorted(hidden))
    else:
        past = list(seq[:played])
        revealed = seq[played]
        prizes = tuple(seq[played + 1 :])

    played_a = sorted(set(deck) - hand_a)
    played_b = sorted(set(deck) - hand_b)
    both = sorted(set(played_a) & set(played_b))
    j = 0
    if both and rng.random() < 0.5:
        j = int(rng.integers(1, len(both) + 1))  # len(both) <= played
    tied = [int(c) for c in rng.choice(both, size=j, replace=False)] if j else []
    rest_a = [c for c in played_a if c not in tied]
    rest_b = [c for c in played_b if c not in tied]
    lopsided = rng.random() < (0.5 if objective == "win" else 0.25)
    if lopsided:
        # The favoured player's high cards meet the other's low cards.
        if rng.random() < 0.5:
            rest_a, rest_b = rest_a[::-1], rest_b
        else:
            rest_a, rest_b = rest_a, rest_b[::-1]
    else:
        rest_a = [int(c) for c in rng.permutation(rest_a)]
        rest_b = [int(c) for c in rng.permutation(rest_b)]
    bids = list(zip(rest_a, rest_b)) + [(c, c) for c in tied]

    cur_a, cur_b = frozenset(deck), frozenset(deck)
    carry, diff = 0, 0
    for prize, (a, b) in zip(past, bids):
        cur_a, cur_b, carry, diff = naive_step(tie, cur_a, cur_b, carry + prize, diff, a, b)
    if cur_a != hand_a or cur_b != hand_b:  # pragma: no cover - construction bug
        raise RuntimeError("random_state: history does not lead to the drawn hands")
    return {
        "hand_a": tuple(sorted(hand_a)),
        "hand_b": tuple(sorted(hand_b)),
        "pot": revealed + carry,
        "prizes": prizes,
        "diff": diff,
    }


def naive_reachable_states(n, tie, order) -> set:
    """Every decision state reachable from the start, by forward enumeration.

    Exponential; meant for n <= 5.  Returns a set of tuples
    ``(hand_a, hand_b, pot, prizes, diff)`` in the format of
    :func:`random_state` (sorted hands, prizes sorted for random order and in
    reveal order for a fixed order).  The objective does not affect which
    states occur.
    """
    _check_tie(tie)
    seq = prize_sequence(n, order)
    deck = frozenset(range(1, n + 1))
    # Internal form: (hand_a, hand_b, pot, prizes, diff) with frozensets.
    if seq is None:
        layer = {(deck, deck, p, deck - {p}, 0) for p in deck}
    else:
        layer = {(deck, deck, seq[0], tuple(seq[1:]), 0)}
    found = set()
    while layer:
        next_layer = set()
        for hand_a, hand_b, pot, prizes, diff in layer:
            if seq is None:
                found.add(
                    (tuple(sorted(hand_a)), tuple(sorted(hand_b)), pot,
                     tuple(sorted(prizes)), diff)
                )
            else:
                found.add((tuple(sorted(hand_a)), tuple(sorted(hand_b)), pot, prizes, diff))
            if len(hand_a) == 1:
                continue
            for a, b in itertools.product(hand_a, hand_b):
                next_a, next_b, carry, next_diff = naive_step(
                    tie, hand_a, hand_b, pot, diff, a, b
                )
                if seq is None:
                    for p in prizes:
                        next_layer.add((next_a, next_b, carry + p, prizes - {p}, next_diff))
                else:
                    next_layer.add((next_a, next_b, carry + prizes[0], prizes[1:], next_diff))
        layer = next_layer
    return found


# ---------------------------------------------------------------------------
# Fixed strategies: exact play-out and best response by plain enumeration
# ---------------------------------------------------------------------------
#
# A strategy here is a plain function ``f(hand, opponent, pot, hidden, diff)``
# returning ``{card: probability}`` from its own side (sorted tuples for the
# card sets).  Used to check ``gops_solver.analysis.evaluate``.


def _round_result(a, b, pot, tie, last):
    """Points A gains and the pot carried on, after bids a and b (RULES.md)."""
    if a > b:
        return pot, 0
    if a < b:
        return -pot, 0
    return 0, (pot if tie == "carry" and not last else 0)


def _next_prizes(hidden, order, n):
    """Prizes that may come next: any hidden one (random order) or the order's next."""
    return hidden if order is None else (order[n - len(hidden)],)


def play_distribution(n, tie, strat_a, strat_b, order=None):
    """Exact distribution {final margin: probability} of A vs B, walking every prize order
    (or the one fixed ``order``)."""
    dist = {}

    def walk(hand_a, hand_b, hidden, carry, diff, prob):
        if not hand_a:
            dist[diff] = dist.get(diff, 0.0) + prob
            return
        nxt = _next_prizes(hidden, order, n)
        for q in nxt:
            rest = tuple(v for v in hidden if v != q)
            pot = carry + q
            pa = strat_a(hand_a, hand_b, pot, rest, diff)
            pb = strat_b(hand_b, hand_a, pot, rest, -diff)
            for a, x in pa.items():
                for b, y in pb.items():
                    if x * y == 0:
                        continue
                    gain, c2 = _round_result(a, b, pot, tie, len(hand_a) == 1)
                    walk(tuple(v for v in hand_a if v != a), tuple(v for v in hand_b if v != b), rest, c2,
                         diff + gain, prob * x * y / len(nxt))

    full = tuple(range(1, n + 1))
    walk(full, full, full, 0, 0, 1.0)
    return dist


def best_response_value(n, tie, objective, strat_a, order=None):
    """A's expected payoff when B, knowing A's strategy, minimises it (pure replies suffice)."""

    @functools.lru_cache(maxsize=None)
    def value(hand_a, hand_b, hidden, carry, diff):
        if not hand_a:
            return float(diff) if objective == "points" else float(np.sign(diff))
        total = 0.0
        nxt = _next_prizes(hidden, order, n)
        for q in nxt:
            rest = tuple(v for v in hidden if v != q)
            pot = carry + q
            pa = strat_a(hand_a, hand_b, pot, rest, diff)
            best = np.inf
            for b in hand_b:
                s = 0.0
                for a, x in pa.items():
                    if x == 0:
                        continue
                    gain, c2 = _round_result(a, b, pot, tie, len(hand_a) == 1)
                    s += x * value(tuple(v for v in hand_a if v != a), tuple(v for v in hand_b if v != b), rest,
                                   c2, diff + gain)
                best = min(best, s)
            total += best
        return total / len(nxt)

    full = tuple(range(1, n + 1))
    return value(full, full, full, 0, 0)
