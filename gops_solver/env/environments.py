"""Goofspiel as a PettingZoo ``ParallelEnv`` and as a Gymnasium single-agent env.

Both play the rounds of :mod:`.game` and observe a decision the same way, a
``Dict`` space from one seat's side:

``hand``
    ``MultiBinary(n)``: the seat's own cards (entry ``c - 1`` for card ``c``);
``opponents``
    ``MultiBinary((players - 1, n))``: the other seats' cards, in seat order after one's own;
``hidden``
    ``MultiBinary(n)``: the prizes still face down after this round's reveal;
``prize``
    ``Discrete(n + 1)``: this round's revealed prize (0 once the game is over);
``pot``
    ``Discrete(n (n + 1) / 2 + 1)``: the prize plus the carried pot;
``scores``
    ``Box(0, n (n + 1) / 2, (players,), int64)``: points taken, one's own first, then in seat order;
``round``
    ``Discrete(rounds + 1)``: rounds played;
``action_mask``
    ``MultiBinary(actions)``: 1 for each legal action (:mod:`.game`: action ``c - 1`` bids card ``c``).

Rewards follow the objective: under ``points`` each round pays the change of
one's margin (two players; three and four players: one's own points, their
payoff being one's score); under ``win`` every round pays 0 and the last
pays the game's payoff (+1/0/-1; with three or four players 1 shared among
the highest scores). The rewards of a game sum to its payoff.

``reset(seed=s)`` seeds the generator of prize orders (and of the
opponents' draws); a random order is drawn as ``gops simulate`` draws it.
Needs ``pip install "gops-solver[env]"``.
"""

from __future__ import annotations

import numpy as np

from gops_solver.env.game import Table
from gops_solver.game.cards import format_cards
from gops_solver.game.rules import Rules


def _render(env):
    """Both environments' ``render``: the game as text, printed under ``render_mode="human"``."""
    if env.game is None:
        return None
    text = render_text(env.table, env.game)
    if env.render_mode == "human":
        print(text)
        return None
    return text


def _farama():
    try:
        import gymnasium
        import pettingzoo
    except ImportError:
        raise ValueError("the environments need pettingzoo and gymnasium: pip install 'gops-solver[env]'") from None
    return gymnasium, pettingzoo


def make_rules(rules=None, **keywords) -> Rules:
    """The :class:`Rules` of an environment: ``rules`` itself, or built from the keywords of ``Rules``."""
    if rules is not None:
        if keywords:
            raise TypeError(f"give rules or the rules keywords, not both ({', '.join(keywords)})")
        return rules
    try:
        return Rules(**keywords)
    except TypeError as exc:
        raise TypeError(f"{exc}: the rules keywords are n, tie, objective, order, bid_cards, players") from None


def observation_space(table: Table):
    """The ``Dict`` space of one seat's observation (see the module docstring)."""
    gymnasium, _ = _farama()
    spaces = gymnasium.spaces
    n, total = table.n, table.total
    return spaces.Dict({
        "hand": spaces.MultiBinary(n),
        "opponents": spaces.MultiBinary((table.players - 1, n)),
        "hidden": spaces.MultiBinary(n),
        "prize": spaces.Discrete(n + 1),
        "pot": spaces.Discrete(total + 1),
        "scores": spaces.Box(0, total, (table.players,), np.int64),
        "round": spaces.Discrete(table.rounds + 1),
        "action_mask": spaces.MultiBinary(table.num_actions),
    })


def _cards(cards, n) -> np.ndarray:
    out = np.zeros(n, np.int8)
    for c in cards:
        out[c - 1] = 1
    return out


def observe(table: Table, st, seat: int) -> dict:
    """One seat's observation of the game ``st`` (see the module docstring)."""
    n, m = table.n, table.players
    others = [(seat + j) % m for j in range(1, m)]
    return {
        "hand": _cards(st.hands[seat], n),
        "opponents": np.stack([_cards(st.hands[o], n) for o in others]),
        "hidden": _cards(table.hidden(st), n),
        "prize": int(table.prize(st)),
        "pot": int(table.pot(st)),
        "scores": np.array([st.scores[seat]] + [st.scores[o] for o in others], np.int64),
        "round": int(st.round),
        "action_mask": table.mask(st.hands[seat]) if not table.over(st) else np.zeros(table.num_actions, np.int8),
    }


def render_text(table: Table, st) -> str:
    """The table as text: round, prize, pot, hidden prizes, each seat's hand and score."""
    if table.over(st):
        head = f"game over after {table.rounds} rounds"
    else:
        head = (f"round {st.round + 1}/{table.rounds}: prize {table.prize(st)} revealed; pot {table.pot(st)}; "
                f"hidden {format_cards(table.hidden(st)) or '-'}")
    seats = [f"  {s.upper()}  hand {format_cards(h) or '-':<20} score {sc}"
             for s, h, sc in zip(table.seats, st.hands, st.scores)]
    return "\n".join([head] + seats)


def _parallel_base():
    _, pettingzoo = _farama()
    return pettingzoo.ParallelEnv


def _make_parallel_class():
    gymnasium, _ = _farama()
    from gymnasium.utils import seeding

    class GopsParallelEnv(_parallel_base()):
        """Goofspiel as a PettingZoo ``ParallelEnv``: every seat bids at once each round.

        Agents are ``"a"``, ``"b"`` (``"c"``, ``"d"`` with three or four players).
        Build it with :func:`parallel_env`.
        """

        metadata = {"name": "gops_v0", "render_modes": ["human", "ansi"], "is_parallelizable": True}

        def __init__(self, rules: Rules, render_mode=None):
            if render_mode not in (None, "human", "ansi"):
                raise ValueError(f"render_mode {render_mode!r} is not offered: use human, ansi or None")
            self.rules = rules
            self.table = Table(rules)
            self.render_mode = render_mode
            self.possible_agents = list(self.table.seats)
            self.agents = []
            self._obs_space = observation_space(self.table)
            self._act_space = gymnasium.spaces.Discrete(self.table.num_actions)
            self._rng = None
            self.game = None

        def observation_space(self, agent):
            return self._obs_space

        def action_space(self, agent):
            return self._act_space

        def reset(self, seed=None, options=None):
            if seed is not None or self._rng is None:
                self._rng, _ = seeding.np_random(seed)
            self.game = self.table.new_game(self._rng)
            self.agents = list(self.possible_agents)
            return self._observations(), {a: {} for a in self.agents}

        @property
        def np_random(self):
            """The generator of prize orders (seeded by ``reset(seed=...)``)."""
            return self._rng

        def _observations(self):
            return {a: observe(self.table, self.game, i) for i, a in enumerate(self.possible_agents)}

        def step(self, actions):
            if not self.agents:
                raise ValueError("the game is over: call reset() before step()")
            missing = [a for a in self.agents if a not in actions]
            if missing:
                raise ValueError(f"no action for {', '.join(missing)}: every agent bids each round")
            bids = [self.table.check_bid(self.game, i, actions[a]) for i, a in enumerate(self.possible_agents)]
            gained = self.table.play(self.game, bids)
            rewards = self.table.step_rewards(self.game, gained)
            done = self.table.over(self.game)
            seat_bids = dict(zip(self.possible_agents, bids))
            infos = {a: {"bids": seat_bids} for a in self.agents}
            out = (self._observations(), dict(zip(self.possible_agents, rewards)),
                   {a: done for a in self.agents}, {a: False for a in self.agents}, infos)
            if done:
                self.agents = []
            if self.render_mode == "human":
                self.render()
            return out

        def render(self):
            return _render(self)

        def close(self):
            pass

    return GopsParallelEnv


def _make_gym_class():
    gymnasium, _ = _farama()

    class GopsGymEnv(gymnasium.Env):
        """Goofspiel for one agent against the solver's strategies (build it with :func:`gym_env`).

        The agent sits in ``seat``; each other seat plays its opponent strategy
        (:mod:`.seats`), drawing its bid from the env's generator after the
        agent's action, in seat order. ``info["bids"]`` holds every seat's bid
        of the round just played.
        """

        metadata = {"render_modes": ["human", "ansi"]}

        def __init__(self, rules: Rules, opponents, seat: int, render_mode=None):
            if render_mode not in (None, "human", "ansi"):
                raise ValueError(f"render_mode {render_mode!r} is not offered: use human, ansi or None")
            self.rules = rules
            self.table = Table(rules)
            self.seat = seat
            self.opponents = opponents
            self.render_mode = render_mode
            self.observation_space = observation_space(self.table)
            self.action_space = gymnasium.spaces.Discrete(self.table.num_actions)
            self.game = None

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.game = self.table.new_game(self.np_random)
            return observe(self.table, self.game, self.seat), {}

        def step(self, action):
            if self.game is None or self.table.over(self.game):
                raise ValueError("the game is over: call reset() before step()")
            st = self.game
            own = self.table.check_bid(st, self.seat, action)
            bids = []
            for i in range(self.table.players):
                bids.append(own if i == self.seat else self.opponents[i].act(self.table, st, i, self.np_random))
            gained = self.table.play(st, bids)
            reward = self.table.step_rewards(st, gained)[self.seat]
            done = self.table.over(st)
            info = {"bids": dict(zip(self.table.seats, bids))}
            if self.render_mode == "human":
                self.render()
            return observe(self.table, st, self.seat), reward, done, False, info

        def render(self):
            return _render(self)

    return GopsGymEnv


_CLASSES = {}


def _cls(name):
    if name not in _CLASSES:
        _CLASSES[name] = _make_parallel_class() if name == "parallel" else _make_gym_class()
    return _CLASSES[name]


def parallel_env(render_mode=None, rules=None, **keywords):
    """Goofspiel as a PettingZoo ``ParallelEnv``.

    Parameters
    ----------
    render_mode : {None, "human", "ansi"}
    rules : Rules, optional
        The game; or give the keywords of :class:`~gops_solver.game.rules.Rules`
        (``n``, ``tie``, ``objective``, ``order``, ``bid_cards``, ``players``).

    Returns
    -------
    GopsParallelEnv

    Raises
    ------
    ValueError
        Rules the environments do not play (matches, open prizes), or bad rules.
    """
    return _cls("parallel")(make_rules(rules, **keywords), render_mode)


def env(render_mode=None, rules=None, **keywords):
    """Goofspiel as a PettingZoo AEC env: :func:`parallel_env` through PettingZoo's ``parallel_to_aec``."""
    from pettingzoo.utils.conversions import parallel_to_aec
    return parallel_to_aec(parallel_env(render_mode, rules, **keywords))


def gym_env(opponent="equilibrium", seat="a", render_mode=None, rules=None, solution=None, **keywords):
    """Goofspiel as a Gymnasium env for one agent against the solver's strategies.

    Parameters
    ----------
    opponent : str or sequence of str
        The strategy of every other seat, or one per other seat in seat order:
        ``equilibrium``, a heuristic, a fitted model file, a response file of
        ``gops exploit --out``, or ``module:function`` (:mod:`.seats` lists what
        each engine plays).
    seat : {"a", "b", "c", "d"}
        The agent's seat.
    render_mode : {None, "human", "ansi"}
    rules : Rules, optional
        The game; or the keywords of :class:`~gops_solver.game.rules.Rules`.
    solution : optional
        A solution of the rules for ``equilibrium`` (solved here when needed and not given).

    Returns
    -------
    GopsGymEnv

    Raises
    ------
    ValueError
        Bad rules, seat or opponent.
    """
    from gops_solver.env.seats import seat_policy
    rules = make_rules(rules, **keywords)
    table = Table(rules)
    if seat not in table.seats:
        raise ValueError(f"seat {seat!r} is not at a table of {rules.players}: use one of {', '.join(table.seats)}")
    me = table.seats.index(seat)
    specs = [opponent] * (rules.players - 1) if isinstance(opponent, str) or not hasattr(opponent, "__len__") \
        else list(opponent)
    if len(specs) != rules.players - 1:
        raise ValueError(f"{len(specs)} opponents for {rules.players - 1} other seats: give one strategy, or one "
                         f"per other seat")
    built = {}
    opponents = {}
    others = [i for i in range(rules.players) if i != me]
    for i, spec in zip(others, specs):
        key = spec if isinstance(spec, str) else id(spec)
        if key not in built:
            built[key] = seat_policy(spec, rules, solution)
        opponents[i] = built[key]
    return _cls("gym")(rules, opponents, me, render_mode)
