"""One query, from its raw parameters to the object ``gops query --json`` prints.

``gops query`` and the explorer's ``/api/query`` both call
:func:`answer_query` and print :meth:`QueryAnswer.to_json`, so the two cannot
drift: same rules defaults, same checks, same one-line error messages, same
JSON object.
"""

from __future__ import annotations

from dataclasses import dataclass

from gops_solver.game.cards import parse_cards
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.jsonout import dumps
from gops_solver.engine.query import QueryResult, query_state
from gops_solver.game.rules import DecisionState, Rules, parse_match_score, rules_from_options, validate_state, with_options
from gops_solver.api import solve
from gops_solver.engine.solution import Solution


@dataclass
class QueryAnswer:
    """A query's rules, validated state and result.

    Attributes
    ----------
    rules : Rules
        The rules the answer is for (a stored solution's, when one was given).
    state : DecisionState
    result : QueryResult
    """

    rules: Rules
    state: DecisionState
    result: QueryResult

    def to_dict(self) -> dict:
        """The object ``gops query --json`` prints: value, both strategies, rules and state."""
        st = self.state
        return {**self.result.to_dict(), "rules": self.rules.to_dict(),
                "state": {"hand_a": list(st.hand_a), "hand_b": list(st.hand_b), "pot": st.pot,
                          "prizes": list(st.prizes), "diff": st.diff}}

    def to_json(self) -> str:
        """:meth:`to_dict` as one line of JSON."""
        return dumps(self.to_dict())


def query_rules(cards=None, tie=None, objective=None, order=None, match=None, draw=None) -> Rules:
    """Rules of a query from its options, with the CLI's defaults (the deck defaults to 13 cards)."""
    return rules_from_options(cards, tie, objective, order, match, draw, cards_default=MAX_CARDS)


def answer_query(hand_a, hand_b, pot, prizes="", diff=0, *, cards=None, tie=None, objective=None, order=None,
                 match=None, draw=None, game=None, match_score=None, stage_solver="numba",
                 solution: Solution | None = None, solution_name=None, solve_match=solve,
                 progress=None) -> QueryAnswer:
    """Answer one query as ``gops query`` does.

    Parameters
    ----------
    hand_a, hand_b, pot, prizes, diff
        The decision state, as text or numbers (see :func:`~.rules.validate_state`).
    cards, tie, objective, order, match, draw : optional
        Rule options; None means the default, or the stored solution's rule.
    game, match_score : optional
        Match position (``match_score`` as text, e.g. ``"-4"`` or ``"1-0"``).
    stage_solver : {"numba", "highs"}
    solution : Solution, optional
        A stored solution; rule options given must agree with its rules.
    solution_name : str, optional
        What to call the solution in messages (its file name).
    solve_match : callable, optional
        ``solve_match(rules) -> Solution`` for a match queried without a
        stored solution (the explorer passes a cached one).
    progress : callable, optional
        ``progress(level, games)`` while a sub-game is solved.

    Returns
    -------
    QueryAnswer

    Raises
    ------
    ValueError
        One line naming the bad parameter and the fix.
    """
    if match not in (None, "single") and solution is None:
        # a match needs every game's end values: the whole match is solved (in memory)
        rules = query_rules(cards, tie, objective, order, match, draw)
        res = solve_match(rules).query(hand_a, hand_b, pot, parse_cards(prizes, rules.n, "prizes"), diff,
                                       stage_solver, game=game, match_score=parse_match_score(match_score))
        return QueryAnswer(rules, res.state, res)
    if solution is not None:
        wanted = with_options(solution.rules, n=cards, tie=tie, objective=objective, order=order)
        if wanted is not None:
            if wanted != solution.rules:
                raise ValueError(f"{solution_name or 'the solution'} holds a solution for "
                                 f"{solution.rules.describe()}, not {wanted.describe()}: "
                                 f"drop the rule options or use a matching file")
        rules = solution.rules
        res = solution.query(hand_a, hand_b, pot, parse_cards(prizes, rules.n, "prizes"), diff, stage_solver,
                             game=game, match_score=parse_match_score(match_score))
        return QueryAnswer(rules, res.state, res)
    if game not in (None, 1) or match_score is not None:
        raise ValueError("--game and --match-score need --match")
    rules = query_rules(cards, tie, objective, order)
    st = validate_state(rules, hand_a, hand_b, pot, parse_cards(prizes, rules.n, "prizes"), diff)
    return QueryAnswer(rules, st, query_state(rules, st, None, None, stage_solver, progress=progress))
