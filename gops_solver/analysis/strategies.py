"""Strategies as first-class objects: heuristics, user functions, the equilibrium.

A strategy maps a player's view of a decision state to a probability
distribution over that player's hand. The view (:class:`View`) is always
from the player's own side, so one strategy can sit in either seat:

``hand``
    the player's remaining cards, ``opponent`` the other's;
``pot``
    points at stake this round (revealed prize plus carried pot);
``prizes``
    the prizes still hidden after this reveal (sorted);
``diff``
    the player's score minus the opponent's so far.

Built-in strategies (``make_strategy(name)``):

``uniform``
    every card in hand with equal probability.
``highest`` / ``lowest``
    the highest / lowest card in hand.
``match``
    the card closest in value to the pot; when two cards are equally close
    (one below, one above) each gets probability 1/2.
``match+1``
    the same with target ``pot + 1``.
``proportional``
    rank matching: with ``k`` cards in hand, the prizes in play are the
    pot and the ``k - 1`` hidden prizes; let ``r`` be the number of hidden
    prizes strictly smaller than the pot (``0 <= r <= k - 1``). Bid the
    card of rank ``r`` in one's own hand (0 = lowest). The i-th smallest
    prize in play thus gets the i-th smallest card. A carried pot counts
    with its full value.
``equilibrium``
    the optimal stage-game strategy read from a solved :class:`Solution`
    (A's strategy of the state with the player's hand as A's; for a fixed
    optimal strategy the stage solver's deterministic choice).
``model.json``
    a strategy file (:mod:`.strategyfile`): an opponent model of ``gops model fit``.
``module:function`` or ``path/to/file.py:function``
    a user function ``f(view) -> dict`` mapping cards of ``view.hand`` to
    probabilities (summing to 1), or a sequence of probabilities aligned
    with ``view.hand``.

The built-ins run inside numba (:func:`policy`); user functions are called
from Python.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from gops_solver.game.constants import HEURISTICS, MAX_CARDS, PROB_TOL, TOKEN_SCRATCH  # noqa: F401 (HEURISTICS public here)
from gops_solver.game.cards import format_cards
from gops_solver.game.encoding import LUT_OFF, TOK_A, TOK_B, TOK_SHARED, classes
from gops_solver.lp.stage import solve_stage
from gops_solver.game.statekeys import _popcount, cards_of, decision_key, mask_of, unpack_key  # noqa: F401  (re-exported)
from gops_solver.engine.induction import serial_twin
from gops_solver.engine.tables import NO_SLOTS, WORK, GameAxes, LevelTable, stage_matrix, stage_structure

CODE_EQUILIBRIUM = 6
CODE_TABLE = 7  # a Python strategy, evaluated beforehand into a lookup table
CODE_TABLE_NODIFF = 8  # a lookup table keyed without the score difference (equilibrium under points)
#: the equilibrium played from B's seat of the tables (a match position stored from the other player's side)
CODE_EQUILIBRIUM_B = 9
#: a precomputed table over decisions (an exact response, :mod:`gops_solver.opponent.response`):
#: ``CODE_PRECOMPUTED + RESPONSE_DIFF`` keyed with the score difference, ``+ RESPONSE_RANKS`` keyed by both hands
#: relabelled to their ranks in the union (rows then indexed by rank)
CODE_PRECOMPUTED = 10
RESPONSE_DIFF, RESPONSE_RANKS = 1, 2
PRECOMPUTED_CODES = tuple(CODE_PRECOMPUTED + flags for flags in range(4))
#: codes of strategies that see the hands only through the order of their cards (uniform, highest,
#: lowest, proportional, equilibrium): ``match`` compares card values with the pot
RANK_CODES = (0, 3, 4, 5, CODE_EQUILIBRIUM, CODE_EQUILIBRIUM_B)



class View(NamedTuple):
    """One player's view of a decision state (see module docstring)."""

    hand: tuple
    opponent: tuple
    pot: int
    prizes: tuple
    diff: int


class EqData(NamedTuple):
    """The level tables of a solution, concatenated for the kernels.

    The first fields are the solve's fixed axes, those of
    :class:`~.tables.GameAxes` (spelled out: numba's parallel loops take
    named tuples of arrays, not named tuples nested in them).
    ``R[r_off[k]:r_off[k+1]]`` is level k; likewise ``canon``, ``offset``,
    ``ncarry`` and ``cvals`` with their ``*_off`` arrays. ``seq`` is the
    prize sequence of a fixed order (empty for the random order).
    """

    lut: np.ndarray
    lut_off: np.ndarray
    random_order: bool
    carry: bool
    win: bool
    values: np.ndarray
    set_rank: np.ndarray
    set_sum: np.ndarray
    union_cap: int
    diff_reach: int
    term: np.ndarray
    mirror: bool
    R: np.ndarray
    r_off: np.ndarray
    canon: np.ndarray
    canon_off: np.ndarray
    offset: np.ndarray
    offset_off: np.ndarray
    ncarry: np.ndarray
    ncarry_off: np.ndarray
    cvals: np.ndarray
    cvals_off: np.ndarray
    dmax: np.ndarray
    nsets: np.ndarray
    seq: np.ndarray


class Seats(NamedTuple):
    """The strategies of both seats as the kernels take them (see :func:`policy`).

    ``code_*`` the kernel codes; ``keys_*``/``probs_*`` the lookup table of a
    Python strategy or of a table-driven equilibrium (empty otherwise). The
    equilibrium's tables travel beside, one :class:`EqData` per seat: numba's
    parallel loops take flat named tuples, not tuples nested in them.
    """

    code_a: int
    keys_a: np.ndarray
    probs_a: np.ndarray
    code_b: int
    keys_b: np.ndarray
    probs_b: np.ndarray


def _concat(arrays, dtype):
    off = np.zeros(len(arrays) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(a) for a in arrays])
    out = np.concatenate([np.asarray(a, dtype=dtype) for a in arrays]) if arrays else np.zeros(0, dtype)
    return out, off


def eq_data(solution) -> EqData:
    """Pack a solution's tables for :func:`policy` (copies them into memory)."""
    from gops_solver.engine.tables import game_axes
    sp = solution.space
    lays = sp.layouts
    R, r_off = _concat(list(solution.tables), np.float64)
    canon, canon_off = _concat([l.canon for l in lays], np.int64)
    offset, offset_off = _concat([l.offset for l in lays], np.int64)
    ncarry, ncarry_off = _concat([l.ncarry for l in lays], np.int64)
    cvals, cvals_off = _concat(sp.cvals, np.int64)
    seq = np.zeros(0, np.int64) if sp.random_order else np.asarray(sp.seq, np.int64)
    return EqData(*game_axes(sp), R, r_off, canon, canon_off, offset, offset_off, ncarry, ncarry_off, cvals,
                  cvals_off, np.asarray(sp.dmax, np.int64), np.array([len(s) for s in sp.sets], np.int64), seq)


def no_eq_data() -> EqData:
    """Placeholder with the types of :func:`eq_data`, for strategies that need no tables."""
    z, zi = np.zeros(1), np.zeros(2, np.int64)
    game = GameAxes(np.zeros(1, np.int32), LUT_OFF, False, False, False, zi, zi, zi, 0, 0,
                    np.array([-1.0, 0.0, 1.0]), False)
    return EqData(*game, z, zi, zi, zi, zi, zi, zi, zi, zi, zi, zi, zi, np.zeros(0, np.int64))


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------

@njit(cache=True)
def _closest(own, n, target, out):
    best = 1 << 30
    for v in range(1, n + 1):
        if (own >> (v - 1)) & 1:
            dist = abs(v - target)
            if dist < best:
                best = dist
    cnt = 0
    for v in range(1, n + 1):
        if (own >> (v - 1)) & 1 and abs(v - target) == best:
            cnt += 1
    for v in range(1, n + 1):
        if (own >> (v - 1)) & 1 and abs(v - target) == best:
            out[v - 1] = 1.0 / cnt


@njit(cache=True)
def _eq_policy(own, opp, pm_after, pot, diff, n, eq, out, as_b=False):
    """A's optimal stage strategy at (own as A, opp as B), spread over cards; returns a status.

    ``as_b``: B's optimal strategy at (opp as A, own as B) instead, ``diff`` still own minus opp.
    """
    tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    vals = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    if as_b:
        own, opp, diff = opp, own, -diff
    u = np.int64(0)  # typed: a literal 0 would compile stage_structure and its helpers once more for Literal[int](0)
    for v in range(1, n + 1):
        a = (own >> (v - 1)) & 1
        b = (opp >> (v - 1)) & 1
        if a or b:
            tokens[u] = TOK_SHARED if (a and b) else (TOK_A if a else TOK_B)
            vals[u] = v
            u += 1
    k = _popcount(own)
    game = GameAxes(eq.lut, eq.lut_off, eq.random_order, eq.carry, eq.win, eq.values, eq.set_rank, eq.set_sum,
                    eq.union_cap, eq.diff_reach, eq.term, eq.mirror)
    stage = stage_structure(tokens, u, game.lut, game.lut_off)
    km = k - 1
    prev = LevelTable(eq.R[eq.r_off[km]:eq.r_off[km + 1]], eq.canon[eq.canon_off[km]:eq.canon_off[km + 1]],
                      eq.offset[eq.offset_off[km]:eq.offset_off[km + 1]],
                      eq.ncarry[eq.ncarry_off[km]:eq.ncarry_off[km + 1]], eq.nsets[km],
                      eq.cvals[eq.cvals_off[km]:eq.cvals_off[km + 1]], eq.dmax[km], 0, NO_SLOTS)
    ci = 0
    if game.random_order:
        s_prev = game.set_rank[pm_after]
        sum_prev = game.set_sum[pm_after]
    else:
        # fixed order: the carry axis counts the rounds tied in a row just before this one
        L = len(eq.seq)
        pos = L - k  # this round's prize
        carried = pot - eq.seq[pos]
        acc = 0
        while acc < carried and ci < pos:
            ci += 1
            acc += eq.seq[pos - ci]
        if acc != carried:
            return 1
        s_prev = 0
        sum_prev = 0
        for j in range(pos + 1, L):
            sum_prev += eq.seq[j]
    M = np.empty((MAX_CARDS, MAX_CARDS))
    if not stage_matrix(game, prev, k, stage, pot, diff, ci, s_prev, sum_prev, M):
        return 1
    x = np.empty(MAX_CARDS)
    y = np.empty(MAX_CARDS)
    work = np.empty(WORK)
    _, st = solve_stage(M, stage.na, stage.nb, x, y, work)
    if st != 0:
        return 2
    cls_a = np.empty(MAX_CARDS, dtype=np.int64)
    cls_b = np.empty(MAX_CARDS, dtype=np.int64)
    classes(tokens, u, cls_a, cls_b)
    if as_b:
        for b in range(stage.nb):
            q = cls_b[b]
            run = 1
            if tokens[q] == TOK_B:
                while q + run < u and tokens[q + run] == TOK_B:
                    run += 1
            for r in range(run):
                out[vals[q + r] - 1] += y[b] / run
        return 0
    for a in range(stage.na):
        q = cls_a[a]
        run = 1
        if tokens[q] == TOK_A:
            while q + run < u and tokens[q + run] == TOK_A:
                run += 1
        for r in range(run):
            out[vals[q + r] - 1] += x[a] / run
    return 0


@njit(cache=True)
def rank_hands(ha, hb):
    """Both hands with each card replaced by its rank in their union (bit 0 = the lowest card)."""
    ra = 0
    rb = 0
    r = 0
    u = ha | hb
    for v in range(MAX_CARDS):
        if (u >> v) & 1:
            ra |= ((ha >> v) & 1) << r
            rb |= ((hb >> v) & 1) << r
            r += 1
    return ra, rb


@njit(cache=True)
def _precomputed(flags, own, opp, pm_after, pot, diff, n, tab_keys, tab_probs, out):
    """Distribution read from a precomputed table (see :data:`CODE_PRECOMPUTED`); status 3 if it lacks the decision."""
    ranks = flags & RESPONSE_RANKS
    o, p = (rank_hands(own, opp) if ranks else (own, opp))
    key = decision_key(o, p, pm_after, pot, diff if flags & RESPONSE_DIFF else 0)
    i = np.searchsorted(tab_keys, key)
    if i >= len(tab_keys) or tab_keys[i] != key:
        return 3
    if not ranks:
        for v in range(n):
            out[v] = tab_probs[i, v]
        return 0
    r = 0
    u = own | opp
    for v in range(MAX_CARDS):
        if (u >> v) & 1:
            if (own >> v) & 1:
                out[v] = tab_probs[i, r]
            r += 1
    return 0


@njit(cache=True)
def policy(code, own, opp, pm_after, pot, diff, n, eq, tab_keys, tab_probs, out):
    """Distribution of a strategy over its own cards (kernel).

    Parameters
    ----------
    code : int
        Index in :data:`HEURISTICS`, :data:`CODE_EQUILIBRIUM`,
        :data:`CODE_TABLE`, :data:`CODE_TABLE_NODIFF` or one of :data:`PRECOMPUTED_CODES`.
    own, opp, pm_after : int
        Bitmasks of the player's hand, the opponent's and the prizes hidden
        after this reveal (bit ``v - 1`` for card ``v``).
    pot, diff : int
        Pot of this round; the player's score minus the opponent's.
    n : int
    eq : EqData
        Tables for ``CODE_EQUILIBRIUM`` (else :func:`no_eq_data`).
    tab_keys, tab_probs : ndarray
        For ``CODE_TABLE``: sorted :func:`decision_key` values and their
        distributions (rows of length ``MAX_CARDS``); for ``CODE_TABLE_NODIFF`` the
        keys are packed with ``diff = 0``; for :data:`PRECOMPUTED_CODES` the strategy's whole table.
    out : ndarray, shape (>= n,)
        Out: ``out[v - 1]`` = probability of bidding card ``v`` (modified in place).

    Returns
    -------
    int
        0 on success; non-zero when the equilibrium tables lack the state
        or the stage solver failed, or a table lacks the decision.
    """
    for v in range(n):
        out[v] = 0.0
    k = _popcount(own)
    if code == 0:
        for v in range(1, n + 1):
            if (own >> (v - 1)) & 1:
                out[v - 1] = 1.0 / k
    elif code == 1:
        _closest(own, n, pot, out)
    elif code == 2:
        _closest(own, n, pot + 1, out)
    elif code == 3:
        for v in range(n, 0, -1):
            if (own >> (v - 1)) & 1:
                out[v - 1] = 1.0
                break
    elif code == 4:
        for v in range(1, n + 1):
            if (own >> (v - 1)) & 1:
                out[v - 1] = 1.0
                break
    elif code == 5:
        r = 0
        for v in range(1, n + 1):
            if (pm_after >> (v - 1)) & 1 and v < pot:
                r += 1
        seen = 0
        for v in range(1, n + 1):
            if (own >> (v - 1)) & 1:
                if seen == r:
                    out[v - 1] = 1.0
                    break
                seen += 1
    elif code == CODE_EQUILIBRIUM or code == CODE_EQUILIBRIUM_B:
        # one call with a computed flag: a literal True or False (or the default) would each be a
        # specialisation of its own, the stage matrix and solver compiled again in each
        return _eq_policy(own, opp, pm_after, pot, diff, n, eq, out, code == CODE_EQUILIBRIUM_B)
    elif code >= CODE_PRECOMPUTED:
        return _precomputed(code - CODE_PRECOMPUTED, own, opp, pm_after, pot, diff, n, tab_keys, tab_probs, out)
    else:
        key = decision_key(own, opp, pm_after, pot, diff if code == CODE_TABLE else 0)
        i = np.searchsorted(tab_keys, key)
        if i >= len(tab_keys) or tab_keys[i] != key:
            return 3
        for v in range(n):
            out[v] = tab_probs[i, v]
    return 0


@njit(parallel=True, cache=True)
def policy_rows(code, keys, n, eq, out):
    """:func:`policy` at each decision key (rows of ``out``, modified in place), in parallel; a status."""
    status = np.zeros(len(keys), np.int64)
    tk, tp = np.zeros(0, np.int64), np.zeros((0, MAX_CARDS))  # no Python table: read-only placeholders
    for i in prange(len(keys)):
        own, opp, pm, pot, diff = unpack_key(keys[i])
        status[i] = policy(code, own, opp, pm, pot, diff, n, eq, tk, tp, out[i])
    return status.max() if len(keys) else 0


#: Decks of at most this many cards are evaluated by the serial twins of the parallel kernels: there the
#: threads save little, and the parallel kernels' compile costs a first run several times the serial ones'.
SERIAL_MAX_CARDS = 8

_policy_rows_serial = serial_twin(policy_rows, "_policy_rows_serial")


def rows_kernel(n):
    """:func:`policy_rows` or, for a deck of ``n`` <= :data:`SERIAL_MAX_CARDS` cards, its serial twin (the same rows)."""
    return _policy_rows_serial if n <= SERIAL_MAX_CARDS else policy_rows


# ---------------------------------------------------------------------------
# strategy objects
# ---------------------------------------------------------------------------

class Strategy:
    """A validated strategy; build with :func:`make_strategy`.

    Attributes
    ----------
    name : str
        As given (``"match+1"``, ``"equilibrium"``, ``"mymod:f"``).
    code : int
        Kernel code (see :func:`policy`).
    uses_diff : bool
        Whether the strategy may depend on the score difference (the
        equilibrium under ``win``, and every user function).
    rank_only : bool
        Whether the strategy sees the hands only through the order of their
        cards (``uniform``, ``highest``, ``lowest``, ``proportional``, the
        equilibrium), so it
        plays the same when both hands are relabelled by rank.
    """

    def __init__(self, name, code, func=None, solution=None, table=None):
        self.name, self.code, self.func, self.solution = name, int(code), func, solution
        tables = code in (CODE_EQUILIBRIUM, CODE_EQUILIBRIUM_B)
        flags = code - CODE_PRECOMPUTED if code in PRECOMPUTED_CODES else 0
        self.uses_diff = code == CODE_TABLE or (tables and solution.rules.objective == "win") \
            or bool(flags & RESPONSE_DIFF)
        self.rank_only = code in RANK_CODES or bool(flags & RESPONSE_RANKS)
        #: whether the strategy may read the opponent's card values (then the opponent's hand is never relabelled)
        self.reads_values = code == CODE_TABLE or (code in PRECOMPUTED_CODES and not self.rank_only)
        self._eq = eq_data(solution) if tables else None
        self.table = table if table is not None else (_EMPTY_KEYS, _EMPTY_PROBS)

    @classmethod
    def precomputed(cls, name, keys, probs, uses_diff, ranks, meta=None):
        """A table-driven strategy: sorted decision ``keys`` (own hand as A) and rows of ``probs`` over cards
        (over ranks in the union of both hands when ``ranks``); ``meta`` describes where it came from."""
        code = CODE_PRECOMPUTED + (RESPONSE_DIFF if uses_diff else 0) + (RESPONSE_RANKS if ranks else 0)
        out = cls(name, code, table=(np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(probs, np.float64)))
        out.meta = dict(meta or {})
        return out

    def __repr__(self):
        return f"Strategy({self.name!r})"

    @property
    def eq(self) -> EqData:
        """Tables for the kernels (a placeholder unless this is the equilibrium)."""
        return self._eq if self._eq is not None else _NO_EQ[0]

    def distribution(self, view: View, n: int) -> dict:
        """Card -> probability over ``view.hand`` at one decision state.

        Raises
        ------
        ValueError
            If a user function returns something that is not a distribution
            over the hand, or the equilibrium tables lack the state.
        """
        if self.code == CODE_TABLE:
            return self._call_user(view)
        out = np.zeros(MAX_CARDS)
        st = policy(self.code, mask_of(view.hand), mask_of(view.opponent), mask_of(view.prizes), int(view.pot),
                    int(view.diff), n, self.eq, *self.table, out)
        if st != 0:
            raise ValueError(f"strategy {self.name} has no move at {state_text(view)}: the solution does not cover "
                             f"this state")
        return {c: float(out[c - 1]) for c in view.hand}

    def batch(self, keys, n: int) -> np.ndarray:
        """The strategy at many decisions: ``(len(keys), MAX_CARDS)`` probabilities by card.

        ``keys``: :func:`decision_key` values from the player's side. Built-in
        strategies and the equilibrium run in numba over all keys; a Python
        strategy is called once per key.

        Raises
        ------
        ValueError
            A decision the strategy has no move at.
        """
        keys = np.asarray(keys, dtype=np.int64)
        out = np.zeros((len(keys), MAX_CARDS))
        if self.code != CODE_TABLE:
            if rows_kernel(n)(self.code, keys, n, self.eq, out) != 0:
                raise ValueError(f"strategy {self.name} has no move at a decision: the solution does not cover it")
            return out
        if callable(getattr(self, "rows", None)):
            return np.asarray(self.rows(keys), dtype=float)
        for i, key in enumerate(keys):
            own, opp, pm, pot, diff = unpack_key(key)
            view = View(cards_of(own, n), cards_of(opp, n), int(pot), cards_of(pm, n), int(diff))
            for c, p in self.distribution(view, n).items():
                out[i, c - 1] = p
        return out

    def _call_user(self, view: View) -> dict:
        """The user function's distribution at ``view``; ValueError (one line, what it echoes capped) if unusable."""
        try:
            got = self.func(view)
        except (Exception, SystemExit) as exc:  # a user function's own error (or exit), reported in one line
            raise self._misplay(view, f"raised {type(exc).__name__}: {_capped(exc, str, _ECHO_RETURNED)}") from None
        dist, problem = _user_distribution(got, view.hand)
        if problem:
            raise self._misplay(view, problem) from None
        return dist

    def _misplay(self, view: View, problem: str) -> ValueError:
        """The one-line error of a strategy that misplays at ``view``: its name, the state, what was wrong."""
        return ValueError(f"strategy {_capped(self.name)} at {state_text(view)} {problem}")


def state_text(view: View) -> str:
    """A decision state in a few words, for messages: ``hand A,3 vs 2,3, pot 4, hidden 2, diff +1``."""
    hidden = format_cards(view.prizes) or "none"
    return f"hand {format_cards(view.hand)} vs {format_cards(view.opponent)}, pot {view.pot}, hidden {hidden}, " \
           f"diff {int(view.diff):+d}"


def _user_distribution(got, hand):
    """``(card -> probability over hand, None)`` from what a user function returned, or ``(None, problem)``.

    A user object may fail in any way while it is read (its ``__iter__``, ``__float__``, a number too
    large for a float): each is a problem of the strategy, said in words, never an exception of ours.
    """
    shown = _capped(got, repr, _ECHO_RETURNED)
    wanted = "give a dict card -> probability or one probability per card of view.hand"
    if isinstance(got, dict):
        try:
            dist = {_card_key(c): float(p) for c, p in got.items()}
        except OverflowError:
            return None, f"returned {shown}: a number too large; probabilities lie in [0, 1]"
        except Exception:  # noqa: BLE001 - see above
            return None, f"returned {shown}: give card -> probability, whole-number cards and numbers"
    elif isinstance(got, (str, bytes)) or got is None:
        return None, f"returned {shown}: {wanted}"
    else:
        try:
            probs = [float(p) for p in got]
        except OverflowError:
            return None, f"returned {shown}: a number too large; probabilities lie in [0, 1]"
        except Exception:  # noqa: BLE001 - see above
            return None, f"returned {shown}: {wanted}"
        if len(probs) != len(hand):
            return None, f"returned {len(probs)} probabilities for a hand of {len(hand)} cards: give one per card " \
                         f"of view.hand"
        dist = dict(zip(hand, probs))
    extra = sorted(set(dist) - set(hand))
    if extra:
        return None, f"bids {_capped(extra, str, _ECHO_RETURNED)}, not in its hand {format_cards(hand)}"
    if any(not np.isfinite(p) or p < 0 for p in dist.values()) or abs(sum(dist.values()) - 1) > PROB_TOL:
        return None, f"returned {_capped(dist, str, _ECHO_RETURNED)}: probabilities must be >= 0 and sum to 1"
    return {c: dist.get(c, 0.0) for c in hand}, None


def _card_key(c) -> int:
    """A returned card as an int; ValueError for anything but a whole number (1.5 is no card)."""
    if isinstance(c, bool):
        raise ValueError
    out = int(c)
    if out != c:
        raise ValueError
    return out


_NO_EQ = [no_eq_data()]
_EMPTY_KEYS = np.zeros(0, np.int64)
_EMPTY_PROBS = np.zeros((0, MAX_CARDS))


def make_strategy(spec, solution=None) -> Strategy:
    """Build a strategy from its name.

    Parameters
    ----------
    spec : str or Strategy
        One of :data:`HEURISTICS`, ``"equilibrium"``, ``"module:function"`` (a module on the
        import path), ``"path/to/file.py:function"`` (a file, imported by its path) or the path of
        a strategy file (:mod:`.strategyfile`, written by ``gops exploit --out``).
    solution : Solution, optional
        Required for ``"equilibrium"``: a solution of the game being played.

    Returns
    -------
    Strategy

    Raises
    ------
    ValueError
        Unknown name, unimportable user function, or ``equilibrium``
        without a suitable solution.
    """
    if isinstance(spec, Strategy):
        return spec
    if callable(spec) and not isinstance(spec, str):
        # a Python object playing view -> distribution (an opponent model); its rows(keys), when it has
        # one, answers many decisions at once
        out = Strategy(getattr(spec, "name", None) or repr(spec), CODE_TABLE, func=spec)
        if callable(getattr(spec, "rows", None)):
            out.rows = spec.rows
        return out
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"strategy {spec!r} is not a name: use one of {', '.join(HEURISTICS)}, "
                         f"equilibrium or module:function")
    name = spec.strip().lower()
    from gops_solver.analysis.strategyfile import is_strategy_file
    if name not in HEURISTICS and name != "equilibrium" and is_strategy_file(spec.strip()):
        return _from_file(spec, solution)
    if name in HEURISTICS:
        return Strategy(name, HEURISTICS.index(name))
    if name == "equilibrium":
        if solution is None:
            raise ValueError("strategy equilibrium needs a solution of the game: pass solution=solve(rules)")
        return Strategy("equilibrium", CODE_EQUILIBRIUM, solution=solution)
    if ":" in spec:
        mod, _, attr = spec.strip().rpartition(":")
        try:
            module = _import_file(mod) if mod.endswith(".py") else importlib.import_module(mod)
        except ImportError as exc:
            raise ValueError(f"cannot import module {mod!r} of strategy {spec}: {exc}; "
                             f"put it on PYTHONPATH or give its file, path/to/file.py:function") from None
        except (Exception, SystemExit) as exc:  # the module's own code failed (a syntax error, a raise, exit)
            raise ValueError(f"importing module {mod!r} of strategy {spec} failed: {type(exc).__name__}: {exc}; "
                             f"fix the module") from None
        try:
            func = getattr(module, attr)
        except AttributeError:
            raise ValueError(f"module {mod!r} has no function {attr!r}: give module:function") from None
        if not callable(func):
            raise ValueError(f"{spec} is not callable: give module:function taking a View")
        return Strategy(spec.strip(), CODE_TABLE, func=func)
    raise ValueError(f"unknown strategy {spec!r}: use one of {', '.join(HEURISTICS)}, equilibrium "
                     f"or module:function")


def check_strategy_rules(strategy, rules) -> None:
    """Raise ``ValueError`` (one line) when a strategy read from a file was computed for other rules."""
    made = getattr(strategy, "meta", {}).get("rules")
    if made is not None and made != rules:
        raise ValueError(f"strategy {strategy.name} (from {strategy.meta.get('path', 'a file')}) was computed for "
                         f"{made.describe()}, not {rules.describe()}: play it under its own rules")


def _from_file(spec, solution):
    """The strategy stored in the file ``spec`` (:mod:`.strategyfile`)."""
    from gops_solver.analysis.strategyfile import StoredStrategy, read_strategy_file
    got = read_strategy_file(spec.strip(), solution, make_strategy)
    if isinstance(got, StoredStrategy):  # a response's tables
        return Strategy.precomputed(got.name, got.keys, got.probs, got.uses_diff, got.ranks, got.meta)
    return got  # a JSON model's strategy


def _import_file(path):
    """The module in the Python file ``path`` (``path/to/file.py:function``: no PYTHONPATH needed)."""
    import importlib.util
    import os
    if not os.path.isfile(path):
        raise ImportError(f"no file {path}")
    name = "gops_user_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    import sys
    sys.modules[name] = module  # so that the module's own pickling and dataclasses find it
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


#: characters of a user strategy's own message or return value that an error echoes
_ECHO_MAX = 120


#: characters of a user strategy's return value that its error echoes (the line also names the state)
_ECHO_RETURNED = 60


def _capped(obj, how=str, limit=_ECHO_MAX) -> str:
    """``how(obj)`` on one line and at most ``limit`` characters (a 400-digit number is cut)."""
    try:
        text = " ".join(how(obj).split())
    except Exception:  # a user object whose str itself fails (or is too large to print)
        text = f"<{type(obj).__name__}>"
    return text if len(text) <= limit else text[:max(limit - 30, 10)] + f"... ({len(text):,} characters)"
