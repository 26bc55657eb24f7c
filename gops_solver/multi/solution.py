"""MultiSolution: a solved 3- or 4-player game, its queries and its verification."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gops_solver.engine.base import GameSolution
from gops_solver.game.errors import InputValueError
from gops_solver.game.rules import Rules
from .constants import SECURITY_TOL
from .equilibrium import deviation_gain, select_equilibrium, selection_code
from .induction import Induction
from .state import MultiState, relabel, validate_multi_state
from .storage import read_multi, save_multi

__all__ = ["MultiQuery", "MultiSolution", "solve_multi", "subgame_solver"]


@dataclass
class MultiQuery:
    """Answer at one decision state (players in the order given).

    Attributes
    ----------
    security : list of float
        Each player's security value: what they can guarantee against all the
        others coordinating (exact; includes the score already made).
    values : list of float
        Each player's expected payoff under the computed equilibrium
        (includes the score already made under ``points``).
    strategies : list of dict
        Card -> probability: the equilibrium's stage strategy of each player.
    deviation_gain : float
        Largest gain of any player by a pure deviation in this stage game.
    method : str
        How the stage equilibrium was selected (``pure`` or ``logit``).
    state : MultiState
    """

    security: list
    values: list
    strategies: list
    deviation_gain: float
    method: str
    state: MultiState

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        s = self.state
        return {"security": self.security, "values": self.values,
                "strategies": [{str(c): p for c, p in d.items()} for d in self.strategies],
                "deviation_gain": self.deviation_gain, "method": self.method,
                "state": {"hands": [list(h) for h in s.hands], "pot": s.pot, "prizes": list(s.prizes),
                          "scores": list(s.scores)}}


class MultiSolution(GameSolution):
    """The solved values of a 3- or 4-player game (see :func:`solve_multi`).

    States not reached while solving (none, from the start) are solved on
    demand by :meth:`query`. Of the calls of
    :class:`~gops_solver.engine.base.GameSolution` it answers ``rules``,
    ``query`` (in its own form: one hand per player and their scores), ``save``
    and :func:`gops_solver.load`; the two-player calls (``value``,
    ``value_at``, ``opening``, ``to_frame``) raise one ``ValueError`` that
    says what is defined instead.
    """

    kind = "multi"

    def __init__(self, rules: Rules, induction: Induction, security, values, seconds):
        self.rules = rules
        self.induction = induction
        self.security = [float(v) for v in security]
        self.values = [float(v) for v in values]
        self.seconds = seconds

    @property
    def states(self) -> int:
        """Canonical decision states solved (each is one stage game of each kind)."""
        return len(self.induction.table)

    @property
    def stage_games(self) -> int:
        """Decision states whose stage games were solved (positions decided under ``win`` need none)."""
        return self.induction.stage_games

    @property
    def methods(self) -> dict:
        """How many stage equilibria were pure and how many came from the logit selection."""
        return dict(self.induction.methods)

    @property
    def selection(self) -> str:
        """The equilibrium selection rule the solution was solved with (``logit`` or ``pure``)."""
        return self.induction.selection

    @property
    def max_deviation_gain(self) -> float:
        """Largest deviation gain over every stage equilibrium selected while solving."""
        return self.induction.max_gain

    def save(self, path, *, lock: bool = True) -> None:
        """Write this solution to ``path`` (atomic, checksummed; see :mod:`.storage`).

        ``lock``: take the target's writer lock (False: the caller, a solve, holds it).
        """
        save_multi(path, self, lock=lock)

    def __repr__(self):
        return f"MultiSolution({self.rules.describe()}, states={self.states:,})"

    def _two_player(self, what: str):
        m = self.rules.players
        return InputValueError(f"{what} is a two-player call, not defined for {m} players: read security and values "
                               f"(one per player) or query(hands, pot, prizes, scores)",
                               f"this solution is of a {m}-player game: add --players {m}, with a hand per player "
                               f"(--hand-a, --hand-b, --hand-c{', --hand-d' if m == 4 else ''})")

    @property
    def value(self) -> float:
        """Not defined: a game of 3 or 4 players has no single value (see ``security`` and ``values``)."""
        raise self._two_player("value")

    def value_at(self, *args, **kwargs) -> float:
        """Not defined for 3 or 4 players: :meth:`query` gives every player's values."""
        raise self._two_player("value_at")

    def opening(self):
        """Not defined for 3 or 4 players: :meth:`query` at the start gives every player's first bids."""
        raise self._two_player("opening")

    def to_frame(self, rounds=None, **options):
        """Not defined for 3 or 4 players (export covers two-player games)."""
        raise ValueError(f"export (to_frame) is not defined for {self.rules.players} players: it covers "
                         f"two-player games; query(hands, pot, prizes, scores) answers one state")

    def query(self, hands, pot, prizes=(), scores=None, *rest, **where) -> MultiQuery:
        """Security values, equilibrium values and strategies at a decision state.

        Parameters
        ----------
        hands : sequence of card lists (or ``"1,2;2,3;1,3"``)
            One hand per player, equal sizes.
        pot : int
            Revealed prize plus carried pot.
        prizes : iterable of int
            Hidden prizes (hand size - 1).
        scores : sequence of int, optional
            Points won so far (default all 0).

        Returns
        -------
        MultiQuery

        Raises
        ------
        ValueError
            If the state cannot occur under the rules (one line).
        """
        two_hands = not isinstance(pot, (int, np.integer, str)) or isinstance(pot, bool)
        if where or rest or two_hands:
            raise self._two_player("query(hand_a, hand_b, pot, prizes, diff, ...)")
        return self.answer(validate_multi_state(self.rules, hands, pot, prizes, scores))

    def check_equilibrium(self) -> None:
        """Raise ``ValueError`` (one line) when this solution holds security values only (no equilibrium to play)."""
        if not self.induction.with_equilibrium:
            raise InputValueError("this solution holds security values only: solve with equilibrium=True to query",
                                  "this solution holds security values only: to query positions, solve again "
                                  "without --security-only")

    def answer(self, state: MultiState) -> MultiQuery:
        """:meth:`query` for a state already validated (the simulator's and play's bots)."""
        self.check_equilibrium()
        ind = self.induction
        masks = relabel(state.hands)
        key, perm = ind.key(masks, state.pot, state.prizes, state.scores)
        if key not in ind.table:
            ind.decision(masks, state.pot, state.prizes, state.scores)
        sec_c, eq_c = ind.table[key]
        game = ind.stage(key)
        found = select_equilibrium(game.equilibrium, selection=ind.selection)
        m = self.rules.players
        base = state.scores if ind.points else (0,) * m
        security, values, strategies = [0.0] * m, [0.0] * m, [None] * m
        for j, i in enumerate(perm):
            security[i] = float(sec_c[j] + base[i])
            values[i] = float(eq_c[j] + base[i])
            strategies[i] = {c: float(p) for c, p in zip(state.hands[i], found.strategies[j])}
        return MultiQuery(security, values, strategies, float(found.gain), found.method, state)

    def verify(self, backend="highs", **two_player) -> dict:
        """Recompute every stored state from its successors.

        Each player-vs-coalition game is re-solved (by HiGHS unless
        ``backend="numba"``) and compared with the stored security value;
        each stage equilibrium is re-selected, compared with the stored
        values, and its deviation gain recomputed.

        Returns
        -------
        dict
            ``states``, ``security_residual`` (largest |stored - recomputed|),
            ``value_residual``, ``max_deviation_gain``, ``ok`` (residuals
            <= 1e-9 and gain <= 1e-6) and ``worst`` (the key of the worst
            state); ``symmetry_spread`` and ``symmetry_worst`` from
            :func:`symmetry_spread` (reported, not part of ``ok``: the
            selection rule may pick an asymmetric equilibrium of a symmetric
            stage game, see docs/multiplayer.md).
        """
        if two_player:
            m = self.rules.players
            raise InputValueError(f"verify({', '.join(sorted(two_player))}) is the two-player form, not defined for "
                                  f"{m} players: verify() re-solves every state", f"this solution is of a "
                                  f"{m}-player game: add --players {m} (gops verify --players {m} -s FILE)")
        ind = self.induction
        checker = Induction(self.rules, stage_solver=backend)
        checker.table = ind.table  # successors are read from the stored table
        sec_res = val_res = gain = 0.0
        worst = None
        for key, (sec, eq) in list(ind.table.items()):
            game = ind.stage(key)
            for i in range(self.rules.players):
                r = abs(checker.security_value(game.security[i], i) - sec[i])
                if r > sec_res:
                    sec_res, worst = r, key
            found = select_equilibrium(game.equilibrium, selection=ind.selection)
            val_res = max(val_res, float(np.max(np.abs(found.values - np.asarray(eq)))))
            gain = max(gain, deviation_gain(game.equilibrium, found.strategies))
        from .constants import DEVIATION_TOL
        ok = sec_res <= SECURITY_TOL and val_res <= SECURITY_TOL and gain <= DEVIATION_TOL
        spread, sym_worst = symmetry_spread(ind.table.items())
        return {"states": len(ind.table), "security_residual": sec_res, "value_residual": val_res,
                "max_deviation_gain": gain, "ok": ok, "worst": None if worst is None else repr(worst),
                "symmetry_spread": spread, "symmetry_worst": None if sym_worst is None else repr(sym_worst)}


def symmetry_spread(entries):
    """Largest difference between the equilibrium values of exchangeable players.

    Players with the same hand and score key are exchangeable: the state is
    its own image when they swap seats, so a symmetric selection would give
    them equal values. Canonical keys ``(masks, pot, hidden, score keys)``
    list such players next to each other (:mod:`.state`).

    Parameters
    ----------
    entries : iterable of (key, (security, values))
        Stored states, as ``table.items()``.

    Returns
    -------
    spread : float
        The largest ``|values[i] - values[j]|`` over exchangeable players
        (0.0 when no state has any).
    worst : tuple or None
        The key where it occurs.
    """
    spread, worst = 0.0, None
    for key, (_, eq) in entries:
        masks, scores = key[0], key[3]
        for i in range(len(masks) - 1):
            if masks[i] == masks[i + 1] and scores[i] == scores[i + 1]:
                d = abs(float(eq[i]) - float(eq[i + 1]))
                if d > spread:
                    spread, worst = d, key
    return spread, worst


def subgame_solver(rules: Rules, stage_solver: str = "numba", selection: str = "logit") -> MultiSolution:
    """A solution that solves only what queries need (the sub-games below the queried states).

    Its ``security`` and ``values`` at the start are NaN; :meth:`MultiSolution.query`
    works as on a full solution. ``selection`` as in :func:`solve_multi`.
    """
    if not isinstance(rules, Rules):
        raise TypeError("subgame_solver() takes a Rules object")
    nan = [float("nan")] * rules.players
    return MultiSolution(rules, Induction(rules, stage_solver, selection=selection), nan, nan, 0.0)


def solve_multi(rules: Rules, stage_solver: str = "numba", equilibrium: bool = True,
                levels: bool = True, selection: str = "logit") -> MultiSolution:
    """Solve a 3- or 4-player game from the start by backward induction.

    Parameters
    ----------
    rules : Rules
        ``players`` 3 or 4 (2 is accepted too and gives the security values
        of the classic game played as "A vs B").
    stage_solver : {"numba", "highs"}
        Backend of the player-vs-coalition games.
    equilibrium : bool
        False solves the security values only (much faster: no n-player
        stage equilibria); ``values`` are then NaN and queries raise.
    levels : bool
        True (default) solves whole games level by level with the jitted
        kernels (:mod:`.levels` under ``points``, :mod:`.winlevels` under
        ``win``); False with the memoised recursion of :mod:`.induction`,
        the reference they are tested against (same values, much slower).
        The HiGHS backend always uses the recursion.
    selection : {"logit", "pure"}
        The equilibrium selection rule (docs/multiplayer.md). ``logit``
        (default): a pure equilibrium only where it is the stage game's only
        one, else the limit of the logit branch. ``pure``: the first pure
        equilibrium in which exchangeable players bid alike wherever there
        is one, else the same as ``logit``; an equilibrium as certified, and
        many times faster under ``win``, whose stage games mostly have
        several pure equilibria.

    Returns
    -------
    MultiSolution
        ``security`` and ``values`` at the start (averaged over the first
        prize for a random order), per player.
    """
    if not isinstance(rules, Rules):
        raise TypeError("solve_multi() takes a Rules object: solve_multi(Rules(n=5, players=3))")
    if stage_solver not in ("numba", "highs"):
        raise ValueError(f"unknown stage solver {stage_solver!r}: use numba or highs")
    selection_code(selection)  # an unknown name is refused before any work
    t0 = time.perf_counter()
    if levels and stage_solver == "numba" and rules.objective == "points":
        from .levels import LevelInduction  # whole games: the jitted level solvers
        ind = LevelInduction(rules, stage_solver, equilibrium, selection)
    elif levels and stage_solver == "numba":
        from .winlevels import WinLevelInduction
        ind = WinLevelInduction(rules, stage_solver, equilibrium, selection)
    else:
        ind = Induction(rules, stage_solver, equilibrium, selection)
    sec, eq = ind.start()
    return MultiSolution(rules, ind, sec, eq, time.perf_counter() - t0)


def load_multi(path, rules=None, check=True) -> MultiSolution:
    """Open a file written by :meth:`MultiSolution.save` (every checksum checked).

    Parameters
    ----------
    path : path-like
    rules : Rules, optional
        If given, the file must hold these rules.

    Raises
    ------
    ValueError
        One line: not such a file, damaged, other rules.
    """
    return MultiSolution(*read_multi(path, rules, check))
