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
from gops_solver.game.rules import DecisionState, Rules, parse_match_score, rules_from_options, validate_state
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
    subgame : bool or None
        A top-levels file was read (``gops export --format solution``): True
        when the state lies below the rounds it holds, so its own sub-game was
        solved; None for any other source.
    note : str or None
        That, in one line for the user (None when the file answered).
    """

    rules: Rules
    state: DecisionState
    result: QueryResult
    subgame: bool | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        """The object ``gops query --json`` prints: value, both strategies, rules and state.

        From a top-levels file also ``subgame`` (and ``note`` when it is true).
        """
        st = self.state
        out = {**self.result.to_dict(), "rules": self.rules.to_dict(),
               "state": {"hand_a": list(st.hand_a), "hand_b": list(st.hand_b), "pot": st.pot,
                         "prizes": list(st.prizes), "diff": st.diff}}
        if self.subgame is not None:
            out["subgame"] = self.subgame
            if self.note:
                out["note"] = self.note
        return out

    def to_json(self) -> str:
        """:meth:`to_dict` as one line of JSON."""
        return dumps(self.to_dict())


#: a rule option's name on the command line, by its :class:`Rules` field
_OPTION_NAMES = {"n": "--cards", "tie": "--tie", "objective": "--objective", "order": "--order", "match": "--match",
                 "draw": "--draw", "bid_cards": "--bid-cards", "open_prizes": "--open-prizes",
                 "tiebreak": "--tiebreak", "players": "--players"}


def file_rules(rules: Rules, name=None, **options) -> Rules:
    """A solution file's rules, after checking that the rule options given agree with them.

    Every reader of a stored solution (query, play, evaluate, simulate,
    export, explore, the explorer's API) calls this one check: an option
    that contradicts the file is refused, never silently ignored.

    Parameters
    ----------
    rules : Rules
        The file's rules.
    name : str, optional
        What to call the file in the message.
    **options
        ``n``, ``tie``, ``objective``, ``order``, ``match``, ``draw``,
        ``bid_cards``, ``open_prizes``, ``tiebreak``, ``players``; None for
        an option not given.

    Returns
    -------
    Rules
        ``rules`` itself.

    Raises
    ------
    ValueError
        One line naming the options that contradict the file and the fix.
    """
    given = {k: v for k, v in options.items() if v is not None}
    if not given:
        return rules
    unknown = set(given) - set(_OPTION_NAMES)
    if unknown:
        raise TypeError(f"file_rules got unknown rule options {sorted(unknown)}")
    try:
        wanted = Rules.from_dict({**rules.to_dict(), **given})
        differ = [k for k in given if getattr(wanted, k) != getattr(rules, k)]
        # a draw rule means nothing outside best-of matches: asking for one there is a contradiction too
        if "draw" in given and not rules.best_of and given["draw"] != "replay":
            differ.append("draw")
    except ValueError:
        differ = list(given)  # these options cannot even be applied to the file's rules
    if not differ:
        return rules
    asked = " ".join(f"{_OPTION_NAMES[k]} {given[k]}" for k in differ)
    raise ValueError(f"{name or 'the solution'} holds a solution for {rules.describe()}, which contradicts "
                     f"{asked}: drop {'that option' if len(differ) == 1 else 'those options'} or use a file "
                     f"solved for {'it' if len(differ) == 1 else 'them'}")


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
        ``progress(level, games)`` while a sub-game is solved (without a
        solution, or below the rounds of a top-levels file).

    Returns
    -------
    QueryAnswer

    Raises
    ------
    ValueError
        One line naming the bad parameter and the fix.
    """
    if solution is None and match not in (None, "single"):
        # a match needs every game's end values: the whole match is solved (in memory)
        rules = query_rules(cards, tie, objective, order, match, draw)
        res = solve_match(rules).query(hand_a, hand_b, pot, parse_cards(prizes, rules.n, "prizes"), diff,
                                       stage_solver, game=game, match_score=parse_match_score(match_score))
        return QueryAnswer(rules, res.state, res)
    if solution is not None:
        rules = file_rules(solution.rules, solution_name, n=cards, tie=tie, objective=objective, order=order,
                           match=match, draw=draw)
        held = getattr(solution, "rounds_held", None)
        extra = {"progress": progress} if held is not None else {}
        res = solution.query(hand_a, hand_b, pot, parse_cards(prizes, rules.n, "prizes"), diff, stage_solver,
                             game=game, match_score=parse_match_score(match_score), **extra)
        if held is None:
            return QueryAnswer(rules, res.state, res)
        below = not solution.holds(res.state.k)
        note = (f"this state is below the rounds {solution_name or solution.top.name} holds (1-{held}): solved as "
                f"its own sub-game") if below else None
        return QueryAnswer(rules, res.state, res, below, note)
    if game not in (None, 1) or match_score is not None:
        raise ValueError("--game and --match-score need --match")
    rules = query_rules(cards, tie, objective, order)
    st = validate_state(rules, hand_a, hand_b, pot, parse_cards(prizes, rules.n, "prizes"), diff)
    return QueryAnswer(rules, st, query_state(rules, st, None, None, stage_solver, progress=progress))
