"""The ``pure`` equilibrium selection of the 3- and 4-player games (docs/multiplayer.md, step 1).

Under ``selection="pure"`` step 1 takes the first pure equilibrium, in the
lexicographic order of the card indices (player 1 most significant, lowest
cards first), among those in which exchangeable players bid alike; a game
with none goes on exactly as under ``logit``. The kernel is checked against
pygambit's enumeration of pure equilibria (``enumpure_solve``), with the
exchangeable players found here by swapping axes; whole solves by what makes
them right (the recursion agrees, ``verify`` recomputes every stage, the
security values do not depend on the selection) and the CLI by its contract.
"""

import json

import numpy as np
import pygambit as gbt
import pytest

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.multi import solve_multi
from gops_solver.multi.equilibrium import _strategic_game, select_equilibrium
from gops_solver.multi.induction import Induction
from gops_solver.multi.kernel import (KERNEL_PURE, SELECT_LOGIT, SELECT_PURE, make_work,
                                      stage_equilibrium)
from gops_solver.multi.solution import symmetry_spread
from gops_solver.multi.solution import load_multi


def _run(args):
    with pytest.raises(SystemExit) as exc:
        cli.main(args, prog_name="gops", standalone_mode=True)
    return exc.value.code


def _kernel(U, selection):
    m, k = U.shape[0], U.shape[1]
    out = np.empty((m, k))
    status, _, _, gain = stage_equilibrium(np.ascontiguousarray(U.reshape(m, -1)), m, k, 1e-9, 1e-6,
                                           make_work(m, k), out, selection)
    return status, out, gain


def _gambit_pure(U):
    """Every pure equilibrium by pygambit's enumeration, as sorted tuples of card indices."""
    game = _strategic_game(gbt, U)
    found = []
    for eq in gbt.nash.enumpure_solve(game).equilibria:
        prof = []
        for player in game.players:
            if isinstance(player, str):  # pygambit 17: labels
                p = [float(eq[player][s]) for s in game.get_strategies(player)]
            else:
                p = [float(eq[s]) for s in player.strategies]
            prof.append(int(np.argmax(p)))
        found.append(tuple(prof))
    return sorted(found)


def _swap(U, i, j):
    """``U`` with players ``i`` and ``j`` exchanged: their cards (axes) and their payoffs (rows)."""
    V = np.swapaxes(U, i + 1, j + 1)
    order = list(range(U.shape[0]))
    order[i], order[j] = j, i
    return V[order]


def _classes(U):
    """Each player's class representative: the first earlier player it can exchange seats with."""
    m = U.shape[0]
    rep = list(range(m))
    for j in range(m):
        for i in range(j):
            if rep[i] == i and np.max(np.abs(U - _swap(U, i, j))) <= 1e-12:
                rep[j] = i
                break
    return rep


def _game(rng, m, k, symmetric, generic):
    """Integer payoffs 0..2 (degenerate: many pure equilibria) or continuous ones (generic: often none);
    optionally symmetric in players 1 and 2."""
    U = rng.random((m,) + (k,) * m) if generic else rng.integers(0, 3, size=(m,) + (k,) * m).astype(float)
    if symmetric:
        U = (U + _swap(U, 1, 2)) / 2
        assert np.array_equal(U, _swap(U, 1, 2))
    return U


@pytest.mark.parametrize("m,k", [(3, 3), (3, 4), (4, 2), (4, 3)])
def test_pure_selection_is_the_first_symmetric_pure_equilibrium(m, k):
    rng = np.random.default_rng(100 * m + k)
    taken = none = 0
    for g in range(40):
        U = _game(rng, m, k, symmetric=g % 2 == 1, generic=g % 4 >= 2)
        rep = _classes(U)
        pure = _gambit_pure(U)
        symmetric = [b for b in pure if all(b[i] == b[rep[i]] for i in range(m))]
        status, prof, gain = _kernel(U, SELECT_PURE)
        if symmetric:
            expected = np.zeros((m, k))
            expected[np.arange(m), symmetric[0]] = 1.0
            assert status == KERNEL_PURE and np.array_equal(prof, expected) and gain <= 1e-9
            ref = select_equilibrium(U, backend="gambit", selection="pure")
            assert ref.method == "pure" and all(np.array_equal(a, b) for a, b in zip(ref.strategies, expected))
            taken += 1
        else:
            # no symmetric pure equilibrium: exactly the logit selection's profile
            status_l, prof_l, gain_l = _kernel(U, SELECT_LOGIT)
            assert status == status_l and np.array_equal(prof, prof_l) and gain == gain_l
            none += 1
    # both branches were exercised
    assert taken >= 10 and none >= 1


def test_pure_selection_skips_asymmetric_pure_equilibria():
    # players 2 and 3 are exchangeable; each gets 1 unless both bid their
    # lowest card (u(0, 0) = 0, else 1), player 1 gets 0 whatever is bid.
    # Pure equilibria (player 1 most significant): (0, 0, 1), (0, 1, 0),
    # (0, 1, 1), (1, 0, 1), ...: from (0, 0, 1) player 2 gains nothing by 1
    # (u(1, 1) = 1) and player 3 loses by 0; (0, 0, 0) is none (either gains 1).
    # The first, (0, 0, 1), has the exchangeable players bid apart, so the
    # pure selection takes (0, 1, 1), and the logit one (several) traces.
    u = np.array([[0.0, 1.0], [1.0, 1.0]])  # u[own, other]
    U = np.zeros((3, 2, 2, 2))
    for b in np.ndindex(2, 2, 2):
        U[(1,) + b] = u[b[1], b[2]]
        U[(2,) + b] = u[b[2], b[1]]
    assert _gambit_pure(U)[:3] == [(0, 0, 1), (0, 1, 0), (0, 1, 1)]
    status, prof, gain = _kernel(U, SELECT_PURE)
    assert status == KERNEL_PURE and [int(np.argmax(p)) for p in prof] == [0, 1, 1] and gain == 0.0
    assert _kernel(U, SELECT_LOGIT)[0] != KERNEL_PURE


def test_logit_selection_takes_a_pure_equilibrium_only_where_it_is_unique():
    # the same games under the default rule: step 1 only when pygambit lists exactly one
    rng = np.random.default_rng(7)
    for g in range(30):
        U = _game(rng, 3, 3, symmetric=g % 2 == 1, generic=g % 4 >= 2)
        status, _, _ = _kernel(U, SELECT_LOGIT)
        assert (status == KERNEL_PURE) == (len(_gambit_pure(U)) == 1)


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("tie", ["carry", "discard"])
@pytest.mark.parametrize("players,n", [(3, 4), (4, 3)])
def test_pure_selection_whole_solves(players, n, tie, objective):
    rules = Rules(n, tie=tie, objective=objective, players=players)
    pure = solve_multi(rules, selection="pure")
    logit = solve_multi(rules)
    # the security values do not depend on the selection rule
    assert pure.security == logit.security
    # step 1 settles more stage games than under logit, and every state is certified again
    assert pure.methods["pure"] > logit.methods["pure"]
    assert pure.max_deviation_gain <= 1e-6
    report = pure.verify()
    assert report["ok"] and report["value_residual"] <= 1e-9 and report["max_deviation_gain"] <= 1e-6
    # the selection stays symmetric: players with equal hands and scores get equal values
    assert report["symmetry_spread"] == 0.0 and symmetry_spread(pure.induction.table.items())[0] == 0.0
    # the level solver and the memoised recursion select the same equilibria, state by state
    rec = Induction(rules, selection="pure")
    rec.start()
    assert len(rec.table) > 0
    worst = max(float(np.max(np.abs(np.asarray(e) - pure.induction.table[key][1])))
                for key, (_, e) in rec.table.items())
    assert worst <= 1e-9


def test_pure_selection_query_strategies_are_pure_where_step_1_took_them():
    sol = solve_multi(Rules(4, tie="discard", objective="win", players=3), selection="pure")
    q = sol.query([[1, 2, 3]] * 3, 4, [1, 2])
    assert q.method in ("pure", "logit") and q.deviation_gain <= 1e-6
    if q.method == "pure":
        assert all(sorted(s.values()) == [0.0, 0.0, 1.0] for s in q.strategies)
    # exchangeable players (equal hands, equal scores) bid alike whichever step chose
    assert q.strategies[0] == q.strategies[1] == q.strategies[2]


def test_selection_round_trips_through_files_and_cli(tmp_path, capsys):
    path = tmp_path / "p.gops"
    base = ["--players", "3", "--cards", "3", "--tie", "discard", "--objective", "win"]
    assert _run(["solve", *base, "--selection", "pure", "--out", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["selection"] == "pure" and out["max_deviation_gain"] <= 1e-6
    assert load_multi(path).selection == "pure"
    # queries from the file re-select with the file's rule
    assert _run(["query", "--players", "3", "--solution", str(path), "--hand-a", "1,2", "--hand-b", "1,2", "--hand-c", "1,3", "--pot", "2",
                 "--prizes", "1", "--json"]) == 0
    fresh = solve_multi(Rules(3, tie="discard", objective="win", players=3), selection="pure")
    assert json.loads(capsys.readouterr().out)["values"] == fresh.query([[1, 2], [1, 2], [1, 3]], 2, [1]).values
    assert _run(["verify", "--players", "3", "--solution", str(path)]) == 0
    capsys.readouterr()
    # another rule than the file's: one line, exit 2, the file untouched
    before = path.read_bytes()
    assert _run(["query", "--players", "3", "--solution", str(path), "--selection", "logit", "--hand-a",
                 "1,2", "--hand-b", "1,2", "--hand-c", "1,3", "--pot", "2", "--prizes", "1"]) == 2
    err = capsys.readouterr().err
    assert "solved with the pure selection" in err and err.count("\n") == 1 and path.read_bytes() == before
    assert _run(["solve", *base, "--selection", "nash"]) == 2
    assert "'nash' is not one of" in capsys.readouterr().err


def test_selection_names_are_checked():
    with pytest.raises(ValueError, match="unknown equilibrium selection 'nash': use logit or pure"):
        solve_multi(Rules(3, players=3), selection="nash")
    with pytest.raises(ValueError, match="applies to 3 and 4 players"):
        solve(Rules(3), selection="pure")
    # the selection of the top-level solve reaches the 3-player solver
    assert solve(Rules(3, players=3, objective="win"), selection="pure").selection == "pure"

