"""verify's symmetry report: the value spread between exchangeable players (equal hands and scores)."""

import itertools

import numpy as np
import pytest

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.multi.solution import symmetry_spread


def test_symmetry_spread_compares_only_exchangeable_players():
    # canonical keys (masks, pot, hidden, score keys) list exchangeable players side by side;
    # players 0 and 1 of the first key are exchangeable (mask 3, key 0), so their values
    # 1.0 and 1.25 differ by 0.25; in the second key the equal masks have different score
    # keys (0 and -2), which makes them different players, so its 5.0 spread does not count
    table = {((3, 3, 5), 1, (2,), (0, 0, 0)): ([0.0] * 3, [1.0, 1.25, 2.0]),
             ((3, 3, 5), 2, (1,), (0, -2, 0)): ([0.0] * 3, [0.0, 5.0, 0.0]),
             ((3, 5, 6), 2, (1,), (0, 0, 0)): ([0.0] * 3, [0.0, 9.0, 0.0])}
    spread, worst = symmetry_spread(table.items())
    assert spread == pytest.approx(0.25) and worst == ((3, 3, 5), 1, (2,), (0, 0, 0))
    assert symmetry_spread([]) == (0.0, None)


def test_verify_reports_the_spread_of_a_symmetric_solution(capsys):
    # 3 players n = 4 discard/points: every stage game of exchangeable players gets equal values
    # (traced as one class of players: the same mix bit for bit), and verify reports the spread
    # the helper finds
    sol = solve(Rules(4, "discard", "points", players=3))
    report = sol.verify()
    assert report["symmetry_spread"] == symmetry_spread(sol.induction.table.items())[0]
    assert report["symmetry_spread"] == 0.0
    # the stored table has exchangeable players at all (the start: three equal hands)
    assert any(k[0][0] == k[0][1] for k in sol.induction.table)
    with pytest.raises(SystemExit) as exc:
        cli.main(["verify", "--players", "3", "--cards", "3"], prog_name="gops", standalone_mode=True)
    assert exc.value.code == 0
    assert "symmetry spread" in capsys.readouterr().out


def test_exchangeable_players_get_equal_values():
    # 3 players n = 5 carry/win. At ((22, 25, 25), pot 4, hidden {4, 5}, score keys (0, -2, -2))
    # players 2 and 3 are exchangeable; the stage game is degenerate, the symmetric trace stalls
    # short of its limit, and pygambit's tracer ends on an asymmetric arm (values 0.400, 0.600,
    # 0.0002 before December 2026, inherited by four states above it). The fallback takes the
    # first pure equilibrium in which they bid alike (top, lowest, lowest), so every stored
    # state gives exchangeable players equal values, bit for bit
    from gops_solver.multi.equilibrium import exchangeable_classes, select_after_kernel
    sol = solve(Rules(5, "carry", "win", players=3))
    assert symmetry_spread(sol.induction.table.items()) == (0.0, None)
    key = ((22, 25, 25), 4, (4, 5), (0, -2, -2))
    game = sol.induction.stage(key).equilibrium
    assert exchangeable_classes(game) == [(1, 2)]
    found = select_after_kernel(game)
    assert found.method == "first-pure" and found.gain <= 1e-6
    assert [int(np.argmax(s)) for s in found.strategies] == [2, 0, 0]
    assert sol.induction.table[key][1][1] == sol.induction.table[key][1][2]
    # a game without exchangeable players has no classes
    assert exchangeable_classes(np.arange(2 * 2 * 2 * 3, dtype=float).reshape(3, 2, 2, 2)) == []


def _data(name, m, k):
    from pathlib import Path
    return np.load(Path(__file__).parent / "data" / "multi_stage_games.npz")[name][0].reshape((m,) + (k,) * m)


def test_a_stalled_symmetric_branch_is_refined_among_symmetric_profiles():
    # 3 players n = 6 carry/points, ((27, 27, 30), pot 3, hidden {2, 4, 6}): players 0 and 1 hold
    # {1, 2, 4, 5} with equal scores. The symmetric trace stalls at precision ~2e4 with a
    # deviation gain of 2.6e-6 (> 1e-6); pygambit's tracer ends on an asymmetric arm. The Nash
    # program among symmetric profiles, from the kernel's last point, certifies a symmetric
    # equilibrium beside it (the players' values were 5.02 apart before December 2026)
    from naive_multi import max_deviation_gain
    from gops_solver.multi.constants import POLISH_MOVE
    from gops_solver.multi.equilibrium import _kernel_work, exchangeable_classes, logit_equilibrium, select_equilibrium
    from gops_solver.multi.kernel import KERNEL_FAILED, SELECT_LOGIT, stage_equilibrium
    U = _data("symmetric_stall", 3, 4)
    assert exchangeable_classes(U) == [(0, 1)]
    wk = _kernel_work(3, 4)
    status = stage_equilibrium(np.ascontiguousarray(U.reshape(3, -1)), 3, 4, 1e-9, 1e-6, wk, np.empty((3, 4)),
                                SELECT_LOGIT)[0]
    assert status == KERNEL_FAILED
    endpoint = wk.p.copy()
    assert endpoint[0].tolist() == endpoint[1].tolist()
    found = select_equilibrium(U)
    assert found.method == "symmetric-logit"
    assert found.strategies[0].tolist() == found.strategies[1].tolist() and found.values[0] == found.values[1]
    assert max_deviation_gain(U, found.strategies) <= 1e-6
    assert max(np.abs(found.strategies[i] - endpoint[i]).max() for i in range(3)) <= POLISH_MOVE
    library = logit_equilibrium(U)
    assert np.abs(library[0] - library[1]).max() > 0.1  # why the library's path is not taken here


def test_symmetric_supports_find_the_only_symmetric_equilibrium():
    # 3 players n = 6 carry/points, ((59, 59, 62), pot 10, hidden {1, 2, 3, 5}): players 0 and 1
    # hold {1, 2, 4, 5, 6}. No pure profile where they bid alike is an equilibrium, and pygambit's
    # tracer gives them values 10.24 and 5.22. pygambit's enumpoly_solve lists 13 equilibria (48 s,
    # so not run here), one of them symmetric: players 0 and 1 mix cards 3, 4, 5 with 0.124, 0.164,
    # 0.713 (to 3 digits) and player 2 bids the lowest card; the enumeration of class supports
    # finds it at total size 3 + 1. The kernel's symmetric trace failed early on this game until
    # its corrector stopped at 1e-6 rather than 1e-8; it now reaches that same equilibrium itself
    from naive_multi import max_deviation_gain
    from gops_solver.multi.equilibrium import pure_equilibria, select_equilibrium
    from gops_solver.multi.supports import support_equilibrium
    U = _data("symmetric_support", 3, 5)
    assert not [b for b in pure_equilibria(U) if b[0] == b[1]]
    enumerated = support_equilibrium(U, [(0, 1)])
    assert enumerated[0].tolist() == enumerated[1].tolist()
    assert np.round(enumerated[0], 3).tolist() == [0.0, 0.0, 0.124, 0.164, 0.713]
    assert enumerated[2].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert max_deviation_gain(U, enumerated) <= 1e-9
    found = select_equilibrium(U)
    assert found.method == "logit"
    assert found.strategies[0].tolist() == found.strategies[1].tolist() and found.values[0] == found.values[1]
    for a, b in zip(found.strategies, enumerated):
        np.testing.assert_allclose(a, b, atol=1e-9)
    assert max_deviation_gain(U, found.strategies) <= 1e-9
    # the first 100 tuples are those of total size 3 (1 + 2 and 2 + 1 cards); the equilibrium's 3 + 1 comes later
    assert support_equilibrium(U, [(0, 1)], max_supports=100) is None


def _symmetrised(rng, m, k, cls):
    """A random game symmetric in the players ``cls``: the average of its images under their permutations."""
    U = rng.standard_normal((m,) + (k,) * m)
    out = np.zeros_like(U)
    perms = list(itertools.permutations(cls))
    for perm in perms:
        seat = list(range(m))
        for a, b in zip(cls, perm):
            seat[a] = b
        for bids in itertools.product(range(k), repeat=m):
            moved = [0] * m
            for j in range(m):
                moved[seat[j]] = bids[j]  # player j, seated at seat[j], bids bids[j]
            for i in range(m):
                out[(i,) + bids] += U[(seat[i],) + tuple(moved)]
    return out / len(perms)


@pytest.mark.parametrize("m, k, cls", [(3, 3, (0, 1)), (3, 4, (1, 2)), (3, 3, (0, 1, 2)), (4, 3, (0, 1)),
                                       (4, 3, (0, 1, 2, 3))])
def test_random_symmetric_games_get_a_symmetric_equilibrium(m, k, cls):
    # property: on games symmetric in some players, the fallback's steps for exchangeable players
    # (a pure profile where they bid alike, else the enumeration of class supports) find an
    # equilibrium where they play alike, by the naive oracle's deviation gain; 8 games a shape
    from naive_multi import max_deviation_gain
    from gops_solver.multi.equilibrium import exchangeable_classes, pure_equilibria
    from gops_solver.multi.supports import support_equilibrium
    mixed = 0
    for seed in range(8):
        U = _symmetrised(np.random.default_rng(seed), m, k, cls)
        assert exchangeable_classes(U) == [cls]
        pure = [b for b in pure_equilibria(U) if len({b[j] for j in cls}) == 1]
        if pure:
            profile = [np.eye(k)[b] for b in pure[0]]
        else:
            mixed += 1
            profile = support_equilibrium(U, [cls])
            assert profile is not None, seed
        assert all(profile[j].tolist() == profile[cls[0]].tolist() for j in cls)
        assert max_deviation_gain(U, profile) <= 1e-9
    assert mixed >= 2  # the seeds include games with no pure equilibrium where the class bids alike


def test_every_method_has_a_stored_code():
    # the level solvers store how each redone state was selected as a negative code (the kernel's are positive)
    from gops_solver.multi.equilibrium import METHOD_CODES, METHODS
    assert set(METHOD_CODES) == set(METHODS) and len(set(METHOD_CODES.values())) == len(METHOD_CODES)
    assert all(code < 0 for code in METHOD_CODES.values())


@pytest.mark.parametrize("k, R, limit", [(3, 1, 100), (4, 3, 4000), (5, 2, 4000), (3, 4, 500), (5, 3, 300)])
def test_support_tuples_come_by_total_size_then_lexicographically(k, R, limit):
    # the enumeration's order, built one total size at a time, against every tuple listed and sorted
    from gops_solver.multi.supports import _support_tuples
    subsets = [s for size in range(1, k + 1) for s in itertools.combinations(range(k), size)]
    every = sorted((tup for tup in itertools.product(subsets, repeat=R) if any(len(s) > 1 for s in tup)),
                   key=lambda tup: (sum(map(len, tup)), tup))
    assert _support_tuples(k, R, limit) == every[:limit]


def test_the_symmetric_program_from_fixed_starts_settles_a_game_both_symmetric_methods_miss():
    # 3 players n = 6 discard/points, ((39, 39, 60), pot 5, hidden {2, 3, 6}): players 0 and 1 hold
    # the ranks {0, 1, 2, 5} of the hands' union with equal scores, player 2 {2, 3, 4, 5}. Player 0's
    # two lowest cards are duplicates (every player's payoffs agree to the bit whichever of them
    # player 0 bids), and so are player 2's second and third cards: the equilibria come in flat
    # sets, the symmetric logit branch stalls, and Newton on the equal-payoff conditions reaches no
    # symmetric equilibrium from its starts. Until this test step 3 picked the asymmetric pure
    # profile (lowest, top, lowest), values 4 / 5 / 5: the exchangeable players' values 1.0 apart.
    # The Nash program among symmetric profiles, from the start leaning to (lowest card, second
    # card) (the third start), certifies the pair bidding their third card with about 0.999 and player 2
    # their top card with about 0.99997
    from naive_multi import max_deviation_gain
    from gops_solver.multi.equilibrium import exchangeable_classes, pure_equilibria, select_equilibrium
    from gops_solver.multi.supports import support_equilibrium, symmetric_equilibrium_search
    U = _data("symmetric_search", 3, 4)
    assert exchangeable_classes(U) == [(0, 1)]
    assert np.abs(U[:, 0] - U[:, 1]).max() == 0.0  # player 0's duplicate cards
    assert np.abs(U[:, :, :, 1] - U[:, :, :, 2]).max() == 0.0  # player 2's
    assert not [b for b in pure_equilibria(U) if b[0] == b[1]]
    assert support_equilibrium(U, [(0, 1)]) is None
    assert symmetric_equilibrium_search(U, [(0, 1)], max_starts=2) is None  # the uniform start and (lowest, lowest)
    found = symmetric_equilibrium_search(U, [(0, 1)])
    assert found[0].tolist() == found[1].tolist()
    assert found[0][2] > 0.99 and found[2][3] > 0.99
    assert max_deviation_gain(U, found) <= 1e-6
    chosen = select_equilibrium(U)
    assert chosen.method == "symmetric-search"
    assert chosen.strategies[0].tolist() == chosen.strategies[1].tolist() and chosen.values[0] == chosen.values[1]
    assert max_deviation_gain(U, chosen.strategies) <= 1e-6
    again = select_equilibrium(U)  # reproducible
    assert all(a.tolist() == b.tolist() for a, b in zip(again.strategies, chosen.strategies))


def test_three_players_n6_discard_points_has_spread_zero():
    # the whole solve: the asymmetric selections above had spread 1.0 over its stored states
    sol = solve(Rules(6, "discard", "points", players=3))
    spread, worst = symmetry_spread(sol.induction.table.items())
    assert spread == 0.0, worst
    assert sol.methods["symmetric-search"] >= 1
    assert sol.max_deviation_gain <= 1e-6
