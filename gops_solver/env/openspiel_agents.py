"""OpenSpiel policies as agents: their distribution at a node of the arena's game.

A policy of OpenSpiel's ``goofspiel`` (``imp_info=False``, in its turn-based
form, as CFR trains it) reads OpenSpiel's information state, so the arena
replays the game's history into an OpenSpiel state and asks the policy
there (:func:`openspiel_distribution`).
"""

from __future__ import annotations

_GAMES = {}


def _game(rules):
    from gops_solver.analysis.openspiel import load_game
    if rules not in _GAMES:
        _GAMES[rules] = load_game(rules, turn_based=True)
    return _GAMES[rules]


def openspiel_state(table, st, seat):
    """OpenSpiel's turn-based state at the arena's decision ``st``, with ``seat`` to move.

    Seat B moves after A in the turn-based game; A's pending bid is not in B's
    information state, so any legal one stands in for it.
    """
    state = _game(table.rules).new_initial_state()
    for prize, _, bids in st.history:
        if state.is_chance_node():
            state.apply_action(prize - 1)
        state.apply_action(bids[0][0] - 1)
        state.apply_action(bids[1][0] - 1)
    if state.is_chance_node():
        state.apply_action(table.prize(st) - 1)
    if seat == 1:
        state.apply_action(st.hands[0][0] - 1)
    return state


def openspiel_distribution(policy, table, st, seat) -> dict:
    """Card -> probability of an OpenSpiel policy in ``seat`` at the arena's decision ``st``."""
    state = openspiel_state(table, st, seat)
    probs = policy.action_probabilities(state, seat)
    return {int(a) + 1: float(p) for a, p in dict(probs).items()}
