"""Exact baselines for OpenSpiel: the equilibrium as a policy of its ``goofspiel`` game.

OpenSpiel's ``goofspiel`` (``pyspiel.load_game("goofspiel", {...})``) with
``imp_info=False`` is this project's game under the ``discard`` tie rule:
both players see every bid, a tied bid throws the prize away, and the last
round (one card each) is played automatically. Player 0 is A, player 1 is
B; action ``c - 1`` bids card ``c`` and point card ``c - 1`` is worth ``c``.

============================  ==============================
OpenSpiel parameter            gops rules
============================  ==============================
``num_cards=n``               ``Rules(n=n)``
``points_order``              ``order`` (random/ascending/descending)
``returns_type``              ``point_difference`` -> ``objective="points"``,
                              ``win_loss`` -> ``objective="win"``
``imp_info=False``            (bids are public, as in the documents)
============================  ==============================

:func:`policy` answers every information state from the solution (the
state's stage game, as :meth:`Solution.query` solves it), so it works at any
n and in the simultaneous game or its turn-based form
(``pyspiel.convert_to_turn_based``), which OpenSpiel's CFR and
``exploitability.nash_conv`` use. Needs ``pip install "gops-solver[openspiel]"``.
"""

from __future__ import annotations

import json

from gops_solver.game.rules import Rules

_RETURNS = {"point_difference": "points", "win_loss": "win"}


def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise ValueError("OpenSpiel baselines need open_spiel: pip install 'gops-solver[openspiel]'") from None
    return pyspiel


def rules_for(game) -> Rules:
    """The gops rules of an OpenSpiel ``goofspiel`` game (or its turn-based form).

    Raises
    ------
    ValueError
        A game or parameter this project does not solve (imperfect
        information, more than 2 players, fewer turns, ...).
    """
    params = dict(game.get_parameters())
    name = game.get_type().short_name
    if name == "turn_based_simultaneous_game":  # its parameters hold the wrapped game's
        params = dict(params["game"])
        name = params.get("name")
    if name != "goofspiel":
        raise ValueError(f"{name} is not goofspiel: load pyspiel.load_game('goofspiel', ...)")
    if params.get("imp_info", False):
        raise ValueError("imp_info=True hides the bids; the solver's game shows them: load with imp_info=False")
    if params.get("players", 2) != 2:
        raise ValueError("only two-player goofspiel is solved: load with players=2")
    if params.get("num_turns", -1) not in (-1, params["num_cards"]):
        raise ValueError("a game cut short (num_turns) is not solved: load with num_turns=-1")
    if params.get("egocentric", False):
        raise ValueError("egocentric observations are not supported: load with egocentric=False")
    returns = params.get("returns_type", "win_loss")
    if returns not in _RETURNS:
        raise ValueError(f"returns_type {returns!r} has no gops objective: use point_difference or win_loss")
    order = params.get("points_order", "random")
    return Rules(n=int(params["num_cards"]), tie="discard", objective=_RETURNS[returns], order=order)


def load_game(rules: Rules, turn_based: bool = True):
    """The OpenSpiel ``goofspiel`` game of ``rules`` (tie ``discard``; order random, ascending or descending).

    Parameters
    ----------
    rules : Rules
    turn_based : bool
        Wrap it with ``pyspiel.convert_to_turn_based`` (what CFR and
        ``exploitability`` take).
    """
    pyspiel = _pyspiel()
    if rules.tie != "discard":
        raise ValueError("OpenSpiel's goofspiel discards tied prizes: use tie discard")
    if rules.order_name not in ("random", "ascending", "descending"):
        raise ValueError(f"OpenSpiel knows the orders random, ascending, descending, not {rules.order_name}")
    if rules.match != "single":
        raise ValueError("OpenSpiel's goofspiel is a single game: drop the match format")
    inv = {v: k for k, v in _RETURNS.items()}
    game = pyspiel.load_game("goofspiel", {"num_cards": rules.n, "points_order": rules.order_name,
                                           "returns_type": inv[rules.objective], "imp_info": False})
    return pyspiel.convert_to_turn_based(game) if turn_based else game


def _parse_info(text: str, n: int) -> tuple:
    """(hand_a, hand_b, revealed point cards, diff) from a goofspiel information state string."""
    fields = {}
    for line in text.splitlines():
        if ":" in line:
            key, _, val = line.partition(":")
            fields[key.strip()] = [int(v) for v in val.split()]
    shown = fields["Point card sequence"]
    pa, pb = fields["Points"]
    return tuple(fields["P0 hand"]), tuple(fields["P1 hand"]), shown, pa - pb


class _ExactAnswers:
    """The solution's equilibrium, answering OpenSpiel information states (see :func:`policy`)."""

    def strategies(self, info: str) -> tuple:
        """A's and B's bid distributions ``{action: prob}`` at an information state string."""
        got = self._cache.get(info)
        if got is None:
            n = self.solution.rules.n
            ha, hb, shown, diff = _parse_info(info, n)
            pot = shown[-1]
            seq = self.solution.rules.sequence
            hidden = [c for c in range(1, n + 1) if c not in shown] if seq is None else list(seq[len(shown):])
            q = self.solution.query(ha, hb, pot, hidden, diff)
            got = ({c - 1: p for c, p in q.strategy_a.items()}, {c - 1: p for c, p in q.strategy_b.items()})
            self._cache[info] = got
        return got

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` of ``player_id`` (default: the player to move) at ``state``."""
        p = state.current_player() if player_id is None else player_id
        return self.strategies(state.information_state_string(p))[p]


def policy(solution, game):
    """The solution's equilibrium as an OpenSpiel policy of ``game``.

    Parameters
    ----------
    solution : Solution
        A solved game with ``tie="discard"`` and the rules of ``game``
        (see :func:`rules_for`).
    game : pyspiel.Game
        ``pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": ...,
        "returns_type": ..., "imp_info": False})``, or its turn-based form.

    Returns
    -------
    open_spiel.python.policy.Policy
        ``action_probabilities(state, player_id=None)`` gives the
        equilibrium's bid distribution at the state's information state
        (player 0 is A, player 1 is B). Answers are cached per information
        state.

    Raises
    ------
    ValueError
        When the solution's rules are not the game's.
    """
    _pyspiel()
    from open_spiel.python import policy as os_policy
    want = rules_for(game)
    if solution.rules != want:
        raise ValueError(f"the solution is for {solution.rules.describe()}, the game is {want.describe()}: "
                         f"solve Rules(n={want.n}, tie='discard', objective='{want.objective}', "
                         f"order='{want.order_name}')")

    class ExactPolicy(_ExactAnswers, os_policy.Policy):
        """OpenSpiel's Policy interface (``to_tabular``, ``__call__``, ...) over the exact answers."""

    pol = ExactPolicy(game, [0, 1])
    pol.solution, pol._cache = solution, {}
    return pol


def tabular_policy(solution, rounds: int | None = None, max_rows: int = 2_000_000) -> dict:
    """The equilibrium at every information state of the first ``rounds`` rounds, as a table.

    Walks the turn-based OpenSpiel game of the solution's rules.

    Returns
    -------
    dict
        ``{information state string: [(action, probability), ...]}``, what
        ``pyspiel.TabularPolicy(table)`` takes. Every decision of the
        first ``rounds`` rounds (default: all) is listed once.
    """
    n = solution.rules.n
    last = n if rounds is None else int(rounds)
    if not 1 <= last <= n:
        raise ValueError(f"rounds {rounds} is outside 1..{n}: give how many rounds to export")
    if getattr(solution, "rounds_held", None) is not None:  # a top-levels file: its rounds only
        solution.require_rounds(last)
    game = load_game(solution.rules, turn_based=True)
    pol = policy(solution, game)
    table = {}
    seen = set()

    def walk(state, rnd):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, _ in state.chance_outcomes():
                walk(state.child(a), rnd)
            return
        p = state.current_player()
        info = state.information_state_string(p)
        if info not in table:
            if len(table) >= max_rows:
                raise ValueError(f"more than {max_rows:,} information states: export fewer rounds "
                                 f"or raise --max-rows")
            probs = pol.action_probabilities(state, p)
            table[info] = [(int(a), float(probs.get(a, 0.0))) for a in state.legal_actions(p)]
        key = state.history_str()
        if key in seen:
            return
        seen.add(key)
        nxt = rnd + 1 if p == 1 else rnd
        if nxt > last:
            return
        for a in state.legal_actions(p):
            walk(state.child(a), nxt)

    walk(game.new_initial_state(), 1)
    return table


def write_tabular_policy(solution, path, rounds=None, level=None, max_rows: int = 2_000_000) -> int:
    """Write :func:`tabular_policy` as JSON, atomically; returns the number of information states.

    Load it in OpenSpiel with
    ``pyspiel.TabularPolicy({k: [tuple(x) for x in v] for k, v in json.load(open(path)).items()})``.
    """
    from gops_solver.engine.export import _atomic_write
    if level is not None:
        raise ValueError("--format openspiel takes --rounds, not --level")
    table = tabular_policy(solution, rounds, max_rows)
    game = load_game(solution.rules, turn_based=True)
    doc = {"game": str(game), "rules": solution.rules.to_dict(),
           "policy": {k: [[a, p] for a, p in v] for k, v in table.items()}}
    _atomic_write(path, lambda fh: fh.write(json.dumps(doc).encode()))
    return len(table)
