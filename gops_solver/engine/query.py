"""Queries: a decision state -> its stage game -> value and optimal bids.

:func:`query_state` reduces a state (two hands, pot, hidden prizes, score
difference) to its hand pattern, builds that round's stage game from the
values of level ``k - 1`` with the one builder :func:`~.tables.stage_matrix`
(:func:`stage_matrix_of` is its Python entry point) and solves it for the
strategies, which the tables do not store. A state the tables do not reach
(or no tables at all) is answered by solving the sub-game below it.
"""

from __future__ import annotations

import numpy as np

from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
from gops_solver.game.encoding import LUT_OFF, TOK_A, TOK_B, StateSpace, classes, hands_to_pattern
from gops_solver.engine.induction import run_induction
from gops_solver.game.rules import Rules
from gops_solver.lp.stage import StageSolveError, check_backend, solve_matrix_game
from gops_solver.engine.tables import game_axes, holds_level, level_view, stage_matrix, stage_structure
# the one result type of every engine's query lives with the interface
from gops_solver.engine.base import QueryResult  # noqa: F401  (public here)


def _class_cards(state):
    """The pattern of ``state`` and the cards behind each of A's and B's classes."""
    tokens, values = hands_to_pattern(state.hand_a, state.hand_b)
    u = len(tokens)
    tok = np.array(tokens + [0] * (TOKEN_SCRATCH - u), dtype=np.int64)
    cls_a, cls_b = np.empty(MAX_CARDS, np.int64), np.empty(MAX_CARDS, np.int64)
    na, nb = classes(tok, u, cls_a, cls_b)

    def cards_of(pos, own):
        run = [values[pos]]
        q = pos + 1
        while tokens[pos] == own and q < u and tokens[q] == own:
            run.append(values[q])
            q += 1
        return run

    cards_a = [cards_of(int(cls_a[i]), TOK_A) for i in range(na)]
    cards_b = [cards_of(int(cls_b[j]), TOK_B) for j in range(nb)]
    return tok, u, cards_a, cards_b


def stage_matrix_of(state, space, tables, s_prev, sum_prev, ci):
    """Stage matrix of ``state`` read from ``tables[k - 1]``, by :func:`~.tables.stage_matrix`.

    Parameters
    ----------
    state : DecisionState
    space : StateSpace
        The axes ``tables`` belong to.
    tables : list of ndarray
        Flat level tables (arrays or mapped files); only level ``k - 1`` is read.
    s_prev, sum_prev : int
        Index (at level ``k - 1``) and sum of the prizes hidden after this reveal.
    ci : int
        Carry index: fixed order, rounds tied in a row before this one (else 0).

    Returns
    -------
    tuple or None
        ``(cards_a, cards_b, M)``: the cards behind each row and column and
        the stage game over those classes (under ``points`` without the score
        difference); None if any cell is not tabulated, or ``tables`` (a
        top-levels file) do not hold level ``k - 1``.
    """
    k = state.k
    tok, u, cards_a, cards_b = _class_cards(state)
    if u > space.union_cap or k - 1 > space.kmax or not holds_level(tables, k - 1):
        return None
    stage = stage_structure(tok, u, space.patterns.lut, LUT_OFF)
    M = np.empty((stage.na, stage.nb))
    d = state.diff if space.win else 0
    if not stage_matrix(game_axes(space), level_view(space, tables, k - 1, [s_prev]), k, stage, state.pot, d, ci,
                        s_prev, sum_prev, M):
        return None
    return cards_a, cards_b, M


def query_state(rules: Rules, state, space=None, tables=None, stage_solver="numba", progress=None) -> QueryResult:
    """Solve one decision state's stage game, from stored tables or a sub-game.

    When ``tables`` lack a successor (a state the full induction never
    reaches, a state below the rounds of a top-levels file, or no tables at
    all) only the sub-game below the state is solved.
    """
    check_backend(stage_solver)
    k = state.k
    found = None
    if tables is not None:
        if space.random_order:
            s_prev = int(space.prize_sets.set_rank[space.prize_sets.mask(state.prizes)])
            ci = 0  # unused: a tie carries the pot itself
        else:
            s_prev, ci = 0, state.carry_chain
        found = stage_matrix_of(state, space, tables, s_prev, sum(state.prizes), ci)
    if found is None:
        space, tables = _subgame(rules, state, space.term if space is not None and space.win else None, progress)
        s_prev = int(space.prize_sets.set_rank[(1 << (k - 1)) - 1]) if space.random_order else 0
        found = stage_matrix_of(state, space, tables, s_prev, sum(state.prizes), 0)
        if found is None:
            raise StageSolveError("the sub-game below this state lacks a successor value; this is a bug, please report it")
    cards_a, cards_b, M = found
    res = solve_matrix_game(M, backend=stage_solver)
    offset = state.diff if not space.win else 0
    value = float(res.value) + offset
    strat_a = _spread(cards_a, res.row, state.hand_a)
    strat_b = _spread(cards_b, res.col, state.hand_b)
    return QueryResult(value, strat_a, strat_b, M, state, cards_a, cards_b, float(offset))


def _spread(class_cards, probs, hand) -> dict:
    # interchangeable cards are equally good: share the class's probability evenly
    out = {int(c): 0.0 for c in sorted(hand)}
    for cards, p in zip(class_cards, probs):
        for c in cards:
            out[c] += float(p) / len(cards)
    return out


def _subgame(rules: Rules, state, term=None, progress=None):
    """State space and tables of just the game below ``state`` (``term``: its end payoff, win only)."""
    k = state.k
    u0 = len(set(state.hand_a) | set(state.hand_b))
    if rules.random_order:
        space = StateSpace(True, rules.tie == "carry", rules.objective == "win", state.prizes, k - 1, u0,
                           extra=state.pot, diff_reach=abs(state.diff), term=term)
    else:
        space = StateSpace(False, rules.tie == "carry", rules.objective == "win", (state.pot,) + state.prizes,
                           k - 1, u0, diff_reach=abs(state.diff), term=term)
    tables, _ = run_induction(space, progress=progress)
    return space, tables
