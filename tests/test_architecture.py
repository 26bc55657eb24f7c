"""The package's shape (docs/architecture.md): subpackages with short facades, one-way imports,
packed kernel arguments, one stage-matrix builder, sizes and tolerances named only in constants.py."""

import ast
import re
import pathlib

import pytest

PKG = pathlib.Path(__file__).resolve().parent.parent / "gops_solver"
MAX_KERNEL_PARAMS = 12

pytestmark = pytest.mark.nojit


def _name(path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _modules():
    """Every module of the package by dotted name (``gops_solver.engine.tables``), parsed."""
    return {_name(p): ast.parse(p.read_text()) for p in sorted(PKG.rglob("*.py"))}


def _short(name) -> str:
    return name.rsplit(".", 1)[-1]


def _jitted(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("njit" in ast.unparse(d) for d in node.decorator_list):
            yield node


def test_no_kernel_takes_more_than_twelve_parameters():
    wide = [f"{name}.{fn.name} ({len(fn.args.args)})" for name, tree in _modules().items() for fn in _jitted(tree)
            if len(fn.args.args) > MAX_KERNEL_PARAMS]
    assert wide == [], "pack arrays into the named tuples of tables.py: " + ", ".join(wide)


def _imports(name, tree, known):
    """The package's modules that ``name`` imports, at any depth (lazy imports inside functions count)."""
    is_pkg = name in {_name(p) for p in PKG.rglob("__init__.py")}
    package = name if is_pkg else name.rpartition(".")[0]
    deps = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) and not isinstance(node, ast.Import):
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            if target in known:
                deps.add(target)
    return deps - {name}


def import_graph():
    mods = _modules()
    return {name: _imports(name, tree, mods) for name, tree in mods.items()}


def find_cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    def visit(m, path):
        if state.get(m) == "done":
            return None
        if state.get(m) == "open":
            return path[path.index(m):] + [m]
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            found = visit(d, path + [m])
            if found:
                return found
        state[m] = "done"
        return None

    for m in graph:
        found = visit(m, [])
        if found:
            return found
    return None


def test_no_import_cycle():
    # a package's __init__ runs before any of its modules, so "a imports b" also means "a runs
    # b's package facade": a facade that imports its modules eagerly would close a loop that the
    # module graph alone does not show; the facades are lazy (test_facades_are_short_and_lazy)
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle():
    # the check itself can fail: a loop of three is reported whole
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_package_has_at_most_thirteen_top_level_entries():
    # the facade, __main__, api.py and the ten subpackages of docs/architecture.md
    entries = sorted(p.name for p in PKG.iterdir() if p.name != "__pycache__" and not p.name.startswith("."))
    assert len(entries) <= 13, f"{len(entries)} entries at the top of gops_solver: {entries}"


def test_the_agent_environments_sit_above_the_analyses():
    # env/ reads analysis/ and opponent/; nothing below it (the engines, analysis, opponent) imports env/
    graph = import_graph()
    below = ("gops_solver.game", "gops_solver.lp", "gops_solver.engine", "gops_solver.variants",
             "gops_solver.multi", "gops_solver.api", "gops_solver.analysis", "gops_solver.opponent")
    up = sorted(f"{m} -> {d}" for m, deps in graph.items() if m.startswith(below)
                for d in deps if d.startswith("gops_solver.env"))
    assert up == [], "a lower layer imports the environments: " + ", ".join(up)
    assert any(d.startswith("gops_solver.analysis") for d in graph["gops_solver.env.seats"])


def test_facades_are_short_and_lazy():
    # each subpackage's __init__ says what it holds and hands names on; heavy modules load on first use
    for init in sorted(PKG.glob("*/__init__.py")):
        tree = ast.parse(init.read_text())
        assert ast.get_docstring(tree), f"{init.parent.name}/__init__.py needs a docstring saying what it holds"
        assert len(init.read_text().splitlines()) <= 40, f"{init.parent.name}/__init__.py is longer than a facade"


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
                callers.setdefault(node.func.id, set()).add(_short(name))
    assert callers["stage_entry"] == {"tables"}
    assert {"verify", "strategies", "query"} <= callers["stage_matrix"]
    assert callers["win_cells"] == callers["win_gather"] == {"induction"}
    assert callers["points_cells"] == callers["points_gather"] == callers["points_game"] == {"induction"}
    assert callers["points_tied"] == callers["points_ties"] == {"induction"}


def test_sizes_and_tolerances_are_named_in_constants_only():
    # a small float (a tolerance) or the card count 13 written as a literal anywhere but constants.py
    found = []
    for name, tree in _modules().items():
        # the classic engine and what reads it; the 3-4 player engine names its tolerances in multi/constants.py
        # and the variants and explorer are not yet held to this
        if name == "gops_solver.game.constants" or name.startswith(("gops_solver.multi", "gops_solver.variants",
                                                                       "gops_solver.explore")):
            continue
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docstrings or isinstance(node.value, bool):
                continue
            if isinstance(node.value, float) and 0 < abs(node.value) < 1e-5:
                found.append(f"{name}:{node.lineno} {node.value!r}")
            if isinstance(node.value, int) and node.value == 13 and not name.endswith(".cards"):  # cards: K = 13
                found.append(f"{name}:{node.lineno} 13")
    assert found == [], "name it in constants.py: " + ", ".join(found)


ROOT = PKG.parent
#: a file name in the package's text: a page (``docs/rules.md``) or a module (``cli/entry.py``)
_FILE_REF = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.(?:md|py))\b")


def stale_references(text: str) -> list[str]:
    """The file names in ``text`` that name no file of the repository.

    A name with a folder is looked up from the repository root and from the package; a bare page
    name in the root and in ``docs/``; a bare module name anywhere in the package. ``path/to/...``
    is an example, not a reference.
    """
    stale = []
    for ref in _FILE_REF.findall(text):
        if ref.startswith("path/to/"):
            continue
        if "/" in ref:
            found = any((base / ref).exists() for base in (ROOT, PKG, *PKG.glob("*/")))
        elif ref.endswith(".md"):
            found = (ROOT / ref).exists() or (ROOT / "docs" / ref).exists()
        else:
            found = any(PKG.rglob(ref))
        if not found:
            stale.append(ref)
    return stale


def test_every_file_the_package_names_exists():
    # a renamed page or module leaves its old name in docstrings and messages; a reader following it
    # finds nothing
    stale = {f"{p.relative_to(ROOT)}: {ref}" for p in sorted(PKG.rglob("*.py"))
             for ref in stale_references(p.read_text(encoding="utf-8"))}
    assert not stale, "names of files that do not exist: " + ", ".join(sorted(stale))


def test_the_reference_check_finds_a_stale_name():
    assert stale_references('the pile (RULES.md "Variants of 002") and cli.py') == ["RULES.md", "cli.py"]
    assert stale_references("docs/rules.md, cli/entry.py, entry.py, path/to/file.py") == []
