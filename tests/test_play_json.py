"""``gops play --json``: a transcript in strict JSON lines on stdout (start, rounds, games, end), prompts and
narration on stderr; two strategies play each other with --a/--b, or a person types A's bids."""

import json

import pytest
from click.testing import CliRunner

from gops_solver.cli.commands import cli


def strict(text):
    """Every line of ``text`` as a JSON object; NaN or Infinity fail (strict JSON)."""
    def bad(name):
        raise AssertionError(f"non-strict JSON constant {name}")
    lines = [line for line in text.splitlines()]
    assert lines and all(line.strip() for line in lines)
    return [json.loads(line, parse_constant=bad) for line in lines]


def play(*args, input=None):
    r = CliRunner().invoke(cli, ["play", *map(str, args), "--json"], input=input)
    assert r.exit_code == 0, r.output + r.stderr
    return strict(r.stdout), r.stderr


def check_classic(lines, rules_n, tie="carry"):
    start, *rounds, end = lines
    assert start["type"] == "start" and start["rules"]["n"] == rules_n
    assert [r["type"] for r in rounds] == ["round"] * rules_n and end["type"] == "end"
    # replay the rounds by RULES.md: the higher bid takes the pot, a tie carries it (not in the last round)
    a = b = carry = 0
    for i, r in enumerate(rounds):
        assert r["round"] == i + 1 and r["carried_in"] == carry and r["pot"] == r["prize"] + carry
        if r["bid_a"] > r["bid_b"]:
            a += r["pot"]
        elif r["bid_b"] > r["bid_a"]:
            b += r["pot"]
        carry = r["pot"] if r["bid_a"] == r["bid_b"] and tie == "carry" and i < rules_n - 1 else 0
        assert (r["score_a"], r["score_b"]) == (a, b)
        assert r["outcome"] == ("A" if r["bid_a"] > r["bid_b"] else "B" if r["bid_b"] > r["bid_a"] else "tie")
    assert sorted(r["bid_a"] for r in rounds) == list(range(1, rules_n + 1))
    assert sorted(r["prize"] for r in rounds) == list(range(1, rules_n + 1))
    assert (end["score_a"], end["score_b"], end["diff"]) == (a, b, a - b)
    assert end["value_given_up"] == pytest.approx(sum(r["value_given_up"] for r in rounds))


def test_strategies_against_strategies_need_no_input():
    lines, err = play("-n", 5, "--a", "highest", "--b", "lowest", "--seed", 4)
    check_classic(lines, 5)
    assert lines[0]["a"] == "highest" and lines[0]["b"] == "lowest"
    assert all(r["bid_a"] == 5 - i for i, r in enumerate(lines[1:-1]))  # highest plays 5, 4, 3, ...
    assert all(r["bid_b"] == i + 1 for i, r in enumerate(lines[1:-1]))  # lowest plays 1, 2, 3, ...
    assert "A plays highest, B plays lowest." in err


def test_the_same_seed_gives_the_same_transcript():
    one, _ = play("-n", 5, "--a", "uniform", "--b", "equilibrium", "--seed", 9, "--tie", "discard")
    two, _ = play("-n", 5, "--a", "uniform", "--b", "equilibrium", "--seed", 9, "--tie", "discard")
    assert one == two
    check_classic(one, 5, tie="discard")


def test_a_person_types_the_bids_and_stdout_holds_json_only():
    lines, err = play("-n", 4, "--seed", 3, input="4\n3\n2\n1\n")
    check_classic(lines, 4)
    assert [r["bid_a"] for r in lines[1:-1]] == [4, 3, 2, 1]
    assert "your bid [" in err and "Round 1/4" in err  # the prompts and narration: stderr


def test_end_of_input_ends_with_an_abandoned_summary():
    lines, _ = play("-n", 4, "--seed", 3, input="4\n")
    assert lines[-1]["type"] == "end" and lines[-1]["abandoned"] == "end of input" and lines[-1]["round"] == 2
    assert [x["type"] for x in lines] == ["start", "round", "end"]


def test_a_match_has_a_line_per_game():
    lines, _ = play("-n", 4, "--match", "best-of-3", "--draw", "half", "--a", "equilibrium", "--b", "lowest",
                    "--seed", 1)
    games = [x for x in lines if x["type"] == "game"]
    assert games and [g["game"] for g in games] == list(range(1, len(games) + 1))
    end = lines[-1]
    assert end["games"] == [[g["score_a"], g["score_b"]] for g in games]
    assert end["match_score"] == games[-1]["match_score"]
    assert all("game" in x for x in lines if x["type"] == "round")


def test_two_card_bids_play_pairs():
    lines, _ = play("-n", 5, "--bid-cards", "2", "--a", "match", "--b", "proportional", "--seed", 2)
    start, *rounds, end = lines
    assert start["rules"]["bid_cards"] == 2 and len(rounds) == 3  # ceil(5 / 2) rounds
    assert [len(r["bid_a"]) for r in rounds] == [2, 2, 1]
    a = b = 0
    for r in rounds:
        sa, sb = sum(r["bid_a"]), sum(r["bid_b"])
        gain = r["carried_in"] + (r["row"][0] if sa != sb else 0)
        a += gain if sa > sb else 0
        b += gain if sb > sa else 0
        assert (r["score_a"], r["score_b"]) == (a, b)
    assert (end["score_a"], end["score_b"]) == (a, b)


def test_open_prizes_with_a_person():
    lines, err = play("-n", 4, "--open-prizes", "2", "--seed", 5, input="4\n3\n2\n1\n4\n3\n2\n1\n")
    start, *rounds, end = lines
    assert len(rounds) == 4 and end["type"] == "end" and all(len(r["row"]) <= 2 for r in rounds)
    assert [r["bid_a"] for r in rounds] == [[4], [3], [2], [1]]
    assert "your bid [" in err


def test_a_bad_strategy_is_one_line():
    r = CliRunner().invoke(cli, ["play", "-n", "4", "--a", "bogus", "--json"])
    assert r.exit_code == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "unknown strategy 'bogus'" in r.stderr
    r = CliRunner().invoke(cli, ["play", "-n", "4", "--bid-cards", "2", "--a", "mod:f"])
    assert r.exit_code == 2 and "not called in the variants" in r.stderr
