"""Write docs/performance.md from the stored benchmark results.

    python benchmarks/render_performance.py            # rewrite docs/performance.md
    python benchmarks/render_performance.py --check    # exit 1 if the page differs

The figures live in ``benchmarks/results.json`` (tracked): each one with the
command that produced it, the machine and the date of the run. The page is
rendered from that file alone, so it cannot say more than the data, and
``tests/test_performance_page.py`` fails when the committed page drifts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "results.json"
PAGE = ROOT / "docs" / "performance.md"
COMMAND = "python benchmarks/render_performance.py"


def _cell(text: str) -> str:
    """Escape a table cell (a ``|`` would split the row)."""
    return str(text).replace("|", "\\|")


def _figure(value, unit: str) -> str:
    """A figure as measured: a count (an int in the results, e.g. MiB) whole, a time two decimals below 100,
    one above."""
    if isinstance(value, int):
        return f"{value:,} {unit}"
    digits = 2 if abs(value) < 100 else 1
    return f"{value:,.{digits}f} {unit}"


def render(data: dict) -> str:
    """Render the performance page from the results data.

    Parameters
    ----------
    data : dict
        ``{"machines": {key: description}, "results": [row, ...]}``; each row
        has ``case``, ``measure``, ``value``, ``unit``, ``detail``, ``command``,
        ``machine`` (a key of ``machines``) and ``date`` (ISO).

    Returns
    -------
    str
        The Markdown page, ending in a newline.

    Raises
    ------
    ValueError
        If a row lacks a field or names a machine that is not described.
    """
    machines = data["machines"]
    fields = ("case", "measure", "value", "unit", "detail", "command", "machine", "date")
    lines = [
        "# Measured performance",
        "",
        f"Generated from `benchmarks/results.json` by `{COMMAND}`; edit the data, not this page.",
        "",
        "| case | measure | figure | detail | command | machine | date |",
        "|---|---|---:|---|---|---|---|",
    ]
    for i, row in enumerate(data["results"]):
        missing = [f for f in fields if f not in row]
        if missing:
            raise ValueError(f"result {i} lacks {', '.join(missing)}")
        if row["machine"] not in machines:
            raise ValueError(f"result {i} names machine {row['machine']!r}, not described under 'machines'")
        lines.append("| " + " | ".join(_cell(c) for c in (
            row["case"], row["measure"], _figure(row["value"], row["unit"]), row["detail"],
            f"`{row['command']}`", machines[row["machine"]], row["date"])) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """Write the page, or with ``--check`` report whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/performance.md differs from the data")
    args = parser.parse_args(argv)
    page = render(json.loads(DATA.read_text()))
    if args.check:
        current = PAGE.read_text() if PAGE.exists() else ""
        if current != page:
            print(f"docs/performance.md is out of date: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
