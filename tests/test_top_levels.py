"""Top-levels files (gops_solver.engine.top, ``gops export --format solution``): the first rounds of a
solved game in one small file, answered exactly as the whole solution answers them.

Every decision of the rounds a file holds must give the whole solution's query bit for bit (value and
both strategies), whatever the source (a block store, an in-memory solve, another top-levels file); a
deeper state is solved as its own sub-game (equal to the whole solution to 1e-9, checked also against
the naive oracle) and says so. Then the file's promises: checksums refuse damage in one line, verify
recomputes what the file can recompute and names the level it cannot, and every refusal is one line.
"""

import json
import random

import numpy as np
import pytest
from click.testing import CliRunner

import naive
from gops_solver import Rules, load, solve
from gops_solver.cli.commands import cli
from gops_solver.engine.export import decision_states
from gops_solver.engine.storage import container_kind
from gops_solver.engine.top import check_rounds, top_levels, write_top


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], **kw)


def one_line_error(res, *words):
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ") and "Traceback" not in res.stderr
    for w in words:
        assert w in res.stderr, res.stderr


def state_args(st):
    _, ha, hb, pot, prizes, diff = st
    return ha, hb, pot, prizes, diff


def query_args(st):
    _, ha, hb, pot, prizes, diff = st
    return ["--hand-a", ",".join(map(str, ha)), "--hand-b", ",".join(map(str, hb)), "--pot", pot,
            "--prizes", ",".join(map(str, prizes)), "--diff", diff]


def assert_same_queries(top, whole, states):
    """Each state's query from ``top`` is ``whole``'s, bit for bit."""
    for st in states:
        a, b = top.query(*state_args(st)), whole.query(*state_args(st))
        assert a.value == b.value, st
        assert a.strategy_a == b.strategy_a and a.strategy_b == b.strategy_b, st


def deeper(rules, rounds, count, seed=0):
    """``count`` reachable states of round ``rounds + 1``, drawn with a seeded generator."""
    states = decision_states(rules, level=rules.n - rounds)
    return random.Random(seed).sample(states, min(count, len(states)))


@pytest.fixture(scope="module")
def store7(tmp_path_factory):
    """A block store of n = 7 discard/win and its top-levels file of two rounds, written by gops export."""
    folder = tmp_path_factory.mktemp("top")
    rules = Rules(7, "discard", "win")
    solve(rules, out=folder / "s7", memory="1GB")
    res = run("export", "-s", folder / "s7", "--format", "solution", "--rounds", 2, "-o", folder / "top7.gops")
    assert res.exit_code == 0, res.output
    return rules, folder / "s7", folder / "top7.gops", res.stdout


def test_export_writes_a_top_file_from_a_store(store7):
    rules, store, top, out = store7
    assert container_kind(top) == "top"
    lines = out.splitlines()
    assert lines[0] == f"rules    {rules.describe()}"
    sol = load(top)
    entries = sum(sol.space.size(k) for k in (7, 6, 5))
    assert lines[1] == (f"wrote    rounds 1..2 (the values of levels 7..5, {entries:,} entries) to {top}, solution, "
                        f"{top.stat().st_size:,} bytes ({8 * entries:,} raw)")
    assert sol.kind == "top" and sol.rounds_held == 2 and sol.top.levels == [7, 6, 5] == top_levels(7, 2)
    assert sol.value == load(store).value
    assert [sol.holds(k) for k in range(1, 8)] == [False] * 5 + [True] * 2
    assert "rounds=1..2" in repr(sol)


def test_every_state_of_the_rounds_held_is_the_stores_bit_for_bit(store7):
    rules, store, top, _ = store7
    assert_same_queries(load(top), load(store), decision_states(rules, rounds=2))


def test_export_from_the_top_file_is_the_stores(store7, tmp_path):
    _, store, top, _ = store7
    for src, name in ((top, "a.csv"), (store, "b.csv")):
        res = run("export", "-s", src, "--rounds", 2, "--format", "csv", "-o", tmp_path / name)
        assert res.exit_code == 0, res.output
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    deep = run("export", "-s", top, "--rounds", 3, "--format", "csv", "-o", tmp_path / "c.csv")
    one_line_error(deep, "holds rounds 1..2", "not round 3", "--rounds 2 or fewer")
    every = run("export", "-s", top, "--format", "npz", "-o", tmp_path / "d.npz")
    one_line_error(every, "holds rounds 1..2")
    assert not (tmp_path / "c.csv").exists()
    with pytest.raises(ValueError, match="rounds=2 or fewer"):
        load(top).to_frame(rounds=3)


def test_a_deeper_state_is_solved_as_its_sub_game_and_says_so(store7):
    rules, store, top, _ = store7
    sol, whole = load(top), load(store)
    for st in deeper(rules, 2, 6):
        a, b = sol.query(*state_args(st)), whole.query(*state_args(st))
        assert abs(a.value - b.value) <= 1e-9, st
        for got, want in ((a.strategy_a, b.strategy_a), (a.strategy_b, b.strategy_b)):
            assert got.keys() == want.keys() and max(abs(got[c] - want[c]) for c in got) <= 1e-9, st
    st = deeper(rules, 2, 1)[0]
    res = run("query", "-s", top, *query_args(st), "--json")
    assert res.exit_code == 0, res.output
    note = f"this state is below the rounds {top} holds (1-2): solved as its own sub-game"
    assert res.stderr == f"note: {note}\n"
    got = json.loads(res.stdout)
    assert got["subgame"] is True and got["note"] == note
    assert abs(got["value"] - whole.query(*state_args(st)).value) <= 1e-9
    text = run("query", "-s", top, *query_args(st))
    assert text.exit_code == 0 and text.stderr == f"note: {note}\n" and text.stdout.startswith("rules")
    held = run("query", "-s", top, *query_args(decision_states(rules, level=6)[3]), "--json")
    assert held.exit_code == 0 and held.stderr == "" and json.loads(held.stdout)["subgame"] is False
    assert "note" not in json.loads(held.stdout)


def test_a_file_from_an_in_memory_solve(tmp_path):
    rules = Rules(6, "discard", "win")
    whole = solve(rules)
    res = run("export", "--cards", 6, "--tie", "discard", "--objective", "win", "--format", "solution",
              "--rounds", 2, "-o", tmp_path / "cli.gops", "--json")
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["levels"] == [6, 5, 4] and info["bytes"] == (tmp_path / "cli.gops").stat().st_size
    assert info["raw_bytes"] == 8 * info["entries"] == 8 * sum(whole.space.size(k) for k in (6, 5, 4))
    whole.save(tmp_path / "py.gops", rounds=2)
    for path in ("cli.gops", "py.gops"):
        assert_same_queries(load(tmp_path / path), whole, decision_states(rules, rounds=2))


@pytest.mark.parametrize("tie, objective, order, rounds", [("carry", "points", "random", 2),
                                                           ("discard", "points", "random", 3),
                                                           ("carry", "win", "random", 1),
                                                           ("carry", "win", "ascending", 3)])
def test_points_carry_and_a_fixed_order(tmp_path, tie, objective, order, rounds):
    rules = Rules(6, tie, objective, order)
    whole = solve(rules)
    write_top(tmp_path / "t.gops", whole, rounds)
    top = load(tmp_path / "t.gops", rules=rules)
    states = decision_states(rules, rounds=rounds)
    assert_same_queries(top, whole, random.Random(1).sample(states, min(400, len(states))))
    for st in deeper(rules, rounds, 3):
        assert abs(top.query(*state_args(st)).value - whole.query(*state_args(st)).value) <= 1e-9
    assert top.value == whole.value


@pytest.mark.parametrize("tie, objective", [("carry", "points"), ("discard", "win")])
def test_the_naive_oracle_agrees_above_and_below_the_rounds_held(tmp_path, tie, objective):
    rules = Rules(4, tie, objective)
    write_top(tmp_path / "t.gops", solve(rules), 2)
    top = load(tmp_path / "t.gops")
    for st in decision_states(rules, rounds=2) + deeper(rules, 2, 8):
        _, ha, hb, pot, prizes, diff = st
        want = naive.naive_value(tie, objective, ha, hb, pot, prizes, diff, True)
        assert abs(top.query(*state_args(st)).value - want) <= 1e-9, st
    assert abs(top.value - naive.naive_game_value(4, tie, objective, "random")) <= 1e-9


def test_a_top_file_of_a_top_file(store7, tmp_path):
    rules, store, top, _ = store7
    res = run("export", "-s", top, "--format", "solution", "--rounds", 1, "-o", tmp_path / "one.gops")
    assert res.exit_code == 0, res.output
    one = load(tmp_path / "one.gops")
    assert one.rounds_held == 1 and one.top.levels == [7, 6]
    assert_same_queries(one, load(store), decision_states(rules, rounds=1))
    load(top).save(tmp_path / "again.gops")  # a top file saves as itself
    assert (tmp_path / "again.gops").read_bytes() == top.read_bytes()


def test_refusals_are_one_line(store7, tmp_path):
    rules, store, top, _ = store7
    out = tmp_path / "t.gops"
    for r in (0, 7, -1):
        one_line_error(run("export", "-s", store, "--format", "solution", "--rounds", r, "-o", out), "outside 1..6")
    one_line_error(run("export", "-s", store, "--format", "solution", "-o", out), "needs --rounds R")
    one_line_error(run("export", "-s", store, "--format", "solution", "--rounds", 2, "--level", 6, "-o", out),
                   "drop --level")
    one_line_error(run("export", "-s", store, "--format", "solution", "--rounds", 2, "-o", "-"), "binary")
    (tmp_path / "folder").mkdir()
    one_line_error(run("export", "-s", store, "--format", "solution", "--rounds", 2, "-o", tmp_path / "folder"),
                   "directory")
    one_line_error(run("export", "-s", top, "--format", "solution", "--rounds", 3, "-o", out),
                   "holds rounds 1..2, not 3")
    one_line_error(run("export", "--cards", 1, "--format", "solution", "--rounds", 1, "-o", out), "one-card game")
    unfinished = tmp_path / "s4"
    solve(Rules(4, "discard", "win"), out=unfinished, memory="1GB")
    (unfinished / "complete.json").unlink()
    one_line_error(run("export", "-s", unfinished, "--format", "solution", "--rounds", 1, "-o", out),
                   "unfinished solve", "--resume")
    assert not out.exists()
    with pytest.raises(ValueError, match="session"):
        solve(Rules(4, match="session")).save(out, rounds=1)
    with pytest.raises(ValueError, match="not a whole number"):
        check_rounds(rules, 1.5)
    with pytest.raises(ValueError, match="holds a solution for"):
        load(top, rules=Rules(7, "carry", "win"))
    one_line_error(run("evaluate", "-s", top, "-a", "match", "-q"), "holds the top levels 7..5", "whole solution")
    with pytest.raises(ValueError, match="not level 4"):
        load(top).tables[4]


def _flip(src, dst, offset):
    data = bytearray(src.read_bytes())
    data[offset] ^= 0x40
    dst.write_bytes(bytes(data))


def test_a_damaged_file_is_refused_in_one_line(store7, tmp_path):
    rules, _, top, _ = store7
    st = decision_states(rules, rounds=1)[0]
    size = top.stat().st_size
    cases = {"block": (size - 50, "checksum of block"), "header": (40, "header checksum fails"),
             "padding": (4000, "nonzero bytes")}
    for name, (offset, words) in cases.items():
        bad = tmp_path / f"{name}.gops"
        _flip(top, bad, offset)
        one_line_error(run("query", "-s", bad, *query_args(st)), str(bad), words)
    short = tmp_path / "short.gops"
    short.write_bytes(top.read_bytes()[:-10])
    one_line_error(run("query", "-s", short, *query_args(st)), "truncated")
    one_line_error(run("verify", "-s", tmp_path / "block.gops"), "checksum of block")
    # unchecked on load: the block's own checksum still refuses it when it is read
    with pytest.raises(ValueError, match="checksum of block"):
        load(tmp_path / "block.gops", check=False).tables[5]


def test_verify_recomputes_what_the_file_can(store7, tmp_path):
    _, _, top, _ = store7
    res = run("verify", "-s", top, "--json")
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["ok"] and got["checked_levels"] == [7, 6] and got["unchecked_levels"] == [5]
    assert "level 5, the lowest this file holds" in got["certifies"] and "levels 7..6" in got["certifies"]
    text = run("verify", "-s", top, "--sample", 300)
    assert text.exit_code == 0 and "300 sampled slots of levels 7..6" in text.stdout
    # a value altered before writing (its checksums then match) is found by recomputing it
    rules = Rules(6, "discard", "win")
    whole = solve(rules)
    k = 5
    slot = int(np.flatnonzero(~np.isnan(whole.tables[k]))[7])
    whole.tables[k][slot] += 0.25
    write_top(tmp_path / "bad.gops", whole, 2)
    bad = run("verify", "-s", tmp_path / "bad.gops", "--json")
    assert bad.exit_code == 1 and json.loads(bad.stdout)["worst"]["level"] == k


def test_info_says_which_rounds_a_file_holds(store7):
    _, store, top, _ = store7
    res = run("info", "-s", top, "--json")
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["kind"] == "top" and got["rounds"] == 2 and got["levels"] == [7, 6, 5]
    assert got["bytes"] == top.stat().st_size < got["raw_bytes"]
    text = run("info", "-s", top).stdout
    assert "holds          rounds 1..2 exactly: the values of levels 7..5" in text
    assert "holds          every round (1..7)" in run("info", "-s", store).stdout
    one_line_error(run("info", "-s", top, "--cards", 7), "drop")


def test_the_explorer_reads_the_rounds_held_and_solves_below(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from gops_solver.explore.server import Explorer, create_app
    rules = Rules(6, "discard", "win")
    path = tmp_path / "t.gops"
    write_top(path, solve(rules), 1)
    client = TestClient(create_app(Explorer(load(path), str(path))), follow_redirects=False)
    rule = {"cards": "6", "tie": "discard", "objective": "win", "order": "random"}
    start = client.get("/api/position", params={**rule, "hand_a": "1,2,3,4,5,6", "hand_b": "1,2,3,4,5,6",
                                                 "pot": "4", "prizes": "1,2,3,5,6", "diff": "0"}).json()
    assert start["query"]["subgame"] is False and "note" not in start["query"]
    step = client.get("/api/step", params={**rule, "hand_a": "1,2,3,4,5,6", "hand_b": "1,2,3,4,5,6", "pot": "4",
                                           "prizes": "1,2,3,5,6", "diff": "0", "bid_a": "5", "bid_b": "2",
                                           "next": "6"}).json()
    below = client.get("/api/position?" + step["params"]).json()
    assert below["query"]["subgame"] is True and "below the rounds" in below["query"]["note"]
    whole = solve(rules).query([1, 2, 3, 4, 6], [1, 3, 4, 5, 6], 6, [1, 2, 3, 5], 4)
    assert abs(below["query"]["value"] - whole.value) <= 1e-9
    first = client.get("/api/first", params=rule)
    assert first.status_code == 200 and len(first.json()["rows"]) == 6
    assert client.get("/api/info").json()["rounds_held"] == 1
