"""Certify a solution: recompute stored values from the level below.

Every stored value of level ``k`` is, by construction (see
:func:`~.induction.level_kernel`), the average over the prize revealed next
of the value of a stage game whose entries are read from level ``k - 1``.
:func:`verify_tables` recomputes exactly that for every stored slot (or a
seeded sample) and reports

* the **residual** ``|recomputed - stored|``, which catches any value that
  was altered after the solve (the stage games above it no longer agree);
* the **exploitability** of the stage strategies solved on the way: for
  each stage game with value ``v`` and optimal strategies ``x`` (A) and
  ``y`` (B), ``max(max_i (M y)_i - v, v - min_j (x^T M)_j)``, what a player
  gains over ``v`` by the best pure reply to the other's strategy.

Slots the induction leaves empty (carries the hands cannot produce,
differences out of reach) must be empty, and stored slots must hold a
number: either mismatch counts as an infinite residual.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from gops_solver.game.constants import MAX_CARDS, TOKEN_SCRATCH, VALUE_TOL, tol_text
from gops_solver.game.encoding import TOK_A, TOK_B, decode
from gops_solver.game.errors import InputValueError
from gops_solver.lp.stage import solve_stage
from gops_solver.engine.storage import release_mapped
from gops_solver.engine.tables import WORK, game_axes, is_symmetric, level_axes, level_table, stage_matrix, stage_structure

_CHUNK = 1 << 18  # slots per kernel call: bounds the scratch arrays


@njit(parallel=True, cache=True)
def _verify_kernel(game, level, prev, slots, R_k, resid_out, value_out, exploit_out, games_out):
    """Recompute the slots ``slots`` of ``level``'s flat table ``R_k`` from ``prev`` (level k - 1).

    Mirrors :func:`~.induction.level_kernel` entry by entry, so a fresh
    table reproduces exactly. ``resid_out[i]`` receives
    ``|recomputed - stored|`` of ``slots[i]`` (inf when a slot that must be
    stored is empty, or an empty slot holds a value; NaN-free otherwise),
    ``value_out[i]`` the recomputed value (NaN for an empty slot),
    ``exploit_out[i]`` the largest stage-game exploitability met and
    ``games_out[i]`` the number of stage games solved (all modified in place).
    """
    k = level.k
    dmax_k = level.dmax
    nd = 2 * dmax_k + 1
    tmax = len(game.term) // 2  # end payoff under win, as in level_kernel
    nrev = level.rev_prize.shape[1]
    for i in prange(len(slots)):
        f = slots[i]
        # decode the flat slot: pattern block, then (set, carry, diff)
        p_out = np.searchsorted(level.offset, f, side="right") - 1
        r = f - level.offset[p_out]
        nc = level.ncarry[p_out]
        di = r % nd
        r //= nd
        ci = r % nc
        si = r // nc
        d = di - dmax_k
        h = level.canonical[p_out]
        u = level.pat_u[h]
        tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
        decode(u, level.pat_code[h], tokens)
        sym = is_symmetric(tokens, u)
        mask = level.sets[si]
        S = game.set_sum[mask] if game.random_order else level.hidden_sum
        c = level.cvals[ci]
        stored = R_k[f]
        # the induction's rule for which slots it fills
        expected = level.min_ties[si, ci] <= game.union_cap - u
        if expected and game.win:
            dlim = min(S + c + tmax - 1, game.diff_reach - S - c, dmax_k)
            expected = dlim >= 0 and -dlim <= d <= dlim
        elif expected:
            expected = d == 0
        exploit_out[i] = 0.0
        games_out[i] = 0
        value_out[i] = np.nan
        if not expected:
            resid_out[i] = 0.0 if np.isnan(stored) else np.inf
            continue
        if np.isnan(stored):
            resid_out[i] = np.inf
            continue
        if sym and d == 0:
            value_out[i] = 0.0
            resid_out[i] = abs(stored)  # symmetric position: value 0 (docs/rules.md)
            continue
        stage = stage_structure(tokens, u, game.lut, game.lut_off)
        na, nb = stage.na, stage.nb
        M = np.empty((MAX_CARDS, MAX_CARDS), dtype=np.float64)
        x = np.empty(MAX_CARDS, dtype=np.float64)
        y = np.empty(MAX_CARDS, dtype=np.float64)
        work = np.empty(WORK, dtype=np.float64)
        acc = 0.0
        npots = 0
        worst = 0.0
        bad = False
        for j in range(nrev):
            pz, s_prev, sum_prev = level.rev_prize[si, j], level.rev_set[si, j], level.rev_sum[si, j]
            stage_matrix(game, prev, k, stage, c + pz, d, ci, s_prev, sum_prev, M)
            v, st = solve_stage(M, na, nb, x, y, work)
            games_out[i] += 1
            if st != 0 or not np.isfinite(v):
                bad = True
                continue
            # what each player gains over v by the best pure reply to the other
            for a in range(na):
                s = 0.0
                for b in range(nb):
                    s += M[a, b] * y[b]
                if s - v > worst:
                    worst = s - v
            for b in range(nb):
                s = 0.0
                for a in range(na):
                    s += x[a] * M[a, b]
                if v - s > worst:
                    worst = v - s
            acc += v
            npots += 1
        exploit_out[i] = np.inf if bad else worst
        if bad:
            resid_out[i] = np.inf
        else:
            value_out[i] = acc / npots
            resid_out[i] = abs(acc / npots - stored)


@dataclass
class VerifyResult:
    """Outcome of :meth:`Solution.verify <gops_solver.engine.solution.Solution.verify>`.

    Attributes
    ----------
    ok : bool
        Both ``max_residual`` and ``max_exploitability`` are ``<= tol``.
    max_residual : float
        Largest ``|recomputed - stored|`` over the checked slots (inf for a
        slot that is empty but must be stored, or the reverse).
    max_exploitability : float
        Largest gain of a pure reply over a stage game's value against the
        other player's solved strategy.
    worst : dict or None
        The slot of ``max_residual`` (see :func:`describe_slot`), with its
        stored and recomputed values; None when nothing was checked.
    worst_exploit : dict or None
        The slot of ``max_exploitability``.
    slots : int
        Table slots checked (stored states and the slots that must stay empty).
    states : int
        Of those, the slots holding a value.
    stage_games : int
        Stage games solved.
    tol : float
    sample : int or None
    seed : int
    seconds : float
    levels : list of int
        The levels whose values were recomputed (filled for a top-levels file).
    unchecked : list of int
        Stored levels whose values were not recomputed: a top-levels file's
        lowest level, which has no level below it in the file (its checksums
        still vouch for it). Empty for a whole solution.
    blocks : dict or None
        With ``blocks=``: the blocks checked whole, ``{level: [ranks]}``.
    """

    ok: bool
    max_residual: float
    max_exploitability: float
    worst: dict | None
    worst_exploit: dict | None
    slots: int
    states: int
    stage_games: int
    tol: float
    sample: int | None = None
    seed: int = 0
    seconds: float = 0.0
    levels: list = field(default_factory=list, repr=False)
    unchecked: list = field(default_factory=list)
    blocks: dict | None = None

    def to_dict(self) -> dict:
        """JSON-ready form (an infinite residual is written as the string ``"inf"``).

        ``unchecked_levels`` (a top-levels file only): the stored levels whose
        values are not recomputed, for want of the level below them.
        """
        def num(v):
            return float(v) if np.isfinite(v) else str(v)
        out = {"ok": self.ok, "max_residual": num(self.max_residual),
               "max_exploitability": num(self.max_exploitability),
               "worst": _jsonable(self.worst), "worst_exploit": _jsonable(self.worst_exploit),
               "slots": self.slots, "states": self.states, "stage_games": self.stage_games,
               "tol": self.tol, "sample": self.sample, "seed": self.seed, "seconds": round(self.seconds, 3)}
        if self.blocks is not None:
            out["blocks"] = {str(k): ranks for k, ranks in self.blocks.items()}
        if self.unchecked:
            out["checked_levels"] = list(self.levels)
            out["unchecked_levels"] = list(self.unchecked)
        return out


def _jsonable(d):
    if d is None:
        return None
    return {key: (val if not isinstance(val, float) or np.isfinite(val) else str(val)) for key, val in d.items()}


def describe_slot(space, tables, k: int, f: int, stored=None) -> dict:
    """The position stored at flat slot ``f`` of level ``k``, in card terms.

    The hands are one example pair with the slot's pattern: the distinct
    values of the two hands numbered 1, 2, ... in increasing order (any
    hands with the same order of A-only, B-only and shared values have the
    same value). The position is *before* the next prize is revealed: ``k``
    cards in each hand, ``prizes`` the ``k`` hidden prizes, ``carry`` the pot
    carried from ties, ``diff`` the score A - B (0 under ``points``, whose
    tables store the future margin alone).

    Returns
    -------
    dict
        ``level, slot, hand_a, hand_b, prizes, carry, diff, stored``.
    """
    lay = space.layouts[k]
    p = int(np.searchsorted(lay.offset, f, side="right") - 1)
    r = int(f - lay.offset[p])
    nc = int(lay.ncarry[p])
    di, r = r % lay.nd, r // lay.nd
    ci, si = r % nc, r // nc
    h = int(lay.canonical[p])
    u = int(space.patterns.level_u[k][h])
    tokens = np.empty(TOKEN_SCRATCH, dtype=np.int64)
    decode(u, int(space.patterns.level_code[k][h]), tokens)
    hand_a = [i + 1 for i in range(u) if tokens[i] != TOK_B]
    hand_b = [i + 1 for i in range(u) if tokens[i] != TOK_A]
    if space.random_order:
        mask = int(space.sets[k][si])
        prizes = [int(v) for q, v in enumerate(space.prize_sets.values) if (mask >> q) & 1]
    else:
        L = len(space.items)
        prizes = [int(v) for v in space.seq[L - k:]]
    stored = float(tables[k][f]) if stored is None else float(stored)
    return {"level": k, "slot": int(f), "hand_a": hand_a, "hand_b": hand_b, "prizes": prizes,
            "carry": int(space.cvals[k][ci]), "diff": int(di - space.dmax[k]), "stored": stored}


def verify_tables(space, tables, sample=None, seed=0, tol=VALUE_TOL, blocks=None) -> VerifyResult:
    """Recompute every stored value of ``tables`` (or a seeded sample); see module docstring.

    Parameters
    ----------
    space : StateSpace
    tables : list of ndarray
        Flat level tables 0..kmax (arrays or mapped files).
    sample : int, optional
        Check this many slots drawn uniformly without replacement over all
        levels 1..kmax (``numpy.random.default_rng(seed)``); all when None
        or when at least the number of slots.
    seed : int
    tol : float
        Largest residual and exploitability accepted.
    blocks : int, optional
        A block store or a top-levels file only: check every slot of this
        many whole blocks, one drawn at random from each level checked and
        the rest uniformly over all remaining blocks
        (``numpy.random.default_rng(seed)``); at least their number is a
        whole check (``blocks`` of the result is then None). Not with
        ``sample``.

    Returns
    -------
    VerifyResult

    Raises
    ------
    ValueError
        If ``sample`` or ``blocks`` is not a positive whole number, both are
        given, ``blocks`` is given for tables that are not in blocks, or
        ``tol`` is negative.
    """
    _check_args(sample, tol)
    # a block store's tables carry their store, a top-levels file's its lowest level
    blocked = hasattr(tables, "store") or hasattr(tables, "lowest")
    if blocks is not None:
        if isinstance(blocks, bool) or not isinstance(blocks, (int, np.integer)) or blocks < 1:
            raise ValueError(f"blocks={blocks!r} must be a positive whole number of blocks (or None)")
        if sample is not None:
            raise InputValueError("give one of sample (table slots) and blocks (whole blocks), not both",
                                  "choose one of --sample N (table slots) and --blocks N (whole blocks)")
        if not blocked:
            raise InputValueError("blocks= checks the blocks of a block store or a top-levels file; this "
                                  "solution holds whole tables: use sample= instead",
                                  "--blocks checks the blocks of a block store or a top-levels file, and this "
                                  "solution holds whole tables: use --sample N")
    if blocked:
        # a block store or a top-levels file: block by block, reading each block's inputs only
        return _verify_blocked(space, tables, sample, seed, tol, blocks)
    t0 = time.perf_counter()
    kmax = space.kmax
    sizes = np.array([space.size(k) for k in range(1, kmax + 1)], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    total = int(starts[-1])
    if sample is not None and sample < total:
        picked = np.sort(np.random.default_rng(seed).choice(total, size=int(sample), replace=False))
    else:
        picked = None
        sample = None
    game = game_axes(space)
    acc = _Worst()
    for k in range(1, kmax + 1):
        if picked is None:
            chunks = (np.arange(i, min(i + _CHUNK, sizes[k - 1]), dtype=np.int64)
                      for i in range(0, int(sizes[k - 1]), _CHUNK))
        else:
            sel = picked[(picked >= starts[k - 1]) & (picked < starts[k])] - starts[k - 1]
            chunks = (sel[i:i + _CHUNK] for i in range(0, len(sel), _CHUNK))
        level = level_axes(space, k)
        prev = level_table(space, k - 1, tables[k - 1])
        R_k = np.asarray(tables[k])
        for slots in chunks:
            if len(slots):
                acc.check(game, level, prev, slots, R_k, k, slots, R_k[slots])
        # a mapped level read at random leaves most of its pages resident: unmap it once done
        release_mapped(tables[k - 1])
    release_mapped(tables[kmax])
    return acc.result(space, tables, tol, sample, seed, t0)


def _check_args(sample, tol):
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1):
        raise ValueError(f"sample={sample!r} must be a positive whole number of slots (or None for all)")
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol={tol!r} must be a non-negative number, e.g. {tol_text(VALUE_TOL)}")


class _Worst:
    """The largest residual and exploitability met so far, and where (see :func:`verify_tables`)."""

    def __init__(self):
        self.best = {"resid": (-1.0, None, 0.0, 0.0), "exploit": (-1.0, None, 0.0, 0.0)}
        self.slots = self.states = self.games = 0

    def check(self, game, level, prev, slots, R_k, k, where, stored):
        """Run the kernel on ``slots`` of ``R_k``; ``where[i]`` names slot i as level ``k``'s flat index."""
        resid = np.empty(len(slots))
        vals = np.empty(len(slots))
        expl = np.empty(len(slots))
        games = np.empty(len(slots), np.int64)
        _verify_kernel(game, level, prev, slots, R_k, resid, vals, expl, games)
        self.slots += len(slots)
        self.states += int(np.count_nonzero(~np.isnan(stored)))
        self.games += int(games.sum())
        # strict '>' keeps the lowest level on ties: a changed value shows
        # there in full, in the levels above it only diluted
        for name, arr in (("resid", resid), ("exploit", expl)):
            j = int(np.argmax(arr))
            if arr[j] > self.best[name][0]:
                self.best[name] = (float(arr[j]), (k, int(where[j])), float(vals[j]), float(stored[j]))

    def result(self, space, tables, tol, sample, seed, t0) -> "VerifyResult":
        worst = worst_exploit = None
        if self.best["resid"][1] is not None:
            worst = describe_slot(space, tables, *self.best["resid"][1], stored=self.best["resid"][3])
            worst["residual"] = self.best["resid"][0]
            worst["recomputed"] = self.best["resid"][2]
        if self.best["exploit"][1] is not None:
            worst_exploit = describe_slot(space, tables, *self.best["exploit"][1], stored=self.best["exploit"][3])
            worst_exploit["exploitability"] = self.best["exploit"][0]
        max_r, max_e = max(self.best["resid"][0], 0.0), max(self.best["exploit"][0], 0.0)
        return VerifyResult(bool(max_r <= tol and max_e <= tol), max_r, max_e, worst, worst_exploit,
                            self.slots, self.states, self.games, float(tol), sample, int(seed),
                            time.perf_counter() - t0)


def _verify_blocked(space, tables, sample, seed, tol, nblocks=None) -> VerifyResult:
    """:func:`verify_tables` over a block store or a top-levels file: each block checked from the blocks it reads.

    Slots are numbered level by level, block by block (set-major), so a
    sample draws uniformly over all slots as for whole tables, and only the
    blocks holding sampled slots and their inputs are read. A top-levels
    file (:class:`~.top.TopTables`) is checked from the level above its
    lowest up: its lowest level has no level below it in the file.
    ``nblocks`` draws whole blocks instead (:func:`pick_blocks`).
    """
    from gops_solver.engine.blocked import block_axes, block_order, children
    t0 = time.perf_counter()
    store = getattr(tables, "store", None)
    lowest = getattr(tables, "lowest", 0)  # a top-levels file: the lowest level held
    read = read_sampled = tables.read_block if store is None else store.read_block
    if sample is not None or nblocks is not None:
        # as for a solution file: the values not sampled are at least what the solver wrote
        if store is None:
            tables.check_values()
        else:
            store.check(data=True)
            tables.map_blocks()  # checked: from now on only the entries a sampled slot reads come from disk
            read_sampled = store.map_block
    kmax = space.kmax
    levels = list(range(lowest + 1, kmax + 1))
    nsets = [len(space.sets[k]) for k in range(kmax + 1)]
    blen = [space.size(k) // nsets[k] for k in range(kmax + 1)]
    sizes = np.array([space.size(k) for k in levels], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    total = int(starts[-1])
    picked = chosen = None
    if sample is not None and sample < total:
        picked = np.sort(np.random.default_rng(seed).choice(total, size=int(sample), replace=False))
    else:
        sample = None
    if nblocks is not None and nblocks < sum(nsets[k] for k in levels):
        chosen = pick_blocks({k: nsets[k] for k in levels}, nblocks, seed)
    game = game_axes(space)
    acc = _Worst()
    for i, k in enumerate(levels):
        lay = space.layouts[k]
        osm = lay.offset // nsets[k]
        level = level_axes(space, k)
        if picked is not None:
            sel = picked[(picked >= starts[i]) & (picked < starts[i + 1])] - starts[i]
            ranks, local = sel // blen[k], sel % blen[k]
        wanted = chosen[k] if chosen is not None else None if picked is None else set(ranks.tolist())
        # neighbours in block order share most of their inputs, which then stay in the cache
        for rank in (r for r in block_order(space, k) if wanted is None or r in wanted):
            slots = np.arange(blen[k], dtype=np.int64) if picked is None else local[ranks == rank]
            R_b = (read if picked is None else read_sampled)(k, rank)
            prev = tables.view(k - 1, children(space, k, rank))
            # the flat index the same slot has in a whole (pattern-major) level, to name it
            p = np.searchsorted(osm, slots, side="right") - 1
            where = lay.offset[p] + rank * (osm[p + 1] - osm[p]) + (slots - osm[p])
            for j in range(0, len(slots), _CHUNK):
                acc.check(game, block_axes(space, level, k, rank), prev, slots[j:j + _CHUNK], R_b, k,
                          where[j:j + _CHUNK], R_b[slots[j:j + _CHUNK]])
    res = acc.result(space, tables, tol, sample, seed, t0)
    if chosen is not None:
        res.blocks = {k: sorted(chosen[k]) for k in levels if chosen[k]}
    if lowest:
        res.levels, res.unchecked = levels[::-1], [lowest]
    return res


def pick_blocks(nsets: dict, count: int, seed: int) -> dict:
    """``count`` blocks drawn at random: one from each level, the rest uniformly over the blocks left.

    Parameters
    ----------
    nsets : dict
        Blocks per level, ``{k: number of blocks}``.
    count : int
        Blocks to draw (all of them when at least their number; at least
        one per level, so ``max(count, len(nsets))`` when fewer).
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict
        ``{k: set of block ranks}`` for every level of ``nsets``.
    """
    rng = np.random.default_rng(seed)
    levels = sorted(nsets)
    starts = np.concatenate([[0], np.cumsum([nsets[k] for k in levels])]).astype(np.int64)
    total = int(starts[-1])
    if count >= total:
        return {k: set(range(nsets[k])) for k in levels}
    # every level gets one, so a small level is never left out of a check
    first = np.array([starts[i] + rng.integers(nsets[k]) for i, k in enumerate(levels)], dtype=np.int64)
    rest = np.setdiff1d(np.arange(total, dtype=np.int64), first)
    more = rng.choice(rest, size=max(0, int(count) - len(first)), replace=False)
    drawn = np.concatenate([first, more])
    out = {k: set() for k in levels}
    for flat in drawn.tolist():
        i = int(np.searchsorted(starts, flat, side="right") - 1)
        out[levels[i]].add(int(flat - starts[i]))
    return out
