"""Opponent models: EM recovers known mixtures, tabular backoff, model files as strategies, bad input."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gops_solver import Rules, fit_model, read_records, solve
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.models import ModelError, ModelWarning
from gops_solver.opponent.fit import read_model
from gops_solver.analysis.records import RecordWriter
from gops_solver.analysis.simulate import simulate
from gops_solver.analysis.strategies import CODE_TABLE, Strategy, View, make_strategy

RULES = Rules(6, "carry", "points")


@pytest.fixture(scope="module")
def sol():
    return solve(RULES)


@pytest.fixture(scope="module")
def match_records(tmp_path_factory, sol):
    path = tmp_path_factory.mktemp("m") / "match.jsonl"
    with RecordWriter(path) as w:
        simulate("equilibrium", "match", RULES, 2000, seed=1, solution=sol, record=w)
    return path


def _strict(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def _gops(*args, cwd):
    return subprocess.run([sys.executable, "-m", "gops_solver", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_fit_recovers_match_against_the_equilibrium(match_records, sol):
    m = fit_model(read_records(match_records), player="b", solution=sol)
    w = dict(zip(m.components, m.weights))
    assert w["match"] >= 0.9
    assert math.isfinite(m.heldout_loglik_per_round) and m.heldout_loglik_per_round <= 0
    assert m.loglik_per_round <= 0
    # A (the equilibrium) is told apart from B's match
    a = fit_model(match_records, player="a", kind="mixture", solution=sol)
    assert dict(zip(a.components, a.weights))["equilibrium"] >= 0.9


def test_fit_recovers_highest(tmp_path, sol):
    with RecordWriter(tmp_path / "h.jsonl") as w:
        simulate("uniform", "highest", RULES, 500, seed=2, record=w)
    m = fit_model(tmp_path / "h.jsonl", player="b", solution=sol)
    assert dict(zip(m.components, m.weights))["highest"] >= 0.9
    assert -1e-9 >= m.heldout_loglik_per_round > -0.1  # almost every bid is certain, up to the tremble


def test_em_recovers_known_weights(tmp_path, sol):
    path = tmp_path / "mix.jsonl"
    with RecordWriter(path) as w:
        simulate("uniform", "match", RULES, 2100, seed=3, record=w)
        simulate("uniform", "uniform", RULES, 900, seed=4, record=w)
    m = fit_model(path, player="b", kind="mixture", solution=sol)
    w = dict(zip(m.components, m.weights))
    assert w["match"] == pytest.approx(0.7, abs=0.05) and w["uniform"] == pytest.approx(0.3, abs=0.05)
    # held-out below in-sample, both finite
    assert m.heldout_loglik_per_round <= m.loglik_per_round + 1e-3 < 0


def test_tabular_model_learns_what_no_component_plays(tmp_path):
    # bidding the second-lowest card (the lowest when one is left) is no component: the table learns it
    with RecordWriter(tmp_path / "s.jsonl") as w:
        simulate("uniform", str(Path(__file__).parent / "modelfuncs.py") + ":second_lowest", RULES, 600, seed=5,
                 record=w)
    m = fit_model(tmp_path / "s.jsonl", player="b", strategies=["uniform", "match", "highest", "lowest"])
    assert m.kind == "tabular"  # auto: the held-out likelihood favours the table
    assert m.fit["tabular_heldout_loglik_per_round"] > m.fit["mixture_heldout_loglik_per_round"] + 0.5
    p = m(View((1, 3, 5), (2, 4, 6), 4, (1, 6), 2))
    assert p[3] > 0.9 and sum(p.values()) == pytest.approx(1)


def test_model_file_is_a_strategy(tmp_path, match_records, sol):
    m = fit_model(match_records, player="b", kind="tabular", solution=sol)
    m.save(tmp_path / "m.json")
    s = make_strategy(str(tmp_path / "m.json"), sol)
    assert s.code == CODE_TABLE
    view = View((1, 2, 4), (3, 5, 6), 4, (2, 6), -3)
    assert s.distribution(view, 6) == pytest.approx(read_model(tmp_path / "m.json")(view))
    # a model of match plays close to match (the tremble and the table's smoothing aside)
    got = evaluate(s, RULES, against="equilibrium", solution=sol)
    assert got.vs_opponent.margin == pytest.approx(
        evaluate("match", RULES, against="equilibrium", solution=sol).vs_opponent.margin, abs=0.3)


def test_model_read_in_one_batch_a_level_agrees_with_the_per_decision_path(tmp_path):
    # evaluate reads a model file in one batch a level; the per-decision Python path (a minute at
    # n = 6) must give the same figures: one deck smaller, the same code paths
    rules = Rules(5, "carry", "points")
    sol5 = solve(rules)
    with RecordWriter(tmp_path / "r.jsonl") as w:
        simulate("equilibrium", "match", rules, 1000, seed=2, solution=sol5, record=w)
    fit_model(tmp_path / "r.jsonl", player="b", kind="tabular", solution=sol5).save(tmp_path / "m.json")
    s = make_strategy(str(tmp_path / "m.json"), sol5)
    assert s.code == CODE_TABLE
    plain = Strategy("plain", CODE_TABLE, func=read_model(tmp_path / "m.json"))
    got = evaluate(s, rules, against="equilibrium", solution=sol5)
    want = evaluate(plain, rules, against="equilibrium", solution=sol5)
    assert got.vs_opponent.margin == pytest.approx(want.vs_opponent.margin, abs=1e-9)
    assert got.exploitability == pytest.approx(want.exploitability, abs=1e-9)


def test_cli_fit_show_and_evaluate(tmp_path, match_records):
    r = _gops("model", "fit", str(match_records), "--player", "b", "--out", "m.json", "--json", "--folds", "3",
              cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = _strict(r.stdout)
    assert d["weights"][d["components"].index("match")] >= 0.9 and d["fit"]["folds"] == 3
    assert "fitting player b" in r.stderr  # a note on stderr while the folds refit; -q drops it
    r = _gops("model", "fit", str(match_records), "--player", "b", "--folds", "2", "-q", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "" and "match" in r.stdout
    r = _gops("model", "show", "m.json", cwd=tmp_path)
    assert r.returncode == 0 and "match" in r.stdout
    r = _gops("evaluate", "--a", "m.json", "-n", "5", cwd=tmp_path)  # other rules than the model's
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "the model is for n=6" in r.stderr


def _model(**over):
    d = {"format": "gops-opponent-model", "version": 1, "rules": RULES.to_dict(), "player": "b", "kind": "tabular",
         "components": ["match", "uniform"], "weights": [0.5, 0.5], "tremble": 0.01, "prior": 2.0,
         "features": ["hand_size", "pot_rank", "diff_sign"], "table": {"3,1,0": [1, 2, 3]}}
    d.update(over)
    return d


@pytest.mark.parametrize("over, message", [
    ({"version": 2}, "model version 2"),
    ({"weights": [0.5, 0.4]}, "field weights [0.5, 0.4] must be >= 0 and sum to 1"),
    ({"weights": [1.0]}, "field weights must be 2 numbers"),
    ({"features": ["hand_size", "moon_phase", "diff_sign"]}, "unknown feature 'moon_phase'"),
    ({"player": "c"}, "field player"),
    ({"kind": "neural"}, "field kind"),
    ({"table": {"3,3,0": [1, 2, 3]}}, "cell '3,3,0' is outside"),
    ({"table": {"3,1,0": [1, -2, 3]}}, "negative"),
    ({"tremble": 2}, "field tremble"),
    ({"rules": {"n": 6, "tie": "sideways", "objective": "points", "order": "random"}}, "field rules"),
])
def test_bad_model_files(tmp_path, over, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_model(**over)))
    with pytest.raises(ModelError) as err:
        read_model(path)
    assert message in str(err.value) and str(path) in str(err.value) and "\n" not in str(err.value)


def test_rank_beyond_the_hand_is_renormalised_with_a_note(tmp_path):
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(_model(table={"2,0,0": [3, 1, 4]})))
    with pytest.warns(ModelWarning, match="ranks beyond a hand of 2 cards"):
        m = read_model(path)
    p = m(View((2, 5), (1, 3), 1, (4,), 0))
    assert sum(p.values()) == pytest.approx(1) and set(p) == {2, 5}
    r = _gops("model", "show", "wide.json", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr.startswith("note: ") and r.stderr.count("\n") == 1


def test_fit_refuses_bad_input(tmp_path, sol):
    path = tmp_path / "two.jsonl"
    with RecordWriter(path) as w:
        simulate("uniform", "match", RULES, 5, seed=1, record=w)
        simulate("uniform", "match", Rules(5), 5, seed=1, record=w)
    with pytest.raises(ValueError, match="the records mix rules"):
        fit_model(path, player="b")
    r = _gops("model", "fit", "two.jsonl", "--player", "b", "--out", "m.json", cwd=tmp_path)
    assert r.returncode == 2 and "mix rules" in r.stderr and not (tmp_path / "m.json").exists()
    games = read_records(path)[:5]
    for kw, message in [({"tremble": 0.0}, "tremble"), ({"folds": 9}, "folds=9"), ({"player": "x"}, "player"),
                        ({"strategies": ["match", "match"]}, "repeat")]:
        with pytest.raises(ValueError, match=message):
            fit_model(games, **{"player": "b", **kw})


def test_batch_rows_match_per_view_prediction(match_records, sol):
    from gops_solver.game.statekeys import decision_key, mask_of
    m = fit_model(match_records, player="b", kind="tabular", solution=sol, folds=2)
    rng = np.random.default_rng(0)
    views, keys = [], []
    for _ in range(200):
        k = int(rng.integers(1, 7))
        own = tuple(sorted(rng.choice(np.arange(1, 7), k, replace=False).tolist()))
        opp = tuple(sorted(rng.choice(np.arange(1, 7), k, replace=False).tolist()))
        hidden = tuple(sorted(rng.choice(np.arange(1, 7), k - 1, replace=False).tolist()))
        pot = int(rng.integers(1, 12))
        diff = int(rng.integers(-10, 11))
        views.append(View(own, opp, pot, hidden, diff))
        keys.append(decision_key(mask_of(own), mask_of(opp), mask_of(hidden), pot, diff))
    rows = m.rows(np.array(keys, np.int64))
    for v, row in zip(views, rows):
        p = m(v)
        assert [row[c - 1] for c in v.hand] == pytest.approx([p[c] for c in v.hand], abs=1e-12)


def test_a_mixture_blind_to_the_score_is_evaluated_without_it(match_records, sol):
    m = fit_model(match_records, player="b", kind="mixture", strategies=["match", "uniform", "highest"], folds=2)
    fast = m.strategy(sol)
    assert not fast.uses_diff and m.strategy(sol) is not fast
    slow = m.strategy(sol)
    slow.uses_diff = True  # every state kept apart by its score: the same figures, more work
    a = evaluate(fast, RULES, against="equilibrium", solution=sol)
    b = evaluate(slow, RULES, against="equilibrium", solution=sol)
    assert a.vs_opponent.margin == pytest.approx(b.vs_opponent.margin, abs=1e-9)
    assert a.exploitability == pytest.approx(b.exploitability, abs=1e-9)
    assert fit_model(match_records, player="b", kind="tabular", folds=2).strategy(sol).uses_diff
