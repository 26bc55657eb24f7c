"""The export as it was first written: a slow, obviously-correct oracle for ``gops_solver.engine.export``.

:func:`decision_states` plays the game forward with Python sets, :func:`to_frame`
asks ``Solution.query`` at every state, and :func:`write` writes the frame with
pandas and pyarrow. The fast export must give the same rows (and, for CSV, the
same bytes).
"""

import io
import json

import numpy as np
import pandas as pd

from gops_solver.game.rules import Rules

DEFAULT_MAX_ROWS = 2_000_000


def _pandas():
    return pd


def decision_states(rules: Rules, rounds: int | None = None, level: int | None = None,
                    max_rows: int = DEFAULT_MAX_ROWS):
    """Every reachable decision state of the first ``rounds`` rounds (or of one level).

    Parameters
    ----------
    rules : Rules
        A single game (``match="single"``).
    rounds : int, optional
        States of rounds 1..``rounds``. Default: all n rounds, unless ``level``.
    level : int, optional
        Only the states with ``level`` cards in each hand (round n - level + 1).
    max_rows : int
        Refuse (ValueError) when more states than this would be listed.

    Returns
    -------
    list of tuple
        ``(round, hand_a, hand_b, pot, prizes, diff)`` with sorted hand tuples
        and ``prizes`` as :func:`~gops_solver.game.rules.validate_state` orders them;
        in round order, each round's states sorted.

    Raises
    ------
    ValueError
        Bad ``rounds``/``level``, a match format, or too many states.
    """
    n = rules.n
    if rules.match != "single":
        raise ValueError(f"export covers single games; {rules.match} is a match: drop --match")
    if level is not None:
        if not 1 <= int(level) <= n:
            raise ValueError(f"level {level} is outside 1..{n}: give the cards left in each hand")
        if rounds is not None and n - level + 1 > rounds:
            raise ValueError(f"level {level} is round {n - level + 1}, after the {rounds} rounds asked for: "
                             f"drop --rounds or choose a level >= {n - rounds + 1}")
        last, first = n - level + 1, n - level + 1
    else:
        last = n if rounds is None else int(rounds)
        if not 1 <= last <= n:
            raise ValueError(f"rounds {rounds} is outside 1..{n}: give how many rounds to export")
        first = 1
    full = tuple(range(1, n + 1))
    seq = rules.sequence
    carry = rules.tie == "carry"
    if seq is None:
        frontier = {(full, full, p, tuple(c for c in full if c != p), 0) for p in full}
    else:
        frontier = {(full, full, seq[0], tuple(seq[1:]), 0)}
    out = []
    for rnd in range(1, last + 1):
        states = sorted(frontier)
        if rnd >= first:
            if len(out) + len(states) > max_rows:
                raise ValueError(f"round {rnd} alone has {len(states):,} decision states, more than the "
                                 f"{max_rows:,} rows allowed: export fewer rounds, one --level, or raise --max-rows")
            out.extend((rnd,) + s for s in states)
        if rnd == last:
            break
        nxt = set()
        for ha, hb, pot, prizes, diff in states:
            reveal = prizes if seq is None else prizes[:1]
            for a in ha:
                rest_a = tuple(c for c in ha if c != a)
                for b in hb:
                    rest_b = tuple(c for c in hb if c != b)
                    d = diff + pot if a > b else diff - pot if a < b else diff
                    kept = pot if a == b and carry else 0  # not the last round: rnd < n here
                    for q in reveal:
                        nxt.add((rest_a, rest_b, kept + q, tuple(c for c in prizes if c != q), d))
            if len(nxt) > max_rows:
                raise ValueError(f"round {rnd + 1} has more decision states than the {max_rows:,} rows allowed: "
                                 f"export fewer rounds, an earlier --level, or raise --max-rows")
        frontier = nxt
    return out


def to_frame(solution, rounds: int | None = None, level: int | None = None, max_rows: int = DEFAULT_MAX_ROWS):
    """The equilibrium at every reachable decision state of the first rounds, as a DataFrame.

    Parameters
    ----------
    solution : Solution
        A solved single game (from :func:`~gops_solver.solve` or :func:`~gops_solver.load`).
    rounds, level, max_rows
        As for :func:`decision_states`.

    Returns
    -------
    pandas.DataFrame
        One row per state, columns as in this module's docstring; each row's
        ``value`` and strategies are those of ``solution.query`` at the state.
    """
    pd = _pandas()
    rules = solution.rules
    n = rules.n
    states = decision_states(rules, rounds, level, max_rows)
    rows = len(states)
    sa = np.zeros((rows, n))
    sb = np.zeros((rows, n))
    values = np.empty(rows)
    for i, (_, ha, hb, pot, prizes, diff) in enumerate(states):
        q = solution.query(ha, hb, pot, prizes, diff)
        values[i] = q.value
        for c, p in q.strategy_a.items():
            sa[i, c - 1] = p
        for c, p in q.strategy_b.items():
            sb[i, c - 1] = p
    cols = {
        "round": np.array([s[0] for s in states], dtype=np.int8),
        "k": np.array([len(s[1]) for s in states], dtype=np.int8),
        "hand_a": [s[1] for s in states],
        "hand_b": [s[2] for s in states],
        "pot": np.array([s[3] for s in states], dtype=np.int16),
        "prizes": [s[4] for s in states],
        "diff": np.array([s[5] for s in states], dtype=np.int16),
        "value": values,
    }
    cols.update({f"a_{c}": sa[:, c - 1] for c in range(1, n + 1)})
    cols.update({f"b_{c}": sb[:, c - 1] for c in range(1, n + 1)})
    frame = pd.DataFrame(cols)
    frame.attrs["rules"] = rules.to_dict()
    return frame


def _mask(cards) -> int:
    return sum(1 << (c - 1) for c in cards)


def cards_from_mask(mask: int, order=None) -> tuple:
    """The cards of an ``.npz`` bitmask column entry (bit c - 1 set for card c).

    Parameters
    ----------
    mask : int
    order : sequence of int, optional
        A fixed prize order: the hidden prizes are listed in it (a bitmask
        keeps no order). Default: ascending.
    """
    mask = int(mask)
    return tuple(c for c in (order or range(1, 14)) if mask >> (c - 1) & 1)


def write(frame, fmt: str) -> bytes:
    """The bytes the first export wrote for ``frame`` in format ``fmt`` (csv, parquet or npz)."""
    rules = json.dumps(frame.attrs.get("rules", {}))
    fh = io.BytesIO()
    if fmt == "csv":
        out = frame.copy()
        for col in ("hand_a", "hand_b", "prizes"):
            out[col] = [",".join(map(str, v)) for v in out[col]]
        text = io.StringIO(newline="")
        out.to_csv(text, index=False, float_format="%.17g", lineterminator="\n")
        return text.getvalue().encode()
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pa.Table.from_pandas(frame, preserve_index=False)
        for col in ("hand_a", "hand_b", "prizes"):
            i = table.schema.get_field_index(col)
            table = table.set_column(i, pa.field(col, pa.list_(pa.int8())),
                                     pa.array([list(v) for v in frame[col]], type=pa.list_(pa.int8())))
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"gops.rules": rules.encode()})
        pq.write_table(table, fh)
    else:
        arrays = {c: frame[c].to_numpy() for c in frame.columns if c not in ("hand_a", "hand_b", "prizes")}
        for col in ("hand_a", "hand_b", "prizes"):
            arrays[col] = np.array([_mask(v) for v in frame[col]], dtype=np.uint16)
        arrays["rules"] = np.array(rules)
        np.savez_compressed(fh, **arrays)
    return fh.getvalue()
