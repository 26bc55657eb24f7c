"""Fitting opponent models to game records (``gops model fit``, :func:`fit_model`).

Mixture
    A player's strategy is a latent component drawn once per game. The
    likelihood of a game under component ``i`` is the product over its
    rounds of ``(1 - eps) * s_i(bid) + eps / k`` (``k`` cards in hand, ``eps``
    the tremble), so one odd bid does not zero a component. The weights are
    fitted by expectation-maximisation over games (Dempster, Laird, Rubin
    1977): the E-step gives each game's posterior over components, the
    M-step sets the weights to their mean.
Tabular
    Counts of the bid's rank in hand per feature cell
    (:data:`~gops_solver.analysis.models.FEATURES`), predicted with a
    Dirichlet prior centred on the fitted mixture (``prior`` pseudo-counts).

The held-out log-likelihood is k-fold over games: each fold is predicted by a
model fitted (mixture and table) on the other folds. ``kind="auto"`` keeps
the kind whose held-out log-likelihood is larger.
"""

from __future__ import annotations

import math
import os

import numpy as np

from gops_solver.analysis.models import OpponentModel, cell_key, features, read_model as _read_model
from gops_solver.game.constants import EM_PRUNE, EM_TOL
from gops_solver.analysis.strategies import (CODE_TABLE, HEURISTICS, MAX_CARDS, View, cards_of, decision_key,
                                             make_strategy, rows_kernel)

#: the components of a mixture unless told otherwise (user strategies are added to them)
DEFAULT_COMPONENTS = HEURISTICS + ("equilibrium",)
#: EM stops when no weight moves more than EM_TOL in an iteration, or after this many
EM_MAX_ITER = 5000


def _decisions(records, player):
    from gops_solver.opponent.records import bid_arrays
    return bid_arrays(records, player)


def _component_rows(strategies, dec, n):
    """``(components, decisions, n)`` array: each component's distribution over cards at each decision."""
    keys = np.array([decision_key(int(o), int(p), int(m), int(pot), int(d)) for _, o, p, m, pot, d, _ in dec],
                    dtype=np.int64)
    uniq, inv = np.unique(keys, return_inverse=True)
    first = np.zeros(len(uniq), np.int64)
    first[inv[::-1]] = np.arange(len(keys))[::-1]
    out = np.zeros((len(strategies), len(dec), n))
    for i, s in enumerate(strategies):
        rows = np.zeros((len(uniq), MAX_CARDS))
        if s.code == CODE_TABLE:
            for u in range(len(uniq)):
                _, o, p, m, pot, d, _ = dec[first[u]]
                view = View(tuple(cards_of(int(o), n)), tuple(cards_of(int(p), n)), int(pot),
                            tuple(cards_of(int(m), n)), int(d))
                dist = s.distribution(view, n)
                for c, pr in dist.items():
                    rows[u, c - 1] = pr
        else:
            st = rows_kernel(n)(s.code, uniq, n, s.eq, rows)
            if st != 0:
                raise RuntimeError(f"strategy {s.name} failed at a recorded state (status {st}); this is a bug")
        out[i] = rows[inv, :n]
    return out


def _em(L, iters=EM_MAX_ITER):
    """Weights maximising ``sum_g log sum_i w_i exp(L[g, i])`` by EM; (weights, log-likelihood)."""
    G, C = L.shape
    w = np.full(C, 1.0 / C)
    for _ in range(iters):
        with np.errstate(divide="ignore"):
            a = L + np.log(w)
        mx = a.max(axis=1, keepdims=True)
        r = np.exp(a - mx)
        r /= r.sum(axis=1, keepdims=True)
        new = r.mean(axis=0)
        done = np.max(np.abs(new - w)) < EM_TOL
        w = new
        if done:
            break
    return w, _mix_loglik(L, w)


def _mix_loglik(L, w):
    with np.errstate(divide="ignore"):
        a = L + np.log(w)
    mx = a.max(axis=1, keepdims=True)
    return float(np.sum(mx[:, 0] + np.log(np.exp(a - mx).sum(axis=1))))


class _Data:
    """The decisions of the fitted player, with what every component predicts there."""

    def __init__(self, records, player, strategies, tremble):
        n = records[0].rules.n
        self.n = n
        self.dec = _decisions(records, player)
        self.games = len(records)
        self.game = self.dec[:, 0]
        own = self.dec[:, 1]
        bids = self.dec[:, 6]
        self.k = np.array([bin(int(o)).count("1") for o in own])
        self.hand_mask = np.zeros((len(self.dec), n), bool)
        for v in range(n):
            self.hand_mask[:, v] = (own >> v) & 1
        rows = _component_rows(strategies, self.dec, n)  # (C, D, n)
        # the tremble: uniform over the hand
        self.rows = (1 - tremble) * rows + tremble * self.hand_mask[None] / self.k[None, :, None]
        idx = np.arange(len(self.dec))
        self.p_obs = self.rows[:, idx, bids - 1].T  # (D, C)
        self.rank = np.array([bin(int(o) & ((1 << (int(b) - 1)) - 1)).count("1") for o, b in zip(own, bids)])
        self.cell = [cell_key(*features(range(int(k)), int(pot), cards_of(int(m), n), int(d)))
                     for k, m, pot, d in zip(self.k, self.dec[:, 3], self.dec[:, 4], self.dec[:, 5])]

    def game_loglik(self, games):
        """(G_sel, C) per-game log-likelihood under each component, games ``games`` (a bool mask over games)."""
        sel = games[self.game]
        L = np.zeros((self.games, self.p_obs.shape[1]))
        np.add.at(L, self.game[sel], np.log(self.p_obs[sel]))
        return L[games]

    def counts(self, games):
        sel = games[self.game]
        table = {}
        for i in np.flatnonzero(sel):
            row = table.setdefault(self.cell[i], [0.0] * int(self.k[i]))
            row[self.rank[i]] += 1
        return table

    def tab_logprob(self, games, w, table, prior):
        """Log-probability of each decision of ``games`` under the tabular model (w: mixture weights)."""
        sel = np.flatnonzero(games[self.game])
        mix = np.einsum("c,cdn->dn", w, self.rows[:, sel, :])  # (D_sel, n) over cards
        out = np.empty(len(sel))
        for j, i in enumerate(sel):
            bid = self.dec[i, 6]
            m = mix[j, bid - 1]
            c = table.get(self.cell[i])
            if c is None:
                out[j] = math.log(m)
            else:
                out[j] = math.log((c[self.rank[i]] + prior * m) / (sum(c) + prior))
        return out


def fit_model(records, player: str = "b", kind: str = "auto", strategies=None, tremble: float = 0.01,
              folds: int = 5, prior: float = 10.0, solution=None, seed: int = 0) -> OpponentModel:
    """Fit a model of one player's bids in ``records``.

    Parameters
    ----------
    records : Records, list of GameRecord, or path
        Games of one set of rules (:func:`~.records.read_records`).
    player : {"a", "b"}
    kind : {"auto", "mixture", "tabular"}
        ``auto`` keeps the kind with the larger held-out log-likelihood.
    strategies : sequence of str, optional
        The mixture's components (default :data:`DEFAULT_COMPONENTS`).
    tremble : float
        Probability, in 0..1 (exclusive of 1), of a uniform bid mixed into every component.
    folds : int
        k of the k-fold held-out log-likelihood (2 <= folds <= games).
    prior : float
        Dirichlet strength (pseudo-counts) of the tabular model's backoff to the mixture.
    solution : Solution, optional
        A solution of the records' rules for ``equilibrium`` (solved here if needed).
    seed : int
        Seed of the split into folds.

    Returns
    -------
    OpponentModel
        With ``.weights``, ``.loglik_per_round``, ``.heldout_loglik_per_round``,
        ``.save(path)``, ``.strategy()``.

    Raises
    ------
    ValueError
        No games, mixed rules, a bad option (one line naming it).
    """
    from gops_solver.opponent.records import read_records
    if isinstance(records, (str, os.PathLike)):
        records = read_records(records)
    records = list(records)
    if player not in ("a", "b"):
        raise ValueError(f"player {player!r}: fit a or b")
    if kind not in ("auto", "mixture", "tabular"):
        raise ValueError(f"kind {kind!r}: one of auto, mixture, tabular")
    if isinstance(tremble, bool) or not isinstance(tremble, (int, float)) or not 0 < tremble < 1:
        raise ValueError(f"tremble {tremble!r} must be in (0, 1): it keeps one odd bid from zeroing a component")
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not 0 <= prior < math.inf:
        raise ValueError(f"prior {prior!r} must be a number >= 0 (pseudo-counts)")
    if not records:
        raise ValueError("no games to fit: record some with gops simulate --record or gops play --record")
    kinds = {g.rules for g in records}
    if len(kinds) > 1:
        listed = "; ".join(sorted(r.describe() for r in kinds))
        raise ValueError(f"the records mix rules ({listed}): fit the games of one set of rules at a time")
    rules = kinds.pop()
    if rules.match != "single":
        raise ValueError(f"the records are games of a {rules.match} match, whose equilibrium changes with the "
                         f"match score: fit records of single games")
    if isinstance(folds, bool) or not isinstance(folds, int) or not 2 <= folds <= len(records):
        raise ValueError(f"folds={folds!r} must be a whole number in 2..{len(records)} (the games)")
    names = list(DEFAULT_COMPONENTS if strategies is None else strategies)
    if not names:
        raise ValueError("no component strategies to mix")
    if len(set(names)) != len(names):
        raise ValueError(f"components {names} repeat a strategy: name each once")
    if "equilibrium" in names and solution is None:
        from gops_solver.api import solve
        solution = solve(rules)
    if solution is not None and solution.rules != rules:
        raise ValueError(f"the solution is for {solution.rules.describe()}, not the records' {rules.describe()}")
    strats = [make_strategy(s, solution) for s in names]
    data = _Data(records, player, strats, float(tremble))
    G, D = len(records), len(data.dec)
    everything = np.ones(G, bool)
    w, _ = _em(data.game_loglik(everything))
    w = np.where(w < EM_PRUNE, 0.0, w)  # components EM has all but dropped: none of their work in play
    w /= w.sum()
    ll = _mix_loglik(data.game_loglik(everything), w)
    table = data.counts(everything)
    tab_ll = float(np.sum(data.tab_logprob(everything, w, table, prior)))
    # k-fold over games: each fold predicted by the models fitted on the others
    fold_of = np.random.default_rng(seed).permutation(G) % folds
    held_mix = held_tab = 0.0
    for f in range(folds):
        test, train = fold_of == f, fold_of != f
        wf, _ = _em(data.game_loglik(train))
        held_mix += _mix_loglik(data.game_loglik(test), wf)
        held_tab += float(np.sum(data.tab_logprob(test, wf, data.counts(train), prior)))
    if kind == "auto":
        kind = "tabular" if held_tab > held_mix else "mixture"
    fit = {"games": G, "rounds": D, "folds": folds, "seed": seed,
           "mixture_loglik_per_round": ll / D, "mixture_heldout_loglik_per_round": held_mix / D,
           "tabular_loglik_per_round": tab_ll / D, "tabular_heldout_loglik_per_round": held_tab / D,
           "loglik_per_round": (tab_ll if kind == "tabular" else ll) / D,
           "heldout_loglik_per_round": (held_tab if kind == "tabular" else held_mix) / D}
    model = OpponentModel(rules, player, kind, names, w, float(tremble), float(prior),
                          table if kind == "tabular" else {}, fit)
    model._strategies, model._make = strats, make_strategy
    return model


def read_model(path) -> OpponentModel:
    """Read and validate a model file (see :func:`gops_solver.analysis.models.read_model`), ready to play:
    ``model(view)`` predicts, ``model.strategy(solution)`` is a Strategy."""
    model = _read_model(path)
    model._make = make_strategy
    return model
