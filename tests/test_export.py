"""``gops export`` and ``Solution.to_frame``: every reachable state, round-tripped against ``query``."""

import json
import os
import stat
from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from gops_solver import Rules, solve, validate_state
from gops_solver.cli.commands import cli
from gops_solver.engine.export import cards_from_mask, decision_states, write, _atomic_write

RULES = [Rules(5), Rules(5, tie="discard", objective="win"), Rules(5, order="descending"),
         Rules(4, order=(2, 4, 1, 3), objective="win")]


def naive_states(rules, rounds):
    """Every decision state of rounds 1..rounds, by playing out every prize order and every bid sequence.

    Straight from the rules: follow full game histories (no merging of
    states), record the state each time a prize is shown.
    """
    n = rules.n
    orders = permutations(range(1, n + 1)) if rules.random_order else [rules.sequence]
    seen = set()

    def play(order, rnd, ha, hb, carried, diff):
        pot = carried + order[rnd - 1]
        hidden = order[rnd:]
        key = (rnd, tuple(sorted(ha)), tuple(sorted(hb)), pot,
               tuple(sorted(hidden)) if rules.random_order else tuple(hidden), diff)
        seen.add(key)
        if rnd == rounds:
            return
        for a in ha:
            for b in hb:
                if a == b:
                    nxt_carry, d = (pot if rules.tie == "carry" else 0), diff
                else:
                    nxt_carry, d = 0, diff + (pot if a > b else -pot)
                play(order, rnd + 1, ha - {a}, hb - {b}, nxt_carry, d)

    for order in orders:
        play(order, 1, frozenset(range(1, n + 1)), frozenset(range(1, n + 1)), 0, 0)
    return sorted(seen)


@pytest.mark.parametrize("rules", RULES[:3] + [Rules(4), Rules(4, order=(2, 4, 1, 3))], ids=lambda r: r.describe())
def test_decision_states_are_exactly_the_reachable_ones(rules):
    rounds = 3
    got = decision_states(rules, rounds)
    assert sorted(got) == naive_states(rules, rounds)
    assert len(set(got)) == len(got)
    for _, ha, hb, pot, prizes, diff in got[:200]:
        st = validate_state(rules, ha, hb, pot, prizes, diff)
        assert st.prizes == prizes  # the order validate_state (and so query) uses


def test_level_is_one_round_and_rounds_clip():
    r = Rules(5)
    states = decision_states(r, rounds=3)
    assert decision_states(r, level=3) == [s for s in states if s[0] == 3]
    assert [s for s in decision_states(r, rounds=2)] == [s for s in states if s[0] <= 2]
    assert len(decision_states(r, rounds=1)) == 5 and len(decision_states(Rules(5, order="ascending"), rounds=1)) == 1
    with pytest.raises(ValueError, match="than the 10 rows allowed"):
        decision_states(r, rounds=3, max_rows=10)
    with pytest.raises(ValueError, match="outside 1..5"):
        decision_states(r, rounds=6)
    with pytest.raises(ValueError, match="after the 1 rounds"):
        decision_states(r, rounds=1, level=3)
    with pytest.raises(ValueError, match="match"):
        decision_states(Rules(5, match="session"), rounds=1)


def _check_rows_against_query(sol, rows):
    """Each row equals ``sol.query`` at its state: value and both strategies (to 1e-12)."""
    n = sol.rules.n
    for row in rows:
        q = sol.query(row["hand_a"], row["hand_b"], row["pot"], row["prizes"], row["diff"])
        assert abs(row["value"] - q.value) <= 1e-12
        for side, strat in (("a", q.strategy_a), ("b", q.strategy_b)):
            probs = [row[f"{side}_{c}"] for c in range(1, n + 1)]
            assert np.allclose(probs, [strat.get(c, 0.0) for c in range(1, n + 1)], atol=1e-12, rtol=0)
            assert abs(sum(probs) - 1) <= 1e-9
            hand = row["hand_a"] if side == "a" else row["hand_b"]
            assert all(probs[c - 1] == 0 for c in range(1, n + 1) if c not in hand)


def _parse_set(text):
    return tuple(int(c) for c in str(text).split(",")) if isinstance(text, str) and text else ()


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.describe())
def test_round_trip_every_format_against_query(rules, tmp_path):
    sol = solve(rules)
    frame = sol.to_frame(rounds=3)
    assert len(frame) == len(decision_states(rules, 3))
    assert list(frame.columns[:8]) == ["round", "k", "hand_a", "hand_b", "pot", "prizes", "diff", "value"]

    write(frame, tmp_path / "x.csv", "csv")
    csv = pd.read_csv(tmp_path / "x.csv", dtype={"hand_a": str, "hand_b": str, "prizes": str}, keep_default_na=False)
    write(frame, tmp_path / "x.parquet", "parquet")
    pq = pd.read_parquet(tmp_path / "x.parquet")
    write(frame, tmp_path / "x.npz", "npz")
    with np.load(tmp_path / "x.npz") as z:
        npz = {k: z[k] for k in z.files}
    assert json.loads(str(npz["rules"])) == rules.to_dict()

    rows_csv = [{**r, **{c: _parse_set(r[c]) for c in ("hand_a", "hand_b", "prizes")}}
                for r in csv.to_dict("records")]
    rows_pq = [{**r, **{c: tuple(int(v) for v in r[c]) for c in ("hand_a", "hand_b", "prizes")}}
               for r in pq.to_dict("records")]
    rows_npz = [{**{c: npz[c][i].item() for c in npz if c != "rules"},
                 **{c: cards_from_mask(npz[c][i]) for c in ("hand_a", "hand_b")},
                 "prizes": cards_from_mask(npz["prizes"][i], rules.sequence)}
                for i in range(len(frame))]
    rows_frame = frame.to_dict("records")
    for rows in (rows_csv, rows_pq, rows_npz):
        assert len(rows) == len(frame)
        # identical to the frame, to the last bit (CSV keeps 17 significant digits)
        for got, want in zip(rows, rows_frame):
            assert {k: (tuple(v) if isinstance(v, tuple) else v) for k, v in got.items()} == want
    # and the frame is the query answer at every state; fixed orders keep their reveal order
    step = max(1, len(rows_frame) // 150)
    _check_rows_against_query(sol, rows_frame[::step] + rows_frame[-3:])
    if not rules.random_order:
        assert rows_pq[0]["prizes"] == rules.sequence[1:]


def test_cli_export_writes_the_same_rows_and_reports(tmp_path):
    runner = CliRunner()
    out = tmp_path / "e.parquet"
    res = runner.invoke(cli, ["export", "-n", "5", "--tie", "discard", "--rounds", "2", "--format", "parquet",
                              "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert info["rows"] == len(decision_states(Rules(5, tie="discard"), 2)) and info["bytes"] == out.stat().st_size
    back = pd.read_parquet(out)
    want = solve(Rules(5, tie="discard")).to_frame(rounds=2)
    assert np.array_equal(back["value"].to_numpy(), want["value"].to_numpy())
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_cli_export_from_a_solution_file(tmp_path):
    runner = CliRunner()
    path = tmp_path / "s.gops"
    solve(Rules(5, objective="win")).save(path)
    res = runner.invoke(cli, ["export", "--solution", str(path), "--level", "4", "--format", "csv",
                              "--out", str(tmp_path / "l4.csv")])
    assert res.exit_code == 0, res.output
    assert "level 4" in res.output
    back = pd.read_csv(tmp_path / "l4.csv")
    assert set(back["k"]) == {4} and len(back) == len(decision_states(Rules(5, objective="win"), level=4))


@pytest.mark.parametrize("args, message", [
    (["-n", "5", "--rounds", "7"], "outside 1..5"),
    (["-n", "5", "--rounds", "3", "--max-rows", "20"], "rows allowed"),
    (["--rounds", "1"], "give --solution FILE, or --cards N"),
    (["-n", "13", "--rounds", "1"], "solve it once with gops solve --out"),
])
def test_cli_export_bad_input_is_one_line_and_status_2(tmp_path, args, message):
    import subprocess
    import sys
    out = tmp_path / "x.csv"
    out.write_text("keep me")
    proc = subprocess.run([sys.executable, "-c", "from gops_solver.cli.commands import main; main()", "export", *args,
                           "--format", "csv", "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert out.read_text() == "keep me"


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("old")

    def dump(fh):
        fh.write(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        _atomic_write(path, dump)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.csv"]
    with pytest.raises(ValueError, match="cannot write"):
        _atomic_write(tmp_path / "missing" / "x.csv", lambda fh: None)


# -- the fast export against the first, state-by-state one (tests/naive_export.py) -------------------------------

ORACLE_CASES = [
    (Rules(5), {"rounds": 3}),
    (Rules(5, tie="discard", objective="win"), {"rounds": 3}),
    (Rules(6, tie="discard"), {"rounds": 2}),
    (Rules(6, objective="win"), {"level": 5}),
    (Rules(7, tie="discard", objective="win"), {"rounds": 2}),
    (Rules(7), {"level": 6}),
    (Rules(5, order="descending", objective="win"), {}),
    (Rules(4, order=(2, 4, 1, 3)), {}),
]


def _same_frames(new, old):
    assert list(new.columns) == list(old.columns) and len(new) == len(old)
    for c in old.columns:
        a, b = new[c].to_numpy(), old[c].to_numpy()
        if b.dtype == object:
            assert list(a) == list(b), c
        else:
            assert a.dtype == b.dtype, c
            assert np.array_equal(a, b), c  # bit for bit (within 1e-12 would pass too)


@pytest.mark.parametrize("rules, where", ORACLE_CASES, ids=lambda x: x.describe() if isinstance(x, Rules) else str(x))
def test_fast_export_equals_the_state_by_state_export(rules, where, tmp_path):
    import io
    import naive_export
    sol = solve(rules)
    new = sol.to_frame(**where)
    old = naive_export.to_frame(sol, **where)
    _same_frames(new, old)
    assert decision_states(rules, **where) == naive_export.decision_states(rules, **where)
    # CSV byte for byte; Parquet and npz read back to the same columns and schema
    from gops_solver.engine.export import equilibrium_table, write_table
    table = equilibrium_table(sol, **where)
    buf = io.BytesIO()
    write_table(table, buf, "csv")
    assert buf.getvalue() == naive_export.write(old, "csv")
    write_table(table, tmp_path / "x.parquet", "parquet")
    import pyarrow.parquet as pq
    want = pq.read_table(io.BytesIO(naive_export.write(old, "parquet")))
    got = pq.read_table(tmp_path / "x.parquet")
    assert got.schema.equals(want.schema, check_metadata=True) and got.equals(want)
    write_table(table, tmp_path / "x.npz", "npz")
    with np.load(tmp_path / "x.npz") as z, np.load(io.BytesIO(naive_export.write(old, "npz"))) as w:
        assert z.files == w.files
        for f in w.files:
            assert z[f].dtype == w[f].dtype and np.array_equal(z[f], w[f]), f


@pytest.mark.parametrize("rules, where, limit", [(Rules(5), {"rounds": 3}, 10), (Rules(5), {"rounds": 3}, 200),
                                                 (Rules(6, tie="discard"), {"level": 4}, 5000)])
def test_row_limits_refuse_as_before(rules, where, limit):
    import naive_export
    with pytest.raises(ValueError) as new:
        decision_states(rules, max_rows=limit, **where)
    with pytest.raises(ValueError) as old:
        naive_export.decision_states(rules, max_rows=limit, **where)
    assert str(new.value) == str(old.value)


def test_untabulated_states_are_answered_by_query():
    """A stage game with a successor missing from the tables goes through ``Solution.query`` (its sub-game)."""
    import naive_export
    rules = Rules(5, tie="discard")
    sol = solve(rules)
    sol.tables = [t.copy() for t in sol.tables]
    sol.tables[2][::7] = np.nan  # level 2: round 4's successors
    new = sol.to_frame(rounds=4)
    assert not new["value"].isna().any()
    _same_frames(new, naive_export.to_frame(sol, rounds=4))


def test_write_of_a_filtered_frame(tmp_path):
    import naive_export
    frame = solve(Rules(5)).to_frame(rounds=2)
    part = frame[frame["pot"] > 2]
    write(part, tmp_path / "p.csv", "csv")
    assert (tmp_path / "p.csv").read_bytes() == naive_export.write(part, "csv")


def test_cli_export_to_standard_output(tmp_path):
    import subprocess
    import sys
    main = [sys.executable, "-c", "from gops_solver.cli.commands import main; main()", "export", "-n", "4",
            "--rounds", "2"]
    proc = subprocess.run(main + ["--format", "csv", "--out", "-", "--json"], capture_output=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "-").exists()
    import naive_export
    want = naive_export.write(naive_export.to_frame(solve(Rules(4)), rounds=2), "csv")
    assert proc.stdout == want
    info = json.loads(proc.stderr)  # the report goes to standard error
    assert info["bytes"] == len(want) and info["out"] == "-"
    for fmt in ("parquet", "npz"):
        proc = subprocess.run(main + ["--format", fmt, "--out", "-"], capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == ""
        assert "give a file with --out" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert list(tmp_path.iterdir()) == []


# -- the CSV kernel's number text: Python's "%.17g", exactly ------------------------------------------------------

def _g17_cases():
    rng = np.random.default_rng(7)
    ties = [j * 2.0 ** -k for j in range(1, 200) for k in range(1, 64, 3)]  # short binary fractions: exact ties
    v = np.concatenate([rng.random(20000), rng.random(5000) * 1e-9, rng.random(5000) * 1e14, -rng.random(5000),
                        rng.integers(-10**6, 10**6, 5000) / rng.integers(1, 10**4, 5000),
                        rng.integers(0, 2 ** 63, 20000, dtype=np.uint64).view(np.float64),  # any bit pattern
                        ties, [1 + j * 2.0 ** -17 for j in range(1, 64)], [2.0 ** k for k in range(-40, 50)],
                        [10.0 ** k for k in range(-12, 17)], [0.1, 1 / 3, 2 / 3, 1e-4, 1e-5, 9.999999999999999e-5]])
    v = v[np.isfinite(v)]
    return np.concatenate([v, np.nextafter(v, np.inf), np.nextafter(v, -np.inf),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e300, -1e-300]])


def test_kernel_number_text_is_python_percent_17g():
    from gops_solver.engine.export import _digits, _g17_all
    v = _g17_cases()
    out = np.zeros(32 * len(v), np.uint8)
    lens = _g17_all(v.view(np.uint64), out, 32 * np.arange(len(v)), _digits())
    handled = 0
    for i, x in enumerate(v.tolist()):
        if lens[i] < 0:  # left to Python: outside [2**-33, 2**49) and not 0, inf or NaN
            assert x == x and 0 < abs(x) < np.inf and not 2.0 ** -33 <= abs(x) < 2.0 ** 49, x
            continue
        handled += 1
        assert out[32 * i:32 * i + lens[i]].tobytes().decode() == ("" if x != x else "%.17g" % x), repr(x)
    assert handled > len(v) // 2


def test_csv_of_odd_numbers_is_what_pandas_writes(tmp_path, monkeypatch):
    """NaN, infinities, -0, subnormal, tiny and huge numbers; a cache of 8 numbers and chunks of 7 rows."""
    import naive_export
    from gops_solver.engine import export
    monkeypatch.setattr(export, "_CACHE_SLOTS", 8)
    monkeypatch.setattr(export, "_CSV_ROWS", 7)
    frame = solve(Rules(4)).to_frame(rounds=2)
    odd = [np.nan, np.inf, -np.inf, -0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1.5e-11, 1e17, 1.2345678901234567e20,
           -3.0e-7, 123456789012345.67, 0.1, 1e-300, 5e-324]
    for col, vals in (("value", odd), ("a_1", odd[::-1]), ("b_4", odd[3:])):
        arr = frame[col].to_numpy().copy()
        arr[5:5 + len(vals)] = vals
        frame[col] = arr
    write(frame, tmp_path / "o.csv", "csv")
    assert (tmp_path / "o.csv").read_bytes() == naive_export.write(frame, "csv")
    table = solve(Rules(5)).to_frame(rounds=3)  # many rows repeat the strategies of the row before
    write(table, tmp_path / "r.csv", "csv")
    assert (tmp_path / "r.csv").read_bytes() == naive_export.write(table, "csv")
