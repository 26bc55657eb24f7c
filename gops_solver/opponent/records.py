"""Game records read back, validated, and converted from other formats.

:func:`read_records` reads the JSON-lines records that ``gops play --record``
and ``gops simulate --record`` write (:mod:`gops_solver.analysis.records`,
``docs/records.md``), replays every game under its rules and refuses the
first illegal one (a bid not in hand, a card bid twice, a prize outside the
prize set or revealed twice, a pot or score that does not follow the rules)
with one line naming the game and round. :func:`convert` turns a CSV of
rounds or OpenSpiel ``goofspiel`` action histories into records.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass

import numpy as np

from gops_solver.analysis.records import RECORD_FORMAT, RECORD_VERSION, record_line, replay_rounds
from gops_solver.game.rules import Rules


class RecordError(ValueError):
    """A record that is not a legal game (the message names the file, game and round)."""


@dataclass(frozen=True)
class GameRecord:
    """One recorded game.

    Attributes
    ----------
    rules : Rules
    seat_a, seat_b : str
        The seats' names (strategy names, ``human``).
    prizes, pots, bids_a, bids_b, scores_a, scores_b : tuple of int
        Per round (in order): the revealed prize, the pot, both bids, and the
        scores after the round.
    """

    rules: Rules
    seat_a: str
    seat_b: str
    prizes: tuple
    pots: tuple
    bids_a: tuple
    bids_b: tuple
    scores_a: tuple
    scores_b: tuple

    @property
    def margin(self) -> int:
        """A's final score minus B's."""
        return self.scores_a[-1] - self.scores_b[-1]


class Records(list):
    """The games of a records file (a list of :class:`GameRecord`), with a per-round table.

    Attributes
    ----------
    rules : Rules or None
        The rules every game shares (None if they differ or there are no games).
    """

    @property
    def rules(self):
        kinds = {g.rules for g in self}
        return kinds.pop() if len(kinds) == 1 else None

    @property
    def rounds(self):
        """A pandas DataFrame with one row per round.

        Columns: ``game`` (0-based, in file order), ``round`` (1-based),
        ``seat_a``, ``seat_b``, ``prize``, ``pot``, ``bid_a``, ``bid_b``,
        ``score_a``, ``score_b`` (after the round).
        """
        import pandas as pd
        rows = [(g, r + 1, rec.seat_a, rec.seat_b, rec.prizes[r], rec.pots[r], rec.bids_a[r], rec.bids_b[r],
                 rec.scores_a[r], rec.scores_b[r]) for g, rec in enumerate(self) for r in range(len(rec.prizes))]
        return pd.DataFrame(rows, columns=["game", "round", "seat_a", "seat_b", "prize", "pot", "bid_a", "bid_b",
                                           "score_a", "score_b"])


def _int(v, where, field):
    if isinstance(v, bool) or not isinstance(v, int):
        raise RecordError(f"{where}: {field} is {v!r}, not a whole number")
    return v


def check_game(rules: Rules, rounds, where: str) -> GameRecord:
    """Replay one game's rounds under ``rules``; :class:`RecordError` at the first illegal round.

    Parameters
    ----------
    rules : Rules
    rounds : list of dict
        ``prize``, ``bid_a``, ``bid_b`` per round; ``pot``, ``score_a``,
        ``score_b`` are checked when present.
    where : str
        What the message names (``"f.jsonl game 3"``).
    """
    n = rules.n
    if not isinstance(rounds, list) or len(rounds) != n:
        got = len(rounds) if isinstance(rounds, list) else type(rounds).__name__
        raise RecordError(f"{where}: {got} rounds; a game of n={n} has {n}")
    hand_a, hand_b, hidden = set(range(1, n + 1)), set(range(1, n + 1)), set(range(1, n + 1))
    cols = {k: [] for k in ("prize", "bid_a", "bid_b")}
    for r, rnd in enumerate(rounds):
        at = f"{where} round {r + 1}"
        if not isinstance(rnd, dict):
            raise RecordError(f"{at}: a round is an object with prize, bid_a, bid_b")
        for k in cols:
            if k not in rnd:
                raise RecordError(f"{at}: no field {k}")
        q, a, b = (_int(rnd[k], at, k) for k in ("prize", "bid_a", "bid_b"))
        if not 1 <= q <= n:
            raise RecordError(f"{at}: prize {q} is not in the prize set 1..{n}")
        if q not in hidden:
            raise RecordError(f"{at}: prize {q} was revealed before")
        if not rules.random_order and q != rules.sequence[r]:
            raise RecordError(f"{at}: prize {q}, but the order {rules.order_name} reveals {rules.sequence[r]}")
        for who, bid, hand in (("A", a, hand_a), ("B", b, hand_b)):
            if bid not in hand:
                why = "bid before" if 1 <= bid <= n else f"not a card of 1..{n}"
                raise RecordError(f"{at}: {who} bids {bid}, which is {why} (not in {who}'s hand {sorted(hand)})")
            hand.discard(bid)
        hidden.discard(q)
        cols["prize"].append(q)
        cols["bid_a"].append(a)
        cols["bid_b"].append(b)
    expect = replay_rounds(rules, cols["prize"], cols["bid_a"], cols["bid_b"])
    for r, (rnd, want) in enumerate(zip(rounds, expect)):
        for k in ("pot", "score_a", "score_b"):
            if k in rnd and _int(rnd[k], f"{where} round {r + 1}", k) != want[k]:
                raise RecordError(f"{where} round {r + 1}: {k} is {rnd[k]}, but the rules ({rules.tie} ties) "
                                  f"give {want[k]}")
    return GameRecord(rules, "", "", tuple(cols["prize"]), tuple(e["pot"] for e in expect), tuple(cols["bid_a"]),
                      tuple(cols["bid_b"]), tuple(e["score_a"] for e in expect), tuple(e["score_b"] for e in expect))


def _rules_of(data, where) -> Rules:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: no rules object")
    try:
        rules = Rules.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{where}: unusable rules {json.dumps(data)[:120]}: {exc}") from None
    if not rules.classic or rules.players != 2:
        raise RecordError(f"{where}: records hold classic two-player games, not {rules.describe()}")
    return rules


def parse_record(text: str, where: str) -> GameRecord:
    """One record line as a validated :class:`GameRecord` (:class:`RecordError` otherwise)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}: not JSON ({exc.msg} at column {exc.colno}); a record is one JSON object "
                          f"a line") from None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise RecordError(f"{where}: not a gops record (format must be {RECORD_FORMAT!r})")
    if data.get("version") != RECORD_VERSION:
        raise RecordError(f"{where}: record version {data.get('version')!r}; this gops reads version "
                          f"{RECORD_VERSION}")
    rules = _rules_of(data.get("rules"), where)
    seats = data.get("seats")
    if not isinstance(seats, dict) or not all(isinstance(seats.get(k), str) for k in ("a", "b")):
        raise RecordError(f"{where}: seats must be an object with the names a and b")
    g = check_game(rules, data.get("rounds"), where)
    return GameRecord(rules, seats["a"], seats["b"], *(getattr(g, f) for f in
                                                       ("prizes", "pots", "bids_a", "bids_b", "scores_a",
                                                        "scores_b")))


def read_records(path, frame: bool = False):
    """Read and validate a records file (JSON lines; blank lines skipped).

    Parameters
    ----------
    path : str or os.PathLike
    frame : bool
        Return the per-round pandas DataFrame (:attr:`Records.rounds`)
        instead of the games.

    Returns
    -------
    Records or pandas.DataFrame

    Raises
    ------
    ValueError
        :class:`RecordError` naming the file, game (1-based line of a game)
        and round of the first illegal record, or the file cannot be read.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read records {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not UTF-8 text; records are JSON lines") from None
    out = Records()
    for i, line in enumerate(lines):
        if line.strip():
            out.append(parse_record(line, f"{path} game {len(out) + 1} (line {i + 1})"))
    return out.rounds if frame else out


# ---------------------------------------------------------------------------
# converters
# ---------------------------------------------------------------------------

#: columns of a CSV of rounds (one row a round; any further columns are ignored)
CSV_COLUMNS = ("game", "round", "prize", "bid_a", "bid_b")


def _from_csv(text, rules, name):
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise RecordError(f"{name}: no column {', '.join(missing)}; a CSV of rounds has columns "
                          f"{', '.join(CSV_COLUMNS)}")
    games: dict = {}
    for line, row in enumerate(reader, start=2):
        try:
            vals = {c: int(row[c]) for c in CSV_COLUMNS[1:]}
        except (TypeError, ValueError):
            raise RecordError(f"{name} line {line}: round, prize, bid_a and bid_b must be whole numbers") from None
        games.setdefault(row["game"], []).append(vals)
    out = []
    for gid, rows in games.items():
        rows.sort(key=lambda v: v["round"])
        where = f"{name} game {gid}"
        if [v["round"] for v in rows] != list(range(1, len(rows) + 1)):
            raise RecordError(f"{where}: rounds {[v['round'] for v in rows]}; number them 1..{rules.n}")
        out.append(check_game(rules, [{k: v[k] for k in ("prize", "bid_a", "bid_b")} for v in rows], where))
    return out


def _from_openspiel(text, rules, name):
    # OpenSpiel's goofspiel history (simultaneous-move game): per round, under the random order, a chance
    # action (point card c - 1 for prize c) then the two bids (action c - 1 for card c); fixed orders have
    # no chance actions. The last round (one card each) is played by the game itself and may be absent.
    if rules.tie != "discard":
        raise RecordError(f"{name}: OpenSpiel's goofspiel discards tied prizes: convert with --tie discard")
    n = rules.n
    step = 3 if rules.random_order else 2
    out = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{name} game {len(out) + 1} (line {line})"
        try:
            acts = [int(t) for t in raw.replace(",", " ").split()]
        except ValueError:
            raise RecordError(f"{where}: an OpenSpiel history is whole numbers (actions) separated by spaces") \
                from None
        if len(acts) not in (step * (n - 1), step * n):
            raise RecordError(f"{where}: {len(acts)} actions; a goofspiel history of n={n} has "
                              f"{step * (n - 1)} (or {step * n})")
        rounds = []
        for r in range(len(acts) // step):
            chunk = acts[r * step:(r + 1) * step]
            prize = chunk[0] + 1 if step == 3 else rules.sequence[r]
            rounds.append({"prize": prize, "bid_a": chunk[-2] + 1, "bid_b": chunk[-1] + 1})
        if len(rounds) == n - 1:  # the forced last round
            left = lambda key, pool: (set(pool) - {v[key] for v in rounds})  # noqa: E731
            rest = [left(k, range(1, n + 1)) for k in ("prize", "bid_a", "bid_b")]
            if not rules.random_order:
                rest[0] = {rules.sequence[n - 1]}
            if any(len(s) != 1 for s in rest):
                raise RecordError(f"{where} round {n}: the earlier rounds repeat a card, so no single card is "
                                  f"left to play")
            rounds.append({"prize": rest[0].pop(), "bid_a": rest[1].pop(), "bid_b": rest[2].pop()})
        out.append(check_game(rules, rounds, where))
    return out


def convert(source: str, path, rules: Rules, out, seats=("a", "b")) -> int:
    """Convert records from elsewhere into a records file written atomically.

    Parameters
    ----------
    source : {"csv", "openspiel"}
        ``csv``: rows of :data:`CSV_COLUMNS` (one row a round; games told
        apart by ``game``). ``openspiel``: one ``goofspiel`` action history a
        line (see ``docs/records.md``).
    path : str
        The input file.
    rules : Rules
        The rules the games were played under.
    out : str
        The records file to write (replaced whole; ``-`` streams).
    seats : (str, str)
        Names of the seats in the records.

    Returns
    -------
    int
        Games written.

    Raises
    ------
    ValueError
        Unreadable input or an illegal game (one line naming it); nothing is written then.
    """
    from gops_solver.engine.storage import atomic_write, check_out_path
    if source not in ("csv", "openspiel"):
        raise ValueError(f"unknown source {source!r}: use csv or openspiel")
    if not rules.classic or rules.players != 2 or rules.match != "single":
        raise ValueError(f"records hold single classic two-player games, not {rules.describe()}")
    check_out_path(out, stdout=True)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not UTF-8 text") from None
    games = (_from_csv if source == "csv" else _from_openspiel)(text, rules, os.fspath(path))
    lines = [record_line(rules, seats[0], seats[1], replay_rounds(rules, g.prizes, g.bids_a, g.bids_b))
             for g in games]
    atomic_write(out, [("".join(lines)).encode()], stdout=True, name="records")
    return len(games)


def bid_arrays(records, player: str):
    """Per decision of ``player`` (``"a"`` or ``"b"``), as arrays: game index, own hand mask, the
    opponent's mask, hidden prizes mask, pot, own score difference, and the card bid."""
    rows = []
    for g, rec in enumerate(records):
        n = rec.rules.n
        full = (1 << n) - 1
        ha = hb = pm = full
        for r in range(n):
            q = rec.prizes[r]
            pm &= ~(1 << (q - 1))
            d = (rec.scores_a[r - 1] - rec.scores_b[r - 1]) if r else 0
            own, opp, bid, dd = (ha, hb, rec.bids_a[r], d) if player == "a" else (hb, ha, rec.bids_b[r], -d)
            rows.append((g, own, opp, pm, rec.pots[r], dd, bid))
            ha &= ~(1 << (rec.bids_a[r] - 1))
            hb &= ~(1 << (rec.bids_b[r] - 1))
    return np.array(rows, dtype=np.int64).reshape(-1, 7)


#: the converter under the name the package facade exports
convert_records = convert
