"""A first run says on stderr that it compiles the kernels; a run that finds them cached says nothing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gops_solver import Rules
from gops_solver.engine import induction
from gops_solver.engine.tables import game_axes, level_axes, level_table
from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.encoding import full_space


NOTICE = "compiling the solver's kernels once"
GOPS = [sys.executable, "-c", "from gops_solver.cli.entry import main; main()"]


def _gops(args, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), GOPS_COMPILE_NOTICE="1")  # conftest turns it off elsewhere
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run(GOPS + args, capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.parametrize("objective", ["points", "win"])
def test_serial_twin_same_bits(objective):
    # a small game's levels are filled by the serial twins, a large one's by the parallel kernels:
    # the same positions give the same table, bit for bit, either way
    space = full_space(Rules(5, "carry", objective))
    assert induction.is_small(space)
    tables, _ = induction.run_induction(space)
    game = game_axes(space)
    for k in range(1, 6):
        level = level_axes(space, k)
        prev = level_table(space, k - 1, tables[k - 1])
        ps = induction.deal(np.arange(len(level.canonical), dtype=np.int64), 2)
        R = np.full(space.size(k), np.nan)
        fails = np.zeros(len(ps), np.int64)
        induction.level_kernel(game, level, prev, ps, R, induction.games_array(game, level, len(ps)), fails,
                               np.zeros(2 + MAX_CARDS * MAX_CARDS), False)
        assert not fails.any()
        assert R.tobytes() == tables[k].tobytes()


def test_quiet_and_the_environment_turn_the_notice_off(monkeypatch):
    # -q promises no notes on stderr; GOPS_COMPILE_NOTICE=0 is how the test suite keeps its outputs steady.
    # In process, with every kernel taken for uncompiled: the plain command prints the notice, the other
    # two do not (is_cached itself is checked on a real cache by the first-run test below)
    from click.testing import CliRunner
    from gops_solver.cli import _compile
    from gops_solver.cli.commands import cli
    monkeypatch.setattr(_compile, "is_cached", lambda dispatcher: False)
    runner = CliRunner()

    def stderr_of(args, notice):
        monkeypatch.setenv("GOPS_COMPILE_NOTICE", notice)
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        return result.stderr

    assert stderr_of(["solve", "--cards", "2"], "1").count(NOTICE) == 1
    assert NOTICE not in stderr_of(["solve", "--cards", "2", "-q"], "1")
    assert NOTICE not in stderr_of(["solve", "--cards", "2"], "0")


ONCE = """
import gc, json
from numba.core.registry import CPUDispatcher
from gops_solver import Rules
from gops_solver.analysis.evaluate import evaluate
from gops_solver.analysis.opening import opening
from gops_solver.api import solve
rules = Rules(5, "discard")
sol = solve(rules)
opening(sol)  # the queries a solve prints
evaluate("match", rules, solution=sol)
print(json.dumps({d.py_func.__qualname__: len(d.signatures) for d in gc.get_objects()
                  if isinstance(d, CPUDispatcher) and d.signatures}))
"""


def test_a_first_run_compiles_once_says_so_once_and_warmup_leaves_nothing(tmp_path):
    # One empty cache, three checks in turn (each cold compile costs CPU-seconds).
    # 1. What a first solve (with its opening) and evaluate run is compiled once: a helper reached with
    # an int8 here and an int64 there, or with a literal, is compiled again, its callees with it; and a
    # small game's serial kernel leaves the SIMD lanes uncompiled. An empty cache: code loaded from a
    # cache registers its entry points only, not the helpers compiled into them
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", ONCE], capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"_points_serial", "stage_structure", "_eq_policy", "solve_stage"} <= set(compiled)
    assert {name: count for name, count in compiled.items() if count > 1} == {}
    assert "solve_batch" not in compiled and "_flush" not in compiled
    # nor the lanes' queue, the HiGHS call (the uncached checking kernels' alone) or the scratch size
    # (plain Python when called from Python)
    assert not {"_pot_lanes", "make_batch_work", "_highs_solve", "stage_work_size"} & set(compiled)
    # 2. The notice: a first win solve (its kernel not yet compiled) says so once on stderr, the same
    # command on the cache it filled says nothing
    args = ["solve", "--cards", "3", "--objective", "win", "--json"]
    cold = _gops(args, tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.count(NOTICE) == 1
    assert NOTICE not in cold.stdout
    assert json.loads(cold.stdout)["value"] == 0  # stdout is the JSON object alone
    warm = _gops(args, tmp_path)
    assert warm.returncode == 0, warm.stderr
    assert NOTICE not in warm.stderr and NOTICE not in warm.stdout
    assert json.loads(warm.stdout)["value"] == 0
    # small games are solved by the serial twins: neither parallel kernel is compiled
    index = [p.name for p in Path(tmp_path).rglob("*.nbi")]
    assert any("_points_serial" in name for name in index) and any("_win_serial" in name for name in index)
    assert not any("_points_kernel" in name or "_win_kernel" in name for name in index)
    # 3. gops warmup on the same cache: one line per step on stderr, then the first evaluate and solve
    # of a small game find every kernel cached (no notice)
    warmup = _gops(["warmup"], tmp_path)
    assert warmup.returncode == 0, warmup.stderr
    steps = [line.split()[0] for line in warmup.stderr.splitlines() if line.startswith("  ")]
    assert steps == ["solve", "solve", "queries", "exact", "simulation"] and warmup.stdout == ""
    first = _gops(["evaluate", "--a", "match", "--cards", "6", "--tie", "discard"], tmp_path)
    assert first.returncode == 0, first.stderr
    assert NOTICE not in first.stderr and "vs equilibrium" in first.stdout
    # a small win game takes the serial win kernel (larger ones take the parallel one)
    solve = _gops(["solve", "--cards", "6", "--tie", "discard", "--objective", "win"], tmp_path)
    assert solve.returncode == 0 and NOTICE not in solve.stderr
