"""Opponent models: what they predict, and their JSON files.

A model predicts one player's bid from that player's view of a decision
state (:class:`~.strategies.View`), so it is a strategy (it plays in either
seat). Two kinds (``docs/models.md``):

``mixture``
    weights ``w_i`` over component strategies (built-in names, ``equilibrium``,
    ``module:function``) and a tremble ``eps``: with ``k`` cards in hand,
    ``p(c) = (1 - eps) * sum_i w_i * s_i(c) + eps / k``.
``tabular``
    per feature cell (:data:`FEATURES`: hand size ``k``; the pot's rank
    ``r`` among the prizes in play, the number of hidden prizes smaller
    than the pot, ``0..k-1``; the sign of the player's score difference),
    counts ``n_j`` of bids of rank ``j`` in the hand (0 = lowest). The
    prediction is the posterior mean under a Dirichlet prior centred on the
    mixture with strength ``prior`` pseudo-counts:
    ``p(rank j) = (n_j + prior * m_j) / (sum(n) + prior)``, ``m`` the
    mixture's distribution at the state in rank order. A cell with no data
    plays the mixture.

Fitting lives in :mod:`gops_solver.opponent.fit`; this module only reads,
writes and evaluates models, so that :mod:`.strategies` can play a model file
without importing the opponent layer. This module does not import
:mod:`.strategies` (which reads model files through :mod:`.strategyfile`):
the strategy factory is handed in (:meth:`OpponentModel.bind`).
"""

from __future__ import annotations

import json
import math
import os
import warnings

import numpy as np
from numba import njit

from gops_solver.engine.storage import IntegrityWarning
from gops_solver.game.constants import MAX_CARDS, MODEL_WEIGHT_TOL as WEIGHT_TOL
from gops_solver.game.statekeys import unpack_key
from gops_solver.game.jsonout import dumps
from gops_solver.game.rules import Rules

MODEL_FORMAT = "gops-opponent-model"
MODEL_VERSION = 1
#: the state features of a tabular model, in the order of a cell's key ``"k,r,s"``
FEATURES = ("hand_size", "pot_rank", "diff_sign")
KINDS = ("mixture", "tabular")


class ModelError(ValueError):
    """A model file that cannot be used (the message names the field)."""


class ModelWarning(IntegrityWarning):
    """A model repaired on reading (probability on bids outside the hand, renormalised)."""


def features(hand, pot, prizes, diff) -> tuple:
    """The feature cell ``(k, r, s)`` of a view (see the module docstring)."""
    k = len(hand)
    r = sum(1 for p in prizes if p < pot)
    return k, min(r, k - 1), (diff > 0) - (diff < 0)


def cell_key(k, r, s) -> str:
    return f"{k},{r},{s}"


class OpponentModel:
    """A fitted opponent model (see the module docstring).

    Attributes
    ----------
    rules : Rules
    player : str
        ``"a"`` or ``"b"``: the seat whose bids were fitted.
    kind : str
        ``"mixture"`` or ``"tabular"``.
    components : list of str
        Names of the mixture's component strategies.
    weights : ndarray
        Mixture weights (sum to 1).
    tremble : float
    prior : float
        Dirichlet strength of the tabular backoff (pseudo-counts).
    table : dict
        ``"k,r,s"`` -> counts of bids by rank in hand (length ``k``); empty for a mixture.
    fit : dict
        What the fit measured (log-likelihoods per round, games, rounds, folds).
    """

    def __init__(self, rules, player, kind, components, weights, tremble, prior=0.0, table=None, fit=None):
        self.rules, self.player, self.kind = rules, player, kind
        self.components = list(components)
        self.weights = np.asarray(weights, dtype=float)
        self.tremble, self.prior = float(tremble), float(prior)
        self.table = dict(table or {})
        self.fit = dict(fit or {})
        self._strategies = None
        self._make = None

    def __repr__(self):
        w = ", ".join(f"{c}={x:.3f}" for c, x in zip(self.components, self.weights))
        return f"OpponentModel({self.kind}, player={self.player}, {w})"

    @property
    def loglik_per_round(self) -> float:
        """Log-likelihood per round of the fitted records under this model (nan if not recorded)."""
        return float(self.fit.get("loglik_per_round", math.nan))

    @property
    def heldout_loglik_per_round(self) -> float:
        """k-fold held-out log-likelihood per round (nan if not recorded)."""
        return float(self.fit.get("heldout_loglik_per_round", math.nan))

    def to_dict(self) -> dict:
        return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "rules": self.rules.to_dict(),
                "player": self.player, "kind": self.kind, "components": self.components,
                "weights": [float(w) for w in self.weights], "tremble": self.tremble, "prior": self.prior,
                "features": list(FEATURES) if self.kind == "tabular" else [],
                "table": {k: [float(x) for x in v] for k, v in sorted(self.table.items())}, "fit": self.fit}

    def save(self, path) -> None:
        """Write the model file atomically (temp file, fsync, rename)."""
        from gops_solver.engine.storage import atomic_write
        atomic_write(path, [(dumps(self.to_dict(), indent=1) + "\n").encode()], name="model")

    # -- prediction --------------------------------------------------------

    def bind(self, make=None, solution=None) -> None:
        """Build the component strategies.

        Parameters
        ----------
        make : callable, optional
            The strategy factory, :func:`~.strategies.make_strategy` (handed in: this
            module sits below it); default the one given before.
        solution : Solution, optional
            For an ``equilibrium`` component (solved here from the model's rules if not given).
        """
        make = make or self._make
        if make is None:
            raise ValueError("the model has no strategy factory: read it with make_strategy(path, solution) "
                             "or gops_solver.opponent.read_model")
        if "equilibrium" in self.components and solution is None:
            from gops_solver.api import solve
            solution = solve(self.rules)
        self._make = make
        self._strategies = [make(c, solution) for c in self.components]

    def mixture(self, view) -> np.ndarray:
        """The mixture's probabilities over ``view.hand`` (in hand order), tremble included."""
        if self._strategies is None:
            self.bind()
        n = self.rules.n
        k = len(view.hand)
        p = np.zeros(k)
        for w, s in zip(self.weights, self._strategies):
            if w > 0:
                d = s.distribution(view, n)
                p += w * np.array([d[c] for c in view.hand])
        return (1 - self.tremble) * p + self.tremble / k

    def predict(self, view) -> np.ndarray:
        """The model's probabilities over ``view.hand`` (sorted hand order)."""
        m = self.mixture(view)
        if self.kind == "mixture":
            return m
        counts = self.table.get(cell_key(*features(view.hand, view.pot, view.prizes, view.diff)))
        if counts is None:
            return m
        c = np.asarray(counts, dtype=float)
        return (c + self.prior * m) / (c.sum() + self.prior)

    def rows(self, keys) -> np.ndarray:
        """The model at many decisions at once: ``(len(keys), MAX_CARDS)`` probabilities by card.

        ``keys`` are :func:`~gops_solver.game.statekeys.decision_key` values from the
        player's side. Built-in components run in numba over all keys; user
        functions are called once per key. What evaluate's lookup tables read.
        """
        if self._strategies is None:
            self.bind()
        n = self.rules.n
        keys = np.asarray(keys, dtype=np.int64)
        mix = np.zeros((len(keys), MAX_CARDS))
        for w, s in zip(self.weights, self._strategies):
            if w <= 0:
                continue
            mix += w * s.batch(keys, n)
        dense, total = self._dense_table()
        out = np.zeros((len(keys), MAX_CARDS))
        _finish_rows(keys, n, mix, self.tremble, dense, total, self.prior, self.kind == "tabular", out)
        return out

    def _dense_table(self):
        """The table as arrays ``counts[k, r, s + 1, rank]`` and ``total[k, r, s + 1]`` (-1: no cell)."""
        n = self.rules.n
        dense = np.zeros((n + 1, n, 3, n))
        total = np.full((n + 1, n, 3), -1.0)
        for key, row in self.table.items():
            k, r, s = (int(x) for x in key.split(","))
            dense[k, r, s + 1, :k] = row
            total[k, r, s + 1] = float(np.sum(row))
        return dense, total

    def __call__(self, view) -> dict:
        """A strategy function: ``{card: probability}`` over ``view.hand``."""
        hand = tuple(sorted(view.hand))
        view = view._replace(hand=hand)
        return dict(zip(hand, (float(x) for x in self.predict(view))))

    def strategy(self, solution=None, name=None, make=None):
        """This model as a :class:`~.strategies.Strategy` (called from Python once per decision;
        evaluate fills its lookup tables through :meth:`rows`, a level at once).

        Raises
        ------
        ModelError
            ``solution`` is for other rules than the model's.
        """
        if solution is not None and getattr(solution, "rules", self.rules) != self.rules:
            raise ModelError(f"the model is for {self.rules.describe()}, not {solution.rules.describe()}: "
                             f"fit one for these rules or play its rules")
        self.bind(make, solution)
        self.name = name or f"model({self.kind})"
        out = self._make(self, solution)
        # a mixture of strategies blind to the score is blind to it too: evaluate then merges the states
        # that differ in the score only (far fewer decisions); a table reads the score's sign
        out.uses_diff = self.kind == "tabular" or any(s.uses_diff for w, s in zip(self.weights, self._strategies)
                                                      if w > 0)
        return out


def _field(data, key, where):
    if key not in data:
        raise ModelError(f"{where}: no field {key!r}")
    return data[key]


def model_from_dict(data, where: str = "model") -> OpponentModel:
    """Validate a model's plain data (a parsed file) into an :class:`OpponentModel`.

    Raises
    ------
    ModelError
        One line naming the field: wrong format or version, unusable rules,
        player, kind, components, weights that do not sum to 1, an unknown
        feature, a malformed table cell.
    """
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        raise ModelError(f"{where}: not a gops opponent model (format must be {MODEL_FORMAT!r})")
    if data.get("version") != MODEL_VERSION:
        raise ModelError(f"{where}: model version {data.get('version')!r}; this gops reads version {MODEL_VERSION}; "
                         f"fit it again with gops model fit")
    try:
        rules = Rules.from_dict(_field(data, "rules", where))
    except ModelError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{where}: field rules is unusable: {exc}") from None
    if not rules.classic or rules.players != 2 or rules.match != "single":
        raise ModelError(f"{where}: field rules: models play single classic two-player games, not {rules.describe()}")
    player = _field(data, "player", where)
    if player not in ("a", "b"):
        raise ModelError(f"{where}: field player is {player!r}: a or b")
    kind = _field(data, "kind", where)
    if kind not in KINDS:
        raise ModelError(f"{where}: field kind is {kind!r}: one of {', '.join(KINDS)}")
    comps = _field(data, "components", where)
    weights = _field(data, "weights", where)
    if not isinstance(comps, list) or not comps or not all(isinstance(c, str) for c in comps):
        raise ModelError(f"{where}: field components must be a non-empty list of strategy names")
    if not isinstance(weights, list) or len(weights) != len(comps) or \
            not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights):
        raise ModelError(f"{where}: field weights must be {len(comps)} numbers, one per component")
    w = np.asarray(weights, dtype=float)
    if not np.all(np.isfinite(w)) or np.any(w < 0) or abs(w.sum() - 1) > WEIGHT_TOL:
        raise ModelError(f"{where}: field weights {weights} must be >= 0 and sum to 1 (they sum to {w.sum():.6g})")
    tremble = _field(data, "tremble", where)
    if isinstance(tremble, bool) or not isinstance(tremble, (int, float)) or not 0 <= tremble <= 1:
        raise ModelError(f"{where}: field tremble is {tremble!r}: a number in 0..1")
    prior = data.get("prior", 0.0)
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not math.isfinite(prior) or prior < 0:
        raise ModelError(f"{where}: field prior is {prior!r}: a number >= 0")
    table = {}
    if kind == "tabular":
        feats = _field(data, "features", where)
        if not isinstance(feats, list):
            raise ModelError(f"{where}: field features must be a list")
        for f in feats:
            if f not in FEATURES:
                raise ModelError(f"{where}: field features: unknown feature {f!r}; this gops knows "
                                 f"{', '.join(FEATURES)}")
        if tuple(feats) != FEATURES:
            raise ModelError(f"{where}: field features is {feats}: a tabular model uses {list(FEATURES)}")
        raw = _field(data, "table", where)
        if not isinstance(raw, dict):
            raise ModelError(f"{where}: field table must be an object cell -> counts")
        n = rules.n
        for key, row in raw.items():
            try:
                k, r, s = (int(x) for x in key.split(","))
            except ValueError:
                raise ModelError(f"{where}: field table: cell {key!r} is not k,r,s") from None
            if not (1 <= k <= n and 0 <= r < k and s in (-1, 0, 1)):
                raise ModelError(f"{where}: field table: cell {key!r} is outside hand size 1..{n}, "
                                 f"pot rank 0..k-1, sign -1..1")
            if not isinstance(row, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                    for x in row):
                raise ModelError(f"{where}: field table: cell {key!r} must be a list of counts")
            c = np.asarray(row, dtype=float)
            if not np.all(np.isfinite(c)) or np.any(c < 0):
                raise ModelError(f"{where}: field table: cell {key!r} has a negative or non-finite count")
            if len(c) > k:
                if np.any(c[k:] > 0):
                    warnings.warn(f"{where}: table cell {key} gives weight to ranks beyond a hand of {k} cards: "
                                  f"dropped, the rest renormalised", ModelWarning, stacklevel=2)
                c = c[:k]
            elif len(c) < k:
                c = np.concatenate([c, np.zeros(k - len(c))])
            table[key] = c.tolist()
    fit = data.get("fit", {})
    return OpponentModel(rules, player, kind, comps, w / w.sum(), float(tremble), float(prior), table,
                         fit if isinstance(fit, dict) else {})


def read_model(path) -> OpponentModel:
    """Read and validate a model file (:func:`model_from_dict`); ModelError/ValueError if unusable."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"cannot read model {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: not a JSON model file ({exc})") from None
    return model_from_dict(data, path)


@njit(cache=True)
def _finish_rows(keys, n, mix, tremble, dense, total, prior, tabular, out):
    """Tremble, then (tabular) the Dirichlet-smoothed cell counts, at each key (``out`` modified in place)."""
    for i in range(len(keys)):
        own, opp, pm, pot, diff = unpack_key(keys[i])
        k = 0
        for v in range(n):
            if (own >> v) & 1:
                k += 1
        for v in range(n):
            if (own >> v) & 1:
                out[i, v] = (1 - tremble) * mix[i, v] + tremble / k
        if not tabular:
            continue
        r = 0
        for v in range(n):
            if (pm >> v) & 1 and v + 1 < pot:
                r += 1
        if r > k - 1:
            r = k - 1
        s = 1 if diff > 0 else (-1 if diff < 0 else 0)
        tot = total[k, r, s + 1]
        if tot < 0:
            continue
        j = 0
        for v in range(n):
            if (own >> v) & 1:
                out[i, v] = (dense[k, r, s + 1, j] + prior * out[i, v]) / (tot + prior)
                j += 1
