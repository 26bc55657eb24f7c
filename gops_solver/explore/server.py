"""The explorer's web server: a FastAPI app over one static page and a JSON API.

Query parameters are those of ``gops query`` with ``_`` for ``-``
(``hand_a=1,3,5&pot=7``); they are parsed by the ``query`` command's own click
options, so a bad one gets exactly the CLI's one-line message (HTTP 400), and
answered by :func:`~gops_solver.analysis.answer.answer_query`, so ``/api/query``
returns exactly the object ``gops query --json`` prints.

The variants (``bid_cards=2``, ``open_prizes=M`` with ``row``, ``tiebreak`` with
``match_total``) are answered through the one solution interface
(:class:`~gops_solver.engine.base.GameSolution` ``query`` and ``opening``) of
the whole game, solved once; their answers are the object ``gops query --json``
prints for the same options. ``players`` other than 2 is refused in one line.

Endpoints: ``/`` (the page; without a position it redirects to a default one),
``/api/query``, ``/api/position`` (the query object plus the stage matrix and
what stepping needs), ``/api/step``, ``/api/first`` (the first-round table),
``/api/progress`` (solves under way) and ``/api/info``.

With a response (``gops explore --response FILE`` or ``--model M``), each
position of its game also carries ``response``: the response's bid
distribution for A (a precomputed strategy of :mod:`gops_solver.opponent.response`)
beside the equilibrium's.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
import time
from collections import OrderedDict
from pathlib import Path
from urllib.parse import urlencode

import click
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from gops_solver.game.cards import parse_cards
from gops_solver.analysis.answer import QueryAnswer, answer_query, file_rules, query_rules
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.jsonout import dumps
from gops_solver.game.rules import Rules, parse_match_score, rules_from_options, validate_state
from gops_solver.api import solve
from gops_solver.engine.solution import Solution, projected_work
from . import positions

STATIC = Path(__file__).with_name("static")
#: largest solve (stage games) the server starts on its own, about two minutes on
#: the 2-core reference machine (2.5 million stage games a second, README); larger
#: games are solved once with ``gops solve --out`` and served with ``--solution``
LIVE_SOLVE_LIMIT = 300_000_000
#: sub-game solves run at once (more wait): bounds the memory live solves can take
LIVE_SOLVES = 2
#: largest variant solve (stage-game cells) the server starts on its own: about two minutes at the
#: variant kernel's 3.4e7 cells a second on 2 cores (cli/_variants.py CELLS_PER_SECOND)
LIVE_VARIANT_CELLS = 4_000_000_000
#: answers kept in memory (each holds one small stage matrix)
ANSWER_CACHE = 512
_RULE_PARAMS = ("cards", "tie", "objective", "order", "match", "draw", "stage_solver")
_STATE_PARAMS = ("hand_a", "hand_b", "pot", "prizes", "diff", "row", "game", "match_score", "match_total")
_STEP_PARAMS = ("bid_a", "bid_b", "next")
#: the query command's variant parameters, with the value that means the classic game (None: left out);
#: any other value routes a request through the variants' answer (:meth:`Explorer._variant`)
_VARIANT_PARAMS = {"bid_cards": 1, "open_prizes": 1, "tiebreak": "share", "row": None, "match_total": None}


@dataclass
class VariantAnswer:
    """A variant's query answer: its rules, the solution's :class:`~gops_solver.engine.base.QueryResult`, the state.

    ``to_dict`` is the object ``gops query --json`` prints for the same
    options (bids as ``"3+5"``, open prizes with the ``row``).
    """

    rules: Rules
    result: object
    state: dict

    def to_dict(self) -> dict:
        return {**self.result.to_dict(), "rules": self.rules.to_dict(), "state": self.state}

    def to_json(self) -> str:
        return dumps(self.to_dict())


class InputError(ValueError):
    """A bad request parameter; its text is the one-line message the CLI prints."""


class Jobs:
    """Solves under way, for the page's busy state: what, level, stage games, seconds."""

    def __init__(self):
        self._lock = threading.Lock()
        self._jobs = {}
        self._next = 0

    def start(self, what: str, levels: int) -> int:
        with self._lock:
            self._next += 1
            self._jobs[self._next] = {"what": what, "levels": levels, "level": 0, "games": 0,
                                      "started": time.perf_counter()}
            return self._next

    def callback(self, job: int):
        """A ``progress(level, games, done=False)`` function that updates ``job``."""
        def progress(level, games, done=False):
            with self._lock:
                j = self._jobs.get(job)
                if j is not None:
                    j["level"] = max(j["level"], int(level))
                    j["games"] += int(games)
        return progress

    def finish(self, job: int) -> None:
        with self._lock:
            self._jobs.pop(job, None)

    def snapshot(self) -> list:
        now = time.perf_counter()
        with self._lock:
            return [{"what": j["what"], "level": j["level"], "levels": j["levels"], "games": j["games"],
                     "seconds": round(now - j["started"], 2)} for j in self._jobs.values()]


class Explorer:
    """Answers the page's requests: parses parameters, solves or reads, caches.

    Parameters
    ----------
    solution : Solution, optional
        A stored solution to read; without one, each position's sub-game is
        solved (and whole games, for matches and the first-round view).
    solution_name : str, optional
        Its file name, as messages call it.
    rules : Rules, optional
        The rules the page opens with when no solution is given (default:
        ``Rules()`` with the CLI's defaults).
    response : Strategy, optional
        A response to a model (seat A, :func:`gops_solver.opponent.exploit`), shown beside the
        equilibrium at the positions of its rules.
    """

    def __init__(self, solution: Solution | None = None, solution_name=None, rules: Rules | None = None,
                 response=None):
        self.solution, self.solution_name = solution, solution_name
        self.rules = solution.rules if solution is not None else (rules or query_rules())
        self.response = response
        self.jobs = Jobs()
        self._answers = OrderedDict()
        self._solved = {}
        self._lock = threading.Lock()
        self._solve_lock = threading.Lock()
        self._live = threading.BoundedSemaphore(LIVE_SOLVES)
        self._query = _query_command()
        # the rule options alone, for requests without a position (same click options: same messages)
        self._rule_command = click.Command("query", params=[p for p in self._query.params
                                                             if p.name in _RULE_PARAMS + ("bid_cards", "open_prizes", "tiebreak")])

    # -- parameters -------------------------------------------------------------
    def parse(self, params, rules_only=False) -> dict:
        """Query parameters -> the ``query`` command's keyword arguments.

        Raises
        ------
        InputError
            With the message ``gops query`` gives for the same options.
        """
        args = []
        for key, value in params:
            if key in _STEP_PARAMS:
                continue
            if key in ("solution", "s"):
                raise InputError("the explorer reads only the solution it was started with "
                                 "(gops explore --solution FILE): drop solution from the address")
            if key in ("json", "help", "h", "as_json"):
                raise InputError(f"unknown parameter {key!r}: use {', '.join(_RULE_PARAMS + _STATE_PARAMS)}")
            if key == "players":
                if value.strip() in ("2", ""):
                    continue
                raise InputError(f"players={value}: the explorer shows two-player games (one value, two bid "
                                 f"distributions), which a game of {value} players does not define: drop players, "
                                 f"or ask gops query --players {value}")
            if rules_only and key in _STATE_PARAMS:
                continue
            args.append(f"--{key.replace('_', '-')}={value}")
        command = self._rule_command if rules_only else self._query
        try:
            # the CLI's help names: click caches a command's help option on first use, and a
            # context with other names would change `gops query --help` in this process
            ctx = command.make_context("query", args, help_option_names=["-h", "--help"])
        except click.exceptions.Exit:
            raise InputError(f"unknown parameters: use {', '.join(_RULE_PARAMS + _STATE_PARAMS)}") from None
        except click.ClickException as exc:
            # the same text the gops CLI prints after "error: "
            hint = " (see gops query --help)" if getattr(exc, "ctx", None) is not None else ""
            raise InputError(f"{exc.format_message()}{hint}") from None
        out = dict(ctx.params)
        out.pop("solution", None)
        out.pop("as_json", None)
        for name in _VARIANT_PARAMS:
            out.setdefault(name, None)
        if self.solution is None:
            if out.get("match") is None and self.rules.match != "single":
                out["match"], out["draw"] = self.rules.match, out.get("draw") or self.rules.draw
            for name, classic in (("bid_cards", 1), ("open_prizes", 1), ("tiebreak", "share")):
                if out.get(name) is None and getattr(self.rules, name) != classic:
                    out[name] = getattr(self.rules, name)
            # rule options left out are those the server was started with
            for name, value in (("cards", self.rules.n), ("tie", self.rules.tie),
                                ("objective", self.rules.objective), ("order", self.rules.order_name)):
                if name == "objective" and (out.get("match") or "").startswith("best-of"):
                    continue  # best-of matches count games won: query_rules plays them to win
                if out.get(name) is None:
                    out[name] = value
        return out

    def rules_of(self, params) -> Rules:
        """The rules a request asks for (a stored solution's rules unless it names others)."""
        p = self.parse(params, rules_only=True)
        variant = {k: p.get(k) for k in ("bid_cards", "open_prizes", "tiebreak")}
        if self.solution is not None:
            return _checked(lambda: file_rules(self.solution.rules, self.solution_name, n=p.get("cards"),
                                               tie=p.get("tie"), objective=p.get("objective"),
                                               order=p.get("order"), match=p.get("match"), draw=p.get("draw"),
                                               **variant))
        return _checked(lambda: rules_from_options(p.get("cards"), p.get("tie"), p.get("objective"), p.get("order"),
                                                   p.get("match"), p.get("draw"), MAX_CARDS, **variant))

    def is_variant(self, p) -> bool:
        """Whether parsed parameters ask for a game the classic engine does not answer."""
        if self.solution is not None and not self.solution.rules.classic:
            return True
        return any(p.get(k) is not None and p.get(k) != classic for k, classic in _VARIANT_PARAMS.items())

    # -- answers ------------------------------------------------------------------
    def answer(self, params):
        """The query answer of a request's position (cached): a :class:`QueryAnswer`, or a
        :class:`VariantAnswer` for the variants (two-card bids, open prizes, tiebreak matches)."""
        p = self.parse(params)
        key = tuple(sorted((k, str(v)) for k, v in p.items() if v is not None))
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
        ans = _checked(lambda: self._compute(p))
        with self._lock:
            self._answers[key] = ans
            while len(self._answers) > ANSWER_CACHE:
                self._answers.popitem(last=False)
        return ans

    def _compute(self, p):
        if self.is_variant(p):
            return self._variant(p)
        state_args = (p["hand_a"], p["hand_b"], p["pot"], p["prizes"], p["diff"])
        rule_args = {k: p[k] for k in ("cards", "tie", "objective", "order", "match", "draw")}
        live = self.solution is None and p["match"] in (None, "single")
        if live and p["game"] in (None, 1) and p["match_score"] is None:
            rules = query_rules(*rule_args.values())
            st = validate_state(rules, p["hand_a"], p["hand_b"], p["pot"],
                                parse_cards(p["prizes"], rules.n, "prizes"), p["diff"])
            return self._live_answer(rules, st, lambda progress: answer_query(
                *state_args, **rule_args, stage_solver=p["stage_solver"], progress=progress))
        below = self._below_file(p)
        if below is not None:  # a top-levels file, and a state below its rounds: its sub-game, solved here
            held = self.solution.rounds_held
            fix = (f"this position is below the rounds {self.solution_name} holds (1-{held}); explore a whole "
                   f"solution (gops explore --solution FILE or STORE)")
            return self._live_answer(self.solution.rules, below, lambda progress: answer_query(
                *state_args, **rule_args, stage_solver=p["stage_solver"], solution=self.solution,
                solution_name=self.solution_name, progress=progress), fix)
        return answer_query(*state_args, **rule_args, game=p["game"], match_score=p["match_score"],
                            stage_solver=p["stage_solver"], solution=self.solution,
                            solution_name=self.solution_name, solve_match=self._full)

    def _below_file(self, p):
        """The validated state when the stored solution is a top-levels file that does not hold it, else None."""
        sol = self.solution
        if sol is None or getattr(sol, "rounds_held", None) is None:
            return None
        rules = _checked(lambda: file_rules(sol.rules, self.solution_name, n=p["cards"], tie=p["tie"],
                                            objective=p["objective"], order=p["order"], match=p["match"],
                                            draw=p["draw"]))
        st = validate_state(rules, p["hand_a"], p["hand_b"], p["pot"], parse_cards(p["prizes"], rules.n, "prizes"),
                            p["diff"])
        return None if sol.holds(st.k) else st

    def _live_answer(self, rules, st, call, fix=None):
        """``call(progress)``, which solves the sub-game below ``st``: refused when too large, shown as a job."""
        # a k-card game's size; under win the score differences scale with the points in play
        inflate = max(1.0, (st.pot + sum(st.prizes)) / (st.k * (st.k + 1) / 2)) if rules.objective == "win" else 1
        _check_size(Rules(n=st.k, tie=rules.tie, objective=rules.objective), "the sub-game below this position",
                    inflate, fix)
        with self._live:  # a few sub-games at a time: each may hold hundreds of MiB
            job = self.jobs.start(f"solving the sub-game below this position ({st.k} cards)", st.k - 1)
            try:
                return call(self.jobs.callback(job))
            finally:
                self.jobs.finish(job)

    def _variant(self, p) -> "VariantAnswer":
        """A variant's answer through the one solution interface (the whole game, solved once)."""
        rules = self.rules_of([(k, str(v)) for k, v in p.items() if k in _RULE_PARAMS + ("bid_cards", "open_prizes",
                                                                                         "tiebreak") and v is not None])
        n = rules.n
        if p["row"] is not None and rules.open_prizes == 1:
            pass  # one open prize: the row is the revealed prize (fold_row checks it)
        elif p["row"] is not None and rules.open_prizes < 2:
            raise InputError("row is for open prizes: add open_prizes=2 or more, or drop row")
        if rules.open_prizes >= 2 and p["row"] is None:
            raise InputError(f"missing row: with open_prizes={rules.open_prizes} give the face-up row, "
                             f"e.g. row=1,2")
        ms = parse_match_score(p["match_score"])
        if p["match_total"] is not None:
            if rules.tiebreak != "total-score":
                raise InputError("match_total is for the total-score tiebreak: add tiebreak=total-score or "
                                 "drop match_total")
            a, b = ms if isinstance(ms, tuple) else (0, 0)
            ms = (a, b, p["match_total"])
        sol = self._full(rules)
        row = None if p["row"] is None else parse_cards(p["row"], n, "row")
        where = {"game": p["game"], "match_score": ms} if rules.match != "single" else {}
        if rules.match == "single" and (p["game"] not in (None, 1) or ms is not None):
            raise InputError("game and match_score need a best-of match: add match=best-of-3 or drop them")
        if row is not None:
            where["row"] = row
        res = sol.query(p["hand_a"], p["hand_b"], p["pot"], parse_cards(p["prizes"], n, "prizes"), p["diff"],
                        stage_solver=p["stage_solver"], **where)
        if rules.match != "single":
            st = res.state  # the state as gops query --json prints it for a match
            return VariantAnswer(rules, res, {"hand_a": sorted(st.hand_a), "hand_b": sorted(st.hand_b),
                                              "pot": st.pot, "prizes": list(st.prizes), "diff": st.diff})
        return VariantAnswer(rules, res, {"hand_a": sorted(parse_cards(p["hand_a"], n, "hand A")),
                                          "hand_b": sorted(parse_cards(p["hand_b"], n, "hand B")),
                                          "pot": int(p["pot"]), "prizes": sorted(parse_cards(p["prizes"], n, "prizes")),
                                          "diff": int(p["diff"]), **({"row": sorted(row)} if row else {})})

    def _full(self, rules: Rules) -> Solution:
        """The whole game (or match) under ``rules``: the stored one, or solved once here."""
        if self.solution is not None and self.solution.rules == rules:
            return self.solution
        with self._solve_lock:  # one whole solve at a time; a second request waits for the first
            if rules in self._solved:
                return self._solved[rules]
            games = {"session": 3}.get(rules.match, max(rules.best_of, 1))
            if rules.bid_cards != 1 or rules.open_prizes != 1:
                _check_variant_size(rules)
            else:
                _check_size(rules, f"the whole {rules.match if rules.match != 'single' else 'game'}", games)
            job = self.jobs.start(f"solving the whole {'game' if rules.match == 'single' else rules.match} "
                                  f"once ({rules.describe()})", rules.n)
            try:
                sol = solve(rules, progress=self.jobs.callback(job))
            finally:
                self.jobs.finish(job)
            self._solved[rules] = sol
            return sol

    def position(self, params) -> dict:
        """What the page shows: the query object, the stage matrix, the moves available.

        From a top-levels file, ``query`` says whether the position came from
        the file (``subgame`` false) or was solved here as its own sub-game
        (``subgame`` true, with ``note``); the page shows the note.
        """
        t0 = time.perf_counter()
        ans = self.answer(params)
        if isinstance(ans, VariantAnswer):
            return {"query": ans.to_dict(), "stage": positions.variant_stage_view(ans.result),
                    "rules": _rules_info(ans.rules), "stored": self.solution is not None, "variant": True,
                    "last_round": False, "next_prizes": [], "seconds": round(time.perf_counter() - t0, 4)}
        st = ans.state
        return {"query": ans.to_dict(), "variant": False, "stage": positions.stage_view(ans.result),
                "rules": _rules_info(ans.rules), "stored": self.solution is not None,
                "response": self._response(ans), "last_round": st.k == 1,
                "next_prizes": list(st.prizes) if ans.rules.random_order else list(st.prizes[:1]),
                "seconds": round(time.perf_counter() - t0, 4)}

    def _response(self, ans):
        """The response's bids at this position (None without one); under other rules, why it is absent."""
        if self.response is None:
            return None
        meta = self.response.meta
        made = meta.get("rules")
        about = {"name": self.response.name, "model": meta.get("model"), "p": meta.get("p"),
                 "risk": meta.get("risk")}
        if made is not None and made != ans.rules:
            return {**about, "bids": None, "note": f"the response was computed for {made.describe()}: "
                                                   f"shown at the positions of those rules only"}
        from gops_solver.analysis.strategies import View
        st = ans.state
        try:
            bids = self.response.distribution(View(tuple(st.hand_a), tuple(st.hand_b), st.pot,
                                                   tuple(sorted(st.prizes)), st.diff), ans.rules.n)
        except ValueError:  # a table over the game's actual states: an edited position may lie outside it
            return {**about, "bids": None, "note": "the response has no move here: this position cannot arise "
                                                   "in a game of these rules"}
        return {**about, "bids": {str(c): float(bids.get(c, 0.0)) for c in st.hand_a}, "note": None}

    def step(self, params) -> dict:
        """The successor of a position after ``bid_a``, ``bid_b`` and the ``next`` prize."""
        extra = dict((k, v) for k, v in params if k in _STEP_PARAMS)
        for name in ("bid_a", "bid_b"):
            if not extra.get(name):
                raise InputError(f"missing {name}: choose a card for {name[-1].upper()}'s bid")
        ans = self.answer(params)
        if isinstance(ans, VariantAnswer):
            raise InputError(f"stepping is defined here for the classic game; for {ans.rules.describe()} edit the "
                             f"position (hands, row, prizes, pot, diff) instead")
        out = _checked(lambda: positions.step(ans.rules, ans.state, extra["bid_a"], extra["bid_b"],
                                              extra.get("next")))
        if "position" in out:
            keep = [(k, v) for k, v in params if k not in _STEP_PARAMS and k not in out["position"]]
            out["params"] = urlencode(keep + list(out["position"].items()))
        return out

    def first_round(self, params) -> dict:
        """The opening bid distribution against every first prize (one row per prize)."""
        rules = self.rules_of(params)
        p = self.parse(params, rules_only=True)
        sol = self.solution if self.solution is not None else _checked(lambda: self._full(rules))
        if not rules.classic:
            return {**positions.variant_first_round(rules, sol.opening()), "rules": _rules_info(rules)}
        rows = []
        for pos in positions.first_round_positions(rules):
            ans = _checked(lambda: answer_query(pos["hand_a"], pos["hand_b"], pos["pot"], pos["prizes"], 0,
                                                stage_solver=p.get("stage_solver") or "numba", solution=sol,
                                                solution_name=self.solution_name))
            rows.append({"prize": int(pos["pot"]), "value": ans.result.value,
                         "strategy": [ans.result.strategy_a[c] for c in range(1, rules.n + 1)]})
        return {"rules": _rules_info(rules), "cards": list(range(1, rules.n + 1)), "rows": rows,
                "value": sol.value}

    def start_params(self, params) -> str | None:
        """Full parameters for a request without a position (None when it has one)."""
        keys = {k for k, _ in params}
        if {"hand_a", "hand_b", "pot"} <= keys:
            return None
        rules = self.rules_of(params)
        rule_part = {"cards": str(rules.n), "tie": rules.tie, "objective": rules.objective,
                     "order": rules.order_name}
        for name, classic in (("bid_cards", 1), ("open_prizes", 1), ("tiebreak", "share")):
            if getattr(rules, name) != classic:
                rule_part[name] = str(getattr(rules, name))
        if rules.match != "single":
            rule_part["match"] = rules.match
            if rules.best_of:
                rule_part["draw"] = rules.draw
        # the variants solve the whole game once: their page opens at the start
        stored = self.solution is not None or not rules.classic
        return urlencode({**rule_part, **positions.default_position(rules, stored)})

    def info(self) -> dict:
        name = None if self.solution_name is None else Path(self.solution_name).name
        return {"rules": _rules_info(self.rules), "solution": name,
                "rounds_held": getattr(self.solution, "rounds_held", None), "live_solve_limit": LIVE_SOLVE_LIMIT}


def _rules_info(rules: Rules) -> dict:
    return {**rules.to_dict(), "match": rules.match, "draw": rules.draw,
            "sequence": list(rules.sequence) if rules.sequence else None}


def _check_size(rules: Rules, what: str, games: float = 1, fix: str | None = None) -> None:
    """Refuse a solve projected past :data:`LIVE_SOLVE_LIMIT` (``games``: copies of ``rules``'s work)."""
    work = int(projected_work(rules)["total_games"] * games)
    if work > LIVE_SOLVE_LIMIT:
        fix = fix or "solve the game once with gops solve --out FILE and start gops explore --solution FILE"
        raise InputError(f"solving {what} takes about {work:,} stage games, too many to do here: "
                         f"{fix}, or choose a position with fewer cards")


def _check_variant_size(rules: Rules) -> None:
    """Refuse a variant solve whose stage-game cells pass :data:`LIVE_VARIANT_CELLS` (about two minutes)."""
    if rules.players != 2:
        raise InputError(f"{rules.describe()}: the explorer shows two-player games; a 3-4 player game has no "
                         f"two-player value or bid pair: use gops query --players or gops play --players")
    if rules.tiebreak != "share":
        return  # a tiebreak match solves small classic games, sized by the best-of check of the match
    from gops_solver.variants.solution import projected_variant
    cells = projected_variant(rules)["total_cells"]
    if cells > LIVE_VARIANT_CELLS:
        raise InputError(f"solving {rules.describe()} takes about {cells:,} stage-game cells, too many to do here: "
                         f"solve it once with gops solve --out FILE and start gops explore --solution FILE, or "
                         f"choose fewer cards")


def _checked(fn):
    """Run ``fn``; library input errors become :class:`InputError` with the same text."""
    try:
        return fn()
    except InputError:
        raise
    except (ValueError, TypeError) as exc:
        from gops_solver.game.errors import cli_message
        raise InputError(cli_message(exc)) from None  # the page's fields are the command line's options


def _query_command() -> click.Command:
    # the command line's own query command: the same options give the same messages
    from gops_solver.cli._query import query
    return query


def create_app(explorer: Explorer):
    """The FastAPI application serving ``explorer``.

    Bad parameters get HTTP 400 with ``{"error": message}``; anything else
    that goes wrong in a request gets HTTP 500 with its message, and the
    server keeps running.
    """
    app = FastAPI(title="gops explore", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def params(request: Request) -> list:
        return list(request.query_params.multi_items())

    def answer(fn):
        try:
            body = fn()
        except InputError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except Exception as exc:  # noqa: BLE001 -- one request fails, the server stays up
            return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)
        # json.dumps as the CLI prints it (Starlette's JSONResponse refuses NaN and reformats)
        return Response(body if isinstance(body, str) else json.dumps(body), media_type="application/json")

    @app.get("/")
    def index(request: Request):
        try:
            full = explorer.start_params(params(request))
        except InputError:
            full = None  # the page shows the message when it asks for the position
        if full is not None:
            return RedirectResponse(f"/?{full}", status_code=307)
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    @app.get("/api/query")
    def api_query(request: Request):
        return answer(lambda: explorer.answer(params(request)).to_json())

    @app.get("/api/position")
    def api_position(request: Request):
        return answer(lambda: explorer.position(params(request)))

    @app.get("/api/step")
    def api_step(request: Request):
        return answer(lambda: explorer.step(params(request)))

    @app.get("/api/first")
    def api_first(request: Request):
        return answer(lambda: explorer.first_round(params(request)))

    @app.get("/api/progress")
    def api_progress():
        return answer(lambda: {"jobs": explorer.jobs.snapshot()})

    @app.get("/api/info")
    def api_info():
        return answer(explorer.info)

    return app
