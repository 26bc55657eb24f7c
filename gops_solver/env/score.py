"""Scoring agents against the equilibrium, the heuristics and each other (``gops score``).

* A Markov agent (it sees only the decision state: a function of the state, a
  text agent, a built-in strategy) is scored exactly by
  :func:`~gops_solver.analysis.evaluate.evaluate`: its expected result
  against the equilibrium, its exploitability (the value its best reply
  takes from it) and its result against each built-in heuristic, with no
  sampling, at any size ``evaluate`` takes.
* An agent that may read the history (a class with ``act``, an OpenSpiel
  policy) is scored exactly on the history tree while it holds at most
  :data:`HISTORY_MAX_DECISIONS` decisions (:func:`history_decisions`);
  beyond, by ``games`` sampled games per opponent with 95 % intervals, and its
  exploitability is bounded from below by the best reply to a model fitted to its
  games (:func:`sampled_lower_bound`).
* Several agents also play a round robin: agent i in seat A against agent j in
  seat B, scored the same way (both Markov: exactly at any size); the game is
  symmetric, so j against i is the negation.

A misbehaving agent (:class:`~.agents.AgentFailure`) is reported with its
one line; what it failed in is not scored.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from gops_solver.env.agents import Agent, AgentFailure, load_agent
from gops_solver.env.game import GameState, Table
from gops_solver.env.seats import seat_policy
from gops_solver.game.constants import HEURISTICS

#: the largest history tree scored exactly (decisions where an agent is asked; n = 4 under a random
#: order has 3,652, n = 5 has 456,905)
HISTORY_MAX_DECISIONS = 50_000
#: the z of a two-sided 95 % normal interval
_Z95 = 1.96


@dataclass
class Figures:
    """One match-up from the scored agent's side (seat A).

    ``value`` is the payoff under the objective; ``ci`` its 95 % interval
    when sampled (None when exact); ``games`` the games sampled (0: exact).
    """

    value: float
    margin: float
    win: float
    draw: float
    loss: float
    ci: tuple | None = None
    games: int = 0

    def to_dict(self) -> dict:
        out = {"value": self.value, "margin": self.margin, "win": self.win, "draw": self.draw, "loss": self.loss,
               "exact": self.ci is None}
        if self.ci is not None:
            out.update(ci=list(self.ci), games=self.games)
        return out

    @classmethod
    def of_outcome(cls, o):
        return cls(o.value, o.margin, o.win, o.draw, o.loss)


@dataclass
class AgentScore:
    """What ``gops score`` reports of one agent.

    Attributes
    ----------
    agent, kind : str
    method : str
        ``exact`` (the state: evaluate), ``history tree`` (exact) or ``sampled``.
    against : dict
        Opponent name -> :class:`Figures`: ``equilibrium`` and each heuristic.
    exploitability : float or None
        The game value minus the agent's value against its best reply (None when sampled). An OpenSpiel
        policy plays both seats: the mean of its two seats' (OpenSpiel's ``exploitability``).
    seat_exploitability : dict or None
        An OpenSpiel policy's exploitability in each seat, ``{"a": ..., "b": ...}``.
    openspiel_exploitability : float or None
        An OpenSpiel policy's exploitability in OpenSpiel's units, what its
        ``exploitability.exploitability`` reports (under ``points`` OpenSpiel pays half the margin).
    lower_bound : dict or None
        A sampled agent's exploitability from below (:func:`sampled_lower_bound`):
        ``value`` (the estimate), ``ci`` (its 95 % interval), ``games``, ``model`` (the kind fitted).
    game_value : float
    failure : str or None
        The agent's misbehaviour, one line; then nothing else is scored.
    seconds : float
    """

    agent: str
    kind: str
    method: str
    against: dict = field(default_factory=dict)
    exploitability: float | None = None
    game_value: float = 0.0
    failure: str | None = None
    seconds: float = 0.0
    seat_exploitability: dict | None = None
    openspiel_exploitability: float | None = None
    lower_bound: dict | None = None

    def to_dict(self) -> dict:
        return {"agent": self.agent, "kind": self.kind, "method": self.method, "lower_bound": self.lower_bound,
                "against": {k: v.to_dict() for k, v in self.against.items()},
                "exploitability": self.exploitability, "seat_exploitability": self.seat_exploitability,
                "openspiel_exploitability": self.openspiel_exploitability, "game_value": self.game_value, "failure": self.failure,
                "seconds": round(self.seconds, 3)}


def check_score_rules(rules):
    """Refuse rules ``gops score`` does not play (it scores single classic two-player games)."""
    if rules.players != 2 or not rules.classic or rules.match != "single":
        raise ValueError(f"gops score plays single two-player games with one-card bids, not {rules.describe()}: "
                         f"drop --players/--bid-cards/--open-prizes/--match (the environments play those)")


def history_decisions(rules) -> int:
    """Decisions of one seat on the history tree: every history of prizes and both seats' bids that reaches a
    round with two or more cards in hand (the last card is forced)."""
    n = rules.n
    total, nodes = 0, 1
    for r in range(n - 1):
        k = n - r
        nodes *= (k if rules.random_order else 1)  # this round's prize
        total += nodes
        nodes *= k * k  # both bids
    return total


def _play_game(table, rng, seats):
    """One game from a new deal: each seat's distribution over the path so far, sampled with ``rng``; the end state."""
    st = table.new_game(rng)
    path = [st]
    while not table.over(st):
        bids = []
        for seat in seats:
            dist = seat(path)
            keys = list(dist)
            p = np.array([dist[k] for k in keys])
            bids.append(keys[int(rng.choice(len(keys), p=p / p.sum()))])
        st = _after(table, st, bids)
        path.append(st)
    return st


def _after(table, st, bids) -> GameState:
    """A copy of ``st`` after a round of ``bids``."""
    out = GameState(list(st.hands), st.order, st.round, st.carry, list(st.scores), list(st.history))
    table.play(out, bids)
    return out


def _reveal(st, prize) -> GameState:
    """``st`` with ``prize`` the next one revealed (the rest of the order ascending)."""
    done = st.order[:st.round]
    rest = tuple(sorted(set(st.order[st.round:]) - {prize}))
    return GameState(st.hands, done + (prize,) + rest, st.round, st.carry, st.scores, st.history)


def _next_prizes(table, st):
    if table.rules.random_order:
        return sorted(st.order[st.round:])
    return [st.order[st.round]]


def tree_outcome(table, seat_a, seat_b):
    """Exact figures of ``seat_a`` against ``seat_b`` on the history tree, or against its best reply.

    ``seat_a``, ``seat_b``: ``f(path) -> {bid: p}`` with ``path`` the game's decision
    states so far; ``seat_b`` None: B best-responds, minimising A's payoff at
    every history (B sees the bids and prizes, as the rules say); ``seat_a``
    None: A best-responds, maximising it.

    Returns
    -------
    (float, dict)
        A's expected payoff and the distribution of the final margin.
    """
    best = seat_b is None

    def decide(path):
        st = path[-1]
        if seat_a is None:
            pb = {b: q for b, q in seat_b(path).items() if q > 0}
            top = None
            for a in table.legal(st.hands[0]):
                got = _mix(pb, lambda b: after(path, a, b))
                if top is None or got[0] > top[0]:
                    top = got
            return top
        pa = seat_a(path)
        if best:
            top = None
            for b in table.legal(st.hands[1]):  # ascending: the lowest of equally good replies
                got = _mix({a: p for a, p in pa.items() if p > 0}, lambda a: after(path, a, b))
                if top is None or got[0] < top[0]:
                    top = got
            return top
        pb = seat_b(path)
        pairs = {(a, b): p * q for a, p in pa.items() if p > 0 for b, q in pb.items() if q > 0}
        return _mix(pairs, lambda ab: after(path, *ab))

    def after(path, a, b):
        st = _after(table, path[-1], [a, b])
        if table.over(st):
            d = st.scores[0] - st.scores[1]
            return table.payoffs(st)[0], {d: 1.0}
        prizes = _next_prizes(table, st)
        return _mix({q: 1.0 / len(prizes) for q in prizes}, lambda q: decide(path + [_reveal(st, q)]))

    values, dists = [], []
    start = table.new_game(np.random.default_rng(0))  # any order: every first prize is tried below
    for q in _next_prizes(table, start):
        got = decide([_reveal(start, q)])
        values.append(got[0])
        dists.append(got[1])
    w = 1.0 / len(values)
    dist = {}
    for d in dists:
        for m, p in d.items():
            dist[m] = dist.get(m, 0.0) + w * p
    return sum(values) * w, dist


def _mix(weights, child):
    """The weighted average of ``child(key)``'s (value, margin distribution) over ``weights``."""
    value, dist = 0.0, {}
    for key, w in weights.items():
        v, d = child(key)
        value += w * v
        for m, p in d.items():
            dist[m] = dist.get(m, 0.0) + w * p
    return value, dist


def _figures(value, dist) -> Figures:
    return Figures(value, sum(m * p for m, p in dist.items()), sum(p for m, p in dist.items() if m > 0),
                   sum(p for m, p in dist.items() if m == 0), sum(p for m, p in dist.items() if m < 0))


def sampled_outcome(table, seat_a, seat_b, games, seed, new_game=()) -> Figures:
    """``games`` games of ``seat_a`` against ``seat_b`` (``f(path, live) -> {bid: p}``) drawn from
    ``numpy.random.default_rng(seed)``; the payoff's mean with a 95 % normal interval."""
    rng = np.random.default_rng(seed)
    pays, margins = np.empty(games), np.empty(games)
    for g in range(games):
        for f in new_game:
            f()
        st = _play_game(table, rng, (seat_a, seat_b))
        pays[g] = table.payoffs(st)[0]
        margins[g] = st.scores[0] - st.scores[1]
    mean = float(pays.mean())
    half = _Z95 * float(pays.std(ddof=1)) / math.sqrt(games) if games > 1 else math.inf
    return Figures(mean, float(margins.mean()), float(np.mean(margins > 0)), float(np.mean(margins == 0)),
                   float(np.mean(margins < 0)), (mean - half, mean + half), games)


class _Seat:
    """An agent or a strategy of the solver in one seat, as ``f(path) -> {bid: p}`` (answers cached per history)."""

    def __init__(self, table, who, seat, solution, live=False):
        self.table, self.who, self.seat, self.live = table, who, seat, live
        self._cache = {}
        if isinstance(who, Agent):
            self._strategy = who.strategy(solution) if who.markov else None
        else:
            self._policy = seat_policy(who, table.rules, solution)

    def __call__(self, path):
        st = path[-1]
        key = (tuple(st.history), st.order[st.round])
        got = self._cache.get(key) if not self.live else None
        if got is None:
            if isinstance(self.who, Agent):
                got = self.who.node_distribution(self.table, path, self.seat, self._strategy, replay=not self.live)
            else:
                got = self._policy.distribution(self.table, st, self.seat)
            if not self.live:
                self._cache[key] = got
        return got

    def new_game(self):
        if isinstance(self.who, Agent):
            self.who.new_game()


def _method(agent, rules):
    if agent.markov:
        return "exact"
    return "history tree" if history_decisions(rules) <= HISTORY_MAX_DECISIONS else "sampled"


def score_agent(agent, rules, solution=None, timeout=None, games=2000, seed=0,
                opponents=("equilibrium",) + HEURISTICS) -> AgentScore:
    """Score one agent in seat A: against the equilibrium, its exploitability, against each heuristic.

    Parameters
    ----------
    agent : str or Agent or object
        See :mod:`.agents`.
    rules : Rules
        A single two-player game with one-card bids.
    solution : Solution, optional
        A solution of ``rules`` (solved here when not given).
    timeout : float, optional
        Seconds each call of the agent may take.
    games, seed : int
        Games per opponent, and the seed, when the agent is sampled.
    opponents : sequence of str
        The strategies it plays against (``equilibrium`` and the heuristics).

    Returns
    -------
    AgentScore
        With ``failure`` set (and nothing scored) when the agent misbehaved.
    """
    from gops_solver.analysis._common import solution_for
    check_score_rules(rules)
    t0 = time.perf_counter()
    if not isinstance(agent, Agent):
        agent = load_agent(agent, rules, timeout)
    solution = solution_for(rules, solution, "equilibrium")
    out = AgentScore(agent.name, agent.kind, _method(agent, rules), game_value=float(solution.value))
    try:
        if out.method == "exact":
            _score_markov(agent, rules, solution, out, opponents)
        else:
            _score_history(agent, rules, solution, out, games, seed, opponents)
    except AgentFailure as exc:
        out.failure, out.against, out.exploitability = str(exc), {}, None
    except ValueError as exc:
        if agent.failure is None:
            raise
        out.failure, out.against, out.exploitability = agent.failure, {}, None
    out.seconds = time.perf_counter() - t0
    return out


def _score_markov(agent, rules, solution, out, opponents):
    from gops_solver.analysis.evaluate import evaluate, play_out
    strategy = agent.strategy(solution)
    ev = evaluate(strategy, rules, "equilibrium", solution)
    if "equilibrium" in opponents:
        out.against["equilibrium"] = Figures.of_outcome(ev.vs_opponent)
    out.exploitability = ev.exploitability
    for h in (o for o in opponents if o != "equilibrium"):
        out.against[h] = Figures.of_outcome(play_out(strategy, h, rules, solution))


def _score_history(agent, rules, solution, out, games, seed, opponents):
    table = Table(rules)
    exact = out.method == "history tree"
    me = _Seat(table, agent, 0, solution, live=not exact)
    for name in opponents:
        opp = _Seat(table, name, 1, solution)
        if exact:
            out.against[name] = _figures(*tree_outcome(table, me, opp))
        else:
            out.against[name] = sampled_outcome(table, me, opp, games, seed, (me.new_game,))
    if not exact:
        out.lower_bound = sampled_lower_bound(agent, rules, solution, games, seed)
    if exact:
        value, _ = tree_outcome(table, me, None)
        out.exploitability = out.game_value - value
        if agent.kind == "openspiel":
            # a policy of both players: OpenSpiel's exploitability is the mean of its two seats' (NashConv / 2)
            value_b, _ = tree_outcome(table, None, _Seat(table, agent, 1, solution))
            out.seat_exploitability = {"a": out.exploitability, "b": value_b - out.game_value}
            out.exploitability = (out.exploitability + value_b - out.game_value) / 2
            # OpenSpiel's point_difference returns pay each player its points minus the mean: half the margin
            out.openspiel_exploitability = out.exploitability * (0.5 if rules.objective == "points" else 1.0)


def _record(table, st):
    """The finished game ``st`` as a :class:`~gops_solver.opponent.records.GameRecord` (checked by replaying it)."""
    from gops_solver.opponent.records import check_game
    rounds = [{"prize": prize, "bid_a": bids[0][0], "bid_b": bids[1][0]} for prize, _, bids in st.history]
    return check_game(table.rules, rounds, "an arena game")


def sampled_lower_bound(agent, rules, solution, games=2000, seed=0, kind="auto") -> dict:
    """A sampled lower bound on the exploitability of an agent that may read the history.

    1. ``games`` games of the agent in seat B against the equilibrium, recorded;
    2. a model of its bids fitted to them (:func:`~gops_solver.opponent.fit.fit_model`, as ``gops model fit``);
    3. the exact best reply to that model (:func:`~gops_solver.opponent.response.restricted_response` at
       P = 1, as ``gops exploit --p 1``);
    4. ``games`` fresh games of that reply in seat A against the agent.

    Whatever the reply is, what it takes from the agent is at most what the agent's best reply takes, so
    the reply's mean result minus the game value estimates a lower bound on the exploitability (the game
    is symmetric: the agent answers from its own side in either seat).

    Returns
    -------
    dict
        ``value``: the estimate; ``ci``: its 95 % interval (the low end bounds the exploitability from
        below with 97.5 % confidence); ``games``; ``model``: the kind of model fitted.
    """
    from gops_solver.opponent.fit import fit_model
    from gops_solver.opponent.response import restricted_response
    table = Table(rules)
    rng = np.random.default_rng(seed)
    me = _Seat(table, agent, 1, solution, live=True)
    eq = _Seat(table, "equilibrium", 0, solution)
    records = []
    for _ in range(games):
        me.new_game()
        st = _play_game(table, rng, (eq, me))
        records.append(_record(table, st))
    model = fit_model(records, player="b", kind=kind, solution=solution, seed=seed)
    reply, _ = restricted_response(rules, model.strategy(solution), 1.0, solution=solution)
    got = sampled_outcome(table, _Seat(table, reply, 0, solution), me, games, seed + 1, (me.new_game,))
    gv = float(solution.value)
    return {"value": got.value - gv, "ci": [got.ci[0] - gv, got.ci[1] - gv], "games": games, "model": model.kind}


def round_robin(agents, rules, solution=None, timeout=None, games=2000, seed=0):
    """Every pair of agents: agent i in seat A against agent j in seat B.

    Returns
    -------
    (list of str, dict)
        The agents' names, and ``{(i, j): Figures or failure text}`` for ``i != j``
        (``(j, i)`` is the negation of ``(i, j)``: the game is symmetric).
    """
    from gops_solver.analysis._common import solution_for
    from gops_solver.analysis.evaluate import play_out
    check_score_rules(rules)
    agents = [a if isinstance(a, Agent) else load_agent(a, rules, timeout) for a in agents]
    solution = solution_for(rules, solution, "equilibrium")
    table = Table(rules)
    cells = {}
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            a, b = agents[i], agents[j]
            try:
                if a.markov and b.markov:
                    got = Figures.of_outcome(play_out(a.strategy(solution), b.strategy(solution), rules, solution))
                elif history_decisions(rules) <= HISTORY_MAX_DECISIONS:
                    got = _figures(*tree_outcome(table, _Seat(table, a, 0, solution), _Seat(table, b, 1, solution)))
                else:
                    sa, sb = _Seat(table, a, 0, solution, live=True), _Seat(table, b, 1, solution, live=True)
                    got = sampled_outcome(table, sa, sb, games, seed, (sa.new_game, sb.new_game))
            except (AgentFailure, ValueError) as exc:
                failed = a.failure or b.failure
                if not isinstance(exc, AgentFailure) and failed is None:
                    raise
                got = str(exc) if isinstance(exc, AgentFailure) else failed
            cells[(i, j)] = got
            cells[(j, i)] = got if isinstance(got, str) else _negated(got)
    return [a.name for a in agents], cells


def _negated(f: Figures) -> Figures:
    ci = None if f.ci is None else (-f.ci[1], -f.ci[0])
    return Figures(-f.value, -f.margin, f.loss, f.draw, f.win, ci, f.games)
