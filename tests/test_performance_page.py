"""docs/performance.md is rendered from benchmarks/results.json and must not drift from it."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _renderer():
    spec = importlib.util.spec_from_file_location("render_performance", ROOT / "benchmarks" / "render_performance.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_page_equals_rendered_data():
    mod = _renderer()
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    assert (ROOT / "docs" / "performance.md").read_text() == mod.render(data)


def test_every_figure_has_command_machine_and_date():
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    assert data["results"]
    for row in data["results"]:
        assert row["command"].strip() and row["machine"] in data["machines"]
        assert len(row["date"]) == 10 and row["date"][4] == "-" and row["date"][7] == "-"


def test_render_refuses_an_undescribed_machine():
    mod = _renderer()
    row = {"case": "c", "measure": "m", "value": 1.0, "unit": "s", "detail": "", "command": "x", "machine": "nope",
           "date": "2026-01-01"}
    with pytest.raises(ValueError, match="nope"):
        mod.render({"machines": {}, "results": [row]})


def test_page_states_the_command_that_regenerates_it():
    text = (ROOT / "docs" / "performance.md").read_text()
    assert "python benchmarks/render_performance.py" in text.splitlines()[2]
