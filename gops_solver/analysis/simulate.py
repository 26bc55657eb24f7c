"""Monte Carlo play of two strategies, reproducible by a seed.

:func:`simulate` plays built-in strategies and the equilibrium inside numba
(:func:`_simulate`); when a user strategy takes part, the games are played
from Python. Exact figures without sampling come from :mod:`~.evaluate`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from gops_solver.game.constants import MAX_CARDS
from gops_solver.analysis._common import (Simulation, check_rules, check_status,  # noqa: F401 (public here)
                                          prize_sequence, solution_for)
from gops_solver.game.rules import Rules
from gops_solver.analysis.strategies import check_strategy_rules, CODE_TABLE, Seats, View, make_strategy, policy

@njit(cache=True)
def _sample(p, n, r):
    acc = 0.0
    last = -1
    for v in range(n):
        if p[v] > 0.0:
            acc += p[v]
            last = v
            if r < acc:
                return v + 1
    return last + 1  # rounding: the last card with positive probability


#: no record of the rounds (:func:`_simulate`'s ``prizes``, ``bids_a``, ``bids_b``)
_NO_ROUNDS = np.zeros((0, 0), np.int64)


@njit(cache=True)
def _simulate(games, seed, n, seq, carry_rule, seats, eq_a, eq_b, margins, prizes, bids_a, bids_b):
    """Play ``games`` games with numba's generator seeded by ``seed``; ``margins`` modified in place.

    ``seq``: the fixed prize order, or empty for a fresh random order each game;
    ``seats``: both strategies (:class:`~.strategies.Seats`), ``eq_a``/``eq_b`` their equilibrium tables.
    A negative ``seed`` continues the generator's stream, so a long run can be played in chunks.
    ``prizes``, ``bids_a``, ``bids_b``: shape (games, n) to record each round's prize and bids (for
    records; the same draws, so the same margins), or :data:`_NO_ROUNDS`.
    """
    if seed >= 0:
        np.random.seed(seed)
    pa = np.empty(MAX_CARDS)
    pb = np.empty(MAX_CARDS)
    record = prizes.shape[0] > 0
    for g in range(games):
        order = seq if len(seq) > 0 else np.random.permutation(n) + 1
        full = (1 << n) - 1
        ha, hb, pm = full, full, full
        c, d = 0, 0
        for r in range(n):
            q = order[r]
            pm &= ~(1 << (q - 1))
            pot = c + q
            st = policy(seats.code_a, ha, hb, pm, pot, d, n, eq_a, seats.keys_a, seats.probs_a, pa)
            if st != 0:
                return st
            st = policy(seats.code_b, hb, ha, pm, pot, -d, n, eq_b, seats.keys_b, seats.probs_b, pb)
            if st != 0:
                return st
            a = _sample(pa, n, np.random.random())
            b = _sample(pb, n, np.random.random())
            if record:
                prizes[g, r] = q
                bids_a[g, r] = a
                bids_b[g, r] = b
            ha &= ~(1 << (a - 1))
            hb &= ~(1 << (b - 1))
            if a > b:
                d += pot
                c = 0
            elif a < b:
                d -= pot
                c = 0
            else:
                c = pot if (carry_rule and r < n - 1) else 0
        margins[g] = d
    return 0


def _simulate_python(games, rng, rules, sa, sb, rounds=None):
    """Play games calling the strategies from Python (for user strategies), drawing from ``rng``.

    ``rounds``: optional ``(prizes, bids_a, bids_b)`` arrays of shape (games, n), filled in place."""
    n = rules.n
    margins = np.empty(games, np.int64)
    for g in range(games):
        order = rules.sequence if rules.sequence is not None else rng.permutation(n) + 1
        ha, hb, hidden = set(range(1, n + 1)), set(range(1, n + 1)), set(range(1, n + 1))
        c = d = 0
        for r in range(n):
            q = int(order[r])
            hidden.discard(q)
            pot = c + q
            bids = []
            for s, own, opp, dd in ((sa, ha, hb, d), (sb, hb, ha, -d)):
                dist = s.distribution(View(tuple(sorted(own)), tuple(sorted(opp)), pot, tuple(sorted(hidden)), dd), n)
                cards = list(dist)
                bids.append(int(cards[rng.choice(len(cards), p=np.array([dist[x] for x in cards]) /
                                                 sum(dist.values()))]))
            a, b = bids
            if rounds is not None:
                rounds[0][g, r], rounds[1][g, r], rounds[2][g, r] = q, a, b
            ha.discard(a)
            hb.discard(b)
            if a != b:
                d += pot if a > b else -pot
                c = 0
            else:
                c = pot if (rules.tie == "carry" and r < n - 1) else 0
        margins[g] = d
    return margins


def _floats(pair):
    return tuple(float(v) for v in pair)


#: games per chunk of a simulation: about 0.1-1 s in numba (Ctrl-C waits for the chunk), ~100 kB of margins
_SIM_CHUNK = 1 << 14
_SIM_CHUNK_PY = 256


def simulate(a, b, rules: Rules, games: int, seed: int = 0, solution=None, progress=None,
             record=None) -> Simulation:
    """Play ``games`` games of ``a`` (seat A) against ``b``; reproducible by ``seed``.

    Built-in strategies and the equilibrium play inside numba (its
    generator seeded with ``seed``); when a user strategy takes part, the
    games are played from Python with ``numpy.random.default_rng(seed)``.
    Games are played in chunks (the same stream of draws as one run), so
    memory stays small, Ctrl-C is answered within a chunk, and
    ``progress(games_in_chunk)`` is called after each.

    A match (``rules.match``) plays ``games`` whole matches
    (:func:`~._match_eval.simulate_match`): the figures are the match's.

    ``record``: a :class:`~.records.RecordWriter` (or anything with
    ``write(lines)``) that receives one record line per game, a chunk at a
    time (classic games only). Recording plays the same draws, so the result
    is the same as without it.

    Two-card bids and open prizes are played by
    :func:`~._variant_matchup.simulate_variant` (strategies ``equilibrium``,
    ``uniform``, ``highest``, ``lowest``), with the same result and intervals.

    Raises
    ------
    ValueError
        Non-positive ``games``, unknown strategies, 3-4 players.
    """
    engine = check_rules(rules)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games={games!r} must be a positive whole number")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"seed={seed!r} must be a whole number in 0..2**32-1")
    if record is not None and engine in ("variant", "match"):
        raise ValueError("records hold single classic games (one card a bid, one prize a round, no match): "
                         "drop --record")
    if engine == "match":  # whole matches, each game played at its match position
        from gops_solver.analysis._match_eval import simulate_match
        from gops_solver.analysis.evaluate import match_kernels
        solution = solution_for(rules, solution, a, b)
        return simulate_match(a, b, rules, games, seed, solution, progress, _play_games, match_kernels())
    if engine == "variant":  # two-card bids, open prizes: games played over actual cards from Python
        from gops_solver.analysis._variant_matchup import simulate_variant, strategy_name
        a, b = strategy_name(a), strategy_name(b)
        solution = solution_for(rules, solution, a, b)
        if solution is None:  # the variant tables walk the rules through a solution's mechanics
            from gops_solver.api import solve
            solution = solve(rules)
        return simulate_variant(a, b, solution, games, seed, progress)
    t0 = time.perf_counter()
    solution = solution_for(rules, solution, a, b)
    sa, sb = make_strategy(a, solution), make_strategy(b, solution)
    check_strategy_rules(sa, rules)
    check_strategy_rules(sb, rules)
    G = int(games)
    python = CODE_TABLE in (sa.code, sb.code)
    rng = np.random.default_rng(int(seed)) if python else None
    seats = Seats(sa.code, *sa.table, sb.code, *sb.table)  # precomputed strategies' tables (else empty)
    total = total_sq = wins = draws = 0  # Python ints: exact however many games
    done = 0
    while done < G:
        size = min(G - done, _SIM_CHUNK_PY if python else _SIM_CHUNK)
        rounds = None if record is None else tuple(np.zeros((size, rules.n), np.int64) for _ in range(3))
        if python:
            margins = _simulate_python(size, rng, rules, sa, sb, rounds)
        else:
            margins = np.empty(size, np.int64)
            check_status(_simulate(size, int(seed) if done == 0 else -1, rules.n, prize_sequence(rules),
                                   rules.tie == "carry", seats, sa.eq, sb.eq, margins,
                                   *(rounds if rounds is not None else (_NO_ROUNDS,) * 3)))
        if record is not None:
            from gops_solver.analysis.records import record_line, replay_rounds
            record.write([record_line(rules, sa.name, sb.name, replay_rounds(rules, *(x[g] for x in rounds)))
                          for g in range(size)])
        total += int(margins.sum())
        total_sq += int((margins * margins).sum())
        wins += int(np.count_nonzero(margins > 0))
        draws += int(np.count_nonzero(margins == 0))
        done += size
        if progress is not None:
            progress(size)
    m = total / G
    # sample standard deviation (ddof 1) from exact integer sums
    half = 1.96 * np.sqrt(max(G * total_sq - total * total, 0) / (G * (G - 1))) / np.sqrt(G) if G > 1 \
        else float("inf")

    def rate(count):
        p = count / G
        h = 1.96 * np.sqrt(p * (1 - p) / G)
        return p, (p - h, p + h)

    w, wci = rate(wins)
    dr, dci = rate(draws)
    lo, lci = rate(G - wins - draws)
    return Simulation(rules, sa.name, sb.name, G, int(seed), m, (m - half, m + half), w, _floats(wci), dr, _floats(dci),
                      lo, _floats(lci),
                      time.perf_counter() - t0)


def _play_games(single, sa, sb, count, rng):
    """Final margins of ``count`` games of ``sa`` (seat A) against ``sb``, drawing from ``rng``: in numba
    (seeded from ``rng``) unless a strategy is called from Python."""
    if CODE_TABLE in (sa.code, sb.code):
        return _simulate_python(count, rng, single, sa, sb)
    margins = np.empty(count, np.int64)
    keys, probs = np.zeros(0, np.int64), np.zeros((0, MAX_CARDS))
    seats = Seats(sa.code, keys, probs, sb.code, keys, probs)
    check_status(_simulate(count, int(rng.integers(2**31)), single.n, prize_sequence(single), single.tie == "carry",
                           seats, sa.eq, sb.eq, margins, _NO_ROUNDS, _NO_ROUNDS, _NO_ROUNDS))
    return margins
