"""Solution: the solved value tables of one game, queries, save and load.

Follow a state here: :func:`solve` builds the :class:`~.encoding.StateSpace`
of the rules, fills its tables by :func:`~.induction.run_induction`, and
:meth:`Solution.query` reduces a state to its pattern, reads the successor
values from level ``k - 1`` and solves that one stage game again for the
strategies (tables store values, not strategies).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import zlib
from dataclasses import dataclass, field

import numpy as np

from . import __version__
from .checkpoint import Checkpointer
from .encoding import StateSpace, classes, hands_to_pattern, successor, LUT_OFF, TOK_A, TOK_B
from .induction import StageSolveError, level_work, run_induction, stage_entry
from .rules import Rules, validate_state
from .stage import solve_matrix_game

MAGIC = b"GOPSSOL\x01"
FORMAT_VERSION = 1


@dataclass
class QueryResult:
    """Value and optimal bid distributions at one decision state.

    Attributes
    ----------
    value : float
        Value of the state for A (``points``: expected final margin including
        ``diff``; ``win``: P(A wins) - P(B wins)).
    strategy_a, strategy_b : dict
        Card -> probability over each player's hand; optimal in the stage game.
    matrix : ndarray
        The stage game over classes of interchangeable cards.
    """

    value: float
    strategy_a: dict
    strategy_b: dict
    matrix: np.ndarray = field(repr=False)
    state: object = field(repr=False, default=None)

    def to_dict(self) -> dict:
        """JSON-ready form (card keys as strings)."""
        return {"value": float(self.value),
                "strategy_a": {str(c): float(p) for c, p in self.strategy_a.items()},
                "strategy_b": {str(c): float(p) for c, p in self.strategy_b.items()}}


def full_space(rules: Rules) -> StateSpace:
    """State space of the whole game under ``rules``."""
    items = range(1, rules.n + 1) if rules.random_order else rules.sequence
    return StateSpace(rules.random_order, rules.tie == "carry", rules.objective == "win",
                      items, rules.n, rules.n)


class Solution:
    """The solved game: value tables of every level, and the rules they belong to.

    Attributes
    ----------
    rules : Rules
    value : float
        Value of the game at its start.
    states : int
        Table entries computed (positions before a reveal, after symmetry).
    stage_games : int
        Stage games solved while building the tables.
    seconds : float
        Wall time of the solve (0 for a loaded solution).
    """

    def __init__(self, rules: Rules, space: StateSpace, tables, stage_games=0, seconds=0.0, stage_solver="numba"):
        self.rules, self.space, self.tables = rules, space, tables
        self.stage_games, self.seconds = int(stage_games), float(seconds)
        self.stage_solver = stage_solver
        self.states = int(sum(np.count_nonzero(~np.isnan(t)) for t in tables[1:]))

    @property
    def value(self) -> float:
        """Value of the game at its start (no carry, diff 0, all prizes hidden)."""
        n, sp = self.rules.n, self.space
        top = sp.patterns.index([2] * n)
        return float(self.tables[n][top, 0 if not sp.random_order else len(sp.sets[n]) - 1, 0, sp.dmax[n]])

    def __repr__(self):
        return (f"Solution({self.rules.describe()}, value={self.value:.12g}, states={self.states}, "
                f"stage_games={self.stage_games})")

    # -- queries ----------------------------------------------------------------
    def query(self, hand_a, hand_b, pot, prizes=(), diff=0, stage_solver=None) -> QueryResult:
        """Value and optimal bid distributions of a decision state.

        Parameters
        ----------
        hand_a, hand_b : iterable of int or str
            Remaining cards of A and B (same size k >= 1).
        pot : int
            Revealed prize plus carried pot.
        prizes : iterable
            The k - 1 hidden prizes (for a fixed order, those the order has left).
        diff : int
            Score A - score B so far.
        stage_solver : {"numba", "highs"}, optional
            Backend of the final stage game (default: the one solved with).

        Returns
        -------
        QueryResult

        Raises
        ------
        ValueError
            If the state cannot occur under these rules.
        """
        st = validate_state(self.rules, hand_a, hand_b, pot, prizes, diff)
        return query_state(self.rules, st, self.space, self.tables, stage_solver or self.stage_solver)

    # -- persistence ---------------------------------------------------------------
    def save(self, path) -> None:
        """Write the solution to ``path`` atomically (temporary file, then rename).

        Raises
        ------
        ValueError
            If the path cannot be written.
        """
        header = {"format": FORMAT_VERSION, "package_version": __version__, "rules": self.rules.to_dict(),
                  "stage_games": self.stage_games, "seconds": self.seconds, "stage_solver": self.stage_solver,
                  "tables": [{"shape": list(t.shape), "crc32": zlib.crc32(memoryview(np.ascontiguousarray(t)).cast("B"))}
                             for t in self.tables]}
        blob = json.dumps(header).encode()
        _atomic_write(path, [MAGIC, len(blob).to_bytes(8, "little"), blob] + [np.ascontiguousarray(t) for t in self.tables])
        Checkpointer(path, self.rules).clear()  # the solution is safe: its checkpoints are not needed


def _atomic_write(path, parts) -> None:
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path}: it is a folder; give a file name")
    if not os.path.isdir(folder):
        raise ValueError(f"cannot write {path}: folder {folder} does not exist; create it or choose another path")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".gops-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror}; choose a writable location") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            for part in parts:
                fh.write(part if isinstance(part, bytes) else memoryview(part).cast("B"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise ValueError(f"cannot write {path}: {exc.strerror}; choose a writable location") from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load(path, rules: Rules | None = None) -> Solution:
    """Read a solution written by :meth:`Solution.save`.

    Parameters
    ----------
    path : str or path-like
    rules : Rules, optional
        When given, the file must hold a solution of exactly these rules.

    Raises
    ------
    ValueError
        Missing, truncated or corrupted file, or a file for other rules.
    """
    path = os.fspath(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise ValueError(f"cannot read solution {path}: {exc.strerror}; give the file written by gops solve --out") from None
    with fh:
        if fh.read(len(MAGIC)) != MAGIC:
            raise ValueError(f"{path} is not a gops solution file: write one with gops solve --out")
        try:
            size = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(size).decode())
            saved_rules = Rules.from_dict(header["rules"])
            shapes = [tuple(t["shape"]) for t in header["tables"]]
            crcs = [int(t["crc32"]) for t in header["tables"]]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise ValueError(f"{path} is corrupted (unreadable header): solve again with gops solve --out") from None
        if header.get("format") != FORMAT_VERSION:
            raise ValueError(f"{path} has format {header.get('format')}, this gops reads format {FORMAT_VERSION}: solve again")
        if rules is not None and saved_rules != rules:
            raise ValueError(f"{path} holds a solution for {saved_rules.describe()}, not {rules.describe()}: "
                             f"use a matching file or solve these rules")
        space = full_space(saved_rules)
        tables = []
        for k, (shape, crc) in enumerate(zip(shapes, crcs)):
            if shape != space.shape(k):
                raise ValueError(f"{path} is corrupted (table {k} has the wrong shape): solve again")
            count = int(np.prod(shape))
            arr = np.fromfile(fh, dtype=np.float64, count=count)
            if arr.size != count:
                raise ValueError(f"{path} is truncated: solve again with gops solve --out")
            if zlib.crc32(memoryview(arr).cast("B")) != crc:
                raise ValueError(f"{path} is corrupted (checksum of table {k} fails): solve again")
            tables.append(arr.reshape(shape))
        if len(tables) != saved_rules.n + 1 or fh.read(1):
            raise ValueError(f"{path} is corrupted (unexpected length): solve again")
    return Solution(saved_rules, space, tables, header.get("stage_games", 0), 0.0, header.get("stage_solver", "numba"))


# ---------------------------------------------------------------------------
# solving
# ---------------------------------------------------------------------------

def solve(rules: Rules, progress=None, stage_solver: str = "numba", checkpoint=None, resume=False) -> Solution:
    """Solve a game exactly by backward induction.

    Parameters
    ----------
    rules : Rules
    progress : callable, optional
        ``progress(level, games_in_chunk)`` during the solve; see
        :func:`projected_work` for the total.
    stage_solver : {"numba", "highs"}
        ``highs`` solves every stage game with scipy's HiGHS LP (slow; for checking).
    checkpoint : path-like, optional
        Solution file the caller will write: finished levels are kept in
        ``checkpoint + ".ckpt/"`` until :meth:`Solution.save` succeeds.
    resume : bool
        Continue from those checkpoints instead of starting afresh.

    Returns
    -------
    Solution
    """
    if not isinstance(rules, Rules):
        raise TypeError("solve() takes a Rules object: solve(Rules(n=8))")
    _check_backend(stage_solver)
    t0 = time.perf_counter()
    space = full_space(rules)
    start, on_level = None, None
    if checkpoint is not None:
        ckpt = Checkpointer(checkpoint, rules)
        start = ckpt.load(space) if resume else []
        if not start:
            ckpt.start()
        on_level = ckpt.save_level
    tables, games = run_induction(space, progress=progress, start_tables=start or None, on_level=on_level,
                                  use_highs=stage_solver == "highs")
    return Solution(rules, space, tables, games, time.perf_counter() - t0, stage_solver)


def projected_work(rules: Rules) -> dict:
    """Stage games and table sizes a solve of ``rules`` will take, without solving.

    Returns
    -------
    dict
        ``stage_games`` per level and in total, ``table_bytes`` per level and the
        largest two adjacent levels (peak working memory).
    """
    space = full_space(rules)
    games = [level_work(space, k) for k in range(rules.n + 1)]
    nbytes = [int(np.prod(space.shape(k))) * 8 for k in range(rules.n + 1)]
    return {"stage_games": games, "total_games": sum(games), "table_bytes": nbytes,
            "total_bytes": sum(nbytes), "space": space}


def _check_backend(name):
    if name not in ("numba", "highs"):
        raise ValueError(f"unknown stage solver {name!r}: use numba or highs")


def _stage_structure(state, space):
    """Classes, their cards, successors and outcomes of a state's stage game."""
    tokens, values = hands_to_pattern(state.hand_a, state.hand_b)
    u = len(tokens)
    tok = np.array(tokens + [0] * (16 - u), dtype=np.int64)
    cls_a, cls_b = np.empty(13, np.int64), np.empty(13, np.int64)
    na, nb = classes(tok, u, cls_a, cls_b)

    def cards_of(pos, own):
        run = [values[pos]]
        q = pos + 1
        while tokens[pos] == own and q < u and tokens[q] == own:
            run.append(values[q])
            q += 1
        return run

    cards_a = [cards_of(int(cls_a[i]), TOK_A) for i in range(na)]
    cards_b = [cards_of(int(cls_b[j]), TOK_B) for j in range(nb)]
    tmp = np.empty(16, np.int64)
    succ = np.empty((na, nb), np.int64)
    outc = np.empty((na, nb), np.int64)
    for i in range(na):
        for j in range(nb):
            succ[i, j], outc[i, j] = successor(tok, u, cls_a[i], cls_b[j], space.patterns.lut, LUT_OFF, tmp)
    return cards_a, cards_b, succ, outc, u


def _stage_matrix(state, space, tables, s_prev, sum_prev, ci):
    """Stage matrix of ``state`` read from ``tables[k - 1]``; None if any cell is not tabulated."""
    k = state.k
    cards_a, cards_b, succ, outc, u = _stage_structure(state, space)
    if u > space.union_cap or k - 1 > space.kmax:
        return None
    M = np.empty(succ.shape)
    d = state.diff if space.win else 0
    R_prev = tables[k - 1]
    for i in range(succ.shape[0]):
        for j in range(succ.shape[1]):
            M[i, j] = stage_entry(k, int(outc[i, j]), state.pot, d, ci, s_prev, sum_prev, int(succ[i, j]),
                                  space.random_order, space.carry, space.win,
                                  space.cvals[k - 1], space.dmax[k - 1], R_prev)
    if np.isnan(M).any():
        return None
    return cards_a, cards_b, M


def query_state(rules: Rules, state, space=None, tables=None, stage_solver="numba") -> QueryResult:
    """Solve one decision state's stage game, from stored tables or a sub-game.

    When ``tables`` lack a successor (a state the full induction never
    reaches, or no tables at all) only the sub-game below the state is solved.
    """
    _check_backend(stage_solver)
    k = state.k
    found = None
    if tables is not None:
        if space.random_order:
            s_prev = int(space.prize_sets.set_rank[space.prize_sets.mask(state.prizes)])
            ci = 0  # unused: a tie carries the pot itself
        else:
            s_prev, ci = 0, state.carry_chain
        found = _stage_matrix(state, space, tables, s_prev, sum(state.prizes), ci)
    if found is None:
        space, tables = _subgame(rules, state)
        s_prev = int(space.prize_sets.set_rank[(1 << (k - 1)) - 1]) if space.random_order else 0
        found = _stage_matrix(state, space, tables, s_prev, sum(state.prizes), 0)
        if found is None:
            raise StageSolveError("the sub-game below this state lacks a successor value; this is a bug, please report it")
    cards_a, cards_b, M = found
    res = solve_matrix_game(M, backend=stage_solver)
    value = float(res.value) + (state.diff if not space.win else 0)
    strat_a = _spread(cards_a, res.row, state.hand_a)
    strat_b = _spread(cards_b, res.col, state.hand_b)
    return QueryResult(value, strat_a, strat_b, M, state)


def _spread(class_cards, probs, hand) -> dict:
    # interchangeable cards are equally good: share the class's probability evenly
    out = {int(c): 0.0 for c in sorted(hand)}
    for cards, p in zip(class_cards, probs):
        for c in cards:
            out[c] += float(p) / len(cards)
    return out


def _subgame(rules: Rules, state):
    """State space and tables of just the game below ``state``."""
    k = state.k
    u0 = len(set(state.hand_a) | set(state.hand_b))
    if rules.random_order:
        space = StateSpace(True, rules.tie == "carry", rules.objective == "win", state.prizes, k - 1, u0,
                           extra=state.pot, diff_reach=abs(state.diff))
    else:
        space = StateSpace(False, rules.tie == "carry", rules.objective == "win", (state.pot,) + state.prizes,
                           k - 1, u0, diff_reach=abs(state.diff))
    tables, _ = run_induction(space)
    return space, tables
