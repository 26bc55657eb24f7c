"""The level-by-level solver of the 3- and 4-player ``win`` games (gops_solver.multi.winlevels).

Checked against the memoised recursion (the same states, the same stage
games entry for entry, the same selected equilibria), by the deviation
property on stage games rebuilt by the naive oracle, and against the naive
oracle's security values.
"""

import random

import numpy as np
import pytest

from gops_solver import Rules
from gops_solver.multi import solve_multi
from gops_solver.multi.equilibrium import pure_payoffs, select_equilibrium
from gops_solver.multi.induction import Induction
from gops_solver.multi.state import relabel
from gops_solver.multi.levelkernel import LevelOut
from gops_solver.multi.levelkernel import PASS_COPY, PASS_HASH, PASS_SOLVE, new_plan, pass_bounds, pass_state, solve_block
from gops_solver.multi.winkernel import METHOD_DECIDED, build_win_stage, solve_win_level
from gops_solver.multi.winlevels import WinLevelInduction

import naive_multi as nm

ORDERS = ("random", "ascending", "descending")
TIES = ("carry", "discard")
SIZES = ((3, 4), (4, 3))  # (players, n): the largest games the recursion checks in seconds


def _hands(masks):
    """Rank masks -> hands of cards rank + 1 (only the order of the cards matters)."""
    return tuple(tuple(r + 1 for r in range(mask.bit_length()) if mask >> r & 1) for mask in masks)


def _solved(players, n, tie, order):
    rules = Rules(n, tie=tie, objective="win", order=order, players=players)
    lev = WinLevelInduction(rules)
    start = lev.start()
    return rules, lev, start


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("players,n", SIZES)
def test_win_levels_match_the_recursion_on_every_state(players, n, tie, order):
    # the level tables hold exactly the states the recursion visits, with
    # the same security and equilibrium values (the same stage games, so
    # the same selection), and count the same stage games and methods
    rules, lev, (sec_l, eq_l) = _solved(players, n, tie, order)
    rec = Induction(rules)
    sec_r, eq_r = rec.start()
    assert np.max(np.abs(sec_r - sec_l)) <= 1e-9 and np.max(np.abs(eq_r - eq_l)) <= 1e-9
    assert set(lev.table) == set(rec.table) and not lev.table.extra
    assert len(lev.table) == len(rec.table) > 0
    worst = 0.0
    for key, (sec, eq) in rec.table.items():
        s2, e2 = lev.table[key]
        worst = max(worst, float(np.max(np.abs(sec - s2))), float(np.max(np.abs(eq - e2))))
    assert worst <= 1e-9
    assert lev.stage_games == rec.stage_games
    assert lev.methods == rec.methods
    assert lev.max_gain <= 1e-6


@pytest.mark.parametrize("players,n,tie,order", [(3, 4, "carry", "random"), (4, 3, "discard", "ascending"),
                                                 (3, 3, "carry", "descending")])
def test_kernel_builds_the_recursions_stage_games(players, n, tie, order):
    # build_win_stage (the kernel's builder, reading the level below by
    # code) and Induction.stage (the recursion's, reading by key) give the
    # same arrays, bit for bit: the equilibrium selection sees the same game
    rules, lev, _ = _solved(players, n, tie, order)
    m = players
    checked = 0
    for k in range(1, n + 1):
        K = k ** m
        Usec, Ueq = np.empty((m, K)), np.empty((m, K))
        out = lev.values[k]
        for q, code in enumerate(lev.codes[k].tolist()):
            if out.method[q] == METHOD_DECIDED:
                continue
            key = lev.decode(k, code)
            P = lev.pattern_index[k][key[0]]
            s = lev.slot_index[k][(key[2], key[1])]
            keys = np.array(key[3], dtype=np.int64)
            assert build_win_stage(lev.tables[k], lev.level_states(k), lev.level_below(max(k - 1, 1)), P, s, keys,
                                   m, lev.carry, True, Usec, Ueq)
            game = lev.stage(key)
            assert np.array_equal(Usec, game.security.reshape(m, K))
            assert np.array_equal(Ueq, game.equilibrium.reshape(m, K))
            checked += 1
    assert checked == lev.stage_games > 0


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("players,n", [(3, 3), (4, 2)])
def test_every_stage_equilibrium_passes_the_deviation_check(players, n, tie, order):
    # each solved state's stage game is rebuilt by the naive oracle (raw
    # hands, RULES.md payoffs) from the level solver's continuation values;
    # the selected profile leaves no player a pure deviation gaining more
    # than 1e-6 there, and its payoffs are the stored equilibrium values
    rules, lev, _ = _solved(players, n, tie, order)

    def cont(state, scores):
        if state is None:
            return [nm.final_payoff(scores, i, "win") for i in range(players)]
        hands, pot, prizes, sc = state
        return lev.decision(relabel(hands), pot, prizes, sc)[1]

    checked = 0
    for key, (_, eq) in list(lev.table.items()):
        masks, pot, hidden, keys = key
        if lev._decided(keys, pot + sum(hidden)) is not None:
            continue
        # the score keys are valid scores (only differences to the leader matter)
        U = nm.stage_payoffs(_hands(masks), pot, hidden, keys, tie, rules.random_order, cont)
        assert np.allclose(U, lev.stage(key).equilibrium, atol=1e-12, rtol=0)
        found = select_equilibrium(lev.stage(key).equilibrium)
        assert nm.max_deviation_gain(U, found.strategies) <= 1e-6
        values = [float(pure_payoffs(U, found.strategies, i) @ found.strategies[i]) for i in range(players)]
        assert np.allclose(values, eq, atol=1e-9, rtol=0)
        checked += 1
    assert checked == lev.stage_games > 0


def _random_state(rules, k, rng):
    """A decision state with k cards a hand, reached by n - k rounds of random bids."""
    n, m = rules.n, rules.players
    hands = [list(range(1, n + 1)) for _ in range(m)]
    order = list(rules.sequence) if rules.sequence else rng.sample(range(1, n + 1), n)
    scores, carry = [0] * m, 0
    for r in range(n - k):
        pot = carry + order[r]
        bids = [rng.choice(h) for h in hands]
        winners = [i for i, b in enumerate(bids) if b == max(bids)]
        carry = 0
        if len(winners) == 1:
            scores[winners[0]] += pot
        elif rules.tie == "carry":
            carry = pot
        for h, b in zip(hands, bids):
            h.remove(b)
    hidden = order[n - k + 1:]
    prizes = tuple(sorted(hidden)) if rules.random_order else tuple(hidden)
    return tuple(tuple(sorted(h)) for h in hands), carry + order[n - k], prizes, tuple(scores)


@pytest.mark.parametrize("players,n,tie,order", [(3, 4, "carry", "random"), (3, 4, "discard", "ascending"),
                                                 (4, 3, "carry", "descending"), (4, 3, "discard", "random")])
def test_security_matches_the_naive_oracle(players, n, tie, order):
    # whole game by the level solver (solve_multi's default under win); a
    # few reachable states with at most 2-3 cards a hand (the oracle's tree
    # grows fast), each player's security value against the oracle's LPs
    rules = Rules(n, tie=tie, objective="win", order=order, players=players)
    sol = solve_multi(rules)
    assert isinstance(sol.induction, WinLevelInduction)
    oracle = nm.make_security(tie, "win", rules.random_order)
    rng = random.Random(f"win-levels {players} {n} {tie} {order}")
    checked = 0
    for _ in range(4):
        hands, pot, prizes, scores = _random_state(rules, rng.randint(1, n - 1), rng)
        q = sol.query([list(h) for h in hands], pot, prizes, scores)
        for i in range(players):
            assert abs(q.security[i] - oracle(hands, pot, prizes, scores, i)) <= 1e-9
            checked += 1
    assert len(sol.induction.table.extra) == 0  # every queried state was in the level tables
    assert checked == 4 * players


def test_start_by_the_oracle_and_by_hand():
    # n = 1: every player bids their only card, a three-way tie, each gets 1/3;
    # n = 2, ascending (prize 1 then 2), discard, three players: the start's
    # security value (the others can always tie the top bid) is 0
    sec, eq = WinLevelInduction(Rules(1, objective="win", players=3)).start()
    assert np.allclose(sec, 1 / 3) and np.allclose(eq, 1 / 3)
    rules = Rules(2, tie="discard", objective="win", order="ascending", players=3)
    sec, eq = WinLevelInduction(rules).start()
    oracle = nm.make_security("discard", "win", False)
    full = ((1, 2),) * 3
    assert np.allclose(sec, [oracle(full, 1, (2,), (0, 0, 0), i) for i in range(3)], atol=1e-9)
    assert np.allclose(eq, eq[0]) and abs(eq.sum() - 1.0) <= 1e-9  # symmetric players share the 1


def test_decided_positions_need_no_stage_game():
    # 3 players, n = 3, random order, discard: a player who took 2 and 3 when
    # the last prize is 1 can no longer be caught: such positions pay the
    # leader 1 whatever is bid, and no stage game is counted for them
    rules = Rules(3, tie="discard", objective="win", players=3)
    sol = solve_multi(rules)
    ind = sol.induction
    out = ind.values[1]
    decided = np.flatnonzero(out.method == METHOD_DECIDED)
    assert decided.size > 0
    for q in decided:
        masks, pot, hidden, keys = ind.decode(1, int(ind.codes[1][q]))
        assert sorted(keys)[-2] < -pot  # the leader's lead exceeds what is left
        assert sorted(out.eq[q].tolist()) == [0.0, 0.0, 1.0] and np.array_equal(out.sec[q], out.eq[q])
    assert sol.stage_games == len(ind.table) - sum(int(np.count_nonzero(ind.values[k].method == METHOD_DECIDED))
                                                   for k in ind.values)


def test_recursion_on_request_and_points_refused():
    rules = Rules(3, tie="carry", objective="win", players=3)
    a, b = solve_multi(rules), solve_multi(rules, levels=False)
    assert isinstance(a.induction, WinLevelInduction) and type(b.induction) is Induction
    assert np.allclose(a.security, b.security, atol=1e-9) and np.allclose(a.values, b.values, atol=1e-9)
    assert a.states == b.states and a.stage_games == b.stage_games
    with pytest.raises(ValueError, match="win objective only"):
        WinLevelInduction(Rules(3, players=3))


def test_equal_stage_games_are_solved_once_and_copies_checked():
    # states whose two stage games have one 128-bit fingerprint share one
    # solve; a copy whose games differ from its representative's (a collision
    # of the first 64-bit hash, forced here by making one state represent
    # every other) is told apart by the second hash and solves its own
    rules, lev, _ = _solved(3, 4, "carry", "random")
    assert 0 < lev.distinct_games < lev.stage_games
    k, m = 2, 3
    out = lev.values[k]
    live = np.flatnonzero(out.method != METHOD_DECIDED)
    fresh = LevelOut(out.sec.copy(), out.eq.copy(), out.gain.copy(), out.method.copy(), out.flags.copy())
    args = (lev.tables[k], lev.level_states(k), lev.level_below(k - 1), m, k, lev.carry, lev.selection_code)
    plan = new_plan(len(out.gain))
    solve_win_level(*args, PASS_HASH, plan, fresh)  # the fingerprints
    plan.rep[live] = live[0]  # every live state's first hash "collides" with the first one's
    plan = plan._replace(solves=live[:1], copies=live[1:])
    same = plan.checks[live[1:]] == plan.checks[live[0]]
    assert 0 < same.sum() < len(live) - 1  # some states have its games, most do not
    fresh.sec[live[1:]] = np.nan
    fresh.eq[live[1:]] = np.nan
    solve_win_level(*args, PASS_COPY, plan, fresh)
    done = live[fresh.flags[live] == 0]  # the kernel's own answers (pygambit's are redone by the caller)
    assert len(done) > len(live) // 2
    assert np.array_equal(fresh.sec[done], out.sec[done]) and np.array_equal(fresh.eq[done], out.eq[done])


@pytest.mark.parametrize("total, n_chunks", [(0, 4), (1, 4), (5, 4), (64, 4), (1000, 7), (4097, 256), (100_003, 256)])
def test_solve_pass_deals_every_representative_once_in_blocks(total, n_chunks):
    # the solve pass deals blocks of consecutive representatives round robin
    # to the chunks: together the chunks take each representative once, and
    # within a block they take them in order
    solves = np.arange(10, 10 + 3 * total, 3, dtype=np.int64)  # any ascending states
    plan = new_plan(1)._replace(solves=solves)
    blk = solve_block(total, n_chunks)
    seen = []
    for ch in range(n_chunks):
        lo, hi, step = pass_bounds(PASS_SOLVE, plan, 1, ch, n_chunks)
        mine = [pass_state(PASS_SOLVE, plan, j, ch, n_chunks) for j in range(lo, hi, step)]
        blocks = [(q - 10) // 3 // blk for q in mine]
        assert all(b % n_chunks == ch for b in blocks)
        assert mine == sorted(mine)
        seen += mine
    assert sorted(seen) == solves.tolist()


@pytest.mark.parametrize("tie", TIES)
def test_security_only_solve_gives_the_same_security_values(tie):
    # without equilibria the kernel reads no equilibrium values from the level
    # below (and, where every level shares, more states share their games), but
    # each security game is the same array, so its value is the same to the bit
    _, lev, _ = _solved(3, 4, tie, "random")
    alone = WinLevelInduction(Rules(4, tie=tie, objective="win", players=3), equilibrium=False, share="always")
    alone.solve()
    assert alone.distinct_games <= lev.distinct_games
    for k in lev.values:
        assert np.array_equal(alone.codes[k], lev.codes[k])
        assert np.array_equal(alone.values[k].sec, lev.values[k].sec)
        assert np.all(np.isnan(alone.values[k].eq[alone.values[k].method != METHOD_DECIDED]))


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("selection,equilibrium", [("pure", True), ("logit", True), ("logit", False)])
def test_sharing_equal_games_or_not_gives_the_same_tables_bit_for_bit(tie, selection, equilibrium):
    # a level may be solved state by state (no hash pass) where few of its games are equal
    # (WinLevelInduction._worth_sharing); equal games get one deterministic selection, so
    # every value, gain and method is the same whichever levels share
    rules = Rules(5, tie=tie, objective="win", players=3)
    solved = {}
    for share in ("always", "never", "auto"):
        ind = WinLevelInduction(rules, equilibrium=equilibrium, selection=selection, share=share)
        ind.solve()
        solved[share] = ind
    assert all(solved["always"].shared.values()) and not any(solved["never"].shared.values())
    assert solved["never"].distinct_games == solved["never"].stage_games > solved["always"].distinct_games
    for share in ("never", "auto"):
        for k, a in solved["always"].values.items():
            b = solved[share].values[k]
            for x, y in ((a.sec, b.sec), (a.eq, b.eq), (a.gain, b.gain)):
                assert np.array_equal(x, y, equal_nan=True)
            assert np.array_equal(a.method, b.method)
    if selection == "logit" and equilibrium:  # the logit selection always shares
        assert all(solved["auto"].shared.values())
    else:  # the sample picks: the 2-card level's games are mostly equal, the small last ones not
        auto = solved["auto"].shared
        assert auto[2] and not auto[5]
