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
from dataclasses import dataclass, field, replace

import numpy as np

from . import __version__
from .checkpoint import Checkpointer, check_out_path
from .encoding import StateSpace, classes, hands_to_pattern, successor, LUT_OFF, TOK_A, TOK_B
from .induction import StageSolveError, level_work, lookup, run_induction, stage_entry
from .rules import Rules, validate_state
from .stage import solve_matrix_game
from .tolerances import GUARANTEE_TOL, VALUE_TOL

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
    classes_a, classes_b : list of list of int
        The cards behind each row / column of ``matrix``.
    offset : float
        What ``value`` adds to the stage game's value (the score difference
        under ``points``, which the tables leave out).
    """

    value: float
    strategy_a: dict
    strategy_b: dict
    matrix: np.ndarray = field(repr=False)
    state: object = field(repr=False, default=None)
    classes_a: list = field(repr=False, default=None)
    classes_b: list = field(repr=False, default=None)
    offset: float = field(repr=False, default=0.0)

    def payoffs_a(self) -> dict:
        """Expected value for A of each of A's cards against B's optimal mix.

        Returns
        -------
        dict
            Card -> ``matrix[row of card] @ y + offset`` where ``y`` is B's
            strategy summed over each column's cards; in the units of
            ``value``. Every card in A's support earns ``value``.
        """
        y = np.array([sum(self.strategy_b[c] for c in cls) for cls in self.classes_b])
        rows = self.matrix @ y + self.offset
        return {c: float(rows[i]) for i, cls in enumerate(self.classes_a) for c in cls}

    def value_given_up(self, card) -> float:
        """Expected value A gives up by bidding ``card`` against B's optimal mix.

        ``value - payoffs_a()[card]``: 0 for a card in an optimal strategy's
        support, positive for a mistake. Differences within the solver's
        guarantee tolerance are reported as 0.

        Raises
        ------
        ValueError
            If ``card`` is not in A's hand.
        """
        pay = self.payoffs_a()
        if card not in pay:
            raise ValueError(f"card {card} is not in A's hand {sorted(pay)}: choose one of those")
        gap = self.value - pay[card]
        # B's optimal mix holds every row to the value within GUARANTEE_TOL
        return 0.0 if gap <= GUARANTEE_TOL * max(1.0, abs(self.value)) else float(gap)

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
        Positions valued (before a reveal), counting both of each pair of
        mirror images under exchanging the players (only one is stored).
    stage_games : int
        Stage games solved while building the tables.
    seconds : float
        Wall time of the solve (as recorded in a loaded file).
    tables : list of ndarray
        Flat level tables (in memory, or mapped from the solution file).
    """

    def __init__(self, rules: Rules, space: StateSpace, tables, stage_games=0, seconds=0.0,
                 stage_solver="numba", states=None):
        self.rules, self.space, self.tables = rules, space, tables
        self.stage_games, self.seconds = int(stage_games), float(seconds)
        self.stage_solver = stage_solver
        self.states = int(states if states is not None else
                          sum(_count_states(t, space, k) for k, t in enumerate(tables) if k))
        #: MatchTables of a session under ``win`` or a best-of match; None otherwise
        self.match = None

    @property
    def value(self) -> float:
        """Value of the game (or match) at its start (no carry, diff 0, all prizes hidden)."""
        n, sp = self.rules.n, self.space
        if self.match is not None:
            return float(self.match.values[self.match.first()])
        # a points session is additive: three single games
        games = 3 if self.rules.match == "session" else 1
        lay = sp.layouts[n]
        top = sp.patterns.index([2] * n)
        return games * float(lookup(self.tables[n], lay.canon, lay.offset, lay.ncarry, len(sp.sets[n]), lay.nd,
                                    sp.dmax[n], top, 0, 0, 0))

    def __repr__(self):
        return (f"Solution({self.rules.describe()}, value={self.value:.12g}, states={self.states}, "
                f"stage_games={self.stage_games})")

    # -- queries ----------------------------------------------------------------
    def query(self, hand_a, hand_b, pot, prizes=(), diff=0, stage_solver=None, game=None,
              match_score=None) -> QueryResult:
        """Value and optimal bid distributions of a decision state (of a game of a match).

        Parameters
        ----------
        hand_a, hand_b : iterable of int or str
            Remaining cards of A and B (same size k >= 1).
        pot : int
            Revealed prize plus carried pot.
        prizes : iterable
            The k - 1 hidden prizes (for a fixed order, those the order has left).
        diff : int
            Score A - score B so far in this game.
        stage_solver : {"numba", "highs"}, optional
            Backend of the final stage game (default: the one solved with).
        game : int, optional
            Matches: which game (session: 1..3; best-of: checked against
            ``match_score``). Single games: 1 or None.
        match_score : int or pair, optional
            Session: total score A - B of the earlier games. Best-of: games
            won ``(a, b)`` before this game (halves when draws count half).

        Returns
        -------
        QueryResult
            For a match, ``value`` and the stage matrix are in match value:
            a session's expected total margin (``points``) or, like every
            best-of match, P(A wins the match) - P(B wins it).

        Raises
        ------
        ValueError
            If the state or the match position cannot occur under these rules.
        """
        st = validate_state(self.rules, hand_a, hand_b, pot, prizes, diff)
        backend = stage_solver or self.stage_solver
        rules = self.rules
        if rules.match == "single":
            if game not in (None, 1) or match_score not in (None, 0):
                raise ValueError("a single game has no match position: drop game and match_score, "
                                 "or solve Rules(..., match=...)")
            return query_state(rules, st, self.space, self.tables, backend)
        if self.match is None:  # a points session: each game is the single game, totals add up
            from .match import MatchTables
            _, _, carried = MatchTables(rules).locate(game, match_score)
            res = query_state(rules, st, self.space, self.tables, backend)
            res.value += carried
            res.offset += carried
            return res
        key, swapped, carried = self.match.locate(game, match_score)
        space, tables = self.match.games[key]
        if not swapped:
            return query_state(rules, replace(st, diff=st.diff + carried), space, tables, backend)
        # B's side of the mirror-image position: exchange the players, then exchange back
        st2 = validate_state(rules, st.hand_b, st.hand_a, st.pot, st.prizes, -st.diff)
        r = query_state(rules, st2, space, tables, backend)
        return QueryResult(-r.value, r.strategy_b, r.strategy_a, -r.matrix.T, st, r.classes_b, r.classes_a, -r.offset)

    def verify(self, sample=None, seed=0, tol=VALUE_TOL):
        """Recompute stored values from the level below and certify the stage strategies.

        Every stored value (or a seeded random sample of table slots) is
        recomputed exactly as the induction computed it: the average, over
        the prize revealed next, of the value of the stage game read from
        level ``k - 1``. See :mod:`gops_solver.verify`.

        Parameters
        ----------
        sample : int, optional
            Check this many table slots, drawn uniformly with
            ``numpy.random.default_rng(seed)``; all slots when None.
        seed : int
        tol : float
            The largest residual and exploitability accepted (default 1e-9).

        Returns
        -------
        VerifyResult
            ``ok``, ``max_residual``, ``max_exploitability`` and the worst
            slots named as example hands, hidden prizes, carry and diff.
        """
        from .verify import verify_tables
        return verify_tables(self.space, self.tables, sample=sample, seed=seed, tol=tol)

    # -- persistence ---------------------------------------------------------------
    def save(self, path) -> None:
        """Write the solution to ``path`` atomically (temporary file, then rename).

        Raises
        ------
        ValueError
            If the path cannot be written, or for a match solved game by game
            (session under ``win``, best-of), which files do not hold yet.
        """
        if self.match is not None:
            raise ValueError(f"saving a {self.rules.match} match is not supported yet: solve it in memory "
                             f"(a single game or a points session can be saved)")
        write_solution(path, self.rules, self.tables, self.stage_games, self.seconds, self.stage_solver, self.states)


def _count_states(table, space, k) -> int:
    """Positions valued by one level table, mirror images included."""
    def valued(a):
        # in chunks: a mapped table may be larger than memory
        step = 1 << 24
        return int(sum(np.count_nonzero(~np.isnan(a[i:i + step])) for i in range(0, len(a), step)))
    if not space.mirror:
        return valued(table)  # both mirror halves are stored
    # the one symmetric pattern (every value shared) is its own mirror image
    lay = space.layouts[k]
    p = lay.canon[space.patterns.index([2] * k)]
    return 2 * valued(table) - valued(table[lay.offset[p]:lay.offset[p + 1]])


def _crc(table) -> int:
    crc, step = 0, 1 << 24
    for i in range(0, len(table), step):
        crc = zlib.crc32(memoryview(np.ascontiguousarray(table[i:i + step])).cast("B"), crc)
    return crc


_ALIGN = 4096  # tables start on page boundaries so they can be mapped


def write_solution(path, rules, tables, stage_games, seconds, stage_solver, states) -> None:
    """Write a solution file atomically from level tables (arrays or mapped files)."""
    header = {"format": FORMAT_VERSION, "package_version": __version__, "rules": rules.to_dict(),
              "stage_games": int(stage_games), "seconds": float(seconds), "stage_solver": stage_solver,
              "states": int(states), "tables": [{"size": int(len(t)), "crc32": _crc(t)} for t in tables]}
    blob = json.dumps(header).encode()
    head = MAGIC + len(blob).to_bytes(8, "little") + blob
    head += b"\0" * (-len(head) % _ALIGN)

    def parts():
        yield head
        step = 1 << 24
        for t in tables:
            for i in range(0, len(t), step):
                yield np.ascontiguousarray(t[i:i + step], dtype=np.float64)

    _atomic_write(path, parts())
    Checkpointer(path, rules).clear()  # the solution is safe: its checkpoints are not needed


def _atomic_write(path, parts) -> None:
    path = os.fspath(path)
    check_out_path(path)
    folder = os.path.dirname(os.path.abspath(path))
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
        _unlink(tmp)
        raise ValueError(f"cannot write {path}: {exc.strerror}; choose a writable location") from None
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def load(path, rules: Rules | None = None, check: bool = True) -> Solution:
    """Open a solution written by :meth:`Solution.save` or ``gops solve --out``.

    The tables are mapped from the file, not read: opening is quick and a
    query touches only the values it needs.

    Parameters
    ----------
    path : str or path-like
    rules : Rules, optional
        When given, the file must hold a solution of exactly these rules.
    check : bool
        Verify every table's checksum (reads the whole file once).

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
            if size > 1 << 24:
                raise ValueError
            header = json.loads(fh.read(size).decode())
            saved_rules = Rules.from_dict(header["rules"])
            sizes = [int(t["size"]) for t in header["tables"]]
            crcs = [int(t["crc32"]) for t in header["tables"]]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise ValueError(f"{path} is corrupted (unreadable header): solve again with gops solve --out") from None
        start = len(MAGIC) + 8 + size
        start += -start % _ALIGN
    if header.get("format") != FORMAT_VERSION:
        raise ValueError(f"{path} has format {header.get('format')}, this gops reads format {FORMAT_VERSION}: solve again")
    if rules is not None and saved_rules != rules:
        raise ValueError(f"{path} holds a solution for {saved_rules.describe()}, not {rules.describe()}: "
                         f"use a matching file or solve these rules")
    space = full_space(saved_rules)
    if len(sizes) != saved_rules.n + 1 or any(s != space.size(k) for k, s in enumerate(sizes)):
        raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
    total = start + 8 * sum(sizes)
    actual = os.path.getsize(path)
    if actual < total:
        raise ValueError(f"{path} is truncated ({actual:,} of {total:,} bytes): solve again with gops solve --out")
    if actual > total:
        raise ValueError(f"{path} is corrupted (unexpected length): solve again")
    tables, offset = [], start
    for k, (n_entries, crc) in enumerate(zip(sizes, crcs)):
        t = np.memmap(path, dtype=np.float64, mode="r", offset=offset, shape=(n_entries,)) if n_entries else np.zeros(0)
        if check and _crc(t) != crc:
            raise ValueError(f"{path} is corrupted (checksum of level {k} fails): solve again")
        tables.append(t)
        offset += 8 * n_entries
    return Solution(saved_rules, space, tables, header.get("stage_games", 0), header.get("seconds", 0.0),
                    header.get("stage_solver", "numba"), header.get("states"))


# ---------------------------------------------------------------------------
# solving
# ---------------------------------------------------------------------------

def solve(rules: Rules, progress=None, stage_solver: str = "numba", out=None, resume=False) -> Solution:
    """Solve a game exactly by backward induction.

    Parameters
    ----------
    rules : Rules
    progress : callable, optional
        ``progress(level, games_in_chunk)`` during the solve; see
        :func:`projected_work` for the total.
    stage_solver : {"numba", "highs"}
        ``highs`` solves every stage game with scipy's HiGHS LP (slow; for checking).
    out : path-like, optional
        Write the solution here. Finished levels go to checkpoints in
        ``out + ".ckpt/"`` and leave memory, so only two levels are ever
        held: this is how large games fit. The returned solution is mapped
        from ``out``.
    resume : bool
        With ``out``: continue from the checkpoints of an interrupted solve;
        ``progress`` is first called as ``progress(level, games, done=True)``
        with the work the checkpoints already hold.

    Returns
    -------
    Solution
        (a :class:`~gops_solver.multi.MultiSolution` when ``rules.players`` is 3 or 4)
    """
    if not isinstance(rules, Rules):
        raise TypeError("solve() takes a Rules object: solve(Rules(n=8))")
    _check_backend(stage_solver)
    if rules.players != 2:  # 3 and 4 players: gops_solver.multi (security values and an equilibrium)
        from .multi import solve_multi
        return solve_multi(rules, stage_solver=stage_solver)
    if resume and out is None:
        raise ValueError("resume needs out=PATH: checkpoints live beside the output file")
    t0 = time.perf_counter()
    if rules.match != "single" and not (rules.match == "session" and rules.objective == "points"):
        return _solve_match(rules, progress, stage_solver, out, t0)
    space = full_space(rules)
    use_highs = stage_solver == "highs"
    if out is None:
        tables, games = run_induction(space, progress=progress, use_highs=use_highs)
        return Solution(rules, space, tables, games, time.perf_counter() - t0, stage_solver)
    check_out_path(out)
    ckpt = Checkpointer(out, rules)
    ckpt.lock()
    start, done = ckpt.load(space) if resume else ([], {})
    if not start:
        ckpt.start()
    stats = dict(done)
    if progress is not None and done:
        progress(len(start) - 1, sum(s["games"] for s in done.values()), done=True)  # work already done

    def on_level(k, table):
        stats[k] = {"games": level_games[0], "states": _count_states(table, space, k)}
        level_games[0] = 0
        ckpt.save_level(k, table, stats[k])

    level_games = [0]

    def count(level, games):
        level_games[0] += games
        if progress is not None:
            progress(level, games)

    _, _ = run_induction(space, progress=count, start_tables=start or None, on_level=on_level,
                         keep_all=False, use_highs=use_highs)
    tables = ckpt.tables(space)
    games = sum(s["games"] for s in stats.values())
    states = sum(s["states"] for s in stats.values())
    write_solution(out, rules, tables, games, time.perf_counter() - t0, stage_solver, states)
    del tables
    ckpt.clear()
    return load(out, check=False)


def _solve_match(rules, progress, stage_solver, out, t0) -> Solution:
    """Solve a match game by game (see :mod:`~.match`); held in memory only."""
    from .match import solve_match
    if out is not None:
        raise ValueError(f"saving a {rules.match} match is not supported yet: solve it without out/--out")
    m = solve_match(rules, progress=progress, use_highs=stage_solver == "highs")
    space, tables = m.games[m.first()]
    states = sum(_count_states(t, sp, k) for sp, tabs in m.games.values() for k, t in enumerate(tabs) if k)
    sol = Solution(rules, space, tables, m.stage_games, time.perf_counter() - t0, stage_solver, states)
    sol.match = m
    return sol


def projected_work(rules: Rules) -> dict:
    """Stage games and table sizes a solve of ``rules`` will take, without solving.

    Returns
    -------
    dict
        ``stage_games`` and ``table_bytes`` per level and in total, and
        ``peak_bytes``: the two largest adjacent levels (a solve with ``out``
        holds no more).
    """
    space = full_space(rules)
    games = [level_work(space, k) for k in range(rules.n + 1)]
    nbytes = [space.size(k) * 8 for k in range(rules.n + 1)]
    peak = max(a + b for a, b in zip(nbytes, nbytes[1:])) if rules.n else nbytes[0]
    return {"stage_games": games, "total_games": sum(games), "table_bytes": nbytes,
            "total_bytes": sum(nbytes), "peak_bytes": peak, "space": space}


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
    lay = space.layouts[k - 1]
    for i in range(succ.shape[0]):
        for j in range(succ.shape[1]):
            M[i, j] = stage_entry(k, int(outc[i, j]), state.pot, d, ci, s_prev, sum_prev, int(succ[i, j]),
                                  space.random_order, space.carry, space.win,
                                  space.cvals[k - 1], space.dmax[k - 1], tables[k - 1],
                                  lay.canon, lay.offset, lay.ncarry, len(space.sets[k - 1]),
                                  space.tmax, space.term[0], space.term[-1])
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
        space, tables = _subgame(rules, state, space.term if space is not None and space.win else None)
        s_prev = int(space.prize_sets.set_rank[(1 << (k - 1)) - 1]) if space.random_order else 0
        found = _stage_matrix(state, space, tables, s_prev, sum(state.prizes), 0)
        if found is None:
            raise StageSolveError("the sub-game below this state lacks a successor value; this is a bug, please report it")
    cards_a, cards_b, M = found
    res = solve_matrix_game(M, backend=stage_solver)
    offset = state.diff if not space.win else 0
    value = float(res.value) + offset
    strat_a = _spread(cards_a, res.row, state.hand_a)
    strat_b = _spread(cards_b, res.col, state.hand_b)
    return QueryResult(value, strat_a, strat_b, M, state, cards_a, cards_b, float(offset))


def _spread(class_cards, probs, hand) -> dict:
    # interchangeable cards are equally good: share the class's probability evenly
    out = {int(c): 0.0 for c in sorted(hand)}
    for cards, p in zip(class_cards, probs):
        for c in cards:
            out[c] += float(p) / len(cards)
    return out


def _subgame(rules: Rules, state, term=None):
    """State space and tables of just the game below ``state`` (``term``: its end payoff, win only)."""
    k = state.k
    u0 = len(set(state.hand_a) | set(state.hand_b))
    if rules.random_order:
        space = StateSpace(True, rules.tie == "carry", rules.objective == "win", state.prizes, k - 1, u0,
                           extra=state.pot, diff_reach=abs(state.diff), term=term)
    else:
        space = StateSpace(False, rules.tie == "carry", rules.objective == "win", (state.pot,) + state.prizes,
                           k - 1, u0, diff_reach=abs(state.diff), term=term)
    tables, _ = run_induction(space)
    return space, tables
