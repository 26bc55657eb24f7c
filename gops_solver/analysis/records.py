"""Game records: one JSON line per game, written by ``gops play`` and ``gops simulate``.

The format (``docs/records.md``, schema ``docs/records.schema.json``)::

    {"format": "gops-record", "version": 1,
     "rules": {...Rules.to_dict()...},
     "seats": {"a": "equilibrium", "b": "match"},
     "rounds": [{"prize": 4, "pot": 4, "bid_a": 3, "bid_b": 4, "score_a": 0, "score_b": 4}, ...]}

``score_a``/``score_b`` are the scores after the round. This module builds and
appends records (it sits below :mod:`gops_solver.opponent`, where they are read
back and validated, so that play and simulate can write them).
"""

from __future__ import annotations

import fcntl
import os

from gops_solver.game.jsonout import dumps

#: the ``format`` field of every record line
RECORD_FORMAT = "gops-record"
#: the version this code writes and reads
RECORD_VERSION = 1


def replay_rounds(rules, prizes, bids_a, bids_b) -> list:
    """The rounds of one classic game as record entries (pot and scores after each round).

    Parameters
    ----------
    rules : Rules
        Tie rule of the game (``carry`` or ``discard``).
    prizes, bids_a, bids_b : sequence of int
        The revealed prize and both bids of each round, in order.

    Returns
    -------
    list of dict
        ``{"prize", "pot", "bid_a", "bid_b", "score_a", "score_b"}`` per round.
    """
    n = len(prizes)
    carry = 0
    sa = sb = 0
    out = []
    for r in range(n):
        q, a, b = int(prizes[r]), int(bids_a[r]), int(bids_b[r])
        pot = carry + q
        if a > b:
            sa += pot
            carry = 0
        elif a < b:
            sb += pot
            carry = 0
        else:
            carry = pot if (rules.tie == "carry" and r < n - 1) else 0
        out.append({"prize": q, "pot": pot, "bid_a": a, "bid_b": b, "score_a": sa, "score_b": sb})
    return out


def record_line(rules, seat_a: str, seat_b: str, rounds: list) -> str:
    """One record (a game) as a line of strict JSON, newline included."""
    return dumps({"format": RECORD_FORMAT, "version": RECORD_VERSION, "rules": rules.to_dict(),
                  "seats": {"a": str(seat_a), "b": str(seat_b)}, "rounds": rounds}) + "\n"


class RecordWriter:
    """Appends record lines to a file, a FIFO or standard output (``-``).

    Each :meth:`write` puts whole lines into the file with one ``write`` call
    (repeated only if the system writes part of it) while holding an exclusive
    ``flock`` on the file: concurrent writers append their batches one after
    the other and a signal falls between lines, so the file never holds a
    partial line that this process wrote. Streams take no lock.

    Parameters
    ----------
    path : str or os.PathLike
        ``-`` streams to standard output.

    Raises
    ------
    ValueError
        When the file cannot be opened for appending (one line naming the fix).
    """

    def __init__(self, path):
        from gops_solver.engine.storage import refuse_url, stream_target
        self.path = os.fspath(path)
        refuse_url(self.path, "write")
        self._stream = stream_target(self.path)
        try:
            if self.path == "-":
                import sys
                sys.stdout.flush()
                self._fd = os.dup(sys.stdout.fileno())
            elif self._stream:
                self._fd = os.open(self.path, os.O_WRONLY)
            else:
                if os.path.isdir(self.path):
                    raise ValueError(f"cannot record into {self.path}: it is a folder; give a file name")
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as exc:
            raise ValueError(f"cannot record into {self.path}: {exc.strerror}; choose a writable file") from None

    def write(self, lines) -> None:
        """Append ``lines`` (complete lines, each ending in a newline) at once."""
        data = "".join(lines).encode()
        if not data:
            return
        if not self._stream:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            view = memoryview(data)
            while view:
                done = os.write(self._fd, view)
                view = view[done:]
        finally:
            if not self._stream:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        """Flush to disk (a regular file) and close."""
        if self._fd is None:
            return
        try:
            if not self._stream:
                os.fsync(self._fd)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
