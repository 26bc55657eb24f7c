"""The agent environments (gops_solver.env): the Farama API checks, the dynamics against
``gops simulate`` and the variants' own mechanics, seeds, rewards, and bad input."""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

import stratfuncs  # noqa: E402
from gops_solver import Rules  # noqa: E402
from gops_solver.analysis.strategies import View  # noqa: E402
from gops_solver.env import env, gym_env, parallel_env  # noqa: E402

HERE = os.path.dirname(__file__)

#: every rule of the two-player game, two-card bids, three and four players
RULE_SETS = [dict(n=4), dict(n=4, tie="discard", objective="win"), dict(n=4, order="3,1,4,2"),
             dict(n=5, order="descending", objective="win"), dict(n=5, bid_cards=2),
             dict(n=4, bid_cards=2, tie="discard", objective="win"), dict(n=4, players=3),
             dict(n=3, players=4, objective="win", tie="discard")]


def _quiet(fn, *args, **kw):
    # the checkers warn about style they recommend (agent names like player_0, Box observations); a
    # failed check raises, and that is what these tests hold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()))
def test_pettingzoo_api_tests_pass(rules):
    _quiet(parallel_api_test, parallel_env(**rules), num_cycles=100)
    _quiet(api_test, env(**rules), num_cycles=100)


@pytest.mark.parametrize("rules,opponent", [(dict(n=4), "uniform"), (dict(n=4, tie="discard", objective="win"), "match"),
                                            (dict(n=5, order="2,5,1,4,3"), "stratfuncs:uniform_by_value"),
                                            (dict(n=4, players=3), "highest"),
                                            (dict(n=3, players=4, objective="win"), "uniform")])
def test_gymnasium_check_env_passes(rules, opponent):
    _quiet(check_env, gym_env(opponent=opponent, **rules))


def _draw(dist, rng):
    """A card drawn as gops simulate draws it from a distribution over a hand."""
    cards = list(dist)
    p = np.array([dist[c] for c in cards])
    return int(cards[rng.choice(len(cards), p=p / p.sum())])


def _view(obs, n):
    hand = tuple(int(c) + 1 for c in np.flatnonzero(obs["hand"]))
    opp = tuple(int(c) + 1 for c in np.flatnonzero(obs["opponents"][0]))
    hidden = tuple(int(c) + 1 for c in np.flatnonzero(obs["hidden"]))
    return View(hand, opp, int(obs["pot"]), hidden, int(obs["scores"][0] - obs["scores"][1]))


def _simulate_records(tmp_path, rules_args, games, seed):
    out = tmp_path / "games.jsonl"
    subprocess.run([sys.executable, "-m", "gops_solver", "simulate", "--a", "stratfuncs:uniform_by_value",
                    "--b", "stratfuncs:uniform_by_value", "--games", str(games), "--seed", str(seed), "-q",
                    "--record", str(out), *rules_args], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])})
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize("rules_args,rules", [(["--cards", "5"], dict(n=5)),
                                              (["--cards", "5", "--tie", "discard", "--order", "3,1,5,2,4"],
                                               dict(n=5, tie="discard", order="3,1,5,2,4"))])
def test_parallel_env_plays_the_games_of_gops_simulate(tmp_path, rules_args, rules):
    # the same seed and strategies: every prize, bid and score of gops simulate's records, game after game
    records = _simulate_records(tmp_path, rules_args, 6, 11)
    e = parallel_env(**rules)
    n = rules["n"]
    for g, rec in enumerate(records):
        obs, _ = e.reset(seed=11) if g == 0 else e.reset()
        rng = e.np_random
        total = 0.0
        for rnd in rec["rounds"]:
            assert int(obs["a"]["prize"]) == rnd["prize"] and int(obs["a"]["pot"]) == rnd["pot"]
            a = _draw(stratfuncs.uniform_by_value(_view(obs["a"], n)), rng)
            b = _draw(stratfuncs.uniform_by_value(_view(obs["b"], n)), rng)
            assert (a, b) == (rnd["bid_a"], rnd["bid_b"])
            obs, rewards, term, trunc, infos = e.step({"a": a - 1, "b": b - 1})
            total += rewards["a"]
            assert list(obs["a"]["scores"]) == [rnd["score_a"], rnd["score_b"]]
            assert infos["b"]["bids"] == {"a": (a,), "b": (b,)}
        assert all(term.values()) and e.agents == []
        assert total == rec["rounds"][-1]["score_a"] - rec["rounds"][-1]["score_b"]


def test_gym_env_plays_the_games_of_gops_simulate(tmp_path):
    # the agent in seat A draws from the env's generator before each step, the opponent (B) after it:
    # the order of gops simulate's draws
    records = _simulate_records(tmp_path, ["--cards", "4", "--objective", "win"], 5, 2)
    e = gym_env(opponent="stratfuncs:uniform_by_value", n=4, objective="win")
    for g, rec in enumerate(records):
        obs, _ = e.reset(seed=2) if g == 0 else e.reset()
        reward = 0.0
        for rnd in rec["rounds"]:
            a = _draw(stratfuncs.uniform_by_value(_view(obs, 4)), e.np_random)
            obs, reward, terminated, _, info = e.step(a - 1)
            assert info["bids"] == {"a": (rnd["bid_a"],), "b": (rnd["bid_b"],)}
        d = rec["rounds"][-1]["score_a"] - rec["rounds"][-1]["score_b"]
        assert terminated and reward == np.sign(d)


def test_three_players_agree_with_the_multi_simulation():
    from gops_solver.multi.simulate import _pick, simulate_multi

    class RulesOnly:  # the heuristics' seats read only the rules
        rules = Rules(n=4, players=3, tie="carry")

    seats = ["uniform", "match", "uniform"]
    got = simulate_multi(RulesOnly(), seats, 40, seed=5)
    e = parallel_env(n=4, players=3)
    totals = np.zeros(3)
    for g in range(40):
        obs, _ = e.reset(seed=5) if g == 0 else e.reset()
        while e.agents:
            acts = {}
            for i, agent in enumerate(e.possible_agents):
                st = e.game
                card = _pick(seats[i], list(st.hands[i]), None, e.table.pot(st), e.table.hidden(st), e.np_random)
                acts[agent] = int(card) - 1
            obs, rewards, *_ = e.step(acts)
            totals += [rewards[a] for a in e.possible_agents]
    assert np.allclose(totals / 40, got.mean, atol=1e-12)


def test_two_card_bids_follow_the_variants_mechanics():
    # every transition of random masked play equals gops_solver.variants._walk.after
    from gops_solver.variants import _walk as walk
    for rules in (Rules(n=5, bid_cards=2), Rules(n=4, bid_cards=2, tie="discard", order="descending")):
        e = parallel_env(rules=rules)
        rng = np.random.default_rng(0)
        for g in range(30):
            obs, _ = e.reset(seed=g)
            while e.agents:
                st = e.game
                rest = st.order[st.round + 1:]
                pile = tuple(rest) if rules.random_order else tuple(sorted(rest))
                state = (st.hands[0], st.hands[1], pile, (st.order[st.round],), st.carry,
                         st.scores[0] - st.scores[1])
                acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}
                x, y = (e.table.bid_of(acts[a]) for a in ("a", "b"))
                assert {len(x), len(y)} == {min(2, len(st.hands[0]))}
                want = walk.after(rules, state, x, y, st.order[st.round])
                obs, rewards, *_ = e.step(acts)
                got = e.game
                assert (got.hands[0], got.hands[1], got.scores[0] - got.scores[1]) == (want[0], want[1], want[5])
                if e.agents:
                    assert got.carry == want[4]
            assert e.game.round == 3 if rules.n == 5 else 2


@pytest.mark.parametrize("rules", RULE_SETS[:2] + RULE_SETS[6:7], ids=["points", "win", "3p"])
def test_rewards_sum_to_the_payoff_and_seeds_repeat(rules):
    def play(seed):
        e = parallel_env(**rules)
        obs, _ = e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace, totals = [], dict.fromkeys(e.possible_agents, 0.0)
        while e.agents:
            acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}
            obs, rewards, *_ = e.step(acts)
            for a, r in rewards.items():
                totals[a] += r
            trace.append((int(obs["a"]["prize"]), tuple(acts.values())))
        assert list(totals.values()) == e.table.payoffs(e.game)
        return trace, e.game.order
    assert play(7) == play(7)
    assert any(play(7)[1] != play(s)[1] for s in range(8, 12)) or rules.get("order") not in (None, "random")


def test_an_illegal_bid_is_refused_in_one_line_naming_the_state():
    e = parallel_env(n=4)
    e.reset(seed=0)
    e.step({"a": 3, "b": 0})  # A spends the 4
    with pytest.raises(ValueError) as info:
        e.step({"a": 3, "b": 1})
    msg = str(info.value)
    assert "\n" not in msg and "cannot bid 4" in msg and "round 2/4" in msg and "hand A,2,3" in msg
    with pytest.raises(ValueError, match="no action for b"):
        e.step({"a": 0})
    g = gym_env(opponent="uniform", n=3)
    g.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 2\.5 of seat A is not an action index \(at round 1/3"):
        g.step(2.5)
    with pytest.raises(ValueError, match="action 7 of seat A is outside 0..2"):
        g.step(7)


@pytest.mark.parametrize("kw,match", [(dict(n=4, open_prizes=2), "open_prizes=2 is not played"),
                                      (dict(n=4, match="session"), "single games"),
                                      (dict(n=4, colour="red"), "rules keywords are n, tie"),
                                      (dict(n=99), "outside 1..13")])
def test_rules_the_environments_do_not_play_are_refused(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        parallel_env(**kw)


@pytest.mark.parametrize("kw,match", [(dict(opponent="nosuch", n=4), "unknown strategy"),
                                      (dict(opponent="proportional", n=4, players=3), "not played with 3 players"),
                                      (dict(opponent=["uniform"], n=4, players=3), "1 opponents for 2"),
                                      (dict(opponent="uniform", seat="c", n=4), "seat 'c' is not at a table of 2")])
def test_gym_env_refuses_a_bad_opponent_or_seat(kw, match):
    with pytest.raises(ValueError, match=match):
        gym_env(**kw)


def test_the_equilibrium_opponent_plays_the_solution():
    # B's draws are the equilibrium's distribution at B's side of the state (as in gops simulate)
    from gops_solver import solve
    sol = solve(Rules(n=4, tie="discard"))
    g = gym_env(opponent="equilibrium", n=4, tie="discard", solution=sol)
    obs, _ = g.reset(seed=1)
    pol = g.opponents[1]
    dist = pol.distribution(g.table, g.game, 1)
    q = sol.query(g.game.hands[1], g.game.hands[0], pot=g.table.pot(g.game), prizes=g.table.hidden(g.game))
    assert all(abs(dist[(c,)] - q.strategy_a[c]) < 1e-12 for c in q.strategy_a)


def test_render_shows_the_table():
    e = parallel_env(n=4, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text.splitlines()[0].startswith("round 1/4: prize ") and "A  hand A,2,3,4" in text
