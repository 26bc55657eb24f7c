"""Exact responses to a modelled opponent: the restricted response R(P), its trade-off curve and a risk bound.

The modelled opponent sits in seat B and plays a fixed strategy (the *model*, any
:func:`~gops_solver.analysis.strategies.make_strategy` spec); the response sits in seat A.

**The restricted game of weight P.** At every round, independently, B bids by the model with
probability ``P`` and otherwise freely (adversarially, knowing everything but A's current bid).
Its value is found by backward induction over the actual states (both hands, the hidden prizes,
the carried pot and, when it matters, the score difference): at each decision with stage matrix
``M`` (A's bids x B's bids; immediate points plus the continuation value of the same restricted
game, or the win/draw/loss value under ``win``) and the model's distribution ``q`` over B's bids,
A solves the matrix game with columns ``P * (M q) + (1 - P) * M[:, j]`` with the project's stage
solver. A's stage strategies form the response R(P), a table-driven
:class:`~gops_solver.analysis.strategies.Strategy`. R(1) is an exact best response to the model,
R(0) an equilibrium strategy.

**How this differs from Johanson's restricted Nash response.** Johanson, Zinkevich and Bowling
(NIPS 2007) draw the opponent's type *once*, at the start of the game: with probability P it is the
model for the whole game, otherwise it is free for the whole game, and the responder does not learn
which. That game's value is ``P * gain + (1 - P) * worst case`` of one fixed strategy, so its
responses trace the Pareto frontier of (gain, exploitability) and both are monotone in P. Here the
draw is made at every round and the free rounds are as adversarial as they can be given the model
rounds, which keeps backward induction exact (a single LP per stage) but optimises a different
objective: the value of the restricted game V(P) is non-decreasing in P and lies between the
game value and R(P)'s gain against the model, while the gain and the exploitability of R(P) need
not be exactly monotone (they are in every case we measured; the tests check V(P) and record the
others).

**Risk bound.** :func:`safe_response` is the best response that is still an equilibrium strategy
(exploitability 0): at every decision A maximises its gain against the model among the optimal
mixtures of the equilibrium stage game. :func:`exploit` with ``risk=EPS > 0`` takes, among R(P) for
P in [0, 1] (located by bisection on P over the exact exploitability) and the safe response, the
one with the largest exact gain whose exact exploitability is at most EPS.

Gain and exploitability are exact, never sampled. The responses of every weight asked for are found
in one backward pass over the states, which carries for each weight three figures per state: the
restricted game's value, the response's result against the model and its result against a best
reply (B free and knowing the response); a cell's next state is looked up once for all of them.
The safe response is measured by the exact evaluation
(:func:`~gops_solver.analysis.evaluate.evaluate`), which the tests hold the pass's figures to.
"""

from __future__ import annotations

import time
from math import comb
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from typing import NamedTuple

from gops_solver.game.constants import MAX_CARDS, REPLY_TOL, VALUE_TOL
from gops_solver.game.rules import Rules
from gops_solver.game.encoding import PrizeSets
from gops_solver.game.statekeys import _popcount, decision_key, unpack_key
from gops_solver.engine import projection
from gops_solver.lp.stage import solve_stage, stage_work_size
from gops_solver.analysis._common import check_rules, check_status, prize_sequence, solution_for
from gops_solver.analysis._hashtable import EMPTY, find, hashed, slots_for
from gops_solver.analysis.evaluate import (KEEP, MODE_FIXED, MODE_REACH, RANKS, Play, _NO_NEXT, _Seat, _cell, _child,
                                           _reveals, _start, _step, _terminal, evaluate)
from gops_solver.analysis.strategies import Strategy, check_strategy_rules, make_strategy
from gops_solver.analysis.strategies import policy as policy_b

#: penalty weights tried (in turn) to keep the safe response's stage mixture optimal in the equilibrium stage game
_PENALTIES = (1e3, 1e5, 1e7)


def check_exploit_rules(rules) -> None:
    """Raise ``ValueError`` (one line) unless exact responses are defined for ``rules``."""
    if check_rules(rules) != "classic":
        raise ValueError("exact responses are defined for the classic two-player game only, not for two-card "
                         "bids or open prizes: use bid_cards=1, open_prizes=1")


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------

@njit(cache=True)
def _hands(n, ha, hb, rows, cols):
    """A's cards into ``rows`` and B's into ``cols``, lowest first; their numbers."""
    na = 0
    nb = 0
    for v in range(1, n + 1):
        if (ha >> (v - 1)) & 1:
            rows[na] = v
            na += 1
        if (hb >> (v - 1)) & 1:
            cols[nb] = v
            nb += 1
    return na, nb


@njit(cache=True)
def _matrix(play, ha, hb, pm2, pot, d, k, rows, cols, M):
    """Stage matrix of a decision over A's cards ``rows`` and B's cards ``cols`` (from ``play.next_*``)."""
    na, nb = _hands(play.n, ha, hb, rows, cols)
    for i in range(na):
        for j in range(nb):
            M[i, j] = _cell(play, ha, hb, pm2, rows[i], cols[j], pot, d, k)
    return na, nb


class ModelTable(NamedTuple):
    """The model's kernel code and lookup table at the current level (its equilibrium tables travel beside)."""

    code: int
    keys: np.ndarray
    probs: np.ndarray


@njit(cache=True)
def _model_dist(mt, eq_b, ha, hb, pm2, pot, d, n, cols, nb, qb, pb):
    """The model's distribution over ``cols`` into ``qb``; a status."""
    st = policy_b(mt.code, hb, ha, pm2, pot, -d, n, eq_b, mt.keys, mt.probs, pb)
    for j in range(nb):
        qb[j] = pb[cols[j] - 1]
    return st


@njit(cache=True)
def _row_table(keys, hk, hrow):
    """Hash the level's ``keys`` into ``hk`` (all :data:`EMPTY`) with each key's row in ``hrow``."""
    for r in range(len(keys)):
        s = find(hk, keys[r])
        hk[s] = keys[r]
        hrow[s] = r


class Below(NamedTuple):
    """The level below for :func:`_curve_level`: its keys hashed (``hk``) with each key's row of
    ``values`` (``hrow``); empty at the first level."""

    hk: np.ndarray
    hrow: np.ndarray
    values: np.ndarray


@njit(cache=True)
def _children(play, below, ha, hb, pm2, pot, d, k, rows, cols, slot, add):
    """A's and B's cards into ``rows``, ``cols``; the row of each cell's next state in ``below``
    (``slot``, -1 after the last round) and what the cell adds to that row's value (``add``: the points
    won now, or the final payoff). Returns the numbers of rows and columns and a status (3: a next
    state is missing)."""
    na, nb = _hands(play.n, ha, hb, rows, cols)
    hk = below.hk
    for i in range(na):
        for j in range(nb):
            key, imm = _child(ha, hb, pm2, rows[i], cols[j], pot, d, k, play.carry, play.keep_diff, play.relabel)
            if k == 1:
                slot[i, j] = -1
                add[i, j] = _terminal(imm, d + imm, play.keep_diff, play.win, play.term)
                continue
            s = find(hk, key)
            if hk[s] != key:
                return na, nb, 3
            slot[i, j] = below.hrow[s]
            add[i, j] = 0.0 if play.keep_diff else float(imm)
    return na, nb, 0


@njit(cache=True, inline="always")
def _at(T, slot, add, a, j, col):
    """Cell (a, j) of the stage matrix of column ``col`` of the table below."""
    s = slot[a, j]
    return add[a, j] + (T[s, col] if s >= 0 else 0.0)


@njit(parallel=True, cache=True)
def _curve_level(play, ps, mt, eq_b, keys, starts, below, out, dkeys, dprobs):
    """One level of the restricted games of every weight ``ps[g]`` at once; a status.

    ``below`` holds the level below, ``out`` receives this level, row per state: the restricted game's
    value (columns ``g``), R(ps[g])'s expected result against the model (``G + g``) and against a
    best reply (``2G + g``, B free and knowing R's strategy). A cell's next state is looked up once
    for all of them. R(ps[g])'s stage strategy of the t-th reveal of state i goes to row
    ``starts[i] + t`` of ``dprobs[g]``, its decision key to ``dkeys``.
    """
    n = play.n
    ng = len(ps)
    T = below.values
    keep = dprobs.shape[1] > 0
    status = np.zeros(len(keys), np.int64)
    for i in prange(len(keys)):
        Mp = np.empty((MAX_CARDS, MAX_CARDS))
        add = np.empty((MAX_CARDS, MAX_CARDS))
        slot = np.empty((MAX_CARDS, MAX_CARDS), np.int64)
        x = np.empty(MAX_CARDS)
        y = np.empty(MAX_CARDS)
        work = np.empty(stage_work_size(MAX_CARDS, MAX_CARDS))
        rows = np.empty(MAX_CARDS, np.int64)
        cols = np.empty(MAX_CARDS, np.int64)
        qb = np.empty(MAX_CARDS)
        pb = np.empty(MAX_CARDS)
        qs = np.empty(MAX_CARDS, np.int64)
        acc = np.zeros(3 * ng)
        ha, hb, pm, c, d = unpack_key(keys[i])
        k = _popcount(ha)
        nq = _reveals(pm, k, n, play.seq, qs)
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            pot = c + q
            na, nb, st = _children(play, below, ha, hb, pm2, pot, d, k, rows, cols, slot, add)
            if st == 0:
                st = _model_dist(mt, eq_b, ha, hb, pm2, pot, d, n, cols, nb, qb, pb)
            if st != 0:
                status[i] = st
                break
            r = starts[i] + t
            if keep:
                dkeys[r] = decision_key(ha, hb, pm2, pot, d)
            for g in range(ng):
                P = ps[g]
                for a in range(na):
                    s = 0.0
                    for j in range(nb):
                        Mp[a, j] = _at(T, slot, add, a, j, g)
                        s += Mp[a, j] * qb[j]
                    for j in range(nb):
                        Mp[a, j] = P * s + (1.0 - P) * Mp[a, j]
                v, st = solve_stage(Mp, na, nb, x, y, work)
                if st != 0:
                    status[i] = 2
                    break
                acc[g] += v
                # R's own figures, with its continuation figures: against the model, and against
                # the reply that minimises them
                gain = 0.0
                for a in range(na):
                    s = 0.0
                    for j in range(nb):
                        s += _at(T, slot, add, a, j, ng + g) * qb[j]
                    gain += x[a] * s
                worst = np.inf
                for j in range(nb):
                    s = 0.0
                    for a in range(na):
                        s += x[a] * _at(T, slot, add, a, j, 2 * ng + g)
                    worst = min(worst, s)
                acc[ng + g] += gain
                acc[2 * ng + g] += worst
                if keep:
                    for v2 in range(MAX_CARDS):
                        dprobs[g, r, v2] = 0.0
                    for a in range(na):
                        dprobs[g, r, rows[a] - 1] = x[a]
            if status[i] != 0:
                break
        for col in range(3 * ng):
            out[i, col] = acc[col] / nq
    return status.max() if len(keys) else 0


@njit(parallel=True, cache=True)
def _safe_level(play_v, play_g, mt, eq_b, keys, starts, vals_v, vals_g, dkeys, dprobs, penalties):
    """Equilibrium values, gains against the model of the safe response and its stage strategies at the
    states ``keys``: at each decision the optimal mixture of the equilibrium stage game that gains most
    against the model; a status."""
    n = play_v.n
    status = np.zeros(len(keys), np.int64)
    for i in prange(len(keys)):
        MV = np.empty((MAX_CARDS, MAX_CARDS))
        MG = np.empty((MAX_CARDS, MAX_CARDS))
        C = np.empty((MAX_CARDS, MAX_CARDS))
        x = np.empty(MAX_CARDS)
        xb = np.empty(MAX_CARDS)
        z = np.empty(MAX_CARDS)
        y = np.empty(MAX_CARDS)
        g = np.empty(MAX_CARDS)
        work = np.empty(stage_work_size(MAX_CARDS, MAX_CARDS))
        rows = np.empty(MAX_CARDS, np.int64)
        cols = np.empty(MAX_CARDS, np.int64)
        qb = np.empty(MAX_CARDS)
        pb = np.empty(MAX_CARDS)
        qs = np.empty(MAX_CARDS, np.int64)
        ha, hb, pm, c, d = unpack_key(keys[i])
        k = _popcount(ha)
        nq = _reveals(pm, k, n, play_v.seq, qs)
        acc_v = 0.0
        acc_g = 0.0
        for t in range(nq):
            q = qs[t]
            pm2 = pm & ~(1 << (q - 1))
            pot = c + q
            na, nb = _matrix(play_v, ha, hb, pm2, pot, d, k, rows, cols, MV)
            _matrix(play_g, ha, hb, pm2, pot, d, k, rows, cols, MG)
            st = _model_dist(mt, eq_b, ha, hb, pm2, pot, d, n, cols, nb, qb, pb)
            if st != 0:
                status[i] = st
                break
            vstar, st = solve_stage(MV, na, nb, xb, y, work)
            if st != 0:
                status[i] = 2
                break
            for a in range(na):
                s = 0.0
                for j in range(nb):
                    s += MG[a, j] * qb[j]
                g[a] = s
            # the LP  max x.g  s.t.  x.MV[:, j] >= v*  as the matrix game with columns g + lam (MV[:, j] - v*):
            # an exact penalty for lam large enough; each answer is checked, the stage's own optimal
            # mixture is the fallback
            tol = REPLY_TOL * (1.0 + abs(vstar))
            for a in range(na):
                x[a] = xb[a]
            for lam in penalties:
                for a in range(na):
                    for j in range(nb):
                        C[a, j] = g[a] + lam * (MV[a, j] - vstar)
                _, st = solve_stage(C, na, nb, z, y, work)
                if st != 0:
                    continue
                ok = True
                for j in range(nb):
                    s = 0.0
                    for a in range(na):
                        s += z[a] * MV[a, j]
                    if s < vstar - tol:
                        ok = False
                        break
                if ok:
                    gy = 0.0
                    gx = 0.0
                    for a in range(na):
                        gy += z[a] * g[a]
                        gx += x[a] * g[a]
                    if gy > gx:
                        for a in range(na):
                            x[a] = z[a]
                    break
            gv = 0.0
            for a in range(na):
                gv += x[a] * g[a]
            acc_v += vstar
            acc_g += gv
            r = starts[i] + t
            dkeys[r] = decision_key(ha, hb, pm2, pot, d)
            for v2 in range(MAX_CARDS):
                dprobs[r, v2] = 0.0
            for a in range(na):
                dprobs[r, rows[a] - 1] = x[a]
        vals_v[i] = acc_v / nq
        vals_g[i] = acc_g / nq
    return status.max() if len(keys) else 0


@njit(cache=True)
def _decision_starts(keys, n, random_order):
    """Index of each state's first decision (one per revealed prize) and the number of decisions."""
    out = np.empty(len(keys), np.int64)
    m = 0
    for i in range(len(keys)):
        out[i] = m
        m += _popcount(unpack_key(keys[i])[2]) if random_order else 1
    return out, m


@njit(parallel=True, cache=True)
def _all_states(subs):
    """Keys of every state whose hands and hidden prizes are each one of the sets ``subs`` (all of one
    size), no pot, no score."""
    m = len(subs)
    out = np.empty(m * m * m, np.int64)
    for i in prange(m):
        for j in range(m):
            for t in range(m):
                out[(i * m + j) * m + t] = decision_key(subs[i], subs[j], subs[t], 0, 0)
    return out


# ---------------------------------------------------------------------------
# memory
# ---------------------------------------------------------------------------

#: bytes of a decision's row in a response's table (a probability per card) and of its key
_ROW_BYTES = MAX_CARDS * 8
_KEY_BYTES = 8


def pass_bytes(counts, decisions, ng, keep, safe=False) -> int:
    """Projected peak memory of one backward pass over the restricted game's states.

    Parameters
    ----------
    counts, decisions : sequence of int
        States and decisions (a state's reveals) of each level ``k = 0..n`` (level 0 unused).
    ng : int
        Weights solved in the pass (their three figures per state are held for two levels at once).
    keep : bool
        Whether each weight's table (a row per decision) is kept and built into a strategy at the end.
    safe : bool
        The safe response's pass instead (one value and one gain per state, kept for every level,
        two hashed tables of the level below, its table always kept).

    Returns
    -------
    int
        Bytes: the keys of every level, plus the most that one level's step holds, plus
        :data:`~gops_solver.engine.projection.OVERHEAD_BYTES`.
    """
    n = len(counts) - 1
    held = _KEY_BYTES * sum(counts[1:]) + projection.OVERHEAD_BYTES
    table = 0  # the tables of the levels done so far
    peak = 0
    for k in range(1, n + 1):
        below = counts[k - 1] if k > 1 else 0
        hashes = 16 * slots_for(below) if k > 1 else 0  # keys and rows (or values) of the level below
        if safe:
            step = 16 * sum(counts[1:k]) + 2 * hashes + 24 * counts[k]
        else:
            step = 24 * ng * (below + counts[k]) + hashes + 8 * counts[k]
        if keep or safe:
            table += decisions[k] * (_KEY_BYTES + (1 if safe else ng) * _ROW_BYTES)
        peak = max(peak, step + table)
    if keep or safe:
        # the strategies are built from every level's tables: the keys sorted once, each weight's rows gathered
        # (a transient copy and the kept one) while the weights before it are held
        d = sum(decisions)
        peak = max(peak, table + d * (3 * _KEY_BYTES + 2 * _ROW_BYTES) + (ng - 1) * d * _ROW_BYTES)
    return held + peak


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------

class _FreeA:
    """Seat A of the forward pass: may bid any card (uniform support), and makes the level pass keep card
    values (``reads_values``) unless the model sees ranks only."""

    def __init__(self, ranks):
        self.s = Strategy("uniform", 0)
        self.s.rank_only = ranks
        self.s.reads_values = not ranks
        self.args = (0, np.zeros(0, np.int64), np.zeros((0, MAX_CARDS)))

    def prepare(self, keys):
        pass


class _Game:
    """The states of the restricted game (every state both players can reach), level by level."""

    def __init__(self, rules, model, tick=None):
        self.rules, self.model, self.n = rules, model, rules.n
        self._sizes = None
        self.ranks = model.rank_only
        self.relabel = RANKS if self.ranks else KEEP
        self.keep_diff = rules.objective == "win" or model.uses_diff
        self.seq = prize_sequence(rules)
        n = self.n
        keys, _ = _start(n)
        self.levels = [None] * (n + 1)
        self.levels[n] = keys
        free = _FreeA(self.ranks)
        # discarded ties, random order, no score and card values kept: every triple of a hand each and
        # a prize set of one size is reached, so the states are listed rather than found by playing
        listed = rules.tie == "discard" and rules.random_order and not self.keep_diff and not self.ranks
        subsets = PrizeSets(range(1, n + 1)).level_sets if listed else None  # bit v - 1 for card v
        if listed:
            states = sum(comb(n, k) ** 3 for k in range(1, n))
            self._refuse(_KEY_BYTES * states, f"the keys of its {states:,} states", "choose fewer cards")
        for k in range(n, 1, -1):
            if listed:
                self.levels[k - 1] = _all_states(subsets[k - 1])
                if tick is not None:
                    tick()
                continue
            self.levels[k - 1], _ = _step(self.levels[k], np.ones(len(self.levels[k])), rules, free, None,
                                          MODE_REACH, self.keep_diff, _NO_NEXT)
            # the levels found so far bound from below what the lightest pass will hold (a decision per state
            # at least): a deck that cannot fit stops here, not after the remaining levels
            found = [0] * (k - 1) + [len(self.levels[j]) for j in range(k - 1, n + 1)]
            what = f"its {sum(found):,} states" if k == 2 else \
                f"the {sum(found):,} states of hands of {k - 1} or more cards, before the rest are found"
            self._refuse(pass_bytes(found, found, 1, False), what, "choose fewer cards")
            if tick is not None:
                tick()
        self.seat_b = _Seat(model, rules, True)

    def sizes(self):
        """States and decisions of each level (index ``k``; level 0 unused)."""
        if self._sizes is None:
            counts = [0] + [len(self.levels[k]) for k in range(1, self.n + 1)]
            self._sizes = counts, [0] + [int(self.starts(k)[1]) for k in range(1, self.n + 1)]
        return self._sizes

    def check(self, ng, keep, safe=False):
        """Refuse (``ValueError``, one line) a pass that cannot fit in this machine's memory."""
        counts, decisions = self.sizes()
        need = pass_bytes(counts, decisions, ng, keep, safe)
        states = f"{sum(counts):,} states"
        if safe:
            self._refuse(need, f"the safe response over {states}", "choose fewer cards")
        elif keep:
            self._refuse(need, f"{'a table' if ng == 1 else f'{ng} tables'} of {sum(decisions):,} decisions",
                         "choose fewer cards (a saved response holds a row per decision)")
        else:
            fit = next((g for g in range(ng - 1, 1, -1) if self._fits(pass_bytes(counts, decisions, g, False))), 0)
            self._refuse(need, f"{ng} weights over {states}",
                         f"ask for at most {fit} weights (--grid {fit}), or fewer cards" if fit else "choose fewer cards")

    @staticmethod
    def _fits(need, have=None):
        have = projection.machine_memory() if have is None else have
        return need <= projection.FIT_SHARE * have

    def _refuse(self, need, what, fix):
        have = projection.machine_memory()
        if not self._fits(need, have):
            raise ValueError(f"exact responses to {self.model.name} at {self.rules.describe()} need about "
                             f"{need / 2**30:.1f} GiB for {what}, and this machine has {have / 2**30:.1f} GiB: {fix}")

    def play(self, nxt):
        r = self.rules
        return Play(self.n, self.seq, r.tie == "carry", self.keep_diff, self.relabel, r.objective == "win",
                    MODE_FIXED, False, *nxt)

    def model_args(self, k):
        self.seat_b.prepare(self.levels[k])
        code, kb, pb = self.seat_b.args
        return ModelTable(code, kb, pb), self.model.eq

    def starts(self, k):
        return _decision_starts(self.levels[k], self.n, self.rules.random_order)

    def strategies(self, dkeys, dprobs, labels):
        """The table-driven strategies of the decisions ``dkeys`` (per level): the g-th of ``labels``
        ``(name, meta)`` plays the rows ``dprobs[level][g]``; each ``meta`` gains the ``rules`` it was
        computed for, as a response read from its file carries them."""
        # one decision met from two states is the same stage game: kept once
        keys, first = np.unique(np.concatenate(dkeys), return_index=True)
        return [Strategy.precomputed(name, keys, np.concatenate([dp[g] for dp in dprobs])[first], self.keep_diff,
                                     self.ranks, {**meta, "rules": self.rules}) for g, (name, meta) in enumerate(labels)]


def restricted_response(rules: Rules, model, p: float, solution=None, game=None, tick=None):
    """The restricted response R(p) and the value of the restricted game of weight ``p``.

    Parameters
    ----------
    rules : Rules
        A classic two-player single game (any tie rule, objective, prize order).
    model : str or Strategy
        The opponent's model (seat B), see :func:`~gops_solver.analysis.strategies.make_strategy`.
    p : float
        0 <= p <= 1: the probability that B follows the model at each round.
    solution : Solution, optional
        For an ``equilibrium`` model.
    game : object, optional
        The states of a previous call with the same rules and model (reused).
    tick : callable, optional
        Called after each level.

    Returns
    -------
    (Strategy, float)
        The response (seat A) and the value of the restricted game at the start.
    """
    p = _check_p(p)
    game = game if game is not None else _game(rules, model, solution)
    strat, value, _, _ = _responses(game, [p], tick)[0]
    return strat, value


def _responses(game, ps, tick=None, keep=True):
    """R(p) for every weight of ``ps`` in one backward pass over the restricted game's states.

    Returns
    -------
    list of (Strategy or None, float, float, float)
        Per weight: the response (None unless ``keep``: its table holds a row per decision), the
        restricted game's value, the response's exact expected result against the model and
        against its best reply (all at the start).
    """
    n = game.n
    ps = np.asarray(ps, dtype=np.float64)
    ng = len(ps)
    game.check(ng, keep)
    play = game.play(_NO_NEXT)
    below = Below(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3 * ng)))
    dk_parts, dp_parts = [], []
    for k in range(1, n + 1):
        keys = game.levels[k]
        starts, m = game.starts(k)
        out = np.empty((len(keys), 3 * ng))
        m = m if keep else 0
        dkeys, dprobs = np.empty(m, np.int64), np.empty((ng, m, MAX_CARDS))
        mt, eq = game.model_args(k)
        check_status(_curve_level(play, ps, mt, eq, keys, starts, below, out, dkeys, dprobs))
        dk_parts.append(dkeys)
        dp_parts.append(dprobs)
        below = Below(np.full(slots_for(len(keys)), EMPTY, np.int64), np.zeros(slots_for(len(keys)), np.int64), out)
        _row_table(keys, below.hk, below.hrow)
        if tick is not None:
            tick()
    labels = [(f"R({_fmt_p(p)}) to {game.model.name}", {"kind": "response", "model": game.model.name, "p": float(p)})
              for p in ps]
    strats = game.strategies(dk_parts, dp_parts, labels) if keep else [None] * ng
    return [(strats[g], float(out[0, g]), float(out[0, ng + g]), float(out[0, 2 * ng + g])) for g in range(ng)]


def safe_response(rules: Rules, model, solution=None, game=None, tick=None):
    """The best response to the model among equilibrium strategies (exploitability 0).

    At every decision A plays, among the optimal mixtures of the equilibrium stage game, one that
    maximises the gain against the model with this strategy's own continuation gains.

    Returns
    -------
    (Strategy, float, float)
        The response, the game value and its gain against the model (both at the start, as
        computed by the induction; :func:`exploit` re-evaluates the gain exactly).
    """
    game = game if game is not None else _game(rules, model, solution)
    game.check(1, True, safe=True)
    n = rules.n
    tv = [_NO_NEXT] * (n + 1)
    tg = [_NO_NEXT] * (n + 1)
    dk_parts, dp_parts = [], []
    pen = np.array(_PENALTIES)
    for k in range(1, n + 1):
        keys = game.levels[k]
        starts, m = game.starts(k)
        vv, vg = np.empty(len(keys)), np.empty(len(keys))
        dkeys, dprobs = np.empty(m, np.int64), np.empty((m, MAX_CARDS))
        mt, eq = game.model_args(k)
        pv = game.play(hashed(*tv[k - 1]) if k > 1 else _NO_NEXT)
        pg = game.play(hashed(*tg[k - 1]) if k > 1 else _NO_NEXT)
        check_status(_safe_level(pv, pg, mt, eq, keys, starts, vv, vg, dkeys, dprobs, pen))
        tv[k], tg[k] = (keys, vv), (keys, vg)
        dk_parts.append(dkeys)
        dp_parts.append(dprobs[None])
        if tick is not None:
            tick()
    name = f"safe response to {game.model.name}"
    meta = {"kind": "response", "model": game.model.name, "p": None, "risk": 0.0}
    return game.strategies(dk_parts, dp_parts, [(name, meta)])[0], float(tv[n][1][0]), float(tg[n][1][0])


def _game(rules, model, solution, tick=None):
    check_exploit_rules(rules)
    solution = solution_for(rules, solution, model)
    return _Game(rules, make_strategy(model, solution), tick)


def _check_p(p):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"p={p!r} must be a number in [0, 1]: the probability that the opponent follows the model")
    return float(p)


def _fmt_p(p):
    return f"{p:.6g}"


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass
class ResponsePoint:
    """Exact figures of one response.

    Attributes
    ----------
    p : float or None
        The weight of the restricted response (None for the safe response).
    value : float or None
        Value of the restricted game at the start (the game value for the safe response).
    gain : float
        Expected result of the response (seat A) against the model (seat B), under the objective.
    exploitability : float
        Game value minus the response's value against its best response.
    strategy : Strategy or None
        None for a point of a curve asked without its strategies.
    """

    p: float | None
    value: float | None
    gain: float
    exploitability: float
    strategy: Strategy = field(repr=False)

    def to_dict(self) -> dict:
        """JSON-ready figures."""
        return {"p": self.p, "value": self.value, "gain": self.gain, "exploitability": self.exploitability}


@dataclass
class ExploitResult:
    """Result of :func:`exploit`.

    Attributes
    ----------
    rules : Rules
    model : str
    game_value : float
    response : ResponsePoint
        The response asked for (R(p), or the one chosen under ``risk``).
    curve : list of ResponsePoint
        With ``curve``: one point per weight of the grid.
    risk : float or None
    seconds : float
    """

    rules: Rules
    model: str
    game_value: float
    response: ResponsePoint | None
    curve: list
    risk: float | None
    seconds: float

    @property
    def value(self):
        """Value of the restricted game of the response (None for a curve alone)."""
        return None if self.response is None else self.response.value

    @property
    def gain(self):
        """The response's exact gain against the model."""
        return None if self.response is None else self.response.gain

    @property
    def exploitability(self):
        """The response's exact exploitability."""
        return None if self.response is None else self.response.exploitability

    @property
    def strategy(self):
        """The response as a :class:`~gops_solver.analysis.strategies.Strategy`."""
        return None if self.response is None else self.response.strategy

    def save(self, path) -> None:
        """Write the response as a strategy file (see :mod:`gops_solver.analysis.strategyfile`)."""
        if self.response is None:
            raise ValueError("a curve has no single response to save: give p= or risk=")
        from gops_solver.analysis.strategyfile import write_strategy_file
        write_strategy_file(path, self.response.strategy, self.rules)  # a precomputed strategy

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"rules": self.rules.to_dict(), "model": self.model, "game_value": self.game_value,
                "risk": self.risk, "response": None if self.response is None else self.response.to_dict(),
                "curve": [pt.to_dict() for pt in self.curve], "seconds": round(self.seconds, 3)}


def default_grid(points: int = 11) -> list:
    """``points`` evenly spaced weights from 0 to 1."""
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 2:
        raise ValueError(f"grid={points!r} must be a whole number >= 2: the number of weights from 0 to 1")
    return [i / (points - 1) for i in range(points)]


def exploit(rules: Rules, model, p=None, curve=None, risk=None, solution=None, progress=None,
            strategies=True) -> ExploitResult:
    """Exact responses to a modelled opponent (see the module docstring).

    Parameters
    ----------
    rules : Rules
        A classic two-player single game.
    model : str or Strategy
        The opponent (seat B).
    p : float, optional
        The restricted response R(p) (0 <= p <= 1).
    curve : bool, int or sequence of float, optional
        The trade-off curve: True for 11 weights 0, 0.1, ..., 1, an int for that many evenly spaced
        weights, or the weights themselves.
    risk : float, optional
        EPS >= 0: the response with the largest gain among those with exploitability <= EPS (R(P) for
        P in [0, 1], and the safe response).
    solution : Solution, optional
        A solution of ``rules`` (for an ``equilibrium`` model and the game value; solved here when needed).
    progress : callable, optional
        Called with a short description after each level of each pass over the states: the
        states' own ``n - 1``, then ``n`` for the grid (or ``p``) and ``n`` for each further pass
        (the safe response and the bisection of ``risk``).
    strategies : bool, default True
        Keep the strategy of each point of ``curve`` (a table with a row per decision, for each
        weight). False keeps the figures alone (each point's ``strategy`` is None), which a large
        deck needs; the response of ``p`` or ``risk`` is always kept.

    Returns
    -------
    ExploitResult

    Raises
    ------
    ValueError
        Rules not supported, p outside [0, 1], risk < 0, a bad grid, an unknown model.
    """
    t0 = time.perf_counter()
    check_exploit_rules(rules)
    if p is not None:
        p = _check_p(p)
    if risk is not None:
        if isinstance(risk, bool) or not isinstance(risk, (int, float, np.integer, np.floating)) \
                or not np.isfinite(risk) or risk < 0:
            raise ValueError(f"risk={risk!r} must be a number >= 0: the exploitability the response may have")
        risk = float(risk)
    grid = _grid(curve)
    if p is None and risk is None and grid is None:
        p = 1.0
    solution = solution_for(rules, solution, model)
    mdl = make_strategy(model, solution)
    check_strategy_rules(mdl, rules)
    say = progress or (lambda what: None)
    game = _Game(rules, mdl, tick=lambda: say("states"))

    # every pass this call will run is checked before the first starts
    if grid is not None:
        game.check(len(grid), strategies)
    if risk is not None:
        game.check(1, False, safe=True)
    if p is not None or risk is not None:
        game.check(1, True)
    game_value = float(solution.value) if solution is not None else 0.0  # the game is symmetric
    cache = {}

    def measure(pps, keep):
        """R(p) for the weights not yet measured (or, with ``keep``, not kept), all in one pass."""
        todo = [pp for pp in dict.fromkeys(pps) if pp not in cache or (keep and cache[pp].strategy is None)]
        if todo:
            what = ", ".join(f"R({_fmt_p(pp)})" for pp in todo)
            for pp, (strat, val, gain, worst) in zip(todo, _responses(game, todo, lambda: say(what), keep)):
                cache[pp] = ResponsePoint(pp, val, gain, game_value - worst, strat)
        return [cache[pp] for pp in pps]

    pts = measure(grid, strategies) if grid is not None else []
    response = None
    if risk is not None:
        # the bisection's responses are measured without their tables; the chosen one is kept
        response = _within_risk(rules, mdl, risk, lambda pp: measure([pp], False)[0], solution, game, say)
        if response.strategy is None:
            response = measure([response.p], True)[0]
    elif p is not None:
        response = measure([p], True)[0]
    return ExploitResult(rules, mdl.name, game_value, response, pts, risk, time.perf_counter() - t0)


def _measured(rules, strat, mdl, p, value, solution):
    ev = evaluate(strat, rules, against=mdl, solution=solution)
    return ResponsePoint(p, value, float(ev.vs_opponent.value), float(ev.exploitability), strat)


def _grid(curve):
    if curve is None or curve is False:
        return None
    if curve is True:
        return default_grid()
    if isinstance(curve, (int, np.integer)) and not isinstance(curve, bool):
        return default_grid(int(curve))
    try:
        ps = sorted({_check_p(float(x)) for x in curve})
    except (TypeError, ValueError):
        raise ValueError(f"curve={curve!r} must be True, a number of weights, or weights in [0, 1]") from None
    if not ps:
        raise ValueError("curve= has no weights: give weights in [0, 1], e.g. 0,0.5,1")
    return ps


#: bisection steps on P when looking for the largest R(P) within a risk bound
_BISECT_STEPS = 12


def _within_risk(rules, mdl, eps, at, solution, game, say):
    """The candidate with the largest gain whose exploitability is <= ``eps`` + the evaluation's tolerance."""
    strat, v, _ = safe_response(rules, mdl, solution, game, tick=lambda: say("safe response"))
    safe = _measured(rules, strat, mdl, None, v, solution)
    slack = VALUE_TOL * (1.0 + abs(safe.gain))
    cands = [safe]
    if eps > 0:
        lo, hi = 0.0, 1.0
        top = at(1.0)
        if top.exploitability <= eps + slack:
            cands.append(top)
        else:
            cands.append(at(0.0))
            for _ in range(_BISECT_STEPS):
                mid = (lo + hi) / 2
                if at(mid).exploitability <= eps + slack:
                    lo = mid
                else:
                    hi = mid
            cands.append(at(lo))
    ok = [c for c in cands if c.exploitability <= eps + slack]
    return max(ok, key=lambda c: c.gain)
