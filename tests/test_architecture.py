"""The package's shape (docs/architecture.md): one-way imports, packed kernel arguments, one
stage-matrix builder, sizes and tolerances named only in constants.py."""

import ast
import pathlib

import pytest

PKG = pathlib.Path(__file__).resolve().parent.parent / "gops_solver"
MAX_KERNEL_PARAMS = 12

pytestmark = pytest.mark.nojit


def _modules():
    return {p.stem: ast.parse(p.read_text()) for p in sorted(PKG.glob("*.py"))}


def _jitted(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("njit" in ast.unparse(d) for d in node.decorator_list):
            yield node


def test_no_kernel_takes_more_than_twelve_parameters():
    wide = [f"{name}.{fn.name} ({len(fn.args.args)})" for name, tree in _modules().items() for fn in _jitted(tree)
            if len(fn.args.args) > MAX_KERNEL_PARAMS]
    assert wide == [], "pack arrays into the named tuples of tables.py: " + ", ".join(wide)


def test_imports_flow_one_way():
    # package-relative imports, at any depth (lazy imports inside functions count too)
    graph = {}
    for name, tree in _modules().items():
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)  # "from . import x"
        graph[name] = deps - {name, "__init__"}
    state = {}

    def visit(m, path):
        if state.get(m) == "done":
            return
        assert state.get(m) != "open", "import cycle: " + " -> ".join(path + [m])
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            visit(d, path + [m])
        state[m] = "done"

    for m in graph:
        visit(m, [])


def test_stage_games_are_built_in_one_place():
    # every stage game is built by tables.stage_matrix (from tables.stage_entry); nothing else
    # calls stage_entry, and verify, the equilibrium policy and queries call the builder. The two
    # specialisations of the induction, the win gather (win_cells/win_gather) and the points
    # games of a run of reveals that leave one set hidden (points_cells/points_gather/points_game/points_tied/points_ties), both checked
    # equal to stage_matrix in test_tables.py, live next to it in tables.py and are called by the
    # induction only
    callers = {}
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                callers.setdefault(node.func.id, set()).add(name)
    assert callers["stage_entry"] == {"tables"}
    assert {"verify", "strategies", "query"} <= callers["stage_matrix"]
    assert callers["win_cells"] == callers["win_gather"] == {"induction"}
    assert callers["points_cells"] == callers["points_gather"] == callers["points_game"] == {"induction"}
    assert callers["points_tied"] == callers["points_ties"] == {"induction"}


def test_sizes_and_tolerances_are_named_in_constants_only():
    # a small float (a tolerance) or the card count 13 written as a literal anywhere but constants.py
    found = []
    for name, tree in _modules().items():
        if name == "constants":
            continue
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docstrings or isinstance(node.value, bool):
                continue
            if isinstance(node.value, float) and 0 < abs(node.value) < 1e-5:
                found.append(f"{name}:{node.lineno} {node.value!r}")
            if isinstance(node.value, int) and node.value == 13 and name != "cards":  # cards: K = 13
                found.append(f"{name}:{node.lineno} 13")
    assert found == [], "name it in constants.py: " + ", ".join(found)
