"""Strategies: the heuristics' distributions, the equilibrium policy, user functions and their errors."""

import numpy as np
import pytest

from gops_solver import Rules, solve
from naive import random_state
from gops_solver.game.statekeys import cards_of, decision_key, mask_of, unpack_key
from gops_solver.analysis.strategies import View, make_strategy


def dist(name, hand, opp, pot, prizes, diff=0, n=13):
    return make_strategy(name).distribution(View(tuple(hand), tuple(opp), pot, tuple(prizes), diff), n)


def test_heuristic_distributions():
    hand = (2, 4, 7, 9)
    assert dist("uniform", hand, hand, 5, (1, 3, 6)) == {2: .25, 4: .25, 7: .25, 9: .25}
    assert dist("highest", hand, hand, 5, (1, 3, 6)) == {2: 0, 4: 0, 7: 0, 9: 1}
    assert dist("lowest", hand, hand, 5, (1, 3, 6)) == {2: 1, 4: 0, 7: 0, 9: 0}
    # pot 8: 7 and 9 are equally close -> split evenly; pot 5: 4 is closest
    assert dist("match", hand, hand, 8, (1, 3, 6)) == {2: 0, 4: 0, 7: .5, 9: .5}
    assert dist("match", hand, hand, 5, (1, 3, 6)) == {2: 0, 4: 1, 7: 0, 9: 0}
    assert dist("match+1", hand, hand, 5, (1, 3, 6)) == {2: 0, 4: 0, 7: 1, 9: 0}  # target 6
    assert dist("match+1", hand, hand, 7, (1, 3, 6)) == {2: 0, 4: 0, 7: .5, 9: .5}  # target 8
    assert dist("match", hand, hand, 20, (1, 3, 6)) == {2: 0, 4: 0, 7: 0, 9: 1}  # carried pot above every card
    # proportional: hidden prizes below pot 5 are 1 and 3 -> rank 2 -> third lowest card, 7
    assert dist("proportional", hand, hand, 5, (1, 3, 6)) == {2: 0, 4: 0, 7: 1, 9: 0}
    assert dist("proportional", hand, hand, 1, (3, 5, 6)) == {2: 1, 4: 0, 7: 0, 9: 0}
    assert dist("proportional", hand, hand, 12, (3, 5, 6)) == {2: 0, 4: 0, 7: 0, 9: 1}


def test_equilibrium_strategy_matches_query():
    sol = solve(Rules(5, "carry", "win"))
    s = make_strategy("equilibrium", sol)
    q = sol.query((1, 3, 5), (2, 3, 4), 5, (1, 4), diff=-2)
    got = s.distribution(View((1, 3, 5), (2, 3, 4), 5, (1, 4), -2), 5)
    assert got == pytest.approx(q.strategy_a, abs=1e-12)


@pytest.mark.parametrize("spec,msg", [("bogus", "unknown strategy"), ("", "not a name"),
                                      ("equilibrium", "needs a solution"),
                                      ("no_such_module_xyz:f", "cannot import"),
                                      ("stratfuncs:missing", "has no function")])
def test_make_strategy_errors(spec, msg):
    with pytest.raises(ValueError, match=msg):
        make_strategy(spec)


@pytest.mark.parametrize("fn,msg", [("not_a_distribution", "sum to 1"), ("foreign_card", "not in its hand"),
                                    ("broken", "raised KeyError")])
def test_user_strategy_output_is_validated(fn, msg):
    with pytest.raises(ValueError, match=msg):
        dist(f"stratfuncs:{fn}", (1, 2), (1, 2), 3, (4,))


@pytest.mark.nojit
def test_heuristics_as_plain_python():
    # the policy kernel's branches, small enough for the NUMBA_DISABLE_JIT pass
    hand = (2, 4, 7, 9)
    assert dist("uniform", hand, hand, 5, (1, 3, 6)) == {2: .25, 4: .25, 7: .25, 9: .25}
    assert dist("match", hand, hand, 8, (1, 3, 6)) == {2: 0, 4: 0, 7: .5, 9: .5}
    assert dist("proportional", hand, hand, 5, (1, 3, 6)) == {2: 0, 4: 0, 7: 1, 9: 0}
    assert dist("highest", hand, hand, 5, (1, 3, 6), n=9) == {2: 0, 4: 0, 7: 0, 9: 1}


@pytest.mark.nojit
@pytest.mark.parametrize("rules", [Rules(4, "carry", "win"), Rules(4, "carry", "points", "descending")])
def test_equilibrium_policy_is_the_query_strategy(rules):
    # the policy builds its stage game with the same builder as queries (tables.stage_matrix), from
    # the solution's tables packed in EqData: at states that occur in play it gives A's query strategy
    sol = solve(rules)
    eq = make_strategy("equilibrium", sol)
    rng = np.random.default_rng(4)
    for _ in range(8):
        st = random_state(rng, rules.n, rules.tie, rules.objective, rules.order)
        q = sol.query(st["hand_a"], st["hand_b"], st["pot"], st["prizes"], st["diff"])
        view = View(tuple(sorted(st["hand_a"])), tuple(sorted(st["hand_b"])), st["pot"], tuple(sorted(st["prizes"])),
                    st["diff"])
        assert eq.distribution(view, rules.n) == pytest.approx(q.strategy_a, abs=1e-12)


@pytest.mark.nojit
def test_packed_keys_round_trip():
    # every field at its extremes survives packing (13-card masks, pot < 128, diff -91..164)
    for own, opp, pm, pot, diff in [(0, 0, 0, 0, 0), (8191, 8191, 8191, 127, 164), (1, 4096, 5, 91, -91),
                                    (0b1010101, 0b0101010, 0b1111, 13, -45)]:
        assert tuple(unpack_key(decision_key(own, opp, pm, pot, diff))) == (own, opp, pm, pot, diff)
    # sorted keys keep one state's diffs together (the diff is the lowest field)
    keys = sorted(decision_key(3, 5, 1, 2, d) for d in (-3, 7, 0))
    assert [unpack_key(k)[4] for k in keys] == [-3, 0, 7]
    assert cards_of(mask_of([1, 5, 13])) == (1, 5, 13) and mask_of([]) == 0


@pytest.mark.nojit
def test_a_strategy_named_by_its_file(tmp_path, monkeypatch):
    # path/to/file.py:function imports the file itself: no PYTHONPATH, any folder, a path with a colon-free name
    folder = tmp_path / "my strategies"
    folder.mkdir()
    (folder / "lowbid.py").write_text("def f(view):\n    return {c: 1.0 if c == min(view.hand) else 0.0 "
                                      "for c in view.hand}\n")
    monkeypatch.chdir(tmp_path)
    assert dist("my strategies/lowbid.py:f", (2, 4, 7), (1, 2, 3), 5, (1, 3)) == {2: 1.0, 4: 0.0, 7: 0.0}
    assert dist(f"{folder}/lowbid.py:f", (2, 4, 7), (1, 2, 3), 5, (1, 3)) == {2: 1.0, 4: 0.0, 7: 0.0}
    with pytest.raises(ValueError, match="give its file"):
        make_strategy("missing.py:f")
    with pytest.raises(ValueError, match="has no function"):
        make_strategy("my strategies/lowbid.py:g")
