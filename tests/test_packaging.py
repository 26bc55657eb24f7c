"""The repository stands alone: links resolve inside it, metadata is complete, the wheel installs."""

import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

import gops_solver

ROOT = Path(__file__).resolve().parent.parent
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _markdown_files():
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    return [f for f in files if f.exists()]


@pytest.mark.parametrize("md", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_stay_inside_the_repository_and_exist(md):
    text = md.read_text()
    for target in _LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        resolved = (md.parent / path).resolve()
        assert ROOT in resolved.parents or resolved == ROOT, f"{md.name} links outside the repository: {target}"
        assert resolved.exists(), f"{md.name} links to a missing file: {target}"


def test_rules_document_quotes_both_sources_and_names_every_option():
    text = (ROOT / "docs" / "rules.md").read_text()
    # phrases of the two source documents, quoted in the original
    for phrase in ("Se a última oferta empatar", "Regra padrão", "Sem descarte em empate",
                   "Ordem fixa de prêmios", "Aposta com múltiplas cartas", "Prêmios abertos",
                   "Gops para três jogadores", "Desempates (formato de disputa)", "somar 3 jogos",
                   "melhor de três ou melhor de cinco"):
        assert phrase in text, phrase
    from gops_solver.game.rules import DRAWS, MATCHES, NAMED_ORDERS, OBJECTIVES, TIES
    for name in TIES + OBJECTIVES + NAMED_ORDERS + MATCHES + DRAWS + ("bid_cards", "open_prizes", "players",
                                                                     "tiebreak", "extra-game", "total-score"):
        assert re.search(rf"`[^`\n]*\b{re.escape(name)}\b[^`\n]*`", text), name


def test_package_metadata_is_complete():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert meta["version"] == gops_solver.__version__
    assert meta["readme"] == "README.md" and meta["scripts"]["gops"] == "gops_solver.cli.entry:main"
    assert any(c.startswith("Intended Audience") for c in meta["classifiers"])
    assert any(c.startswith("Programming Language :: Python :: 3.") for c in meta["classifiers"])
    assert {"test", "export", "openspiel", "docs", "env"} <= set(meta["optional-dependencies"])
    # the README's test command runs the environment tests: the test extra holds their packages
    assert {"pettingzoo", "gymnasium"} <= {d.split(">")[0] for d in meta["optional-dependencies"]["test"]}
    cff = (ROOT / "CITATION.cff").read_text()
    assert "cff-version:" in cff and f"version: {gops_solver.__version__}" in cff and "license: MIT" in cff


@pytest.mark.slow
def test_built_wheel_installs_in_a_fresh_venv_and_runs(tmp_path):
    """``python -m build``, then the wheel alone in a new venv: ``gops --version`` runs from it.

    The venv sees the system's site-packages so numpy, numba, ... need no
    download; the check that ``gops_solver`` is imported from the venv rules
    out the development checkout standing in for the wheel.
    """
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], check=True,
                   capture_output=True)
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1 and list(dist.glob("*.tar.gz"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    py = env_dir / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheels[0])],
                   check=True, env=clean, cwd=tmp_path)
    out = subprocess.run([str(env_dir / "bin" / "gops"), "--version"], capture_output=True, text=True, env=clean,
                         cwd=tmp_path, check=True).stdout
    assert out.strip() == f"gops, version {gops_solver.__version__}"
    where = subprocess.run([str(py), "-c", "import gops_solver, importlib.metadata as m; "
                            "print(gops_solver.__file__); print(m.metadata('gops-solver')['License-Expression'])"],
                           capture_output=True, text=True, env=clean, cwd=tmp_path, check=True).stdout.split("\n")
    assert where[0].startswith(str(env_dir)), where[0]
    assert where[1] == "MIT"
