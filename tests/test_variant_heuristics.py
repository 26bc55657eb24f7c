"""The named heuristics in the variants (match, match+1, proportional): their bids at hand-checked
states, and exact evaluation against a naive oracle written from RULES.md and the definitions in
docs/strategies.md, independently of the variant machinery."""

import itertools
from fractions import Fraction

import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.analysis._variant_matchup import evaluate_variant, heuristic_mix
from gops_solver.cli.commands import cli

HEUR = ("match", "match+1", "proportional", "uniform", "highest", "lowest")


# -- the definitions, written out again for the oracle ---------------------------------------------
def oracle_bid(name, hand, row, carry, pile, bid_cards):
    """Bid -> probability (Fractions) of a heuristic: its documented definition, written plainly."""
    hand = sorted(hand)
    size = min(bid_cards, len(hand))
    bids = list(itertools.combinations(hand, size))
    pot = carry + max(row)
    if name == "uniform":
        return {x: Fraction(1, len(bids)) for x in bids}
    if name in ("highest", "lowest"):
        pick = (max if name == "highest" else min)(bids, key=sum)
        return {pick: Fraction(1)}
    if name in ("match", "match+1"):
        t = pot + (1 if name == "match+1" else 0)
        d = min(abs(sum(x) - t) for x in bids)
        near = [x for x in bids if abs(sum(x) - t) == d]
        return {x: Fraction(1, len(near)) for x in near}
    # proportional
    others = sorted(row)[:-1] + list(pile)
    r = len([p for p in others if p < pot])
    groups = [tuple(hand[i:i + size]) for i in range(0, len(hand) - size + 1, size)][:len(hand) // size]
    return {groups[r * len(groups) // (len(others) + 1)]: Fraction(1)}


def oracle_margin(rules, a_name, b_name):
    """Exact expected final margin A - B of two heuristics, by plain recursion over every deal."""
    n, m = rules.n, rules.open_prizes

    def play(ha, hb, pile, row, carry, diff):
        if not ha:
            return Fraction(diff)
        # fill the row
        need = min(m - len(row), len(pile))
        draws = [tuple(pile[:need])] if not rules.random_order else list(itertools.combinations(pile, need))
        total = Fraction(0)
        for d in draws:
            rest = tuple(p for p in pile if p not in d)
            rw = tuple(sorted(row + d))
            last = len(ha) <= rules.bid_cards
            for x, px in oracle_bid(a_name, ha, rw, carry, rest, rules.bid_cards).items():
                for y, py in oracle_bid(b_name, hb, rw, carry, rest, rules.bid_cards).items():
                    ha2 = tuple(c for c in ha if c not in x)
                    hb2 = tuple(c for c in hb if c not in y)
                    if sum(x) != sum(y):
                        prize = rw[-1]  # a heuristic winner takes the largest prize of the row
                        gain = carry + prize
                        v = play(ha2, hb2, rest, tuple(p for p in rw if p != prize), 0,
                                 diff + (gain if sum(x) > sum(y) else -gain))
                    else:
                        low = rw[0]
                        kept = carry + low if rules.tie == "carry" and not last else 0
                        v = play(ha2, hb2, rest, rw[1:], kept, diff)
                    total += Fraction(1, len(draws)) * px * py * v
        return total

    full = tuple(range(1, n + 1))
    pile = tuple(rules.sequence) if not rules.random_order else full
    return play(full, full, pile, (), 0, 0)


# -- hand-checked bids ---------------------------------------------------------------------------
def test_two_card_match_is_the_pair_summing_closest_to_the_pot():
    r = Rules(6, bid_cards=2)
    state = ((1, 2, 4, 6), (1, 2, 3, 4), (2, 3, 5), (5,), 0, 0)  # pot 5: 1+4 sums to 5
    assert heuristic_mix("match", r, state, "a")[(1, 4)] == 1.0
    # pot 5 + 1 = 6: 2+4 sums to 6
    assert heuristic_mix("match+1", r, state, "a")[(2, 4)] == 1.0
    # B holds 1,2,3,4: 1+4 and 2+3 both sum to 5, each half
    mix = heuristic_mix("match", r, state, "b")
    assert mix[(1, 4)] == mix[(2, 3)] == 0.5


def test_two_card_proportional_bids_the_group_of_the_pots_rank():
    r = Rules(6, bid_cards=2)
    # pot 5 over a pile 2,3,6: r = 2 of N = 3 are smaller, P = 2 pairs (1,2) (4,6): group 2*2//4 = 1
    state = ((1, 2, 4, 6), (1, 2, 4, 6), (2, 3, 6), (5,), 0, 0)
    assert heuristic_mix("proportional", r, state, "a")[(4, 6)] == 1.0
    state = ((1, 2, 4, 6), (1, 2, 4, 6), (3, 5, 6), (2,), 0, 0)  # pot 2: r = 0, the lowest pair
    assert heuristic_mix("proportional", r, state, "a")[(1, 2)] == 1.0


def test_open_prizes_one_card_heuristics_are_the_classic_ones():
    from gops_solver.analysis.strategies import View, make_strategy
    # one open prize, one-card bids: the classic heuristics exactly
    r = Rules(6)
    state = ((1, 3, 4, 6), (2, 3, 5, 6), (1, 2, 5), (4,), 2, 1)
    for name in ("match", "match+1", "proportional"):
        want = make_strategy(name).distribution(View((1, 3, 4, 6), (2, 3, 5, 6), 6, (1, 2, 5), 1), 6)
        got = heuristic_mix(name, r, state, "a")
        assert {x[0]: p for x, p in got.items()} == pytest.approx(want)


# -- exact evaluation against the oracle ---------------------------------------------------------
CASES = [Rules(4, bid_cards=2), Rules(5, bid_cards=2, tie="discard"), Rules(4, open_prizes=2),
         Rules(4, open_prizes=3, order="descending"), Rules(5, open_prizes=2, tie="carry")]


@pytest.fixture(scope="module")
def sols():
    return {r: solve(r) for r in CASES}


@pytest.mark.parametrize("rules", CASES, ids=[r.describe() for r in CASES])
@pytest.mark.parametrize("a,b", [("match", "proportional"), ("match+1", "uniform"), ("proportional", "match+1"),
                                 ("match", "lowest")])
def test_exact_evaluation_equals_the_naive_oracle(sols, rules, a, b):
    ev = evaluate_variant(a, sols[rules], against=b)
    assert ev.vs_opponent.margin == pytest.approx(float(oracle_margin(rules, a, b)), abs=1e-12)
    assert ev.exploitability >= -1e-9


def test_cli_evaluate_and_simulate_take_the_new_heuristics():
    run = CliRunner()
    r = run.invoke(cli, ["evaluate", "-n", "4", "--bid-cards", "2", "--a", "proportional", "--b",
                         "match", "--json"])
    assert r.exit_code == 0, r.output
    r = run.invoke(cli, ["simulate", "-n", "4", "--open-prizes", "2", "--a", "match+1", "--b", "proportional",
                         "--games", "200", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output


def test_user_functions_are_refused_in_the_variants_in_one_line():
    r = CliRunner().invoke(cli, ["evaluate", "-n", "4", "--bid-cards", "2", "--a", "mymod:f"])
    assert r.exit_code == 2
    line = r.stderr.strip()
    assert "\n" not in line and "not called in the variants" in line
