"""The top levels of a solved game in one small file: its first rounds, answered exactly.

A whole solution of a large game is large (n = 13 under ``win``: a block
store of about 40 GB), but most questions are about the first rounds. A
decision with ``k`` cards in each hand is answered from the values of level
``k - 1`` (:mod:`~.query`), so the value tables of levels ``n .. n - R``
answer every decision of rounds ``1 .. R`` exactly as the whole solution
does, bit for bit; a deeper state is answered by solving its own sub-game.
For n = 13 under ``discard``/``win`` and ``R = 2`` that is 8.8 million
values (70 MB), about 20 MB compressed.

File layout (the solution container of :mod:`~.storage`, kind ``top``)::

    MAGIC | header length | JSON header | header CRC-32 | zero padding to 4096
    | block | block | ...                 (each zstd-compressed, level 1)

Each level is kept as its prize-set blocks (:mod:`~.blocked`: every stored
hand pattern of the level for one hidden prize set; one block per level
under a fixed order), so a query decompresses only the block it reads. The
header names the rules, the ``rounds`` held and, per level ``k`` (from
``n`` down), ``block_len`` and, per block in rank order, ``[stored bytes,
CRC-32 of the stored bytes, CRC-32 of the values]``. The stored bytes'
checksum is checked before they are decompressed and the values' after,
as for a block store's blocks; ``load`` checks every stored checksum
(``check=False`` skips it). The file is written by
:func:`~.storage.atomic_write`: read back whole and checked before it takes
its name.

:func:`write_top` writes one from any complete classic solution (in
memory, a solution file, a block store or another top-levels file with at
least as many rounds); :func:`open_top` reads it for
:func:`~.solution.load_classic`, which wraps its :class:`TopTables` in the
:class:`~.solution.Solution` every reader takes.
"""

from __future__ import annotations

import os
import zlib
from collections import OrderedDict

import numpy as np

from gops_solver import __version__
from gops_solver.engine._blockstore import ZSTD_LEVEL, _zstd
from gops_solver.engine.blocked import block_table, count_states, pattern_major, set_major
from gops_solver.engine.storage import (FORMAT_VERSION, FileKind, atomic_write, header_bytes, open_table_file, saved_rules,
                                        read_header)
from gops_solver.game.rules import Rules

#: what the container's header calls a top-levels file
KIND = "top"
#: how messages call one, and what writes one
TOP = FileKind((KIND,), "gops top-levels file", "gops export --format solution --rounds R", table="block")
#: decompressed blocks a reader keeps (bytes): n = 13 discard/win, two rounds, is 70 MB in all
CACHE_BYTES = 256 * 10**6


def top_levels(n: int, rounds: int) -> list:
    """The levels (cards in each hand) whose values answer rounds ``1 .. rounds``: ``n`` down to ``n - rounds``."""
    return list(range(n, n - rounds - 1, -1))


def check_rounds(rules: Rules, rounds) -> int:
    """``rounds`` as an int when a top-levels file of ``rules`` can hold it; ValueError in one line otherwise."""
    n = rules.n
    if rules.match != "single" or not rules.classic or rules.players != 2:
        what = (f"{rules.players}-player game" if rules.players != 2 else
                rules.match if rules.match != "single" else "variant")
        raise ValueError(f"a top-levels file holds a classic two-player single game; {rules.describe()} is a "
                         f"{what}: export it in another format")
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)):
        raise ValueError(f"rounds={rounds!r} is not a whole number: give how many rounds the file holds, 1..{n - 1}")
    if n == 1:
        raise ValueError("a one-card game has one round, which is the whole game: save the solution itself")
    if not 1 <= rounds <= n - 1:
        raise ValueError(f"rounds {rounds} is outside 1..{n - 1}: a top-levels file holds the values of levels "
                         f"n..n-R that answer rounds 1..R (the whole game is the solution itself)")
    return int(rounds)


def _source_blocks(space, tables, k: int):
    """The prize-set blocks of level ``k`` of a solution's tables, in rank order, one at a time."""
    read = getattr(tables, "read_block", None)
    if read is None and hasattr(tables, "store"):  # a block store (BlockedTables)
        read = tables.store.read_block
    if read is not None:
        for rank in range(len(space.sets[k])):
            yield read(k, rank)
        return
    yield from set_major(space, k, tables[k])  # a whole level: cut into its blocks


def write_top(path, solution, rounds: int, lock: bool = True) -> dict:
    """Write the top levels of ``solution`` (rounds ``1 .. rounds``) to ``path``, atomically.

    Parameters
    ----------
    path : path-like
    solution : Solution
        A complete classic single game (:func:`~gops_solver.solve`,
        :func:`~gops_solver.load` of a solution file or block store), or a
        top-levels file holding at least ``rounds`` rounds.
    rounds : int
        ``1 .. n - 1``: the file holds the values of levels ``n .. n - rounds``.
    lock : bool
        Take the target's writer lock.

    Returns
    -------
    dict
        ``rounds``, ``levels``, ``entries`` (values held), ``raw_bytes``
        (their float64 size) and ``bytes`` (the file).

    Raises
    ------
    ValueError
        The rules are not a classic single game, ``rounds`` is out of range
        or deeper than a top-levels source holds, a block cannot be read, or
        the path cannot be written.
    """
    rules = solution.rules
    rounds = check_rounds(rules, rounds)  # a classic single game, before its tables are touched
    space, tables = solution.space, solution.tables
    held = getattr(solution, "rounds_held", None)
    if held is not None and rounds > held:
        raise ValueError(f"{solution.top.name} holds rounds 1..{held}, not {rounds}: write {held} rounds or fewer "
                         f"from it, or write from the whole solution")
    zc = _zstd().ZstdCompressor(level=ZSTD_LEVEL)
    levels, bodies, states, entries = [], [], 0, 0
    for k in top_levels(rules.n, rounds):
        blen = space.size(k) // len(space.sets[k])
        blocks = []
        for data in _source_blocks(space, tables, k):
            data = np.ascontiguousarray(data, dtype="<f8")
            if len(data) != blen:
                raise ValueError(f"level {k} of the solution has blocks of {len(data)} values, not {blen}: it does "
                                 f"not match its rules; solve again")
            raw = memoryview(data).cast("B")
            body = zc.compress(raw)
            blocks.append([len(body), zlib.crc32(body), zlib.crc32(raw)])
            bodies.append(body)
            states += count_states(space, k, data)
            entries += len(data)
        levels.append({"k": k, "block_len": blen, "blocks": blocks})
    header = {"format": FORMAT_VERSION, "kind": KIND, "package_version": __version__, "rules": rules.to_dict(),
              "rounds": rounds, "codec": "zstd", "zstd_level": ZSTD_LEVEL, "value": float(solution.value),
              "states": int(states), "stage_games": int(solution.stage_games), "seconds": float(solution.seconds),
              "levels": levels}
    head = header_bytes(header, TOP)

    def check(tmp):
        _, _, got, _ = open_top(tmp, rules, check=True, name=os.fspath(path))
        got.check_values()  # every block decompressed and its values' checksum compared

    size = atomic_write(path, [head, *bodies], check, lock=lock)
    return {"rounds": rounds, "levels": [lv["k"] for lv in levels], "entries": entries, "raw_bytes": 8 * entries,
            "bytes": size, "states": states}


def _top_fields(header) -> None:
    """Raise KeyError/TypeError/ValueError when a top-levels header lacks what a reader needs."""
    if not (isinstance(header["rules"], dict) and isinstance(header["rounds"], int) and header["codec"] == "zstd"):
        raise TypeError
    for lv in header["levels"]:
        if not (isinstance(lv["k"], int) and isinstance(lv["block_len"], int) and lv["block_len"] >= 0):
            raise TypeError
        for b in lv["blocks"]:
            if not (len(b) == 3 and all(isinstance(x, int) and x >= 0 for x in b)):
                raise TypeError


def open_top(path, rules: Rules | None = None, check: bool = True, name=None):
    """``(rules, space, tables, header)`` of a top-levels file; ValueError in one line if it is not sound.

    Parameters
    ----------
    path : path-like
    rules : Rules, optional
        When given, the file must hold exactly these rules.
    check : bool
        Check every block's stored checksum now (reads the file once, without
        decompressing); a block's values are checked whenever it is read.
    name : str, optional
        How messages call the file (default: ``path``).
    """
    from gops_solver.game.encoding import full_space
    path = os.fspath(path)
    name = name or path
    again = f"write it again with {TOP.writer}"
    with open_table_file(path, name) as (fh, actual):
        header, start = read_header(fh, name, TOP, validate=_top_fields)
    saved = saved_rules(header, name, rules, again)
    space = full_space(saved)
    rounds = header["rounds"]
    want = top_levels(saved.n, rounds) if 1 <= rounds < saved.n else None
    if want is None or [lv["k"] for lv in header["levels"]] != want or any(
            len(lv["blocks"]) != len(space.sets[lv["k"]]) or lv["block_len"] * len(lv["blocks"]) != space.size(lv["k"])
            for lv in header["levels"]):
        raise ValueError(f"{name} is corrupted (its levels do not match its rules): {again}")
    total = start + sum(b[0] for lv in header["levels"] for b in lv["blocks"])
    if actual < total:
        raise ValueError(f"{name} is truncated ({actual:,} of {total:,} bytes): {again}")
    if actual > total:
        raise ValueError(f"{name} is corrupted (unexpected length): {again}")
    tables = TopTables(path, name, space, header, start)
    if check:
        tables.check()
    return saved, space, tables, header


class TopTables:
    """The level tables of a top-levels file: levels ``n .. n - rounds``, read block by block.

    Readers take it where they take a list of level tables or a block
    store's tables: ``view(k, ranks)`` (:func:`~.tables.level_view`) loads
    the blocks asked for; ``tables[k]`` assembles a whole level. A level the
    file does not hold is refused in one line (``holds(k)`` says which are
    held; queries then solve the state's sub-game).

    Attributes
    ----------
    path, name : str
        The file, and how messages call it.
    rounds : int
    levels : list of int
        The levels held, from ``n`` down.
    lowest : int
        ``n - rounds``: the lowest level held.
    stored_bytes, raw_bytes : int
        The blocks as stored (compressed) and as float64 values.
    """

    def __init__(self, path, name, space, header, start: int):
        self.path, self.name, self.space = path, name, space
        self.rounds = int(header["rounds"])
        self.levels = [int(lv["k"]) for lv in header["levels"]]
        self.lowest = min(self.levels)
        self.block_len = {int(lv["k"]): int(lv["block_len"]) for lv in header["levels"]}
        self._where = {}
        at = start
        for lv in header["levels"]:
            for rank, (stored, scrc, crc) in enumerate(lv["blocks"]):
                self._where[(int(lv["k"]), rank)] = (at, stored, scrc, crc)
                at += stored
        self.stored_bytes = at - start
        self.raw_bytes = 8 * sum(space.size(k) for k in self.levels)
        self._cache = OrderedDict()
        self._cached = 0

    def holds(self, k: int) -> bool:
        """Whether the file holds level ``k``."""
        return k in self.block_len

    def __len__(self) -> int:
        return self.space.kmax + 1

    def _refuse(self, k: int):
        n = self.space.kmax
        return ValueError(f"{self.name} holds the top levels {n}..{self.lowest} of the game (rounds 1..{self.rounds}), "
                          f"not level {k}: this needs the whole solution (a solution file or block store)")

    def _stored(self, fh, k: int, rank: int) -> bytes:
        at, stored, scrc, _ = self._where[(k, rank)]
        fh.seek(at)
        body = fh.read(stored)
        if len(body) != stored:
            raise ValueError(f"{self.name} is truncated (in block {rank} of level {k}): write it again with "
                             f"{TOP.writer}")
        if zlib.crc32(body) != scrc:
            raise ValueError(f"{self.name} is corrupted (checksum of block {rank} of level {k} fails): write it "
                             f"again with {TOP.writer}")
        return body

    def _open(self):
        try:
            return open(self.path, "rb")
        except OSError as exc:
            raise ValueError(f"cannot read {self.name}: {exc.strerror}") from None

    def read_block(self, k: int, rank: int) -> np.ndarray:
        """The values of block ``rank`` of level ``k``, both checksums checked (read-only)."""
        if not self.holds(k):
            raise self._refuse(k)
        key = (k, rank)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        with self._open() as fh:
            data = self._decode(self._stored(fh, k, rank), k, rank)
        self._cache[key] = data
        self._cached += data.nbytes
        while self._cached > CACHE_BYTES and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._cached -= old.nbytes
        return data

    def _decode(self, body: bytes, k: int, rank: int) -> np.ndarray:
        n = self.block_len[k]
        try:
            raw = _zstd().ZstdDecompressor().decompress(body, max_output_size=8 * n)
        except Exception:  # zstandard.ZstdError: undecodable despite its checksum
            raise ValueError(f"{self.name} is corrupted (block {rank} of level {k} does not decompress)") from None
        if len(raw) != 8 * n or zlib.crc32(raw) != self._where[(k, rank)][3]:
            raise ValueError(f"{self.name} is corrupted (values of block {rank} of level {k} fail their checksum)")
        data = np.frombuffer(raw, dtype="<f8")
        data.flags.writeable = False
        return data

    def view(self, k: int, ranks=None):
        """Level ``k`` with the blocks ``ranks`` (all when None) loaded, for the kernels."""
        if not self.holds(k):
            raise self._refuse(k)
        if ranks is None:
            ranks = range(len(self.space.sets[k]))
        return block_table(self.space, k, {int(r): self.read_block(k, int(r)) for r in ranks})

    def __getitem__(self, k: int) -> np.ndarray:
        if not 0 <= k <= self.space.kmax:
            raise IndexError(k)
        if not self.holds(k):
            raise self._refuse(k)
        return pattern_major(self.space, k, [self.read_block(k, r) for r in range(len(self.space.sets[k]))])

    def check(self) -> None:
        """Check every block's stored checksum (reads the file once; nothing is decompressed)."""
        with self._open() as fh:
            for k, rank in self._where:
                self._stored(fh, k, rank)

    def check_values(self) -> None:
        """Decompress every block and check its values' checksum (nothing is kept)."""
        with self._open() as fh:
            for k, rank in self._where:
                self._decode(self._stored(fh, k, rank), k, rank)
