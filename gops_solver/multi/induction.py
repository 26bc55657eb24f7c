"""Backward induction for the 3- and 4-player games (security values and equilibrium).

Follow a state here: :meth:`Induction.decision` takes hands (as rank masks,
see :mod:`.state`), the pot, the hidden prizes and the score keys, puts the
players in canonical order and looks the state up; a new state builds its
stage game from the successors' values (recursively, memoised) and solves

* one zero-sum game per player, **player vs coalition** (rows: the player's
  cards; columns: the tuples of the others' cards), with the project's jitted
  stage solver :func:`gops_solver.lp.stage.solve_stage` (or HiGHS), for the
  security values; and
* the n-player stage game (one axis per player, payoffs the continuation
  vectors) for the selected equilibrium of :mod:`.equilibrium`.

Values are stored per canonical state as ``(security, equilibrium)``
vectors. Under ``points`` they are continuations (points still to be won);
under ``win`` they are the final payoffs themselves.
"""

from __future__ import annotations

import itertools

import numpy as np

from gops_solver.lp.stage import STAGE_OK, highs_stage, solve_stage, stage_work_size
from .equilibrium import METHODS, select_equilibrium, selection_code
from .state import canonical

__all__ = ["Induction", "StageGame"]


class StageGame:
    """The two stage games of one canonical state.

    Attributes
    ----------
    security : numpy.ndarray, shape (m, k, ..., k)
        Payoff of each player when every player's continuation is their
        *security* value (the entries of the player-vs-coalition games).
    equilibrium : numpy.ndarray, shape (m, k, ..., k)
        Payoffs with the *equilibrium* continuation values.
    """

    __slots__ = ("security", "equilibrium")

    def __init__(self, security, equilibrium):
        self.security = security
        self.equilibrium = equilibrium


def _bits(mask):
    out, r = [], 0
    while mask:
        if mask & 1:
            out.append(r)
        mask >>= 1
        r += 1
    return out


def _relabel_masks(masks):
    """Squeeze out ranks nobody holds (only the order of the held cards matters)."""
    union = 0
    for x in masks:
        union |= x
    ranks = _bits(union)
    if len(ranks) == ranks[-1] + 1:
        return masks
    pos = {r: i for i, r in enumerate(ranks)}
    return tuple(sum(1 << pos[r] for r in _bits(x)) for x in masks)


class Induction:
    """Memoised backward induction over canonical states of one game.

    Parameters
    ----------
    rules : Rules
        With ``players`` 3 or 4 (2 also works: the tests use it).
    stage_solver : {"numba", "highs"}
        Backend of the player-vs-coalition games.
    equilibrium : bool
        False computes the security values only (the equilibrium entries
        are then NaN).
    selection : {"logit", "pure"}
        The equilibrium selection rule (:data:`.equilibrium.SELECTIONS`).
    """

    def __init__(self, rules, stage_solver="numba", equilibrium=True, selection="logit"):
        self.selection_code = selection_code(selection, equilibrium)  # checks the name
        self.selection = selection
        self.with_equilibrium = equilibrium
        self.rules = rules
        self.m = rules.players
        self.points = rules.objective == "points"
        self.carry = rules.tie == "carry"
        self.random = rules.random_order
        self.use_highs = stage_solver == "highs"
        self.table = {}     # canonical decision key -> (security array, equilibrium array), canonical order
        self._moves = {}    # canonical masks -> per-profile transitions, see moves()
        self.methods = dict.fromkeys(METHODS, 0)
        self.max_gain = 0.0
        self.stage_games = 0  # decision states whose stage games were solved (decided ones need none)
        k = rules.n
        self._work = np.empty(stage_work_size(k, k ** (self.m - 1)))
        self._x = np.empty(k)
        self._y = np.empty(k ** (self.m - 1))
        self._zero = (0,) * self.m

    # -- keys -------------------------------------------------------------
    def score_keys(self, scores, remaining):
        """What of the scores matters: nothing under ``points``; under ``win`` the
        deficit to the leader, clipped just below ``-remaining`` (such a player
        can no longer reach the top, so the exact deficit changes nothing)."""
        if self.points:
            return self._zero
        top = max(scores)
        return tuple(max(s - top, -remaining - 1) for s in scores)

    def key(self, masks, pot, hidden, scores):
        """Canonical key of a decision state and the player order ``perm`` behind it."""
        masks = _relabel_masks(tuple(masks))
        skeys = self.score_keys(scores, pot + sum(hidden))
        perm = canonical(masks, skeys)
        cm = tuple(masks[i] for i in perm)
        cs = tuple(skeys[i] for i in perm)
        return (cm, pot, hidden, cs), perm

    # -- values -----------------------------------------------------------
    def decision(self, masks, pot, hidden, scores):
        """``(security, equilibrium)`` arrays of shape (m,), in the given player order."""
        key, perm = self.key(masks, pot, hidden, scores)
        vals = self.table.get(key)
        if vals is None:
            vals = self._solve(key)
        sec, eq = np.empty(self.m), np.empty(self.m)
        sec[list(perm)] = vals[0]
        eq[list(perm)] = vals[1]
        return sec, eq

    def _lookup(self, key):
        vals = self.table.get(key)
        return self._solve(key) if vals is None else vals

    def moves(self, masks):
        """Per bid profile (C order over card indices) of canonical ``masks``:
        ``(winner, next masks, canonical next masks, inverse)`` where winner is -1
        for a tie, the next masks are relabelled (player order kept) and, under
        ``points`` (no score keys), ``inverse[i]`` is player i's canonical position
        in the next state (None under ``win``: the order depends on the scores)."""
        out = self._moves.get(masks)
        if out is None:
            cards = [_bits(x) for x in masks]
            out = []
            for prof in itertools.product(*cards):
                top = max(prof)
                winners = [i for i, b in enumerate(prof) if b == top]
                nxt = tuple(x & ~(1 << b) for x, b in zip(masks, prof))
                cm = inverse = None
                if any(nxt):  # the last round leads to no decision state
                    nxt = _relabel_masks(nxt)
                if self.points and any(nxt):
                    perm = canonical(nxt, self._zero)
                    cm = tuple(nxt[i] for i in perm)
                    inverse = np.argsort(perm)
                out.append((winners[0] if len(winners) == 1 else -1, nxt, cm, inverse))
            self._moves[masks] = out
        return out

    def _decided(self, skeys, remaining):
        """Under ``win``: the payoffs when one leader can no longer be caught, else None."""
        if self.points:
            return None
        top = [i for i, s in enumerate(skeys) if s == 0]
        if len(top) == 1 and all(s < -remaining for i, s in enumerate(skeys) if i != top[0]):
            out = np.zeros(self.m)
            out[top[0]] = 1.0
            return out
        return None

    def stage(self, key) -> StageGame:
        """Build both stage games of a canonical state from its successors' values."""
        masks, pot, hidden, skeys = key
        m = self.m
        k = bin(masks[0]).count("1")
        moves = self.moves(masks)
        T = len(moves)
        sec = np.empty((T, m))
        eq = np.empty((T, m))
        if k == 1:
            for t, (winner, _, _, _) in enumerate(moves):
                scores = list(skeys)
                if winner >= 0:
                    scores[winner] += pot
                sec[t] = eq[t] = self._final(scores)
        else:
            chance = [(p, tuple(q for q in hidden if q != p)) for p in hidden] if self.random \
                else [(hidden[0], hidden[1:])]
            for t, (winner, nxt, cm, inverse) in enumerate(moves):
                carry = pot if (winner < 0 and self.carry) else 0
                if self.points:
                    s = np.zeros(m)
                    e = np.zeros(m)
                    for p, rest in chance:
                        vs, ve = self._lookup((cm, carry + p, rest, self._zero))
                        s += vs
                        e += ve
                    s = s[inverse]
                    e = e[inverse]
                    if winner >= 0:
                        s[winner] += pot * len(chance)
                        e[winner] += pot * len(chance)
                else:
                    scores = list(skeys)
                    if winner >= 0:
                        scores[winner] += pot
                    nkeys = self.score_keys(scores, carry + sum(hidden))
                    perm = canonical(nxt, nkeys)
                    ncm = tuple(nxt[i] for i in perm)
                    ncs = tuple(nkeys[i] for i in perm)
                    s = np.zeros(m)
                    e = np.zeros(m)
                    for p, rest in chance:
                        vs, ve = self._lookup((ncm, carry + p, rest, ncs))
                        s += vs
                        e += ve
                    inverse = np.argsort(perm)
                    s = s[inverse]
                    e = e[inverse]
                sec[t] = s / len(chance)
                eq[t] = e / len(chance)
        shape = (m,) + (k,) * m
        return StageGame(np.ascontiguousarray(sec.T).reshape(shape), np.ascontiguousarray(eq.T).reshape(shape))

    def _final(self, scores):
        if self.points:  # scores here are this round's gains only (keys are 0 under points)
            return np.asarray(scores, dtype=float)
        top = max(scores)
        share = 1.0 / sum(1 for s in scores if s == top)
        return np.array([share if s == top else 0.0 for s in scores])

    def security_value(self, payoff, player) -> float:
        """Value of the player-vs-coalition game for ``player`` in a stage payoff tensor."""
        k = payoff.shape[0]
        M = np.ascontiguousarray(np.moveaxis(payoff, player, 0).reshape(k, -1))
        if self.use_highs:
            return highs_stage(M).value
        value, status = solve_stage(M, M.shape[0], M.shape[1], self._x, self._y, self._work)
        if status != STAGE_OK:  # the reference backend gets a second go
            return highs_stage(M).value
        return float(value)

    def _solve(self, key):
        masks, pot, hidden, skeys = key
        decided = self._decided(skeys, pot + sum(hidden))
        if decided is not None:  # no stage game: the leader takes 1 whatever is bid
            vals = (decided, decided.copy())
            self.table[key] = vals
            return vals
        game = self.stage(key)
        self.stage_games += 1
        sec = np.array([self.security_value(game.security[i], i) for i in range(self.m)])
        if self.with_equilibrium:
            found = select_equilibrium(game.equilibrium, selection=self.selection)
            self.methods[found.method] += 1
            self.max_gain = max(self.max_gain, found.gain)
            eq = np.asarray(found.values, dtype=float)
        else:
            eq = np.full(self.m, np.nan)
        vals = (sec, eq)
        self.table[key] = vals
        return vals

    def start(self):
        """``(security, equilibrium)`` at the start, averaged over the first prize."""
        n, m = self.rules.n, self.m
        full = (1 << n) - 1
        if self.random:
            sec, eq = np.zeros(m), np.zeros(m)
            hidden = tuple(range(1, n + 1))
            for p in hidden:
                s, e = self.decision((full,) * m, p, tuple(q for q in hidden if q != p), (0,) * m)
                sec += s
                eq += e
            return sec / n, eq / n
        seq = self.rules.sequence
        return self.decision((full,) * m, seq[0], tuple(seq[1:]), (0,) * m)
