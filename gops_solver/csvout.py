"""CSV text for the commands' ``--csv`` output: a header line, then one line per row."""

from __future__ import annotations

import csv
import io


def csv_text(header, rows) -> str:
    """The CSV text (no trailing newline) of ``rows`` under ``header``.

    Parameters
    ----------
    header : sequence of str
    rows : iterable of sequence
        Values as written by :mod:`csv` (floats with ``repr`` precision).
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow(row)
    return buf.getvalue().rstrip("\n")


def rules_cells(rules) -> list:
    """``n, tie, objective, order`` of a game, the first cells of every CSV row."""
    return [rules.n, rules.tie, rules.objective, rules.order_name]


RULES_HEADER = ["n", "tie", "objective", "order"]
