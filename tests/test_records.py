"""Game records: written by simulate and play, validated on reading, converted from CSV and OpenSpiel."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gops_solver import Rules, read_records
from gops_solver.analysis.records import RecordWriter
from gops_solver.analysis.simulate import simulate
from gops_solver.opponent.records import RecordError, convert

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "records.schema.json"


def _gops(*args, cwd, stdin=None):
    return subprocess.run([sys.executable, "-m", "gops_solver", *args], cwd=cwd, capture_output=True, text=True,
                          input=stdin, timeout=600)


def _validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_simulate_records_round_trip_and_same_result(tmp_path):
    rules = Rules(5, "carry", "points")
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as w:
        rec = simulate("uniform", "match", rules, 300, seed=4, record=w)
    plain = simulate("uniform", "match", rules, 300, seed=4)
    assert (rec.margin, rec.win, rec.draw) == (plain.margin, plain.win, plain.draw)  # the same draws
    games = read_records(path)
    assert len(games) == 300 and games.rules == rules
    assert np.mean([g.margin for g in games]) == pytest.approx(plain.margin, abs=1e-12)
    df = games.rounds
    assert len(df) == 300 * 5 and list(df.columns[:2]) == ["game", "round"]
    assert (df.seat_a == "uniform").all() and (df.seat_b == "match").all()
    # match bids the card closest to the pot: check it on the table
    first = df[df["round"] == 1]
    assert (first.bid_b == first.prize).all()
    v = _validator()
    for line in path.read_text().splitlines():
        v.validate(json.loads(line))
    # a second run appends, the file stays valid
    with RecordWriter(path) as w:
        simulate("highest", "lowest", rules, 10, seed=1, record=w)
    assert len(read_records(path)) == 310


def test_python_strategy_path_records(tmp_path):
    rules = Rules(4, "discard", "win", "descending")
    with RecordWriter(tmp_path / "p.jsonl") as w:
        res = simulate("stratfuncs:lead_when_ahead", "uniform", rules, 40, seed=3, record=w)
    games = read_records(tmp_path / "p.jsonl")
    assert [g.prizes for g in games] == [(4, 3, 2, 1)] * 40
    assert np.mean([np.sign(g.margin) for g in games]) == pytest.approx(res.win - res.loss)


def test_cli_simulate_and_play_record(tmp_path):
    r = _gops("simulate", "--a", "equilibrium", "--b", "match", "--games", "50", "-n", "4", "--record", "-",
              "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 50 and all(json.loads(x)["seats"] == {"a": "equilibrium", "b": "match"} for x in lines)
    assert "margin" in r.stderr  # the summary moves to stderr when the records stream
    r = _gops("play", "-n", "3", "--seed", "5", "--record", "g.jsonl", cwd=tmp_path, stdin="1\n2\n3\n")
    assert r.returncode == 0, r.stderr
    (game,) = read_records(tmp_path / "g.jsonl")
    assert game.bids_a == (1, 2, 3) and game.seat_a == "human"
    _validator().validate(json.loads((tmp_path / "g.jsonl").read_text()))


def test_concurrent_appends_keep_whole_lines(tmp_path):
    path = tmp_path / "c.jsonl"
    code = ("import sys; from gops_solver import Rules; from gops_solver.analysis.records import RecordWriter;"
            "from gops_solver.analysis.simulate import simulate;"
            "w = RecordWriter(sys.argv[1]); simulate('uniform', 'uniform', Rules(7), 3000, seed=int(sys.argv[2]),"
            " record=w); w.close()")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(s)]) for s in range(3)]
    assert all(p.wait(timeout=600) == 0 for p in procs)
    assert len(read_records(path)) == 9000


def _line(rounds, rules=None):
    rules = rules or {"n": 3, "tie": "carry", "objective": "points", "order": "random"}
    return json.dumps({"format": "gops-record", "version": 1, "rules": rules, "seats": {"a": "x", "b": "y"},
                       "rounds": rounds})


def _r(prize, a, b, **kw):
    return {"prize": prize, "bid_a": a, "bid_b": b, **kw}


GOOD = [_r(2, 1, 2), _r(3, 2, 1), _r(1, 3, 3)]


@pytest.mark.parametrize("rounds, message", [
    ([_r(2, 1, 2), _r(3, 1, 1), _r(1, 3, 3)], "game 2 (line 2) round 2: A bids 1, which is bid before"),
    ([_r(2, 1, 2), _r(3, 2, 4), _r(1, 3, 3)], "round 2: B bids 4, which is not a card of 1..3"),
    ([_r(2, 1, 2), _r(4, 2, 1), _r(1, 3, 3)], "round 2: prize 4 is not in the prize set 1..3"),
    ([_r(2, 1, 2), _r(2, 2, 1), _r(1, 3, 3)], "round 2: prize 2 was revealed before"),
    ([_r(2, 1, 2, score_b=3), _r(3, 2, 1), _r(1, 3, 3)], "round 1: score_b is 3, but the rules (carry ties) give 2"),
    ([_r(2, 2, 2), _r(3, 1, 3, pot=3), _r(1, 3, 1)], "round 2: pot is 3, but the rules (carry ties) give 5"),
    (GOOD[:2], "game 2 (line 2): 2 rounds; a game of n=3 has 3"),
])
def test_illegal_records_are_refused_naming_game_and_round(tmp_path, rounds, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(_line(GOOD) + "\n" + _line(rounds) + "\n")
    with pytest.raises(RecordError) as err:
        read_records(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_bad_record_lines(tmp_path):
    path = tmp_path / "bad.jsonl"
    for text, message in [("{oops", "not JSON"), (json.dumps({"format": "x"}), "not a gops record"),
                          (_line(GOOD).replace('"version": 1', '"version": 9'), "record version 9"),
                          (_line(GOOD, {"n": 3, "tie": "carry", "objective": "points", "order": "random",
                                        "bid_cards": 2}), "classic two-player")]:
        path.write_text(text + "\n")
        with pytest.raises(RecordError, match=message):
            read_records(path)


def test_cli_refuses_bad_records_in_one_line_and_writes_nothing(tmp_path):
    (tmp_path / "bad.jsonl").write_text(_line([_r(2, 1, 2), _r(3, 1, 1), _r(1, 3, 3)]) + "\n")
    r = _gops("model", "fit", "bad.jsonl", "--player", "b", "--out", "m.json", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "game 1 (line 1) round 2" in r.stderr
    assert not (tmp_path / "m.json").exists()
    (tmp_path / "bad.csv").write_text("game,round,prize,bid_a,bid_b\n1,1,1,1,1\n1,2,2,1,2\n1,3,3,3,3\n")
    r = _gops("records", "convert", "--from", "csv", "bad.csv", "--out", "c.jsonl", "-n", "3", cwd=tmp_path)
    assert r.returncode == 2 and "bad.csv game 1 round 2: A bids 1" in r.stderr
    assert not (tmp_path / "c.jsonl").exists()


def test_convert_csv(tmp_path):
    rows = ["game,round,prize,bid_a,bid_b,comment", "g1,2,1,1,3,x", "g1,1,3,3,2,", "g1,3,2,2,1,",
            "g2,1,2,2,2,", "g2,2,1,1,1,", "g2,3,3,3,3,"]
    (tmp_path / "in.csv").write_text("\n".join(rows) + "\n")
    rules = Rules(3, "carry", "points")
    assert convert("csv", tmp_path / "in.csv", rules, str(tmp_path / "out.jsonl"), seats=("ann", "bob")) == 2
    g1, g2 = read_records(tmp_path / "out.jsonl")
    assert g1.prizes == (3, 1, 2) and g1.bids_a == (3, 1, 2) and g1.seat_b == "bob"
    assert (g1.scores_a[-1], g1.scores_b[-1]) == (5, 1)
    assert g2.pots == (2, 3, 6) and g2.margin == 0  # carried ties; the last round's tie discards the pot
    # the command: a note on stderr that -q drops
    r = _gops("records", "convert", "--from", "csv", "in.csv", "--out", "c.jsonl", "-n", "3", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr.strip() == "wrote 2 games to c.jsonl"
    r = _gops("records", "convert", "--from", "csv", "in.csv", "--out", "q.jsonl", "-n", "3", "-q", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "" and len(read_records(tmp_path / "q.jsonl")) == 2


def _openspiel_histories(n, order, games, seed):
    """Random goofspiel playouts in pyspiel: (history, returns) per game."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": order, "imp_info": False,
                                           "returns_type": "point_difference"})
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
            else:
                s.apply_actions([int(rng.choice(s.legal_actions(p))) for p in (0, 1)])
        out.append((s.history(), s.returns()))
    return out


@pytest.mark.parametrize("order", ["random", "ascending", "descending"])
def test_convert_openspiel_matches_pyspiel(tmp_path, order):
    n = 5
    plays = _openspiel_histories(n, order, 40, seed=7)
    (tmp_path / "h.txt").write_text("\n".join(" ".join(map(str, h)) for h, _ in plays) + "\n")
    rules = Rules(n, "discard", "points", order)
    assert convert("openspiel", tmp_path / "h.txt", rules, str(tmp_path / "o.jsonl")) == 40
    games = read_records(tmp_path / "o.jsonl")
    # OpenSpiel's point_difference return is a player's points minus the players' mean: half the margin
    assert [g.margin for g in games] == [round(2 * ret[0]) for _, ret in plays]
    for g, (h, _) in zip(games, plays):
        step = 3 if order == "random" else 2
        assert list(g.bids_a[:n - 1]) == [a + 1 for a in h[step - 2::step]]
    with pytest.raises(RecordError, match="discards tied prizes"):
        convert("openspiel", tmp_path / "h.txt", Rules(n, "carry"), str(tmp_path / "x.jsonl"))
    assert not os.path.exists(tmp_path / "x.jsonl")


def test_the_docs_page_shows_the_schema_file():
    page = (SCHEMA.parent / "records.md").read_text()
    start = page.index("```json\n") + len("```json\n")
    assert json.loads(page[start:page.index("```", start)]) == json.loads(SCHEMA.read_text())
