"""Nash equilibria of the n-player stage games, by a fixed selection rule.

A stage game is a payoff tensor ``U`` of shape ``(m, k, ..., k)``:
``U[i, b_0, ..., b_{m-1}]`` is player ``i``'s expected payoff (continuation
included) when player ``j`` bids their ``b_j``-th lowest card.

Selection rule (reproducible; docs/rules.md asks for a stated one), applied to
the stage game of the *canonical* state (players in canonical order, see
:mod:`.state`):

1. **A unique pure equilibrium.** If exactly one pure profile is an
   equilibrium (no player gains more than ``PURE_TOL`` by a pure
   deviation), take it. Uniqueness keeps the rule symmetric: a game that is
   symmetric in some players has symmetric values, as with step 2.
   Under the ``pure`` selection (:data:`SELECTIONS`) step 1 takes the first
   pure equilibrium, in the lexicographic order of step 3, among those in
   which exchangeable players bid alike (so the rule stays symmetric); only
   games with no such profile go on to step 2, whose steps are the same for
   both selections.
2. **Otherwise the logit selection.** The limit, as the precision
   ``lambda`` grows, of the principal branch of the logit quantal response
   equilibrium correspondence (McKelvey & Palfrey 1995, Games Econ. Behav.
   10:6-38; traced as in Turocy 2005, Games Econ. Behav. 51:243-263): the
   branch starts at the uniform profile (``lambda = 0``) and is unique, so
   the selection is too. In a game symmetric in some players the branch is
   symmetric in them and is traced among the profiles where they play alike
   (:func:`.kernel.symmetry_classes`). Traced by the jitted kernel of
   :mod:`.kernel`; where it fails on a game with exchangeable players, the
   symmetric equilibrium that the Nash program among profiles where they
   play alike reaches from the kernel's last point of the branch, if it
   lies within ``POLISH_MOVE`` of it (:func:`symmetric_equilibrium_near`),
   else the first pure equilibrium in which they bid alike, else the first
   symmetric equilibrium found by enumerating class supports
   (:func:`support_equilibrium`; all in
   :func:`select_after_kernel`); otherwise, where the kernel stalls or
   cannot certify its endpoint, by pygambit's ``logit_solve``,
   stopped (as a failure) after ``_LOGIT_MAX_EVENTS`` (50,000) points of the
   branch: on some degenerate games it runs for many minutes.
3. **If both tracers fail** (pygambit stops without an equilibrium where the
   branch meets a bifurcation), the first pure equilibrium in lexicographic
   order of ``(b_0, ..., b_{m-1})`` (lowest cards first, player 0 most
   significant); if no pure profile is an equilibrium to ``PURE_TOL``, the
   pure profile with the smallest deviation gain (the first among equals),
   provided that gain is at most ``DEVIATION_TOL``; failing that, the
   first equilibrium that the global Newton method (Govindan & Wilson 2003,
   J. Econ. Theory 110:65-86; pygambit's ``gnm_solve``, in floating point)
   finds from its default perturbation (1 on each player's first card)
   whose support polish certifies it within ``_GNM_FIRST_EVENTS`` (2,000)
   path events; where it finds none, the first
   equilibrium that support enumeration finds (:func:`support_equilibrium`,
   smallest supports first, at most ``SUPPORT_TUPLES`` tuples); then the
   global Newton method's path followed on to ``_GNM_MAX_EVENTS`` (100,000)
   events; failing
   that, the equilibrium that simplicial subdivision (van der Laan & Talman 1979, Math.
   Programming 17:74-84; pygambit's ``simpdiv_solve``, in rationals: up
   to minutes a game) reaches from the uniform profile, polished on its
   supports (regret targets 1e-3 to 1e-9 in turn, the first certified).
   Both paths are fixed by their start, so this step is reproducible too.
4. Whichever step chose it, the profile is accepted only if no player gains more than
   ``DEVIATION_TOL`` (1e-6) by a pure deviation; otherwise
   :class:`EquilibriumError` is raised, never a silent approximation.
"""

from __future__ import annotations

import numpy as np

from .constants import DEVIATION_TOL, PURE_TOL
from .kernel import (KERNEL_FAILED, KERNEL_PURE, SELECT_LOGIT, SELECT_NONE, SELECT_PURE, make_work, profile_values,
                     stage_equilibrium, symmetry_classes)
from .payoffs import deviation_gain, pure_payoffs
from .supports import support_equilibrium, symmetric_equilibrium_near, symmetric_equilibrium_search

# deviation_gain and pure_payoffs live in .payoffs and are re-exported here, where callers have found them
__all__ = ["METHODS", "METHOD_CODES", "SELECTIONS", "selection_code", "EquilibriumError", "StageEquilibrium",
           "deviation_gain", "pure_equilibria", "select_equilibrium", "symmetric_pure_equilibrium",
           "select_after_kernel", "exchangeable_classes", "logit_equilibrium", "gnm_equilibrium", "simpdiv_equilibrium",
           "polish", "pure_payoffs"]


#: How a stage equilibrium was selected (``StageEquilibrium.method``), in the rule's order; the solvers count each
#: and the solve summary names them with these words.
METHODS = {"pure": "pure (step 1)", "logit": "logit", "symmetric-logit": "symmetric logit (Nash program)",
           "symmetric-support": "symmetric support enumeration", "symmetric-search": "symmetric Nash program search",
           "first-pure": "first pure", "gnm": "global Newton", "support": "support enumeration",
           "simpdiv": "simplicial subdivision"}

#: the level solvers' ``method`` codes of the states whose equilibria the fallback selected, by
#: the step it took (the kernel's own statuses are positive; fixed numbers, new methods appended,
#: so a code means the same in every version of a stored solution)
METHOD_CODES = {"pure": -1, "logit": -2, "first-pure": -3, "simpdiv": -4, "gnm": -5, "symmetric-logit": -6,
                "symmetric-support": -7, "support": -8, "symmetric-search": -9}


#: The selection rules by name, with their code in the kernels. ``logit`` (the default): step 1
#: only where the pure equilibrium is unique, else the logit limit. ``pure``: step 1 takes the
#: first pure equilibrium in which exchangeable players bid alike (far faster on the degenerate
#: ``win`` games, where most stage games have several pure equilibria); the rest is the same.
SELECTIONS = {"logit": SELECT_LOGIT, "pure": SELECT_PURE}


def selection_code(selection: str, equilibrium: bool = True) -> int:
    """The kernels' code of a selection rule (``SELECT_NONE`` without equilibria).

    Raises
    ------
    ValueError
        An unknown name (one line naming the choices).
    """
    if selection not in SELECTIONS:
        raise ValueError(f"unknown equilibrium selection {selection!r}: use " + " or ".join(SELECTIONS))
    return SELECTIONS[selection] if equilibrium else SELECT_NONE


class EquilibriumError(RuntimeError):
    """No stage equilibrium within ``DEVIATION_TOL`` was found."""


class StageEquilibrium:
    """A stage game's selected equilibrium.

    Attributes
    ----------
    strategies : list of numpy.ndarray
        One probability vector per player over their cards (ascending).
    values : numpy.ndarray, shape (m,)
        Each player's expected payoff under the profile.
    gain : float
        Largest gain of any player by a pure deviation (<= DEVIATION_TOL).
    method : str
        One of the keys of :data:`METHODS` (the step of the selection rule that chose it).
    """

    __slots__ = ("strategies", "values", "gain", "method")

    def __init__(self, strategies, values, gain, method):
        self.strategies = strategies
        self.values = values
        self.gain = gain
        self.method = method


def pure_equilibria(U) -> list:
    """Every pure equilibrium, in lexicographic order.

    Returns
    -------
    list of tuple of int
        The profiles ``(b_0, ..., b_{m-1})`` of card indices.
    """
    m = U.shape[0]
    ok = np.ones(U.shape[1:], dtype=bool)
    for i in range(m):
        ok &= U[i] >= U[i].max(axis=i, keepdims=True) - PURE_TOL
    return [tuple(int(x) for x in np.unravel_index(f, ok.shape)) for f in np.flatnonzero(ok.ravel())]


def _nearly_pure(U) -> list:
    """The pure profile with the smallest deviation gain, if that is at most ``DEVIATION_TOL``.

    Returns a list with that profile (the lexicographically first among
    equal gains), or an empty list.
    """
    m = U.shape[0]
    gain = np.zeros(U.shape[1:])
    for i in range(m):
        gain = np.maximum(gain, U[i].max(axis=i, keepdims=True) - U[i])
    flat = int(np.argmin(gain.ravel()))  # argmin takes the first of equal minima
    if gain.ravel()[flat] > DEVIATION_TOL:
        return []
    return [tuple(int(x) for x in np.unravel_index(flat, gain.shape))]


#: regret targets (relative to the payoff range) tried in turn by the logit tracer
_LOGIT_TARGETS = (1e-8, 1e-7, 1e-6)
#: events (points of the branch, bifurcations) after which pygambit's logit tracer is stopped
#: and counts as failing (step 3 decides). On some degenerate 4-player `win` games it ran for
#: many minutes; of the 258 games the kernel handed it at 4 players n = 5 discard/win, the
#: longest trace that ended in an equilibrium had 12,240 events (99 % had under 6,500), and
#: 50,000 events take about 4 s. Counting events, not seconds, keeps the selection reproducible
_LOGIT_MAX_EVENTS = 50_000
#: the global Newton method (step 3) is stopped after this many path events and counts as
#: failing: on 24 degenerate 3-player 4-card games of n = 6 carry/points the paths that ended
#: had at most 71 events, but one ran on for minutes (5,000 events took 3.5 s); a 5-card game
#: of n = 6 discard/points needed 61,697 events (4.2 s)
_GNM_MAX_EVENTS = 100_000
#: the global Newton method's first run stops here, before support enumeration: the paths that
#: found an equilibrium on the flagged games of 3 players n = 7 carry/points had at most 59
#: events (those that ended without one, at most 34), but one 5-card game ran to the cap for
#: 180 s where support enumeration then found an equilibrium in 4.4 s
_GNM_FIRST_EVENTS = 2_000
#: probabilities below these count as off the support when polishing, tried in turn
_SUPPORT_TOLS = (1e-6, 1e-4, 1e-2)
#: simplicial subdivision's regret targets (exact rationals 1/d), coarsest first: its grid is
#: refined until the target is met, and on some degenerate games 1e-9 takes many minutes
#: (a 3-player 4-card game of 3 players n = 6: over 5 min; 1e-5 took 24 s and polished to 1e-6)
_SIMPDIV_TARGETS = (10**3, 10**4, 10**5, 10**6, 10**9)


def _gambit():
    try:
        import pygambit
    except ImportError:  # pragma: no cover - the dependency is declared
        raise EquilibriumError("this stage game has no pure equilibrium and pygambit is missing: "
                               "pip install 'gops-solver[multi]' (or pip install --pre pygambit)") from None
    return pygambit


def _strategic_game(gbt, U):
    # pygambit 17 names the table constructor StrategicGame.from_arrays; 16.x had Game.from_arrays
    maker = getattr(gbt, "StrategicGame", None) or gbt.Game
    return maker.from_arrays(*[np.ascontiguousarray(U[i], dtype=float) for i in range(U.shape[0])])


def logit_equilibrium(U, maxregret=1e-8) -> list:
    """The logit selection (limit of the principal logit QRE branch) by pygambit.

    A player whose payoffs do not depend on the bids at all stays at the
    uniform mix along the whole branch (their logit response ignores
    ``lambda``); such players are averaged out first and the branch of the
    remaining game is traced (pygambit fails on such games). A single
    remaining player's logit response tends to the uniform mix over their
    best cards.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    maxregret : float
        pygambit's stopping rule (regret relative to the payoff range).

    Returns
    -------
    list of numpy.ndarray
        One mixed strategy per player.
    """
    m, k = U.shape[0], U.shape[1]
    uniform = np.full(k, 1.0 / k)
    flat = [i for i in range(m) if np.ptp(U[i]) <= PURE_TOL]
    active = [i for i in range(m) if i not in flat]
    out = [uniform.copy() for _ in range(m)]
    if not active:
        return out
    R = U[active]
    for i in reversed(flat):  # average the indifferent players' axes (axis i + 1 of U)
        R = np.tensordot(R, uniform, axes=([i + 1], [0]))
    if len(active) == 1:
        best = R[0] >= R[0].max() - PURE_TOL
        out[active[0]] = best / best.sum()
        return out
    gbt = _gambit()
    game = _strategic_game(gbt, R)
    # pygambit's default stopping rule first; on near-degenerate games (the
    # continuation values carry the 1e-8 regrets of earlier stages) the
    # tracer can fail to reach it, then looser targets are tried; the
    # caller's deviation check (<= DEVIATION_TOL) decides in the end
    reason = "no reason given"
    for target in _LOGIT_TARGETS:
        eq, reason = _logit_solve(gbt, game, max(maxregret, target))
        if eq is not None:
            certified = _certified(U, _read_profile(game, eq, out, active))
            if certified is not None:
                return certified
    raise EquilibriumError(f"no certified equilibrium of a {m}-player {k}-card stage game: both logit tracers "
                           f"stop short of the limit (pygambit: {reason}) and it has no pure equilibrium")


class _TraceTooLong(Exception):
    """Raised by :class:`_EventCap` to stop a pygambit computation."""


class _EventCap:
    """pygambit ``event_callback`` stopping the computation after ``limit`` events (a count, not a clock,
    so where it stops is reproducible)."""

    def __init__(self, limit):
        self.limit = limit
        self.events = 0
        #: a Ctrl-C raised while pygambit ran this callback (pygambit would hand it back as a RuntimeError)
        self.interrupt = None

    def __call__(self, event):
        try:
            self.events += 1
            if self.events > self.limit:
                raise _TraceTooLong
        except KeyboardInterrupt as exc:
            self.interrupt = exc
            raise

    def reraise(self) -> None:
        """Raise the interrupt the callback saw, if any, in place of pygambit's RuntimeError."""
        if self.interrupt is not None:
            raise self.interrupt

    @property
    def hit(self) -> bool:
        return self.events > self.limit


def _logit_solve(gbt, game, maxregret):
    """pygambit's ``logit_solve``, stopped after ``_LOGIT_MAX_EVENTS`` events: ``(equilibrium or None, reason)``."""
    cap = _EventCap(_LOGIT_MAX_EVENTS)
    try:
        res = gbt.nash.logit_solve(game, maxregret=maxregret, event_callback=cap)
    except (_TraceTooLong, RuntimeError):
        # pygambit hands the callback's exception back as a RuntimeError
        cap.reraise()
        if cap.hit:
            return None, f"stopped after {_LOGIT_MAX_EVENTS:,} events"
        raise
    eq = res.equilibrium if hasattr(res, "equilibrium") else (res.equilibria[0] if res.equilibria else None)
    return eq, getattr(res, "reason", "no reason given")


def _certified(U, strategies):
    """``strategies`` if no pure deviation gains more than ``DEVIATION_TOL``, else its first such polish, else None.

    A tracer's endpoint is accurate only to its regret target; polishing on
    the supports (looser support thresholds in turn) recovers the exact
    equilibrium it approximates.
    """
    if deviation_gain(U, strategies) <= DEVIATION_TOL:
        return strategies
    for support_tol in _SUPPORT_TOLS:
        polished = polish(U, strategies, support_tol)
        if polished is not None and deviation_gain(U, polished) <= DEVIATION_TOL:
            return polished
    return None


def gnm_equilibrium(U, max_events=_GNM_MAX_EVENTS):
    """Step 3's last resort: the global Newton method from its default perturbation, polished and certified.

    pygambit's ``gnm_solve`` follows one path from the game perturbed by a
    bonus of 1 on each player's first card and reports the equilibria it
    crosses, in order; the first that :func:`_certified` accepts is taken.
    The path is stopped after ``max_events`` events (a count, so the
    selection stays reproducible) and then counts as finding nothing.
    Floating point, so a fraction of a second where simplicial subdivision
    (:func:`simpdiv_equilibrium`) can take minutes: on a degenerate
    3-player 5-card game of n = 6 discard/points, 3 s against 154 s; on a
    4-card game of n = 6 carry/points, 0.03 s against more than 4 minutes.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    max_events : int
        Path events after which the method is stopped.

    Returns
    -------
    list of numpy.ndarray or None
        One mixed strategy per player, or None when no equilibrium it finds is certified.
    """
    m, k = U.shape[0], U.shape[1]
    gbt = _gambit()
    game = _strategic_game(gbt, U)
    uniform = [np.full(k, 1.0 / k) for _ in range(m)]
    cap = _EventCap(max_events)
    try:
        found = gbt.nash.gnm_solve(game, event_callback=cap).equilibria
    except (_TraceTooLong, RuntimeError, ValueError):
        # the cap (handed back as a RuntimeError), or a failure on a degenerate perturbation
        cap.reraise()
        return None
    for eq in found:
        certified = _certified(U, _read_profile(game, eq, uniform, list(range(m))))
        if certified is not None:
            return certified
    return None


def simpdiv_equilibrium(U) -> list:
    """Step 3's last resort: simplicial subdivision from the uniform profile, polished and certified.

    Reached only where both logit tracers stop short and no pure profile is
    an equilibrium to ``DEVIATION_TOL`` (a degenerate stage game: seen at
    3 players n = 6 and 7). The regret targets 1e-3, 1e-4, 1e-5, 1e-6 and
    1e-9 are tried in turn; the first endpoint that the support polish
    certifies is taken.

    Returns
    -------
    list of numpy.ndarray
        One mixed strategy per player, with deviation gain at most ``DEVIATION_TOL``.

    Raises
    ------
    EquilibriumError
        If the endpoint cannot be certified to ``DEVIATION_TOL``.
    """
    m, k = U.shape[0], U.shape[1]
    gbt = _gambit()
    game = _strategic_game(gbt, U)
    uniform = [np.full(k, 1.0 / k) for _ in range(m)]
    # the coarsest target whose endpoint the support polish certifies: each is a fixed
    # computation from the uniform profile, so the choice is reproducible
    for denominator in _SIMPDIV_TARGETS:
        res = gbt.nash.simpdiv_solve(game.mixed_strategy_profile(rational=True),
                                     maxregret=gbt.Rational(1, denominator))
        strategies = _read_profile(game, res.equilibrium, uniform, list(range(m)))
        certified = _certified(U, strategies)
        if certified is not None:
            return certified
    raise EquilibriumError(f"no certified equilibrium of a {m}-player {k}-card stage game: the logit tracers stop "
                           f"short, no pure profile is an equilibrium and simplicial subdivision's endpoint gains "
                           f"{deviation_gain(U, strategies):.3g} by deviating")


def polish(U, strategies, support_tol=1e-6, iters=30):
    """Newton's method on the equal-payoff conditions of an approximate equilibrium's supports.

    On its support every card of a player earns the same against the others'
    mixes, and the mix sums to 1: a square system in the support
    probabilities, solved from ``strategies`` (the logit tracer's endpoint,
    accurate to its regret target). Returns the refined profile, or None
    if a probability leaves [0, 1] or Newton stalls.
    """
    m, k = U.shape[0], U.shape[1]
    supports = [np.flatnonzero(p > support_tol) for p in strategies]
    sizes = [len(S) for S in supports]
    x = np.concatenate([strategies[i][supports[i]] for i in range(m)])

    def profile(x):
        out, pos = [], 0
        for i in range(m):
            p = np.zeros(k)
            p[supports[i]] = x[pos:pos + sizes[i]]
            out.append(p)
            pos += sizes[i]
        return out

    def residual(x):
        prof = profile(x)
        res = []
        for i in range(m):
            own = pure_payoffs(U, prof, i)[supports[i]]
            res.extend(own[1:] - own[0])
            res.append(prof[i].sum() - 1.0)
        return np.array(res)

    for _ in range(iters):
        r = residual(x)
        if np.max(np.abs(r)) <= 1e-13:
            break
        h = 1e-7
        J = np.empty((r.size, x.size))
        for c in range(x.size):
            step = np.zeros(x.size)
            step[c] = h
            J[:, c] = (residual(x + step) - r) / h
        x = x - np.linalg.lstsq(J, r, rcond=None)[0]
    if np.min(x) < -1e-12 or not np.all(np.isfinite(x)):
        return None
    return [p / p.sum() for p in (np.clip(q, 0.0, None) for q in profile(x))]


def _read_profile(game, eq, uniform_profile, active):
    out = [p.copy() for p in uniform_profile]
    for i, player in zip(active, game.players):
        if isinstance(player, str):  # pygambit 17: players and strategies are labels
            mixed = eq[player]
            p = np.array([float(mixed[s]) for s in game.get_strategies(player)])
        else:  # pygambit 16
            p = np.array([float(eq[s]) for s in player.strategies])
        p = np.clip(p, 0.0, None)
        out[i] = p / p.sum()
    return out


_WORK = {}


def _kernel_work(m, k):
    wk = _WORK.get((m, k))
    if wk is None:
        wk = _WORK[(m, k)] = make_work(m, k)
    return wk


def select_equilibrium(U, backend: str = "kernel", selection: str = "logit") -> StageEquilibrium:
    """Apply the selection rule of this module to the stage game ``U``.

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k), float64
    backend : {"kernel", "gambit"}
        ``kernel``: steps 1-2 by the jitted kernel of :mod:`.kernel` (its own
        logit tracer), pygambit only where the kernel cannot certify its
        endpoint; ``gambit``: steps 1-2 by pygambit alone (the reference).
    selection : {"logit", "pure"}
        Step 1's rule (:data:`SELECTIONS`).

    Returns
    -------
    StageEquilibrium

    Raises
    ------
    EquilibriumError
        If the selected profile's deviation gain exceeds ``DEVIATION_TOL``.
    """
    U = np.asarray(U, dtype=np.float64)
    code = selection_code(selection)
    if backend == "kernel":
        # where the kernel fails, no pure profile in which exchangeable players bid alike is an
        # equilibrium (step 1 of either rule would have taken it), so the fallback is the same for both
        found, endpoint = _kernel_selection(U, code)
        return found if found is not None else select_after_kernel(U, endpoint=endpoint)
    if backend != "gambit":
        raise ValueError(f"unknown equilibrium backend {backend!r}: use kernel or gambit")
    if code == SELECT_PURE:
        classes = exchangeable_classes(U)
        first = symmetric_pure_equilibrium(U, classes)
        if first is not None:
            return _accepted(U, [np.eye(U.shape[1])[b] for b in first], "pure", classes)
    return _select_gambit(U)


def symmetric_pure_equilibrium(U, classes=None):
    """Step 1 of the ``pure`` selection: the first pure equilibrium in which exchangeable players bid alike.

    ``classes``: :func:`exchangeable_classes` of ``U`` where the caller has them.

    Returns
    -------
    tuple of int or None
        Its card indices (lexicographic order, player 0 most significant),
        or None where no such profile is an equilibrium to ``PURE_TOL``.
    """
    if classes is None:
        classes = exchangeable_classes(U)
    for b in pure_equilibria(U):
        if all(b[j] == b[c[0]] for c in classes for j in c):
            return b
    return None


def _kernel_selection(U, code=SELECT_LOGIT):
    """Steps 1-2 by the kernel: ``(StageEquilibrium, None)``, or ``(None, last point of the branch)`` where it fails."""
    m, k = U.shape[0], U.shape[1]
    wk = _kernel_work(m, k)
    out = np.empty((m, k))
    flat = np.ascontiguousarray(U.reshape(m, -1))
    status, _, _, gain = stage_equilibrium(flat, m, k, PURE_TOL, DEVIATION_TOL, wk, out, code)
    if status == KERNEL_FAILED:
        return None, wk.p.copy()
    values = profile_values(flat, out, m, k, wk)
    return StageEquilibrium([out[i].copy() for i in range(m)], values, float(gain),
                            "pure" if status == KERNEL_PURE else "logit"), None


def exchangeable_classes(U) -> list:
    """The classes of two or more players whose swap (cards and payoffs) leaves ``U`` unchanged.

    Unchanged to ``SYMMETRY_TOL``; the kernel's own test (:func:`.kernel.symmetry_classes`).

    Returns
    -------
    list of tuple of int
        Each class's players, ascending; empty for a game with no exchangeable players.
    """
    U = np.asarray(U, dtype=np.float64)
    m, k = U.shape[0], U.shape[1]
    wk = _kernel_work(m, k)
    symmetry_classes(np.ascontiguousarray(U.reshape(m, -1)), m, k, wk)
    classes = [tuple(i for i in range(m) if wk.rep[i] == r) for r in range(m) if wk.rep[r] == r]
    return [c for c in classes if len(c) > 1]


def select_after_kernel(U, endpoint=None) -> StageEquilibrium:
    """The selection where the kernel could not certify its endpoint (the solvers' fallback).

    In a game with exchangeable players the kernel traces the symmetric
    branch; where that fails, the branch's last point refined among
    symmetric profiles (:func:`symmetric_equilibrium_near`), the first
    pure equilibrium in which each class of exchangeable players bids alike,
    support enumeration among symmetric profiles (:func:`support_equilibrium`)
    and the Nash program from a fixed list of starts
    (:func:`symmetric_equilibrium_search`) keep the selection symmetric
    (pygambit's tracer may turn onto an asymmetric arm). Otherwise, and
    where none of them finds one, :func:`_select_gambit` (steps 1-4 by pygambit).

    Parameters
    ----------
    U : numpy.ndarray, shape (m, k, ..., k)
    endpoint : numpy.ndarray, shape (m, k), optional
        The kernel's last point of the branch; traced again when not given
        (and where the kernel then certifies the game, its selection is returned).
    """
    U = np.asarray(U, dtype=np.float64)
    k = U.shape[1]
    classes = exchangeable_classes(U)
    if classes:
        if endpoint is None:
            found, endpoint = _kernel_selection(U)
            if found is not None:  # the kernel certifies this copy of the game: its own selection
                return found
        near = symmetric_equilibrium_near(U, endpoint, classes)
        if near is not None:
            return _accepted(U, near, "symmetric-logit", classes)
        pure = symmetric_pure_equilibrium(U, classes)
        if pure is not None:
            return _accepted(U, [np.eye(k)[b] for b in pure], "first-pure", classes)
        found = support_equilibrium(U, classes)
        if found is not None:
            return _accepted(U, found, "symmetric-support", classes)
        found = symmetric_equilibrium_search(U, classes)
        if found is not None:
            return _accepted(U, found, "symmetric-search", classes)
    return _select_gambit(U)


def _accepted(U, strategies, method, classes=()) -> StageEquilibrium:
    """The selected profile with its values and gain, after step 4's check (``DEVIATION_TOL``).

    Players of one of ``classes`` (exchangeable, playing alike) get their
    class's first player's value, so rounding cannot tell them apart.
    """
    m, k = U.shape[0], U.shape[1]
    values = np.array([pure_payoffs(U, strategies, i) @ strategies[i] for i in range(m)])
    for c in classes:
        values[list(c)] = values[c[0]]
    gain = deviation_gain(U, strategies)
    if not gain <= DEVIATION_TOL:
        raise EquilibriumError(f"{method} stage equilibrium of a {m}-player {k}-card game gains {gain:.3g} "
                               f"by deviating (> {DEVIATION_TOL}); report the game")
    return StageEquilibrium(strategies, values, gain, method)


def _select_gambit(U) -> StageEquilibrium:
    """Steps 1-4 of the selection rule with pygambit's logit tracer (the reference path)."""
    k = U.shape[1]
    pure = pure_equilibria(U)
    if len(pure) == 1:
        strategies = [np.eye(k)[b] for b in pure[0]]
        method = "pure"
    else:
        try:
            strategies = logit_equilibrium(U)
            method = "logit"
        except EquilibriumError:
            if not pure:
                # the continuation values carry the 1e-8 regrets of the stages
                # below, so a pure profile can be an equilibrium to 1e-6 but not 1e-9
                pure = _nearly_pure(U)
            if pure:
                strategies = [np.eye(k)[b] for b in pure[0]]
                method = "first-pure"
            else:
                # a short global Newton path, support enumeration, the long path; simplicial
                # subdivision (rationals) can take many minutes, so it comes last
                strategies = gnm_equilibrium(U, _GNM_FIRST_EVENTS)
                method = "gnm"
                if strategies is None:
                    strategies = support_equilibrium(U)
                    method = "support"
                if strategies is None:
                    strategies = gnm_equilibrium(U)
                    method = "gnm"
                if strategies is None:
                    strategies = simpdiv_equilibrium(U)
                    method = "simpdiv"
    return _accepted(U, strategies, method)
