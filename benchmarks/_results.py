"""Rows of ``benchmarks/results.json``: one place that adds or replaces them."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

DATA = Path(__file__).resolve().parent / "results.json"


def record(rows, machine: str, description: str | None = None) -> None:
    """Add ``rows`` (dicts with ``case``, ``measure``, ``value``, ``unit``, ``detail``, ``command``) to the results.

    A row with the same ``case`` and ``measure`` as one stored is replaced. ``machine`` is a key of the
    file's ``machines`` (``description`` adds it). Written to a temporary file and renamed.
    """
    data = json.loads(DATA.read_text())
    if description is not None:
        data["machines"][machine] = description
    if machine not in data["machines"]:
        raise ValueError(f"machine {machine!r} is not described in {DATA}: pass its description")
    today = datetime.date.today().isoformat()
    for row in rows:
        row = {**row, "machine": machine, "date": today}
        keep = [r for r in data["results"] if (r["case"], r["measure"]) != (row["case"], row["measure"])]
        data["results"] = keep + [row]
    tmp = DATA.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, DATA)
