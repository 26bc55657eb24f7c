"""Agents for the arena: what ``gops score`` takes, loaded and called under guard.

An agent is given as one of:

``module:function`` (or ``path/to/file.py:function``)
    a function of the decision state, ``f(view) -> distribution``, as a user
    strategy (:mod:`gops_solver.analysis.strategies`: ``view.hand``,
    ``view.opponent``, ``view.pot``, ``view.prizes``, ``view.diff``). It sees
    only the state (a *Markov* agent) and is scored exactly at any size.
``module:Class``
    a class whose instances play by ``act(observation, action_mask)``, the
    PettingZoo convention (:mod:`.environments` describes the observation);
    ``act`` returns an action index or one probability per action. An
    optional ``reset()`` is called before each game. It may remember the game
    so far, so it is scored on the history tree.
``module:name`` of an OpenSpiel policy
    any object with ``action_probabilities(state, player_id)`` (a
    ``TabularPolicy``, a callable policy) for OpenSpiel's ``goofspiel`` with
    ``imp_info=False`` (tie rule ``discard``); it reads OpenSpiel's
    information state, so it is scored on the history tree.
``text:module:function``
    a text agent: a function from prompt text to reply text (a language
    model). The arena writes the decision state as text (:func:`prompt`) and
    reads the first card named in the reply. Scored exactly, as the strategy
    of its reply at each state (each state is asked once).
a built-in name
    ``equilibrium`` or a heuristic, as in ``gops evaluate``.

Every call runs under a deadline (``timeout`` seconds, on the main thread)
and its answer is checked; an agent that raises, hangs, bids a card it does
not hold, returns something that is not a distribution over its bids, NaN,
or a reply with no card, raises :class:`AgentFailure`, one line that names
the agent and the state.
"""

from __future__ import annotations

import contextlib
import re
import signal
import threading

import numpy as np

from gops_solver.analysis.strategies import View, _capped, _import_file, make_strategy
from gops_solver.game.cards import format_cards, parse_card
from gops_solver.game.constants import HEURISTICS, MAX_CARDS, PROB_TOL


class AgentFailure(ValueError):
    """An agent misbehaved: one line naming the agent, what it did and the state."""


class _Deadline(BaseException):
    """The deadline of a call rang (a BaseException: an agent's own ``except Exception`` cannot swallow it)."""


@contextlib.contextmanager
def _deadline(seconds):
    """Interrupt the block after ``seconds`` (SIGALRM; only on the main thread, where signals arrive)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise _Deadline

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def state_text(view: View) -> str:
    """A decision state in one line, for messages."""
    return (f"hand {format_cards(view.hand)} | opponent {format_cards(view.opponent)} | pot {view.pot} | "
            f"hidden {format_cards(view.prizes) or '-'} | diff {view.diff:+d}")


class _Where:
    """Where an agent was asked, for a failure's message: rendered only when a message is formatted (most
    calls succeed, and rendering every state costs more than asking a simple agent)."""

    __slots__ = ("render", "args")

    def __init__(self, render, *args):
        self.render, self.args = render, args

    def __str__(self):
        return self.render(*self.args)

    def __format__(self, spec):
        return format(str(self), spec)


def prompt(view: View, rules) -> str:
    """The text a text agent is asked at a decision state."""
    return "\n".join([
        f"You are playing Goofspiel (GOPS) with cards 1..{rules.n}; tie rule {rules.tie}, objective {rules.objective}, "
        f"prize order {rules.order_name}.",
        "Each round both players bid one card in secret; the higher card takes the pot; bid cards are spent.",
        f"Your hand: {', '.join(map(str, view.hand))}",
        f"Opponent's hand: {', '.join(map(str, view.opponent))}",
        f"Pot this round: {view.pot}",
        f"Prizes still hidden: {', '.join(map(str, view.prizes)) or 'none'}",
        f"Your score minus the opponent's: {view.diff:+d}",
        "Reply with the one card you bid."])


_CARD = re.compile(r"\b(1[0-3]|[1-9]|[AJQK])\b", re.IGNORECASE)


class Agent:
    """A loaded agent (build with :func:`load_agent`).

    Attributes
    ----------
    name : str
    kind : {"builtin", "function", "class", "openspiel", "text"}
    markov : bool
        Whether it sees only the decision state (then it is scored exactly by
        :func:`~gops_solver.analysis.evaluate.evaluate` at any size).
    """

    def __init__(self, name, kind, obj, timeout=None):
        self.name, self.kind, self.obj, self.timeout = name, kind, obj, timeout
        self.markov = kind in ("builtin", "function", "text")
        self.rules = None
        self.failure = None
        self._cache = {}

    def __repr__(self):
        return f"Agent({self.name!r}, {self.kind})"

    # -- calls under guard ------------------------------------------------------------
    def _call(self, fn, args, where):
        try:
            with _deadline(self.timeout):
                return fn(*args)
        except _Deadline:
            raise AgentFailure(f"agent {self.name} took more than {self.timeout:g} s at {where}: it was stopped; "
                               f"make it answer faster or raise --timeout") from None
        except AgentFailure:
            raise
        except (Exception, SystemExit) as exc:
            raise AgentFailure(f"agent {self.name} raised {type(exc).__name__}: {_capped(exc)} at {where}") from None

    def _check(self, dist, hand, where):
        """A bid distribution ``{card: p}`` over ``hand``: finite, >= 0, summing to 1, on cards held."""
        extra = sorted(set(dist) - set(hand))
        if extra:
            raise AgentFailure(f"agent {self.name} bid {extra} not in its hand at {where}: bid a card it holds")
        probs = list(dist.values())
        if any(not np.isfinite(p) for p in probs):
            raise AgentFailure(f"agent {self.name} returned a probability that is not a number ({_capped(dist)}) at "
                               f"{where}: return finite probabilities")
        if any(p < 0 for p in probs) or abs(sum(probs) - 1) > PROB_TOL:
            raise AgentFailure(f"agent {self.name} returned {_capped(dist)}, not a distribution (probabilities >= 0 "
                               f"summing to 1) at {where}")
        return {c: float(dist.get(c, 0.0)) for c in hand}

    # -- a Markov agent as a strategy of the decision state ------------------------------
    def __call__(self, view: View) -> dict:
        """Card -> probability at a decision state (a Markov agent; cached: each state is asked once)."""
        got = self._cache.get(view)
        if got is None:
            try:
                got = self._cache[view] = self._ask(view)
            except AgentFailure as exc:
                # the strategy wrapper reports what this raises as its own error; keep the agent's line
                self.failure = str(exc)
                raise
        return got

    def _ask(self, view):
        where = _Where(state_text, view)
        if self.kind == "text":
            reply = self._call(self.obj, (prompt(view, self.rules),), where)
            got = {self._parse(reply, view, where): 1.0}
        else:
            got = self._as_dist(self._call(self.obj, (view,), where), view.hand, where)
        return self._check(got, view.hand, where)

    def _as_dist(self, raw, hand, where):
        if isinstance(raw, dict):
            try:
                return {int(c): float(p) for c, p in raw.items()}
            except (TypeError, ValueError, OverflowError):
                raise AgentFailure(f"agent {self.name} returned {_capped(raw, repr)} at {where}: give card -> "
                                   f"probability") from None
        try:
            probs = [float(p) for p in raw]
        except (TypeError, ValueError):
            raise AgentFailure(f"agent {self.name} returned {_capped(raw, repr)} at {where}: give a dict card -> "
                               f"probability or one probability per card of view.hand") from None
        if len(probs) != len(hand):
            raise AgentFailure(f"agent {self.name} returned {len(probs)} probabilities for a hand of {len(hand)} "
                               f"cards at {where}: give one per card")
        return dict(zip(hand, probs))

    def _parse(self, reply, view, where):
        if not isinstance(reply, str):
            raise AgentFailure(f"agent {self.name} replied {_capped(reply, repr)}, not text, at {where}: return "
                               f"the reply as a string")
        m = _CARD.search(reply)
        if m is None:
            raise AgentFailure(f"agent {self.name} replied {_capped(reply, repr)}, which names no card, at {where}: "
                               f"reply with a card of the hand")
        tok = m.group(1).upper()
        card = parse_card(tok)
        if card not in view.hand:
            raise AgentFailure(f"agent {self.name} bid {card} not in its hand at {where}: bid a card it holds")
        return card

    def strategy(self, solution=None):
        """The agent as a strategy of :mod:`~gops_solver.analysis.strategies` (Markov agents)."""
        if self.kind == "builtin":
            return make_strategy(self.obj, solution)
        out = make_strategy(self)
        out.name = self.name
        out.rows = self._rows  # evaluate asks for a level at once: each state's answer is kept across evaluations
        return out

    def _rows(self, keys) -> np.ndarray:
        """The agent at many decisions (``decision_key`` values): ``(len(keys), MAX_CARDS)`` probabilities by card.

        Scoring runs several evaluations over the same states; each state's row is built once.
        """
        from gops_solver.game.statekeys import cards_of, unpack_key
        n = self.rules.n
        rows = self.__dict__.setdefault("_row_cache", {})
        out = np.zeros((len(keys), MAX_CARDS))
        for i, key in enumerate(keys):
            row = rows.get(int(key))
            if row is None:
                own, opp, pm, pot, diff = unpack_key(key)
                view = View(cards_of(own, n), cards_of(opp, n), int(pot), cards_of(pm, n), int(diff))
                row = np.zeros(MAX_CARDS)
                for c, p in self(view).items():
                    row[c - 1] = p
                rows[int(key)] = row
            out[i] = row
        return out

    # -- any agent at a node of a game: the history-reading forms ----------------------------
    def new_game(self):
        """Start a game: a class agent's ``reset()``."""
        if self.kind == "class" and callable(getattr(self.obj, "reset", None)):
            self._call(self.obj.reset, (), "the start of a game")

    def node_distribution(self, table, path, seat, strategy=None, replay=True) -> dict:
        """Bid -> probability of this agent in ``seat`` at the last state of ``path``.

        ``path``: the game's decision states so far (:class:`~.game.GameState`
        snapshots, the current one last); a class agent is replayed along it
        from a fresh game, so that what it remembers is what it would have
        seen (``replay=False``: it is asked at the last state only, in a game
        played forwards). ``strategy``: the built :meth:`strategy` of a Markov agent.
        """
        st = path[-1]
        hand = st.hands[seat]
        if len(hand) == 1:
            return {(hand[0],): 1.0}  # the last card is forced: nothing to ask
        if self.markov:
            view = _view(table, st, seat)
            try:
                got = strategy.distribution(view, table.n)
            except ValueError as exc:  # a built-in strategy lacking the state
                raise AgentFailure(f"agent {self.name}: {exc}") from None
            return {(c,): p for c, p in got.items()}
        where = _Where(_node_text, table, st, seat)
        if self.kind == "openspiel":
            from gops_solver.env.openspiel_agents import openspiel_distribution
            got = self._call(openspiel_distribution, (self.obj, table, st, seat), where)
            return {(c,): p for c, p in self._check(got, hand, where).items()}
        from gops_solver.env.environments import observe
        if replay:
            self.new_game()
        out = None
        for snap in (path if replay else path[-1:]):
            obs = observe(table, snap, seat)
            out = self._call(self.obj.act, (obs, obs["action_mask"]), where)
        return self._action_dist(table, out, hand, where)

    def _action_dist(self, table, out, hand, where):
        if isinstance(out, (int, np.integer)) and not isinstance(out, bool):
            if not 0 <= int(out) < table.num_actions or table.bid_of(out)[0] not in hand:
                raise AgentFailure(f"agent {self.name} chose action {int(out)}, not a card it holds, at {where}: "
                                   f"choose an action the mask allows")
            return {table.bid_of(out): 1.0}
        try:
            p = np.asarray(out, dtype=float).ravel()
        except (TypeError, ValueError):
            raise AgentFailure(f"agent {self.name} returned {_capped(out, repr)} at {where}: return an action "
                               f"index or one probability per action") from None
        if p.shape != (table.num_actions,):
            raise AgentFailure(f"agent {self.name} returned {p.size} probabilities at {where}: return an action "
                               f"index or {table.num_actions} probabilities, one per action")
        dist = {a + 1: float(p[a]) for a in range(table.num_actions) if p[a] != 0 or not np.isfinite(p[a])}
        return {(c,): q for c, q in self._check(dist, hand, where).items()}


def _view(table, st, seat) -> View:
    return View(st.hands[seat], st.hands[1 - seat], table.pot(st), table.hidden(st),
                st.scores[seat] - st.scores[1 - seat])


def _node_text(table, st, seat) -> str:
    history = " ".join(f"{p}:{'/'.join(str(b[0]) for b in bids)}" for p, _, bids in st.history) or "-"
    return f"round {st.round + 1} ({state_text(_view(table, st, seat))} | history {history})"


def load_agent(spec, rules, timeout=None) -> Agent:
    """An agent from its spec (see the module docstring).

    Parameters
    ----------
    spec : str or object
        A spec string, or the agent itself: a function of the view, an object
        with ``act``, an OpenSpiel policy.
    rules : Rules
    timeout : float, optional
        Seconds each call may take.

    Raises
    ------
    ValueError
        One line: an agent that cannot be imported, or is none of the kinds above.
    """
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout {timeout!r} must be a positive number of seconds")
    if isinstance(spec, str):
        text = spec.strip()
        if text.lower() in HEURISTICS or text.lower() == "equilibrium":
            agent = Agent(text.lower(), "builtin", text.lower(), timeout)
        else:
            is_text = text.lower().startswith("text:")
            target = text[5:] if is_text else text
            obj = _resolve(target)
            agent = _classify(obj, target, timeout, is_text)
    else:
        agent = _classify(spec, getattr(spec, "__name__", None) or type(spec).__name__, timeout, False)
    if agent.kind == "openspiel" and rules.tie != "discard":
        raise ValueError(f"agent {agent.name} is an OpenSpiel policy: OpenSpiel's goofspiel discards tied prizes, "
                         f"so score it with --tie discard")
    agent.rules = rules
    return agent


def _resolve(target):
    mod, sep, attr = target.rpartition(":")
    if not sep or not mod or not attr:
        raise ValueError(f"agent {target!r} is not module:name: give module:function, module:Class, "
                         f"text:module:function, path/to/file.py:name or a built-in strategy")
    import importlib
    try:
        module = _import_file(mod) if mod.endswith(".py") else importlib.import_module(mod)
    except ImportError as exc:
        raise ValueError(f"cannot import module {mod!r} of agent {target}: {exc}; put it on PYTHONPATH or give "
                         f"its file, path/to/file.py:name") from None
    except (Exception, SystemExit) as exc:
        raise ValueError(f"importing module {mod!r} of agent {target} failed: {type(exc).__name__}: {exc}; "
                         f"fix the module") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"module {mod!r} has no {attr!r}: give module:name of the agent") from None


def _classify(obj, name, timeout, is_text) -> Agent:
    if is_text:
        if not callable(obj):
            raise ValueError(f"text agent {name} is not callable: give a function from prompt text to reply text")
        return Agent("text:" + name, "text", obj, timeout)
    if callable(getattr(obj, "action_probabilities", None)):
        return Agent(name, "openspiel", obj, timeout)
    if isinstance(obj, type):
        if not callable(getattr(obj, "act", None)):
            raise ValueError(f"class {name} has no act(observation, action_mask): give that method, or a function "
                             f"of the state")
        try:
            inst = obj()
        except (Exception, SystemExit) as exc:
            raise ValueError(f"agent {name}() failed: {type(exc).__name__}: {_capped(exc)}; it must be built "
                             f"with no arguments") from None
        return Agent(name, "class", inst, timeout)
    if callable(getattr(obj, "act", None)):
        return Agent(name, "class", obj, timeout)
    if callable(obj):
        return Agent(name, "function", obj, timeout)
    raise ValueError(f"agent {name} is {type(obj).__name__}, not an agent: give a function of the state, a class "
                     f"with act(observation, action_mask), an OpenSpiel policy or text:module:function")
