"""The solver's strategies sitting at a table of :mod:`.game`: the opponents of the single-agent env.

A seat plays any strategy the solver knows for the rules:

- two players, one-card bids: every spec of
  :func:`~gops_solver.analysis.strategies.make_strategy` (``equilibrium``, a
  heuristic, a fitted model file, a response file of ``gops exploit --out``,
  ``module:function``);
- two-card bids: the variants' strategies
  (:data:`~gops_solver.analysis._variant_matchup.STRATEGIES`);
- three and four players: :data:`~gops_solver.multi.simulate.STRATEGIES`.

Draws are those of ``gops simulate``: a distribution's bid is
``bids[rng.choice(len(bids), p=probs)]`` in the distribution's own order,
and the 3-4 player seats draw as :func:`~gops_solver.multi.simulate.play_game` does.
"""

from __future__ import annotations

import numpy as np

from gops_solver.analysis.strategies import View


def solution_needed(spec) -> bool:
    """Whether a seat spec plays the equilibrium (then a solution of the rules is needed)."""
    from gops_solver.analysis._common import needs_solution
    return needs_solution(spec)


class SeatPolicy:
    """One strategy in one seat of a :class:`~.game.Table` (build with :func:`seat_policy`).

    Attributes
    ----------
    name : str
    """

    def __init__(self, name, kind, impl, rules):
        self.name, self._kind, self._impl, self.rules = name, kind, impl, rules
        self._cache = {}

    def distribution(self, table, st, seat) -> dict:
        """Bid (tuple of cards) -> probability of this strategy in ``seat`` at the state ``st``."""
        if self._kind == "classic":
            own, opp = st.hands[seat], st.hands[1 - seat]
            diff = st.scores[seat] - st.scores[1 - seat]
            got = self._impl.distribution(View(own, opp, table.pot(st), table.hidden(st), diff), table.n)
            return {(c,): p for c, p in got.items()}
        if self._kind == "variant":
            return self._impl.mix(self.name, _variant_state(table, st), "ab"[seat])
        return {(c,): p for c, p in self._multi_answer(table, st).strategies[seat].items()}

    def act(self, table, st, seat, rng) -> tuple:
        """A bid drawn from ``rng`` as ``gops simulate`` draws it."""
        if self._kind == "multi":
            from gops_solver.multi.simulate import _pick
            ans = self._multi_answer(table, st) if self.name == "equilibrium" else None
            dist = ans.strategies[seat] if ans is not None else None
            return (int(_pick(self.name, list(st.hands[seat]), dist, table.pot(st), table.hidden(st), rng)),)
        dist = self.distribution(table, st, seat)
        bids = list(dist)
        p = np.array([dist[b] for b in bids])
        return tuple(bids[int(rng.choice(len(bids), p=p / p.sum()))])

    def _multi_answer(self, table, st):
        from gops_solver.multi.state import MultiState
        key = MultiState(tuple(st.hands), table.pot(st), table.hidden(st) if table.rules.random_order
                         else tuple(st.order[st.round + 1:]), tuple(st.scores))
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._impl.answer(key)
        return got


def _variant_state(table, st) -> tuple:
    """The variants' decision state ``(hand_a, hand_b, pile, row, carry, diff)`` of a two-player game."""
    rest = st.order[st.round + 1:]
    pile = tuple(rest) if not table.rules.random_order else tuple(sorted(rest))
    return (st.hands[0], st.hands[1], pile, (st.order[st.round],), st.carry, st.scores[0] - st.scores[1])


def seat_policy(spec, rules, solution=None) -> SeatPolicy:
    """A strategy of the solver for one seat of ``rules``.

    Parameters
    ----------
    spec : str or Strategy
        See the module docstring.
    rules : Rules
    solution : optional
        A solution of ``rules`` for ``equilibrium`` (solved here when needed and not given).

    Raises
    ------
    ValueError
        A strategy the rules' engine does not play, or a solution of other rules.
    """
    if rules.players > 2:
        from gops_solver.multi.simulate import STRATEGIES
        name = spec.strip().lower() if isinstance(spec, str) else spec
        if name not in STRATEGIES:
            raise ValueError(f"strategy {spec!r} is not played with {rules.players} players: use one of "
                             f"{', '.join(STRATEGIES)}")
        sol = None
        if name == "equilibrium":
            sol = solution if solution is not None else _solve(rules)
        return SeatPolicy(name, "multi", sol, rules)
    if rules.bid_cards == 2:
        from gops_solver.analysis._variant_matchup import Table, strategy_name
        name = strategy_name(spec)
        if name == "equilibrium":
            sol = solution if solution is not None else _solve(rules)
        else:
            sol = _RulesOnly(rules)  # the heuristics read only the rules
        return SeatPolicy(name, "variant", Table(sol), rules)
    from gops_solver.analysis._common import solution_for
    from gops_solver.analysis.strategies import check_strategy_rules, make_strategy
    sol = solution_for(rules, solution, spec)
    strategy = make_strategy(spec, sol)
    check_strategy_rules(strategy, rules)
    return SeatPolicy(strategy.name, "classic", strategy, rules)


class _RulesOnly:
    """What the variants' heuristics read of a solution: its rules."""

    def __init__(self, rules):
        self.rules = rules


def _solve(rules):
    from gops_solver.api import solve
    return solve(rules)
