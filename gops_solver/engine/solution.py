"""Solution: the solved value tables of one game, and solving to a file (queries: :mod:`~.query`).

The file format, checksums and atomic writes live in :mod:`~.storage`, a
long solve's checkpoints in :mod:`~.checkpoint`.

Follow a state here: :func:`solve` builds the :class:`~.encoding.StateSpace`
of the rules, fills its tables by :func:`~.induction.run_induction`, and
:meth:`Solution.query` hands the state to :func:`~.query.query_state`, which
reduces it to its pattern, builds its stage game from level ``k - 1`` with
the one builder :func:`~.tables.stage_matrix` and solves it again for the
strategies (tables store values, not strategies).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace

import numpy as np

from gops_solver.engine._checkpoint import Checkpointer
from gops_solver.engine.base import GameSolution, fold_row
from gops_solver.game.constants import VALUE_TOL
from gops_solver.game.encoding import StateSpace, full_space  # noqa: F401  (full_space is public here)
from gops_solver.engine.induction import level_solves, level_work, run_induction
from gops_solver.engine.query import QueryResult, query_state  # noqa: F401  (QueryResult is public here)
from gops_solver.engine.storage import (check_out_path, clean_stale_temps, notify, read_solution, saved_rules,
                                        unreachable_url, url_scheme, write_solution)
from gops_solver.game.rules import Rules, validate_state
from gops_solver.engine.tables import level_view, read_value


class Solution(GameSolution):
    """The solved classic game: value tables of every level, and the rules they belong to.

    Answers the calls of :class:`~gops_solver.engine.base.GameSolution` (the
    interface of every engine's solution).

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
        #: time of the last run alone, when the solve was resumed (``seconds`` totals every run)
        self.seconds_this_run = self.seconds
        self.stage_solver = stage_solver
        self.states = int(states if states is not None else
                          sum(_count_states(t, space, k) for k, t in enumerate(tables) if k))
        #: MatchTables of a session under ``win`` or a best-of match; None otherwise
        self.match = None
        #: the BlockStore the tables are read from (a blocked solve); None otherwise
        self.store = None
        #: the :class:`~.top.TopTables` of a top-levels file (the first rounds only); None otherwise
        self.top = None

    @property
    def kind(self) -> str:
        """``match`` for a match (its file holds every game's tables), ``top`` for a top-levels file, else
        ``classic``."""
        if self.top is not None:
            return "top"
        return "match" if self.match is not None or self.rules.match != "single" else "classic"

    @property
    def rounds_held(self):
        """Rounds answered from the tables: R for a top-levels file (rounds 1..R), None for a whole solution."""
        return None if self.top is None else self.top.rounds

    def holds(self, k: int) -> bool:
        """Whether a decision with ``k`` cards in each hand is answered from the stored tables.

        Always for a whole solution; for a top-levels file, the decisions of
        the rounds it holds (level ``k - 1`` stored). A query of any other
        state solves the state's own sub-game.
        """
        return self.top is None or self.top.holds(k - 1)

    def require_rounds(self, last: int) -> None:
        """Refuse, in one line, a reader of every state of rounds ``1..last`` when the tables hold fewer rounds."""
        if self.top is not None and last > self.top.rounds:
            from gops_solver.game.errors import InputValueError
            held = self.top.rounds
            said = f"{self.top.name} holds rounds 1..{held} of the game (its top levels), not round {last}: ask for"
            raise InputValueError(f"{said} rounds={held} or fewer, or use the whole solution",
                                  f"{said} --rounds {held} or fewer, or use the whole solution")

    @property
    def value(self) -> float:
        """Value of the game (or match) at its start (no carry, diff 0, all prizes hidden)."""
        n, sp = self.rules.n, self.space
        if self.match is not None:
            return float(self.match.values[self.match.first()])
        # a points session is additive: three single games
        games = 3 if self.rules.match == "session" else 1
        top = sp.patterns.index([2] * n)
        # one read from Python: the plain function, so that a first run does not compile read_value for it
        read = getattr(read_value, "py_func", read_value)
        return games * float(read(level_view(sp, self.tables, n, [0]), top, 0, 0, 0))

    def __repr__(self):
        held = f", rounds=1..{self.top.rounds}" if self.top is not None else ""
        return (f"Solution({self.rules.describe()}, value={self.value:.12g}, states={self.states}, "
                f"stage_games={self.stage_games}{held})")

    # -- queries ----------------------------------------------------------------
    def query(self, hand_a, hand_b, pot, prizes=(), diff=0, stage_solver=None, game=None,
              match_score=None, row=None, progress=None) -> QueryResult:
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
        row : iterable, optional
            The revealed prize as the one-prize row, as open-prize games take
            it: ``pot`` is then the carried pot only.
        progress : callable, optional
            ``progress(level, games)`` while a sub-game is solved (a state the
            tables do not hold, e.g. below a top-levels file's rounds).

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
        pot = fold_row(self.rules, pot, prizes, row)
        st = validate_state(self.rules, hand_a, hand_b, pot, prizes, diff)
        backend = stage_solver or self.stage_solver
        rules = self.rules
        if rules.match == "single":
            if game not in (None, 1) or match_score not in (None, 0):
                raise ValueError("a single game has no match position: drop game and match_score, "
                                 "or solve Rules(..., match=...)")
            return query_state(rules, st, self.space, self.tables, backend, progress=progress)
        if self.match is None:  # a points session: each game is the single game, totals add up
            from gops_solver.engine.match import MatchTables
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

    def to_frame(self, rounds=None, level=None, max_rows=None):
        """The equilibrium at every reachable decision state of the first ``rounds`` rounds.

        One row per state: ``round``, ``k``, ``hand_a``, ``hand_b``, ``pot``,
        ``prizes``, ``diff``, ``value`` and the strategies ``a_1..a_n``,
        ``b_1..b_n``; the same rows as ``gops export``. See
        :func:`gops_solver.engine.export.to_frame` (needs pandas).

        Returns
        -------
        pandas.DataFrame
        """
        from gops_solver.engine.export import DEFAULT_MAX_ROWS, to_frame
        return to_frame(self, rounds, level, DEFAULT_MAX_ROWS if max_rows is None else max_rows)

    def verify(self, sample=None, seed=0, tol=VALUE_TOL, blocks=None):
        """Recompute stored values from the level below and certify the stage strategies.

        Every stored value (or a seeded random sample of table slots) is
        recomputed exactly as the induction computed it: the average, over
        the prize revealed next, of the value of the stage game read from
        level ``k - 1``. See :mod:`gops_solver.engine.verify`. A top-levels
        file's lowest level has no level below it in the file: its values are
        vouched for by their checksums only (``unchecked`` in the result).

        Parameters
        ----------
        sample : int, optional
            Check this many table slots, drawn uniformly with
            ``numpy.random.default_rng(seed)``; all slots when None.
        seed : int
        tol : float
            The largest residual and exploitability accepted (default 1e-9).
        blocks : int, optional
            A block store or a top-levels file: check every slot of this many
            whole blocks, at least one from each level, drawn with
            ``numpy.random.default_rng(seed)``. Not with ``sample``.

        Returns
        -------
        VerifyResult
            ``ok``, ``max_residual``, ``max_exploitability`` and the worst
            slots named as example hands, hidden prizes, carry and diff.
        """
        from gops_solver.engine.verify import verify_tables
        return verify_tables(self.space, self.tables, sample=sample, seed=seed, tol=tol, blocks=blocks)

    # -- persistence ---------------------------------------------------------------
    def save(self, path, *, rounds=None, lock: bool = True) -> None:
        """Write the solution to ``path`` atomically (temporary file, read back, then rename).

        ``rounds``: write only the top levels that answer rounds ``1..rounds``
        exactly, a small top-levels file (:mod:`~.top`; ``gops export
        --format solution``); a block store may be written so. ``lock``: take
        the target's writer lock (False: the caller, a solve, holds it).

        Raises
        ------
        ValueError
            If the path cannot be written, a ``gops solve`` is writing it now,
            or the solution is a block store (already on disk) and ``rounds``
            is not given.
        """
        if rounds is not None or self.top is not None:  # the top levels (again, for a top-levels file)
            from gops_solver.engine.top import write_top
            write_top(path, self, self.top.rounds if rounds is None else rounds, lock=lock)
            return
        if self.store is not None:
            raise ValueError(f"this solution is the block store {self.store.root}, already on disk: copy that "
                             f"folder, or query it where it is")
        tables, extra = self.tables, None
        if self.match is not None:
            # every game of the match, one after another; the header says which game owns which tables
            from gops_solver.engine.match import match_header
            extra, tables = match_header(self.match)
        # a solve writing the same path holds its writer lock: write_solution refuses rather than race it
        write_solution(path, self.rules, tables, self.stage_games, self.seconds, self.stage_solver,
                       self.states, extra=extra, lock=lock)


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


def load_classic(path, rules: Rules | None = None, check: bool = True, tiebreak_match=None) -> Solution:
    """Open a classic solution (file, block store or top-levels file) written by :meth:`Solution.save`,
    ``gops solve --out`` or ``gops export --format solution``.

    :func:`gops_solver.load` opens any solution file and calls this for the classic ones.

    The tables are mapped from the file, not read: opening is quick and a
    query touches only the values it needs. The header's checksum is always
    checked; see :mod:`~.storage` for the format.

    Parameters
    ----------
    path : str or path-like
    rules : Rules, optional
        When given, the file must hold a solution of exactly these rules.
    check : bool
        Verify every table's checksum (reads the whole file once).
    tiebreak_match : type, optional
        The match class of a best-of match settled by a tiebreak (it lives
        with the variants, above this module); :func:`gops_solver.load`
        passes it.

    Raises
    ------
    ValueError
        Missing, not a regular file, truncated or corrupted file, or a file for other rules.
    TypeError
        ``rules`` is not a :class:`Rules`.
    """
    if rules is not None and not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules object, e.g. load(path, rules=Rules(n=6)), not {type(rules).__name__}")
    path = os.fspath(path)
    from gops_solver.engine._blockstore import is_store
    if url_scheme(path) is not None:  # a URL may name a block store only (storage.WHERE_SOLUTIONS_LIVE)
        try:
            store = is_store(path)
        except ValueError as exc:
            raise unreachable_url(path, exc) from None
        if not store:
            raise unreachable_url(path)
    else:
        store = is_store(path)
    from gops_solver.engine.storage import container_kind
    if not store and container_kind(path) == "top":  # the first rounds of a game (gops export --format solution)
        from gops_solver.engine.top import open_top
        saved, space, tables, header = open_top(path, rules, check)
        sol = Solution(saved, space, tables, header.get("stage_games", 0), header.get("seconds", 0.0),
                       "numba", header.get("states"))
        sol.top = tables
        return sol
    if store:  # a block store written by gops solve --memory / --workers (gops_solver.engine.blocked)
        from gops_solver.engine.blocked import open_store
        saved, space, tables, info = open_store(path, rules, check)
        sol = Solution(saved, space, tables, info.get("stage_games", 0), info.get("seconds", 0.0),
                       "numba", info.get("states"))
        sol.seconds_this_run = float(info.get("seconds_this_run", sol.seconds))
        sol.store = tables.store
        return sol
    header, tables = read_solution(path, check=check)
    saved = saved_rules(header, path, rules)
    match = None
    if "match_games" in header:  # a session under win or a best-of match: every game's tables
        from gops_solver.engine.match import match_from_header
        into = None
        if saved.tiebreak != "share":
            if tiebreak_match is None:
                raise ValueError(f"{path} holds a match settled by a tiebreak: open it with gops_solver.load")
            into = tiebreak_match(saved)
        match = match_from_header(saved, header, tables, path, into)
        space, tables = match.games[match.first()]
    else:
        space = full_space(saved)
        if len(tables) != saved.n + 1 or any(len(t) != space.size(k) for k, t in enumerate(tables)):
            raise ValueError(f"{path} is corrupted (its tables do not match its rules): solve again")
    sol = Solution(saved, space, tables, header.get("stage_games", 0), header.get("seconds", 0.0),
                   header.get("stage_solver", "numba"), header.get("states"))
    sol.match = match
    sol.seconds_this_run = float(header.get("seconds_this_run", sol.seconds))
    return sol


# ---------------------------------------------------------------------------
# solving
# ---------------------------------------------------------------------------

def solve_classic(rules: Rules, progress=None, stage_solver: str = "numba", out=None, resume=False,
                  restart=False, memory=None, client=None, block_done=None) -> Solution:
    """Solve a classic two-player game (one-card bids, hidden prizes, no tiebreak) exactly.

    Called by :func:`gops_solver.solve`, which validates the arguments and
    routes other rules to their engines; the parameters are documented there.
    """
    if memory is not None or client is not None:
        return _solve_blocked(rules, progress, stage_solver, out, resume, restart, memory, client, block_done)
    t0 = time.perf_counter()
    if rules.match != "single" and not (rules.match == "session" and rules.objective == "points"):
        return _solve_match(rules, progress, stage_solver, out, t0)
    space = full_space(rules)
    use_highs = stage_solver == "highs"
    if out is None:
        tables, games = run_induction(space, progress=progress, use_highs=use_highs)
        return Solution(rules, space, tables, games, time.perf_counter() - t0, stage_solver)
    return _solve_to_file(rules, space, progress, stage_solver, out, resume, restart, t0)


def _solve_blocked(rules, progress, stage_solver, out, resume, restart, memory, client, block_done) -> Solution:
    """Solve into a block store (see :mod:`~.blocked`) and open it."""
    from gops_solver.engine.blocked import parse_memory, solve_blocked
    if out is None:
        raise ValueError("a blocked solve (memory= or client=) writes its blocks to a folder: give out=PATH")
    if rules.match != "single":
        raise ValueError(f"a blocked solve covers single games; solve the {rules.match} match without "
                         f"memory/client (in memory, or with out=FILE)")
    if stage_solver != "numba":
        raise ValueError("a blocked solve uses the numba stage solver; check it afterwards with verify")
    budget = parse_memory(memory) if memory is not None else None
    solve_blocked(rules, out, memory=budget, client=client, progress=progress, resume=resume, restart=restart,
                  block_done=block_done)
    return load_classic(out)


def _solve_to_file(rules, space, progress, stage_solver, out, resume, restart, t0) -> Solution:
    """Solve level by level through checkpoints in ``out.ckpt/``; write ``out`` only when all is checked."""
    out = os.fspath(out)
    check_out_path(out, checkpoints=True)
    ckpt = Checkpointer(out, rules)
    ckpt.lock()
    try:
        clean_stale_temps(os.path.dirname(os.path.abspath(out)))
        ckpt.clean_temps()
        start, done = ckpt.load(space) if resume else ([], {})
        if not resume and ckpt.levels_present():
            if not restart:
                raise ValueError(f"{ckpt.dir} holds checkpoints of an interrupted solve (levels "
                                 f"{', '.join(map(str, ckpt.levels_present()))}): add --resume to continue it "
                                 f"or --restart to discard them")
            notify(f"discarding the checkpoints in {ckpt.dir} (--restart)")
        if not start:
            ckpt.start()
    except BaseException:
        ckpt.release()
        raise
    stats = dict(done)
    if progress is not None and start:
        progress(len(start) - 1, sum(level_work(space, k) for k in done), done=True)  # work already done
    level_t0 = [time.perf_counter()]

    def on_level(k, table, games):
        now = time.perf_counter()
        stats[k] = {"games": games, "states": _count_states(table, space, k), "seconds": now - level_t0[0]}
        stats[k]["crc32"] = ckpt.save_level(k, table, stats[k])
        level_t0[0] = time.perf_counter()

    try:
        run_induction(space, progress=progress, start_tables=start or None, on_level=on_level,
                      keep_all=False, use_highs=stage_solver == "highs")
        tables = ckpt.tables(space)
        games = sum(s["games"] for s in stats.values())
        states = sum(s["states"] for s in stats.values())
        t_write = time.perf_counter()
        earlier = sum(s.get("seconds", 0.0) for k, s in stats.items() if k in done)
        this_run = t_write - t0
        expected = [None] + [stats[k]["crc32"] for k in range(1, space.kmax + 1)]
        write_solution(out, rules, tables, games, earlier + this_run, stage_solver, states, expected,
                       seconds_this_run=this_run if done else None, lock=False)  # ckpt holds the lock
        # the file is written, synced, read back and checked: only now are the checkpoints unneeded
        del tables
        ckpt.clear()
    finally:
        ckpt.release()
    sol = load_classic(out, check=False)
    return sol


def _solve_match(rules, progress, stage_solver, out, t0) -> Solution:
    """Solve a match game by game (see :mod:`~.match`) in memory; with ``out``, then save it."""
    from gops_solver.engine.storage import writer_lock
    if out is None:
        return _match_in_memory(rules, progress, stage_solver, t0)
    check_out_path(out, probe_lock=False)  # a bad path: refused before the work
    with writer_lock(out, "gops solve"):  # held for the whole solve: another writer refuses now, in one line
        sol = _match_in_memory(rules, progress, stage_solver, t0)
        sol.save(out, lock=False)  # a match is solved in memory, then written whole (no checkpoints)
        return load_classic(out, check=False)


def _match_in_memory(rules, progress, stage_solver, t0) -> Solution:
    from gops_solver.engine.match import solve_match
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
        ``stage_games`` (every state's), ``stage_solves`` (those the kernel
        builds, :func:`~.induction.level_solves`) and ``table_bytes`` per
        level and in total, and
        ``peak_bytes``: the two largest adjacent levels (a solve with ``out``
        holds no more).
    """
    space = full_space(rules)
    games = [level_work(space, k) for k in range(rules.n + 1)]
    solves = [level_solves(space, k) for k in range(rules.n + 1)]
    nbytes = [space.size(k) * 8 for k in range(rules.n + 1)]
    peak = max(a + b for a, b in zip(nbytes, nbytes[1:])) if rules.n else nbytes[0]
    return {"stage_games": games, "total_games": sum(games), "stage_solves": solves, "total_solves": sum(solves),
            "table_bytes": nbytes,
            "total_bytes": sum(nbytes), "peak_bytes": peak, "space": space}
