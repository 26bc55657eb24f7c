"""Rules and validate_state: what a game and a decision state may be, and the errors that name the fix."""

import pytest

from gops_solver import Rules, solve
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.rules import validate_state

# small cases: also run as plain Python (the NUMBA_DISABLE_JIT=1 pass of CI)
pytestmark = pytest.mark.nojit


def test_fixed_order_validation():
    s = solve(Rules(4, "carry", "points", "ascending"))
    with pytest.raises(ValueError, match="hidden prizes of order ascending are 4"):
        s.query([1, 2], [1, 2], 3, [1])
    with pytest.raises(ValueError, match="must be one of 3, 5, 6"):
        s.query([1, 2], [1, 2], 4, [4])
    assert abs(s.query([1, 2], [1, 2], 6, [4]).value) < 1e-12  # 1 and 2 carried onto the 3
    d = solve(Rules(4, "discard", "points", "ascending"))
    with pytest.raises(ValueError, match="must be one of 3$"):
        d.query([1, 2], [1, 2], 5, [4])


def test_rules_validation():
    for kwargs, msg in [(dict(n=0), "outside 1..13"), (dict(n=14), "outside"), (dict(tie="split"), "tie rule"),
                        (dict(objective="max"), "objective"), (dict(order="sideways"), "unknown order"),
                        (dict(n=3, order="1,2,2"), "twice"), (dict(n=3, order="1,2"), "not a permutation")]:
        with pytest.raises(ValueError, match=msg):
            Rules(**kwargs)
    with pytest.raises(TypeError):
        solve("n=3")


@pytest.mark.nojit
def test_deck_size_bound_is_max_cards():
    assert Rules(MAX_CARDS).n == MAX_CARDS
    with pytest.raises(ValueError, match=f"outside 1..{MAX_CARDS}"):
        Rules(MAX_CARDS + 1)
    with pytest.raises(ValueError, match="outside 1..4"):
        validate_state(Rules(4), [5], [1], 2)
