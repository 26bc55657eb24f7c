"""The jitted stage-equilibrium kernel and the level solver of the 3-4 player games.

The kernel is checked against pygambit (the reference of the selection
rule) and by the deviation property; the level solver (points games) against
the memoised recursion state by state.
"""

from pathlib import Path

import numpy as np
import pytest

from gops_solver import Rules
from gops_solver.multi.equilibrium import deviation_gain, pure_equilibria, select_equilibrium
from gops_solver.multi.induction import Induction
from gops_solver.multi.kernel import (KERNEL_OK, KERNEL_PURE, SELECT_LOGIT, _lu, _lu_solve, _pair_payoffs, _residual,
                                      make_work, payoffs_against, stage_equilibrium)
from gops_solver.multi.levels import LevelInduction


def _kernel(U):
    m, k = U.shape[0], U.shape[1]
    out = np.empty((m, k))
    status, count, first, gain = stage_equilibrium(np.ascontiguousarray(U.reshape(m, -1)), m, k, 1e-9, 1e-6,
                                                   make_work(m, k), out, SELECT_LOGIT)
    return status, count, first, gain, [out[i] for i in range(m)]


@pytest.mark.parametrize("m,k", [(3, 3), (4, 2), (3, 4), (4, 3)])
def test_kernel_matches_pygambit_on_generic_games(m, k):
    # continuous random payoffs: generic games, where the logit branch is
    # regular and its limit unique, so both tracers must land on the same profile
    rng = np.random.default_rng(m * 10 + k)
    compared = 0
    for _ in range(6):
        U = rng.random((m,) + (k,) * m) * 10
        status, count, _, gain, mine = _kernel(U)
        assert count == len(pure_equilibria(U))
        if status == KERNEL_PURE:
            assert count == 1
            continue
        assert status == KERNEL_OK
        assert gain <= 1e-6 and deviation_gain(U, mine) == pytest.approx(gain, abs=1e-12)
        ref = select_equilibrium(U, backend="gambit")
        assert ref.method == "logit"
        for a, b in zip(mine, ref.strategies):
            assert np.allclose(a, b, atol=1e-5)
        compared += 1
    assert compared >= 2


@pytest.mark.nojit
def test_lu_factor_and_solve_match_numpy():
    # one factorisation, several right-hand sides; a singular matrix is refused
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 16):
        A = rng.normal(size=(n, n))
        LU = A.copy()
        piv = np.empty(n, dtype=np.int64)
        assert _lu(LU, piv, n)
        for _ in range(3):
            b = rng.normal(size=n)
            x = b.copy()
            _lu_solve(LU, piv, x, n)
            assert np.allclose(x, np.linalg.solve(A, b), rtol=1e-10, atol=1e-10)
    S = rng.normal(size=(4, 4))
    S[3] = S[0] + S[1]
    assert not _lu(S, np.empty(4, dtype=np.int64), 4)


@pytest.mark.nojit
@pytest.mark.parametrize("m,k", [(3, 4), (4, 3), (3, 2)])
def test_payoffs_and_jacobian(m, k):
    # the axis-by-axis averages against tensordot, the Jacobian against finite differences
    rng = np.random.default_rng(m * 10 + k)
    U = rng.normal(size=(m,) + (k,) * m)
    flat = np.ascontiguousarray(U.reshape(m, -1))
    p = rng.random((m, k))
    p /= p.sum(axis=1, keepdims=True)
    wk = make_work(m, k)

    def average(i, keep):
        t = U[i]
        for j in reversed(range(m)):
            if j not in (i, keep):
                t = np.tensordot(t, p[j], axes=([j], [0]))
        return t

    payoffs_against(flat, p, m, k, wk)
    for i in range(m):
        assert np.allclose(wk.u[i], average(i, -1), atol=1e-12)
    _pair_payoffs(flat, p, m, k, wk)
    for i in range(m):
        assert np.allclose(wk.u[i], average(i, -1), atol=1e-12)
        for j in range(m):
            if j != i:
                assert np.allclose(wk.w[i, j], average(i, j) if i < j else average(i, j).T, atol=1e-12)
    # the branch's coordinates: log-odds against card 0, then lambda
    N = m * (k - 1)
    lam = 0.7
    z = np.append(np.log(p[:, 1:] / p[:, :1]).ravel(), lam)
    A = np.zeros((N + 1, N + 1))
    _residual(flat, z, m, k, wk, A)
    assert np.allclose(wk.p, p, atol=1e-12)  # the coordinates give back the profile
    F0 = wk.F[:N].copy()
    # the logit equations: log-odds minus lambda times the payoff difference to card 0
    u = np.array([average(i, -1) for i in range(m)])
    assert np.allclose(F0, (np.log(p[:, 1:] / p[:, :1]) - lam * (u[:, 1:] - u[:, :1])).ravel(), atol=1e-12)
    for c in range(N + 1):
        e = z.copy()
        e[c] += 1e-7
        _residual(flat, e, m, k, wk, A[:0])
        assert np.allclose((wk.F[:N] - F0) / 1e-7, A[:N, c], atol=1e-5)


@pytest.mark.nojit
def test_kernel_on_known_games():
    # matching pennies between players 0 and 1 (player 2's payoffs never move):
    # the unique equilibrium mixes 1/2-1/2; player 2 stays uniform along the branch
    U = np.zeros((3, 2, 2, 2))
    for a in range(2):
        for b in range(2):
            U[0, a, b, :] = 1.0 if a == b else -1.0
            U[1, a, b, :] = -U[0, a, b, 0]
    status, count, _, gain, s = _kernel(U)
    assert status == KERNEL_OK and count == 0 and gain <= 1e-9
    for p in s:
        assert np.allclose(p, [0.5, 0.5], atol=1e-9)
    # a unique pure equilibrium (card 1 strictly dominant for everyone) is step 1
    V = np.zeros((3, 2, 2, 2))
    for i in range(3):
        V[i] = np.moveaxis(np.broadcast_to(np.array([0.0, 1.0]).reshape(2, 1, 1), (2, 2, 2)), 0, i)
    status, count, first, gain, s = _kernel(V)
    assert (status, count, first, gain) == (KERNEL_PURE, 1, 7, 0.0)
    assert all(np.array_equal(p, [0.0, 1.0]) for p in s)


def test_select_equilibrium_falls_back_to_the_reference_path():
    rng = np.random.default_rng(3)
    U = rng.random((3, 3, 3, 3))
    fast = select_equilibrium(U)
    ref = select_equilibrium(U, backend="gambit")
    assert fast.method == ref.method
    assert np.allclose(fast.values, ref.values, atol=1e-5)
    with pytest.raises(ValueError, match="backend"):
        select_equilibrium(U, backend="nope")


@pytest.mark.parametrize("n,m,tie,order", [(3, 3, "carry", "random"), (3, 3, "discard", "ascending"),
                                           (3, 4, "carry", "descending"), (2, 4, "discard", "random")])
def test_level_solver_matches_the_recursion(n, m, tie, order):
    # every state the memoised recursion reaches has the same security and
    # equilibrium values in the level tables (the same stage games, the same
    # kernel, so equal to rounding); the tables may hold more (pots the slots allow)
    rules = Rules(n, tie=tie, order=order, players=m)
    rec = Induction(rules)
    sec_r, eq_r = rec.start()
    lev = LevelInduction(rules)
    sec_l, eq_l = lev.start()
    assert np.allclose(sec_r, sec_l, atol=1e-12) and np.allclose(eq_r, eq_l, atol=1e-12)
    for key, (sec, eq) in rec.table.items():
        s2, e2 = lev.table[key]
        assert np.allclose(sec, s2, atol=1e-12) and np.allclose(eq, e2, atol=1e-12)
    assert len(lev.table) >= len(rec.table) and not lev.table.extra
    assert lev.stage_games == len(lev.table)


@pytest.mark.nojit
def test_level_solver_tiny_game_by_hand():
    # n = 1, three players, prize 1: everyone bids their only card, a three-way
    # tie, nobody scores: security and equilibrium values are all 0.
    # n = 2, ascending prizes (1 then 2), discard: the stage game at the start
    # is solved by the kernel; the values of each player are equal by symmetry
    # and the security values add up to at most the 3 points in play
    lev = LevelInduction(Rules(1, players=3))
    sec, eq = lev.start()
    assert np.array_equal(sec, [0, 0, 0]) and np.array_equal(eq, [0, 0, 0])
    lev = LevelInduction(Rules(2, tie="discard", order="ascending", players=3))
    sec, eq = lev.start()
    assert np.allclose(eq, eq[0]) and np.allclose(sec, sec[0]) and 3 * sec[0] <= 3 + 1e-12
    # whatever the others do, a player can bid 2 first: a shared top bid is a
    # tie, so the others can always deny them; their security value is 0
    assert sec[0] == pytest.approx(0.0, abs=1e-12)


def test_level_solver_solves_equal_stage_games_once_and_checks_copies():
    # states whose two stage games have one 128-bit fingerprint share one
    # solve (at 3 players n = 4 carry, 740 distinct pairs among 1,130
    # states); a copy whose games differ from its representative's (a
    # collision of the first 64-bit hash, forced here by making one state
    # represent every other) is told apart by the second hash and solves its own
    from gops_solver.multi.levelkernel import PASS_COPY, PASS_HASH, LevelOut, PrevLevel, new_plan, solve_level
    lev = LevelInduction(Rules(4, tie="carry", players=3))
    lev.solve()
    assert 0 < lev.distinct_games < lev.stage_games
    k, m = 3, 3
    out = lev.values[k]
    P, S = out.gain.shape
    fresh = LevelOut(out.sec.copy(), out.eq.copy(), out.gain.copy(), out.method.copy(), out.flags.copy())
    fresh.sec.reshape(P * S, m)[1:] = np.nan
    fresh.eq.reshape(P * S, m)[1:] = np.nan
    below = lev.values[k - 1]
    args = (lev.tables[k], PrevLevel(below.sec, below.eq), m, k, lev.carry, lev.selection_code)
    plan = new_plan(P * S)
    solve_level(*args, PASS_HASH, plan, fresh)  # the fingerprints
    plan.hashes[:] = 0  # every state's first hash collides with state 0's
    plan.rep[:] = 0
    plan = plan._replace(solves=np.zeros(1, dtype=np.int64), copies=np.arange(1, P * S, dtype=np.int64))
    same = plan.checks[1:] == plan.checks[0]
    assert 0 < same.sum() < P * S - 1  # some states have state 0's games, most do not
    solve_level(*args, PASS_COPY, plan, fresh)
    done = fresh.flags.ravel()[1:] == 0  # the kernel's own answers (pygambit's are redone by the caller)
    assert done.sum() > (P * S) // 2
    for a, b in ((fresh.sec, out.sec), (fresh.eq, out.eq)):
        assert np.array_equal(a.reshape(P * S, m)[1:][done], b.reshape(P * S, m)[1:][done])


def test_level_solver_rejects_win():
    with pytest.raises(ValueError, match="points"):
        LevelInduction(Rules(3, objective="win", players=3))


def test_nearly_pure_fallback():
    # matching pennies between players 0 and 1 scaled to 1e-7: no pure profile
    # is an equilibrium to 1e-9 (each leaves someone 2e-7), every one is to
    # 1e-6, and the first of the equal gains, (0, 0, 0), is taken; scaled to
    # 1, no pure profile qualifies
    from gops_solver.multi.equilibrium import _nearly_pure
    U = np.zeros((3, 2, 2, 2))
    for a in range(2):
        for b in range(2):
            U[0, a, b, :] = 1.0 if a == b else -1.0
            U[1, a, b, :] = -U[0, a, b, 0]
    assert pure_equilibria(U * 1e-7) == []
    assert _nearly_pure(U * 1e-7) == [(0, 0, 0)]
    assert _nearly_pure(U) == []


# Stage games of 3 players, 3 cards each, from the k = 3 level of 3 players n = 7
# discard/points (tests/data/multi_stage_games.npz, dumped from the level solver's
# tables). Along each, the logit branch does something a plain tracer gets wrong:
# - folds: the branch turns back in lambda; a step across the fold lands on the
#   returning leg, where the tangent oriented by the previous one points back
#   along the branch. The kernel before the orientation check (det [J; t']) then
#   ended on another equilibrium, certified but not the branch's limit;
# - turned_back: the same, but the trace went all the way back to lambda < 0 (it
#   failed, and pygambit was called);
# - stalled: at lambda ~ 5e6 the corrector stalls within 1.1x the regret target
#   (it used to run out of steps, and pygambit was called);
# - bifurcations: players 0 and 1 are identical and the symmetric branch meets an
#   asymmetric one; the kernel crosses straight on (pygambit turns onto an arm).
_GAMES = np.load(Path(__file__).parent / "data" / "multi_stage_games.npz")


@pytest.mark.parametrize("kind,i", [("folds", 0), ("folds", 1), ("folds", 2), ("folds", 3),
                                    ("turned_back", 0), ("turned_back", 1), ("stalled", 0), ("stalled", 1)])
def test_kernel_follows_the_branch_round_folds_to_pygambits_limit(kind, i):
    U = _GAMES[kind][i].reshape(3, 3, 3, 3)
    status, _, _, gain, mine = _kernel(U)
    assert status == KERNEL_OK and gain <= 1e-6
    ref = select_equilibrium(U, backend="gambit")
    assert ref.method == "logit"
    for a, b in zip(mine, ref.strategies):
        assert np.allclose(a, b, atol=1e-5)


@pytest.mark.parametrize("i", [0, 1])
def test_kernel_crosses_a_symmetric_bifurcation_on_the_symmetric_branch(i):
    U = _GAMES["bifurcations"][i].reshape(3, 3, 3, 3)
    # players 0 and 1 are interchangeable: swapping them (payoff rows and bid axes) gives the same game
    assert np.array_equal(np.swapaxes(U, 1, 2)[[1, 0, 2]], U)
    status, _, _, gain, mine = _kernel(U)
    assert status == KERNEL_OK and gain <= 1e-6
    assert np.allclose(mine[0], mine[1], atol=1e-9)
    assert deviation_gain(U, mine) <= 1e-6


def _permuted(U, perm):
    """The game ``U`` with player l seated at ``perm[l]`` (their cards and payoffs move with them)."""
    m = U.shape[0]
    inv = np.argsort(perm)
    return np.transpose(U[inv], (0,) + tuple(1 + int(inv[q]) for q in range(m)))


def _symmetric_game(rng, m, k, classes):
    """A random integer-valued game unchanged when players of the same class swap seats."""
    from itertools import permutations, product
    U = rng.integers(0, 20, size=(m,) + (k,) * m).astype(float)
    perms = []
    for choice in product(*[list(permutations(c)) for c in classes]):
        perm = list(range(m))
        for c, image in zip(classes, choice):
            for a, b in zip(c, image):
                perm[a] = b
        perms.append(perm)
    return sum(_permuted(U, p) for p in perms) / len(perms)


@pytest.mark.parametrize("m,k,classes", [(3, 3, [(1, 2)]), (3, 4, [(0, 2)]), (3, 3, [(0, 1, 2)]),
                                         (4, 3, [(0, 1), (2, 3)]), (4, 2, [(0, 1, 2, 3)])])
def test_exchangeable_players_play_alike(m, k, classes):
    # a game symmetric in some players: the logit branch from the uniform profile is
    # symmetric in them, so the kernel traces it among profiles where they play alike
    # and its endpoint gives them the same mix, bit for bit, and so the same values
    rng = np.random.default_rng(100 * m + k)
    mixed = 0
    for _ in range(8):
        U = _symmetric_game(rng, m, k, classes)
        for c in classes:  # the construction: swapping two members leaves the game as it is
            perm = list(range(m))
            perm[c[0]], perm[c[1]] = c[1], c[0]
            assert np.allclose(_permuted(U, perm), U, atol=1e-12)
        status, count, _, gain, mine = _kernel(U)
        if status == KERNEL_PURE:
            continue
        assert status == KERNEL_OK and gain <= 1e-6 and deviation_gain(U, mine) <= 1e-6
        for c in classes:
            for j in c[1:]:
                assert np.array_equal(mine[j], mine[c[0]])
        mixed += 1
    assert mixed >= 3
