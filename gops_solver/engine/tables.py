"""Readers of a level table and the one stage-matrix builder, inside numba.

Every kernel that needs a state's stage game -- the induction
(:mod:`~.induction`), :mod:`~.verify`, the equilibrium policy
(:mod:`~.strategies`) and queries (:mod:`~.query`) -- builds it here, with
:func:`stage_matrix`, from the values of level ``k - 1``.

The small readers here are inlined into their callers (``inline="always"``):
a call that passes named tuples of arrays costs a reference count per array,
which per stage-game cell would slow the induction down.

What travels into the kernels is three named tuples of arrays:

:class:`GameAxes`
    the fixed axes of one solve (tie rule, objective, prize sets, end payoff,
    pattern lookup table), the same at every level;
:class:`LevelAxes`
    the axes of the level being filled or checked (its patterns, prize sets,
    carries, difference range and flat layout);
:class:`LevelTable`
    a finished level: its flat value table and the layout to read it.

Table layout (see :class:`~.encoding.StateSpace`): level ``k`` is one flat
float64 array. Stored (canonical) pattern ``p`` owns the block
``R[offset[p]:offset[p + 1]]``, indexed ``(set, carry, diff)`` with lengths
``(nsets, ncarry[p], 2 * dmax + 1)``. A pattern that is not stored is the
mirror image of a stored one (``canon[h] = -1 - p``): its value is the
negation, with the difference negated (:func:`read_value`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH
from gops_solver.game.encoding import LUT_OFF, TOK_SHARED, classes, successor
from gops_solver.lp.stage import stage_work_size

#: scratch length of the stage solver for the largest stage game
WORK = stage_work_size(MAX_CARDS, MAX_CARDS)


class GameAxes(NamedTuple):
    """The fixed axes of one solve, read by every kernel.

    ``values``/``set_rank``/``set_sum`` index the random order's prize sets
    (:class:`~.encoding.PrizeSets`; placeholders for a fixed order). ``term``
    is the end payoff under ``win`` (``StateSpace.term``); ``mirror`` says the
    tables hold one of each mirror-image pair of patterns.
    """

    lut: np.ndarray
    lut_off: np.ndarray
    random_order: bool
    carry: bool
    win: bool
    values: np.ndarray
    set_rank: np.ndarray
    set_sum: np.ndarray
    union_cap: int
    diff_reach: int
    term: np.ndarray
    mirror: bool


class LevelAxes(NamedTuple):
    """The axes of level ``k``, the level being filled (induction) or checked (verify).

    ``canonical``/``offset``/``ncarry``: the flat layout
    (:class:`~.encoding.Layout`); ``pat_u``/``pat_code``: every pattern's
    length and code; ``sets``: the prize-set masks; ``cvals``: carry values;
    ``min_ties[set, carry]``: ties that carry needs. Fixed order:
    ``seq_next`` is the prize revealed at this level and ``hidden_sum`` the
    sum of the ``k`` hidden prizes (0 for the random order).

    ``rev_prize[set, j]``, ``rev_set[set, j]``, ``rev_sum[set, j]``: the
    ``j``-th possible reveal of each prize set (:func:`level_reveals`). They
    are tabulated here, not worked out in the kernels' inner loops: an inlined
    helper that takes these named tuples pays a reference count per array on
    every call, several hundred ns per stage game.
    """

    k: int
    canonical: np.ndarray
    offset: np.ndarray
    ncarry: np.ndarray
    pat_u: np.ndarray
    pat_code: np.ndarray
    sets: np.ndarray
    cvals: np.ndarray
    min_ties: np.ndarray
    dmax: int
    seq_next: int
    hidden_sum: int
    rev_prize: np.ndarray
    rev_set: np.ndarray
    rev_sum: np.ndarray


class LevelTable(NamedTuple):
    """A finished level, or some of its prize-set blocks: the flat table ``R`` and how to read it.

    ``block == 0``: the whole level in the pattern-major layout of the module
    docstring. ``block > 0``: ``R`` holds whole prize-set blocks of
    ``block`` entries each (:mod:`~.blocks`), set ``s`` in slot
    ``set_slot[s]`` (-1: not loaded), pattern ``p`` at ``offset[p]`` within
    its block, indexed ``(carry, diff)``.
    """

    R: np.ndarray
    canon: np.ndarray
    offset: np.ndarray
    ncarry: np.ndarray
    nsets: int
    cvals: np.ndarray
    dmax: int
    block: int
    set_slot: np.ndarray


class Stage(NamedTuple):
    """The shape of a pattern's stage games (:func:`stage_structure`).

    ``na`` x ``nb`` classes of interchangeable cards; ``succ[a, b]`` /
    ``outc[a, b]``: the successor pattern's index and the outcome (+1, 0, -1
    for A) when A bids from class a and B from class b.
    """

    na: int
    nb: int
    succ: np.ndarray
    outc: np.ndarray


# ---------------------------------------------------------------------------
# packing a StateSpace for the kernels (Python)
# ---------------------------------------------------------------------------

def game_axes(space) -> GameAxes:
    """The fixed axes of ``space`` (a :class:`~.encoding.StateSpace`) for the kernels."""
    if space.random_order:
        ps = space.prize_sets
        values, set_rank, set_sum = ps.values, ps.set_rank, ps.set_sum
    else:
        set_rank = set_sum = np.zeros(1, np.int64)
        values = np.zeros(0, np.int64)
    return GameAxes(space.patterns.lut, LUT_OFF, space.random_order, space.carry, space.win, values, set_rank,
                    set_sum, int(space.union_cap), int(space.diff_reach), space.term, space.mirror)


def level_axes(space, k: int) -> LevelAxes:
    """The axes of level ``k`` of ``space`` for the kernels."""
    lay, pats = space.layouts[k], space.patterns
    if space.random_order:
        seq_next = hidden = 0
    else:
        seq_next, hidden = int(space.seq[len(space.items) - k]), space.hidden_sum(k)
    # pattern lengths as int64: the helpers that take a length (stage_structure, classes, successor) then
    # compile once for the kernels and for every other caller, not again for int8
    return LevelAxes(k, lay.canonical, lay.offset, lay.ncarry, pats.level_u[k].astype(np.int64), pats.level_code[k],
                     space.sets[k],
                     space.cvals[k], space.min_ties[k], int(space.dmax[k]), seq_next, hidden,
                     *level_reveals(space, k))


def level_reveals(space, k: int):
    """The reveals of every prize set of level ``k``: ``(prize, set, sum)``, each of shape ``(nsets, r)``.

    Random order: the ``r = k`` hidden prizes of set ``s`` in increasing
    order, with the rank at level ``k - 1`` and the sum of the set left
    hidden after each. Fixed order: ``r = 1``, the next prize of the
    sequence (set 0, the hidden sum less that prize). Level 0 has no reveal.
    """
    sets = np.asarray(space.sets[k], dtype=np.int64)
    if k == 0:
        empty = np.zeros((len(sets), 0), np.int64)
        return empty, empty.copy(), empty.copy()
    if not space.random_order:
        seq_next, hidden = int(space.seq[len(space.items) - k]), space.hidden_sum(k)
        one = np.ones((len(sets), 1), np.int64)
        return one * seq_next, one * 0, one * (hidden - seq_next)
    ps = space.prize_sets
    bits = (sets[:, None] >> np.arange(len(ps.values))) & 1
    rows, qs = np.nonzero(bits)  # row-major: each set's prizes in increasing order
    rest = sets[rows] & ~(np.int64(1) << qs)
    shape = (len(sets), k)
    return (ps.values[qs].astype(np.int64).reshape(shape), ps.set_rank[rest].astype(np.int64).reshape(shape),
            ps.set_sum[rest].astype(np.int64).reshape(shape))


def level_table(space, k: int, R) -> LevelTable:
    """Level ``k`` of ``space`` with its flat table ``R`` (an array or a mapped file)."""
    lay = space.layouts[k]
    return LevelTable(np.asarray(R), lay.canon, lay.offset, lay.ncarry, len(space.sets[k]), space.cvals[k],
                      int(space.dmax[k]), 0, NO_SLOTS)


def level_view(space, tables, k: int, ranks=None) -> LevelTable:
    """Level ``k`` of ``tables`` for the kernels: a list of flat tables, or a block store's tables.

    ``ranks``: the prize sets (ranks at level ``k``) the caller will read; a
    block store (:class:`~.blocked.BlockedTables`) loads only those blocks,
    a whole table ignores it.
    """
    if hasattr(tables, "view"):
        return tables.view(k, ranks)
    return level_table(space, k, tables[k])


def holds_level(tables, k: int) -> bool:
    """Whether ``tables`` hold level ``k``: always, but for a top-levels file (:class:`~.top.TopTables`)."""
    holds = getattr(tables, "holds", None)
    return holds is None or bool(holds(k))


#: ``set_slot`` of a whole level (the pattern-major layout has no slots)
NO_SLOTS = np.zeros(0, dtype=np.int64)


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def stored(table, h):
    """Where pattern ``h`` of a :class:`LevelTable` is stored: ``(p, sign)``, its stored pattern and the sign its values take.

    A pattern stored as the mirror image of ``p`` (``canon[h] = -1 - p``)
    has ``p``'s values negated, at the negated difference.
    """
    p = table.canon[h]
    if p < 0:
        return -1 - p, -1
    return p, 1


@njit(cache=True, inline="always")
def read_value(table, h, s, c, d):
    """``R[h, s, c, d]`` of a :class:`LevelTable` (NaN outside the stored space).

    ``d`` is the score difference itself (0 under ``points``).
    """
    p, sign = stored(table, h)
    d = sign * d
    nc = table.ncarry[p]
    if c >= nc or s >= table.nsets or d > table.dmax or d < -table.dmax:
        return np.nan
    nd = 2 * table.dmax + 1
    if table.block == 0:
        return sign * table.R[table.offset[p] + (s * nc + c) * nd + d + table.dmax]
    slot = table.set_slot[s]
    if slot < 0:
        return np.nan  # a prize set whose block was not loaded
    return sign * table.R[slot * table.block + table.offset[p] + c * nd + d + table.dmax]


@njit(cache=True)
def reveal_order(level):
    """The reveals of a :class:`LevelAxes`, flat indices ``set * r + j``, sorted by the set they leave hidden.

    The `points` kernel takes its reveals in this order, so that consecutive
    games read the same row of every successor's block in the level below.
    The sort is stable: each set's reveals keep one relative order whatever
    the other sets, so a set's average sums in the same order in any chunk.
    It counts (the keys are set ranks, small integers): the same order as
    ``np.argsort(kind="mergesort")``, whose compile cost a first solve seconds.
    """
    keys = level.rev_set.ravel()
    top = 0
    for t in range(len(keys)):
        top = max(top, keys[t])
    start = np.zeros(top + 2, dtype=np.int64)
    for t in range(len(keys)):
        start[keys[t] + 1] += 1
    for s in range(top + 1):
        start[s + 1] += start[s]
    order = np.empty(len(keys), dtype=np.int64)
    for t in range(len(keys)):
        order[start[keys[t]]] = t
        start[keys[t]] += 1
    return order


@njit(cache=True, inline="always")
def stage_entry(game, prev, k, o, pot, d, ci, s_prev, sum_prev, succ):
    """Value for A of one cell of a stage game at level ``k``: the bids' outcome ``o`` is known.

    ``prev`` is level ``k - 1``; ``sum_prev`` is the sum of the prizes hidden
    after this reveal and ``s_prev`` their set's index there; ``succ`` the
    successor pattern. Under ``points`` the difference is left out (callers
    add it). Under ``win`` a game ends with payoff ``term(final
    difference)``, read from the level-0 table, which is ``term[0]`` /
    ``term[-1]`` for differences beyond -tmax / tmax (see ``StateSpace``).
    """
    if k == 1 and not game.win:
        return float(o * pot)  # last round: a tie discards the pot under both tie rules
    c2 = 0
    if o == 0 and game.carry and k > 1:
        c2 = pot if game.random_order else ci + 1
    if succ < 0 or c2 >= len(prev.cvals):
        return np.nan  # outside the tabulated space (callers fall back)
    if not game.win:
        return o * pot + read_value(prev, succ, s_prev, c2, 0)
    tmax = len(game.term) // 2
    dd = d + o * pot
    rem = sum_prev + prev.cvals[c2]
    if dd - rem >= tmax:
        return game.term[2 * tmax]  # decided: every final difference lies where the end payoff is flat
    if dd + rem <= -tmax:
        return game.term[0]
    return read_value(prev, succ, s_prev, c2, dd)


#: columns of :func:`points_cells`' rows: where a cell's entry at pot 0 is read, and its sign
PCELL_POS, PCELL_STRIDE, PCELL_SIGN = 0, 1, 2


@njit(cache=True, inline="always")
def points_cells(game, prev, k, stage, cells):
    """What every ``points`` stage game of a pattern shares, split into what does not depend on the set left hidden.

    Under ``points`` cell ``(a, b)`` of :func:`stage_matrix` is ``o * pot``
    plus what it is with no pot (:func:`stage_entry` at pot 0: the value
    below, 0 after the last round, NaN outside the tabulated space), except
    a tie under the carry rule, which carries the pot. Row
    ``a * stage.nb + b`` of ``cells`` receives, for cell (a, b), where its
    entry at pot 0 lies for a set ``s`` left hidden:
    ``PCELL_SIGN * R[PCELL_POS + s * PCELL_STRIDE]`` (a whole table) or
    ``PCELL_SIGN * R[slot(s) * block + PCELL_POS]`` (a table of blocks);
    sign 0 for an entry that is 0 whatever the set (after the last round)
    and 2 for one outside the tabulated space (NaN). These are
    :func:`stage_entry`'s and :func:`read_value`'s rules at pot 0, the
    difference 0 and carry index 0 (so a tie under a fixed order reads carry
    index 1): :func:`points_gather` reads a set's entries with one load
    each, once for a run of reveals that leave that set hidden, and the
    kernel asks for the next set's before it needs them.
    ``tests/test_tables.py`` checks the entries equal :func:`stage_entry`'s
    and the finished games :func:`stage_matrix`'s.
    """
    nd = 2 * prev.dmax + 1
    for a in range(stage.na):
        for b in range(stage.nb):
            j = a * stage.nb + b
            cells[j, PCELL_POS] = 0
            cells[j, PCELL_STRIDE] = 0
            cells[j, PCELL_SIGN] = 2
            if k == 1:
                cells[j, PCELL_SIGN] = 0
                continue
            succ = stage.succ[a, b]
            c2 = 0  # stage_entry's carry index at pot 0 (with ci 0)
            if stage.outc[a, b] == 0 and game.carry and not game.random_order:
                c2 = 1
            if succ < 0 or c2 >= len(prev.cvals):
                continue
            p, sign = stored(prev, succ)
            nc = prev.ncarry[p]
            if c2 >= nc:
                continue
            cells[j, PCELL_POS] = prev.offset[p] + c2 * nd + prev.dmax
            cells[j, PCELL_STRIDE] = nc * nd
            cells[j, PCELL_SIGN] = sign


@njit(cache=True, inline="always")
def points_address(prev, cells, j, s_prev):
    """Index into ``prev.R`` of cell row ``j`` of :func:`points_cells` for set ``s_prev``, or -1 (no entry there)."""
    if cells[j, PCELL_SIGN] == 0 or cells[j, PCELL_SIGN] == 2 or s_prev >= prev.nsets:
        return -1
    if prev.block == 0:
        return cells[j, PCELL_POS] + s_prev * cells[j, PCELL_STRIDE]
    slot = prev.set_slot[s_prev]
    if slot < 0:
        return -1
    return slot * prev.block + cells[j, PCELL_POS]


@njit(cache=True, inline="always")
def points_gather(prev, stage, cells, s_prev, W):
    """Every cell's entry at pot 0 for set ``s_prev`` left hidden, into ``W``, from :func:`points_cells`: one load per cell."""
    for a in range(stage.na):
        for b in range(stage.nb):
            j = a * stage.nb + b
            if cells[j, PCELL_SIGN] == 0:
                W[a, b] = 0.0
                continue
            at = points_address(prev, cells, j, s_prev)
            W[a, b] = np.nan if at < 0 else cells[j, PCELL_SIGN] * prev.R[at]


@njit(cache=True, inline="always")
def points_game(game, prev, k, stage, pot, ci, s_prev, W, M):
    """:func:`stage_matrix` under ``points`` from :func:`points_gather`'s ``W``: only tied cells under carry read again.

    Entry for entry the same numbers as :func:`stage_matrix` (``tests/test_tables.py``).
    """
    carry = game.carry and k > 1
    for a in range(stage.na):
        for b in range(stage.nb):
            o = stage.outc[a, b]
            if o == 0 and carry:
                M[a, b] = stage_entry(game, prev, k, o, pot, 0, ci, s_prev, 0, stage.succ[a, b])
            else:
                M[a, b] = o * pot + W[a, b]


@njit(cache=True, inline="always")
def points_tied(game, k, stage, tied):
    """The cells of a pattern's ``points`` games that read the level below at the pot, ``a * stage.nb + b`` in row order, into ``tied``; their number.

    Under the carry rule (after the first round) a tie carries the pot, so
    :func:`points_game` reads the cells with outcome 0 again for each pot;
    under ``discard`` there are none (0). Listed once per pattern.
    """
    nt = 0
    if game.carry and k > 1:
        for a in range(stage.na):
            for b in range(stage.nb):
                if stage.outc[a, b] == 0:
                    tied[nt] = a * stage.nb + b
                    nt += 1
    return nt


@njit(cache=True, inline="always")
def points_ties(game, prev, k, stage, tied, nt, pot, ci, s_prev, tv):
    """The entries of the ``nt`` cells of :func:`points_tied` at ``pot``, into ``tv``: :func:`points_game`'s.

    The SIMD kernel builds the rest of a game from :func:`points_gather`'s
    entries and these.
    """
    for t in range(nt):
        a = tied[t] // stage.nb
        b = tied[t] - a * stage.nb
        tv[t] = stage_entry(game, prev, k, 0, pot, 0, ci, s_prev, 0, stage.succ[a, b])


@njit(cache=True)
def stage_structure(tokens, u, lut, lut_off):
    """The :class:`Stage` of a pattern: its classes, successors and outcomes.

    ``tokens[:u]`` is the pattern (:func:`~.encoding.decode`); classes of
    interchangeable cards come from :func:`~.encoding.classes`.
    """
    tmp = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    cls_a = np.empty(MAX_CARDS, dtype=np.int64)
    cls_b = np.empty(MAX_CARDS, dtype=np.int64)
    na, nb = classes(tokens, u, cls_a, cls_b)
    succ = np.empty((MAX_CARDS, MAX_CARDS), dtype=np.int64)
    outc = np.empty((MAX_CARDS, MAX_CARDS), dtype=np.int64)
    for a in range(na):
        for b in range(nb):
            succ[a, b], outc[a, b] = successor(tokens, u, cls_a[a], cls_b[b], lut, lut_off, tmp)
    return Stage(na, nb, succ, outc)


@njit(cache=True, inline="always")
def stage_matrix(game, prev, k, stage, pot, d, ci, s_prev, sum_prev, M):
    """THE stage game of a decision state, read from level ``k - 1`` into ``M``.

    The state has ``k`` cards in each hand, pattern structure ``stage``
    (:func:`stage_structure`), ``pot`` on the table (revealed prize plus
    carry), score difference ``d`` (``win``; ignored under ``points``,
    whose tables leave it out), carry index ``ci`` (fixed order: rounds tied
    in a row before this one), and the prizes still hidden after the reveal:
    set ``s_prev`` of level ``k - 1``, summing to ``sum_prev``. docs/rules.md,
    "States, values and strategies": entry ``(a, b)`` is what A gains this
    round plus the value of the state after A bids from class ``a`` and B
    from class ``b``.

    ``M[:stage.na, :stage.nb]`` is modified in place. Returns True when
    every entry is tabulated (no NaN).
    """
    complete = True
    for a in range(stage.na):
        for b in range(stage.nb):
            v = stage_entry(game, prev, k, stage.outc[a, b], pot, d, ci, s_prev, sum_prev, stage.succ[a, b])
            M[a, b] = v
            if np.isnan(v):
                complete = False
    return complete


#: columns of one cell in :func:`win_cells` (d thresholds, read range, position, direction)
CELL_TOP, CELL_BOT, CELL_RLO, CELL_RHI, CELL_POS, CELL_SIGN = 0, 1, 2, 3, 4, 5
#: a d threshold that no difference reaches
_NEVER = 1 << 40


@njit(cache=True, inline="always")
def win_cells(game, prev, k, stage, pot, ci, s_prev, sum_prev, cells):
    """:func:`stage_entry`'s rule under ``win``, split into the part that does not depend on ``d``.

    For one reveal of one decision state (everything of :func:`stage_matrix`
    but the difference), row ``a * stage.nb + b`` of ``cells`` receives, for
    cell (a, b): the differences from which the game is decided for A
    (``d >= CELL_TOP``: ``term[-1]``) or against A (``d <= CELL_BOT``:
    ``term[0]``), else the range ``[CELL_RLO, CELL_RHI]`` of ``d`` whose
    entry is tabulated, at ``CELL_SIGN * R[CELL_POS + CELL_SIGN * d]`` (the
    sign is -1 for a mirrored successor); elsewhere the entry is NaN.
    :func:`win_gather` then builds the game of any ``d`` with one read per
    cell, and the induction visits the differences in order, so each cell's
    reads walk along one row of the level below.
    """
    tmax = len(game.term) // 2
    nd = 2 * prev.dmax + 1
    for a in range(stage.na):
        for b in range(stage.nb):
            j = a * stage.nb + b
            o = stage.outc[a, b]
            succ = stage.succ[a, b]
            c2 = 0
            if o == 0 and game.carry and k > 1:
                c2 = pot if game.random_order else ci + 1
            # defaults: never decided, nothing tabulated (NaN)
            cells[j, CELL_TOP] = _NEVER
            cells[j, CELL_BOT] = -_NEVER
            cells[j, CELL_RLO] = 1
            cells[j, CELL_RHI] = 0
            cells[j, CELL_POS] = 0
            cells[j, CELL_SIGN] = 1
            if succ < 0 or c2 >= len(prev.cvals):
                continue
            opot = o * pot
            rem = sum_prev + prev.cvals[c2]
            cells[j, CELL_TOP] = tmax + rem - opot   # dd - rem >= tmax
            cells[j, CELL_BOT] = -tmax - rem - opot  # dd + rem <= -tmax
            p, sign = stored(prev, succ)
            nc = prev.ncarry[p]
            if c2 >= nc or s_prev >= prev.nsets:
                continue
            if prev.block == 0:
                base = prev.offset[p] + (s_prev * nc + c2) * nd + prev.dmax
            else:
                slot = prev.set_slot[s_prev]
                if slot < 0:
                    continue
                base = slot * prev.block + prev.offset[p] + c2 * nd + prev.dmax
            cells[j, CELL_RLO] = -prev.dmax - opot  # |d + opot| <= dmax
            cells[j, CELL_RHI] = prev.dmax - opot
            cells[j, CELL_POS] = base + sign * opot
            cells[j, CELL_SIGN] = sign


@njit(cache=True, inline="always")
def win_gather(game, prev, stage, cells, d, M):
    """The stage game of difference ``d`` from :func:`win_cells`, into ``M``; True if it changed.

    Equal to :func:`stage_matrix` for the same state (tests check it). The
    return value says whether any entry differs from what ``M`` held, so a
    caller that builds the games of one reveal for consecutive ``d`` can
    keep the previous game's value when nothing changed (NaN always counts
    as a change).
    """
    top = game.term[len(game.term) - 1]
    bot = game.term[0]
    changed = False
    for a in range(stage.na):
        for b in range(stage.nb):
            j = a * stage.nb + b
            if d >= cells[j, CELL_TOP]:
                v = top
            elif d <= cells[j, CELL_BOT]:
                v = bot
            elif cells[j, CELL_RLO] <= d <= cells[j, CELL_RHI]:
                sign = cells[j, CELL_SIGN]
                v = sign * prev.R[cells[j, CELL_POS] + sign * d]
            else:
                v = np.nan
            if not v == M[a, b]:
                changed = True
                M[a, b] = v
    return changed


@njit(cache=True)
def saturates(term) -> bool:
    """True when the end payoff ``term`` is non-decreasing and not constant.

    Then every value lies in ``[term[0], term[-1]]`` and is non-decreasing in
    the difference, as :func:`sure_value` needs.
    """
    for i in range(1, len(term)):
        if term[i] < term[i - 1]:
            return False
    return term[len(term) - 1] > term[0]


@njit(cache=True, inline="always")
def sure_value(M, na, nb, top, bot):
    """1 if the game ``M[:na, :nb]`` is worth ``top`` exactly, -1 if ``bot``, else 0 (no LP).

    Under ``win`` (with :func:`saturates`) a value is the top payoff only
    when A wins for sure, and a mixed bid wins for sure only if every bid in
    its support does: the game is worth the top exactly when some row is the
    top in every column (a pure min-max over the level below), and the
    bottom when some column is the bottom in every row.
    """
    for a in range(na):
        for b in range(nb):
            if not M[a, b] == top:
                break
        else:
            return 1
    for b in range(nb):
        for a in range(na):
            if not M[a, b] == bot:
                break
        else:
            return -1
    return 0


@njit(cache=True, inline="always")
def is_symmetric(tokens, u):
    """True when exchanging the players leaves the pattern unchanged (all tokens shared)."""
    for t in range(u):
        if tokens[t] != TOK_SHARED:
            return False
    return True
