"""Whole-strategy export: one row per decision state of the first rounds.

:func:`decision_states` walks the game forward from its start (every prize
that can be shown, every pair of bids) and yields each reachable decision
state once; :func:`to_frame` asks :meth:`Solution.query` for each and builds
a pandas DataFrame; :func:`write` stores it as CSV, Parquet or ``.npz``,
atomically. The schema is documented in ``docs/export.md``.

Columns (every format):

``round``, ``k``
    Round number (1 = the first) and cards left in each hand (k = n - round + 1).
``hand_a``, ``hand_b``, ``prizes``
    Card sets: tuples in the DataFrame, ``"1,3,5"`` text in CSV, lists in
    Parquet, bitmasks (bit c - 1 set for card c) in ``.npz``. ``prizes``
    are the hidden prizes (in reveal order for a fixed order).
``pot``, ``diff``
    Points at stake this round; score A - score B so far.
``value``
    Value of the state for A (``points``: expected final margin, ``diff``
    included; ``win``: P(A wins) - P(B wins)).
``a_1`` .. ``a_n``, ``b_1`` .. ``b_n``
    Probability that A (B) bids card c in an optimal strategy; 0 for a card
    not in the hand.
"""

from __future__ import annotations

import json

import numpy as np

from gops_solver.game.rules import Rules

#: formats :func:`write` knows
FORMATS = ("csv", "parquet", "npz")
#: rows an export builds unless told otherwise: about a minute of queries per
#: 100,000 rows, so the default refuses the hour-long ones before they start
DEFAULT_MAX_ROWS = 2_000_000


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise ValueError("export needs pandas and pyarrow: pip install 'gops-solver[export]'") from None
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
    from numbers import Real
    n = rules.n
    if rules.match != "single":
        raise ValueError(f"export covers single games; {rules.match} is a match: drop --match")
    for name, v in (("rounds", rounds), ("level", level)):  # 1.5 or True would pass int() unnoticed
        if v is not None and (isinstance(v, bool) or not isinstance(v, Real) or not float(v).is_integer()):
            raise ValueError(f"{name}={v!r} is not a whole number: give a count of rounds (or cards left) 1..{n}")
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


def write(frame, path, fmt: str) -> int:
    """Write an export frame to ``path`` atomically (temporary file, fsync, rename).

    Parameters
    ----------
    frame : pandas.DataFrame
        As returned by :func:`to_frame`.
    path : str or path-like
    fmt : {"csv", "parquet", "npz"}

    Returns
    -------
    int
        Bytes written (-1 when streamed into a pipe).

    Raises
    ------
    ValueError
        Unknown format, or the path cannot be written.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    rules = json.dumps(frame.attrs.get("rules", {}))
    if fmt == "csv":
        out = frame.copy()
        for col in ("hand_a", "hand_b", "prizes"):
            out[col] = [",".join(map(str, v)) for v in out[col]]

        def dump(fh):
            out.to_csv(fh, index=False, float_format="%.17g", lineterminator="\n")
        return _atomic_write(path, dump, text=True)
    elif fmt == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ValueError("parquet export needs pyarrow: pip install 'gops-solver[export]'") from None
        table = pa.Table.from_pandas(frame, preserve_index=False)
        for col in ("hand_a", "hand_b", "prizes"):
            i = table.schema.get_field_index(col)
            table = table.set_column(i, pa.field(col, pa.list_(pa.int8())),
                                     pa.array([list(v) for v in frame[col]], type=pa.list_(pa.int8())))
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"gops.rules": rules.encode()})
        return _atomic_write(path, lambda fh: pq.write_table(table, fh))
    else:
        arrays = {c: frame[c].to_numpy() for c in frame.columns if c not in ("hand_a", "hand_b", "prizes")}
        for col in ("hand_a", "hand_b", "prizes"):
            arrays[col] = np.array([_mask(v) for v in frame[col]], dtype=np.uint16)
        arrays["rules"] = np.array(rules)
        return _atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))


def _atomic_write(path, dump, text=False) -> int:
    """Run ``dump(file object)`` into ``path`` with :func:`~.storage.atomic_write`; returns the bytes written.

    A regular file is replaced only once the whole new one is on disk (its
    writer lock held); an existing FIFO, a character device or ``-``
    (standard output) is streamed into; anything else is refused in one line.
    """
    import io

    from gops_solver.engine.storage import atomic_write

    def parts(fh):
        if not text:
            dump(fh)
            return
        wrapper = io.TextIOWrapper(fh, encoding="utf-8", newline="")
        dump(wrapper)
        wrapper.flush()
        wrapper.detach()  # leave ``fh`` open for the writer

    return atomic_write(path, parts, stdout=True)
