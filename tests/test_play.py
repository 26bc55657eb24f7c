"""`gops play` and its library (gops_solver/analysis/play.py): scoring, the opponent, the prompt.

Score arithmetic is checked against RULES.md ("A round", "Tie rules"): the
pot is the revealed prize plus the carry; a tie under ``carry`` keeps the pot
for the next round except in the last round, where it is discarded; a tie
under ``discard`` discards it.
"""

import re

import numpy as np
import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve
from gops_solver.cli.commands import cli
from gops_solver.analysis.play import Game, Opponent, deal
from naive import naive_stage_matrix, naive_step


def run(args, text):
    return CliRunner().invoke(cli, [str(a) for a in args], input=text)


# -- the game library ---------------------------------------------------------------

def test_carry_accumulates_and_last_round_tie_is_discarded():
    # RULES.md worked example, shortened: ascending prizes 1, 2, 3 under carry
    g = Game(Rules(3, "carry", "points", "ascending"), (1, 2, 3))
    r = g.play(2, 2)  # tie: the 1 stays
    assert (r.pot, r.outcome, r.carried_out, r.discarded) == (1, 0, 1, 0)
    assert g.pot == 1 + 2 and g.carry == 1
    r = g.play(3, 1)  # A takes 1 + 2
    assert (r.pot, r.carried_in, r.outcome) == (3, 1, 1) and (g.score_a, g.score_b) == (3, 0)
    assert g.carry == 0 and g.pot == 3
    g2 = Game(Rules(3, "carry", "points", "ascending"), (1, 2, 3))
    g2.play(1, 1)
    g2.play(2, 2)  # two ties: the pot holds 1 + 2, then 3 joins it
    assert g2.pot == 6
    r = g2.play(3, 3)  # a tie in the last round discards the whole pot
    assert (r.discarded, r.carried_out, r.last_round) == (6, 0, True)
    assert (g2.score_a, g2.score_b) == (0, 0) and g2.over


def test_discard_rule_discards_every_tie():
    g = Game(Rules(3, "discard", "points", (2, 3, 1)), (2, 3, 1))
    r = g.play(1, 1)
    assert (r.discarded, r.carried_out) == (2, 0) and g.pot == 3
    g.play(2, 3)
    assert (g.score_a, g.score_b) == (0, 3)
    g.play(3, 2)
    assert (g.score_a, g.score_b, g.diff) == (1, 3, -2) and g.over


def test_bad_bids_change_nothing():
    g = Game(Rules(3, "carry", "points", "ascending"), (1, 2, 3))
    g.play(1, 2)
    before = (list(g.hand_a), list(g.hand_b), g.score_a, g.score_b, g.carry, len(g.history))
    for a, b in ((1, 1), (2, 2), (9, 1)):
        with pytest.raises(ValueError, match="does not hold"):
            g.play(a, b)
    assert before == (list(g.hand_a), list(g.hand_b), g.score_a, g.score_b, g.carry, len(g.history))
    with pytest.raises(ValueError, match="public order"):
        Game(Rules(3, "carry", "points", "ascending"), (3, 2, 1))
    with pytest.raises(ValueError, match="permutation"):
        Game(Rules(3), (1, 2, 2))


@pytest.mark.parametrize("tie", ["carry", "discard"])
def test_game_matches_the_oracle_step_on_random_plays(tie):
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(1, 7))
        g = deal(Rules(n, tie), rng)
        ha, hb, carry, diff = frozenset(range(1, n + 1)), frozenset(range(1, n + 1)), 0, 0
        for prize in g.prize_order:
            assert g.prize == prize and g.pot == carry + prize
            a, b = int(rng.choice(sorted(ha))), int(rng.choice(sorted(hb)))
            if rng.random() < 0.4 and ha & hb:
                a = b = int(rng.choice(sorted(ha & hb)))  # force ties
            g.play(a, b)
            ha, hb, carry, diff = naive_step(tie, ha, hb, carry + prize, diff, a, b)
            assert (set(g.hand_a), set(g.hand_b), g.carry, g.diff) == (ha, hb, carry, diff)
        assert g.over and g.score_a + g.score_b <= n * (n + 1) // 2


def test_value_given_up_against_the_oracle_matrix():
    # given up = value - (card-level stage row of the bid) @ B's optimal mix; 0 on A's support
    rules = Rules(5, "carry", "win")
    sol = solve(rules)
    opp = Opponent(rules, sol)
    rng = np.random.default_rng(5)
    checked_positive = 0
    for _ in range(12):
        g = deal(rules, rng)
        while not g.over:
            q = opp.query(g)
            cards_a, cards_b, M = naive_stage_matrix("carry", "win", g.hand_a, g.hand_b, g.pot, g.hidden,
                                                     g.diff, True)
            y = np.array([q.strategy_b[c] for c in cards_b])
            for i, c in enumerate(cards_a):
                expect = q.value - M[i] @ y
                assert q.value_given_up(c) == pytest.approx(max(expect, 0.0), abs=1e-9)
                if q.strategy_a[c] > 1e-9:
                    assert q.value_given_up(c) == 0.0
                checked_positive += q.value_given_up(c) > 1e-6
            g.play(int(rng.choice(g.hand_a)), opp.draw(q.strategy_b, rng))
    assert checked_positive > 0  # some bids really were mistakes
    with pytest.raises(ValueError, match="not in A's hand"):
        opp.query(deal(rules, rng)).value_given_up(13)


def test_opponent_from_tables_equals_sub_games():
    rules = Rules(5, "discard", "points", "descending")
    rng = np.random.default_rng(2)
    g = deal(rules, rng)
    with_tables, alone = Opponent(rules, solve(rules)), Opponent(rules)
    while not g.over:
        a, b = with_tables.query(g), alone.query(g)
        assert a.value == pytest.approx(b.value, abs=1e-9)
        g.play(g.hand_a[-1], with_tables.draw(a.strategy_b, rng))


def test_draw_follows_the_distribution():
    rng = np.random.default_rng(0)
    draws = [Opponent.draw({1: 0.0, 2: 0.25, 3: 0.75}, rng) for _ in range(4000)]
    assert 1 not in draws and abs(draws.count(3) / 4000 - 0.75) < 0.03


# -- the command ------------------------------------------------------------------------

ROUND = re.compile(r"Round (\d+)/(\d+): prize (\w+) revealed(?: \+ (\d+) carried from ties = pot (\d+)|; pot (\d+))")
BIDS = re.compile(r"you bid (\w+), I bid (\w+): .*score you (\d+) - me (\d+)")
CARD = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _card(text):
    return CARD.get(text, None) or int(text)


def _check_transcript(out, tie, n):
    """Recompute every pot and score of a transcript from its prizes and bids (RULES.md)."""
    rounds, bids = ROUND.findall(out), BIDS.findall(out)
    assert len(rounds) == len(bids) == n
    carry = sa = sb = 0
    for (rnd, total, prize, c_in, pot_c, pot_p), (a, b, shown_a, shown_b) in zip(rounds, bids):
        pot = _card(prize) + carry
        assert int(c_in or 0) == carry and int(pot_c or pot_p) == pot
        a, b = _card(a), _card(b)
        if a > b:
            sa += pot
        elif a < b:
            sb += pot
        carry = pot if a == b and tie == "carry" and int(rnd) < n else 0
        assert (int(shown_a), int(shown_b)) == (sa, sb)
    return sa, sb


@pytest.mark.parametrize("tie, objective, order", [("carry", "points", "random"), ("discard", "win", "descending"),
                                                   ("carry", "win", "3,1,4,2")])
def test_play_scripted_game_with_bad_input(tie, objective, order):
    # round r: a word, an empty line, a card outside the deck, the card played last round, then r
    n = 4
    text = "".join("xyz\n\n9\n" + (f"{r - 1}\n" if r > 1 else "") + f"{r}\n" for r in range(1, n + 1))
    r = run(["play", "-n", n, "--tie", tie, "--objective", objective, "--order", order, "--seed", 4, "--hint"], text)
    assert r.exit_code == 0, r.output
    out = r.output
    assert "unknown card 'xyz'" in out and "type one card from your hand" in out and "outside 1..4" in out
    assert "(already played)" in out
    assert out.count("hint ") == n and out.count("  value given up  ") == n
    sa, sb = _check_transcript(out, tie, n)
    verdict = "you win" if sa > sb else ("I win" if sa < sb else "a draw")
    assert f"final score      you {sa} - me {sb}: {verdict}" in out
    total = sum(float(x) for x in re.findall(r"value given up  (\d+\.\d+) \(", out))
    assert re.search(rf"value given up   {total:.4f} in total", out)


def test_play_one_card_tie_is_discarded():
    r = run(["play", "-n", 1, "--seed", 1], "A\n")
    assert r.exit_code == 0, r.output
    assert "tie in the last round, the pot of 1 is discarded" in r.output
    assert "final score      you 0 - me 0: a draw" in r.output


def test_play_same_seed_same_game_and_eof_ends_cleanly():
    a = run(["play", "-n", 5, "--seed", 9], "5\n4\n3\n2\n1\n")
    b = run(["play", "-n", 5, "--seed", 9], "5\n4\n3\n2\n1\n")
    assert a.exit_code == 0 and a.output == b.output
    cut = run(["play", "-n", 5, "--seed", 9], "5\n4\n")
    assert cut.exit_code == 0, cut.output
    assert "end of input: game abandoned in round 3" in cut.output and "Traceback" not in cut.output
    assert cut.output.startswith(a.output.split("your bid [A,2,3]")[0])  # no state lost before the end


def test_play_ctrl_c_ends_cleanly(monkeypatch):
    import gops_solver.cli.commands as cli_mod

    def interrupt(game):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_mod, "_ask_bid", interrupt)
    r = run(["play", "-n", 3, "--seed", 1], "")
    assert r.exit_code == 130 and "interrupted: game abandoned in round 1" in r.output


def test_play_from_a_solution_file_and_up_front_solve(tmp_path, monkeypatch):
    path = tmp_path / "s.gops"
    solve(Rules(4, "carry", "win"), out=path)
    r = run(["play", "--solution", path, "--seed", 3], "4\n3\n2\n1\n")
    assert r.exit_code == 0, r.output
    assert "n=4 tie=carry objective=win" in r.output and "final score" in r.output
    bad = run(["play", "--solution", path, "--tie", "discard"], "")
    assert bad.exit_code == 2 and bad.output.startswith("error: ") and "holds a solution for" in bad.output
    import gops_solver.analysis.play as play_mod
    monkeypatch.setattr(play_mod, "SUBGAME_MAX_N", 3)  # exercise the solve-once path on a small game
    again = run(["play", "-n", 4, "--objective", "win", "--seed", 3], "4\n3\n2\n1\n")
    assert again.exit_code == 0 and "solving the whole game once" in again.output
    assert again.output.split("seed 3", 1)[1] == r.output.split("seed 3", 1)[1]


def test_play_needs_cards():
    r = run(["play"], "")
    assert r.exit_code == 2 and "missing --cards" in r.output


# -- matches (RULES.md "Match formats") ---------------------------------------------------

from gops_solver.analysis.play import Match  # noqa: E402


# prizes 1, 2, 3 in ascending order: these bids give A 5 - 1, 1 - 5, 3 - 3, 0 - 0
WIN, LOSS, DRAW, TIES = ((1, 2, 3), (3, 1, 2)), ((3, 1, 2), (1, 2, 3)), ((2, 3, 1), (1, 2, 3)), ((1, 2, 3),) * 2


def _finished(rules, bids_a, bids_b):
    """A game of ``rules`` in public order with the given bids."""
    g = Game(rules, rules.sequence)
    for a, b in zip(bids_a, bids_b):
        g.play(a, b)
    return g


def test_match_session_sums_totals_over_three_games():
    rules = Rules(3, "carry", "win", "ascending", match="session")
    m = Match(rules)
    assert m.position() == {"game": 1, "match_score": 0} and not m.over
    assert m.record(_finished(rules, *LOSS)) == -1
    assert (m.total_a, m.total_b, m.position()) == (1, 5, {"game": 2, "match_score": -4})
    assert m.record(_finished(rules, *DRAW)) == 0
    assert (m.total_a, m.total_b, m.diff, m.game) == (4, 8, -4, 3) and not m.over
    assert m.record(_finished(rules, *WIN)) == 1  # game 3 won, but the totals decide: 9 - 9
    assert m.over and m.results == [(1, 5), (3, 3), (5, 1)] and (m.total_a, m.total_b) == (9, 9)
    assert m.result == 0 and m.replays == 0
    with pytest.raises(ValueError, match="match is over"):
        m.record(_finished(rules, *TIES))
    with pytest.raises(ValueError, match="not over"):
        Match(rules).record(Game(rules, rules.sequence))
    m = Match(rules)
    for bids in (WIN, TIES, LOSS):  # 5 - 1, 0 - 0, 1 - 5 ...
        m.record(_finished(rules, *bids))
    assert (m.total_a, m.total_b, m.result) == (6, 6, 0)
    m = Match(rules)
    for bids in (LOSS, WIN, WIN):  # lost game 1, the summed total wins: 11 - 7
        m.record(_finished(rules, *bids))
    assert (m.total_a, m.total_b, m.result) == (11, 7, 1)


def test_match_best_of_three_half_draws_and_majority():
    rules = Rules(3, "carry", "win", "ascending", match="best-of-3", draw="half")
    m = Match(rules)
    assert m.record(_finished(rules, *TIES)) == 0
    assert (m.wins_a, m.wins_b, m.position()) == (0.5, 0.5, {"game": 2, "match_score": (0.5, 0.5)})
    m.record(_finished(rules, *WIN))
    assert (m.wins_a, m.wins_b) == (1.5, 0.5) and not m.over  # 1.5 is no majority of 3: B can still share
    m.record(_finished(rules, *WIN))
    assert (m.wins_a, m.wins_b) == (2.5, 0.5) and m.over and m.result == 1
    m = Match(rules)
    m.record(_finished(rules, *WIN))
    m.record(_finished(rules, *WIN))
    assert m.over and m.game == 3 and (m.wins_a, m.wins_b) == (2, 0)  # 2 - 0: the third is not played
    m = Match(rules)
    m.record(_finished(rules, *LOSS))
    m.record(_finished(rules, *DRAW))
    assert not m.over and (m.wins_a, m.wins_b) == (0.5, 1.5)  # 1.5 is not a majority of 3: A can still share
    m.record(_finished(rules, *WIN))
    assert m.over and (m.wins_a, m.wins_b) == (1.5, 1.5) and m.result == 0 and m.game == 4


def test_match_best_of_replay_does_not_count_draws():
    rules = Rules(3, "carry", "win", "ascending", match="best-of-3", draw="replay")
    m = Match(rules)
    m.record(_finished(rules, *DRAW))  # a draw: replayed
    assert (m.wins_a, m.wins_b, m.game, m.replays) == (0, 0, 2, 1)
    assert m.position() == {"game": 2, "match_score": (0, 0)}
    m.record(_finished(rules, *WIN))
    m.record(_finished(rules, *TIES))
    assert not m.over and (m.wins_a, m.wins_b) == (1, 0)
    m.record(_finished(rules, *LOSS))
    m.record(_finished(rules, *WIN))
    assert m.over and m.result == 1 and m.game == 6 and m.replays == 2 and (m.wins_a, m.wins_b) == (2, 1)
    five = Match(Rules(3, "carry", "win", "ascending", match="best-of-5"))
    for bids in (WIN, WIN, LOSS):
        five.record(_finished(five.rules, *bids))
    assert not five.over
    five.record(_finished(five.rules, *WIN))
    assert five.over and five.result == 1
    single = Match(Rules(3, order="ascending"))
    assert single.position() == {} and not single.over
    single.record(_finished(single.rules, *TIES))
    assert single.over


@pytest.mark.parametrize("match, draw, n", [("session", "replay", 3), ("best-of-3", "half", 4)])
def test_opponent_queries_the_match_position(match, draw, n):
    rules = Rules(n, "carry", "win", match=match, draw=draw)
    sol = solve(rules)
    opp, rng, m = Opponent(rules, sol), np.random.default_rng(7), Match(rules)
    while not m.over:
        g = deal(rules, rng)
        pos = m.position()
        while not g.over:
            q = opp.query(g, pos)
            st = g.state()
            expect = sol.query(st.hand_a, st.hand_b, st.pot, st.prizes, st.diff, **pos)
            assert q.value == pytest.approx(expect.value, abs=1e-12) and q.strategy_b == expect.strategy_b
            g.play(int(rng.choice(g.hand_a)), opp.draw(q.strategy_b, rng))
        m.record(g)
    with pytest.raises(ValueError, match="needs its solution"):
        Opponent(rules).query(deal(rules, rng), {"game": 1, "match_score": 0})


GAME_HEAD = re.compile(r"=== Game (\d+) of the .*: match score (.*) ===")
GAME_OVER = re.compile(r"game (\d+) over      you (\d+) - me (\d+): (you win|I win|a draw)[^;]*; match score (.*)")


def _match_input(n, games):
    # each round: a word, an empty line, a card outside the deck, then the highest card left
    return "".join("xyz\n\n99\n" + f"{c}\n" for _ in range(games) for c in range(n, 0, -1))


def _games(out):
    """Split a match transcript into its games: (head, body, over) per game."""
    parts = GAME_HEAD.split(out)[1:]
    return [(int(parts[i]), parts[i + 2], parts[i + 1]) for i in range(0, len(parts), 3)]


@pytest.mark.parametrize("objective", ["points", "win"])
def test_play_session_sums_totals(objective):
    n, tie = 3, "carry"
    r = run(["play", "-n", n, "--match", "session", "--objective", objective, "--seed", 5], _match_input(n, 3))
    assert r.exit_code == 0, r.output
    out = r.output
    assert "solving the session match once" in out
    assert "unknown card 'xyz'" in out and "type one card from your hand" in out and "outside 1..3" in out
    games = _games(out)
    assert [g for g, _, _ in games] == [1, 2, 3]
    ta = tb = 0
    for g, body, head_score in games:
        assert head_score == f"you {ta} - me {tb} (totals)"  # the running totals going into the game
        sa, sb = _check_transcript(body, tie, n)
        over = GAME_OVER.search(body)
        ta, tb = ta + sa, tb + sb
        assert over.groups()[:3] == (str(g), str(sa), str(sb))
        assert over.group(5) == f"you {ta} - me {tb} (totals)"
    verdict = "you win the match" if ta > tb else ("I win the match" if ta < tb else "the match is shared")
    assert f"match result     {verdict}, you {ta} - me {tb} (totals)" in out
    assert re.search(r"games            3 \(\d+-\d+, \d+-\d+, \d+-\d+\)", out)
    total = sum(float(x) for x in re.findall(r"value given up  (\d+\.\d+) \(", out))
    unit = "expected session margin" if objective == "points" else "P(win match) - P(lose match)"
    assert f"value given up   {total:.4f} in total ({unit})" in out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_play_best_of_three_half_draws(seed):
    n, tie = 4, "discard"
    r = run(["play", "-n", n, "--tie", tie, "--match", "best-of-3", "--draw", "half", "--seed", seed],
            _match_input(n, 3))
    assert r.exit_code == 0, r.output
    out = r.output
    assert "objective=win order=random match=best-of-3 draw=half" in out  # best-of implies win
    games = _games(out)
    wa = wb = 0.0
    for i, (g, body, head_score) in enumerate(games):
        assert g == i + 1 and head_score == f"you {wa:g} - me {wb:g} (games won)"
        assert not (wa > 1.5 or wb > 1.5)  # a game is only played while the match is open
        sa, sb = _check_transcript(body, tie, n)
        wa += 1.0 if sa > sb else (0.5 if sa == sb else 0.0)
        wb += 1.0 if sb > sa else (0.5 if sa == sb else 0.0)
        assert GAME_OVER.search(body).group(5) == f"you {wa:g} - me {wb:g} (games won)"
    assert wa > 1.5 or wb > 1.5 or len(games) == 3  # over at a majority, or after 3 games
    verdict = "you win the match" if wa > wb else ("I win the match" if wa < wb else "the match is shared")
    assert f"match result     {verdict}, you {wa:g} - me {wb:g} (games won)" in out
    assert f"games            {len(games)} (" in out
    total = sum(float(x) for x in re.findall(r"value given up  (\d+\.\d+) \(", out))
    assert f"value given up   {total:.4f} in total (P(win match) - P(lose match))" in out


def test_play_match_end_of_input_and_bad_options():
    r = run(["play", "-n", 3, "--match", "session", "--seed", 1], "3\n2\n1\n3\n")
    assert r.exit_code == 0 and "end of input: match abandoned in game 2, round 2" in r.output
    assert "Traceback" not in r.output and "match result" not in r.output
    bad = run(["play", "-n", 3, "--match", "best-of-3", "--objective", "points"], "")
    assert bad.exit_code == 2 and "use objective win" in bad.output
    bad = run(["play", "-n", 3, "--match", "best-of-7"], "")
    assert bad.exit_code == 2 and "best-of-7" in bad.output
    bad = run(["play", "-n", 3, "--draw", "sometimes"], "")
    assert bad.exit_code == 2 and "sometimes" in bad.output
