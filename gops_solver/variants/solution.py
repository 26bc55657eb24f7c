"""Solve, query, verify, save and load a variant game (two-card bids, open prizes).

Follow a state: :func:`solve_variant` builds the :class:`~.space.VariantSpace`
of the rules and fills its level tables from the last round back with
:func:`~.kernel.level_kernel`; :meth:`VariantSolution.query` validates a
decision state, finds its prize state, builds its stage game over the
actual bids from the next level's table and solves it again for the
strategies.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field

import numpy as np

from gops_solver import __version__
from gops_solver.game.cards import parse_cards
from gops_solver.game.rules import DecisionState, Rules, _whole
from gops_solver.lp.stage import StageSolveError, solve_matrix_game
from gops_solver.engine.storage import FORMAT_VERSION as CONTAINER_FORMAT, MAGIC as CONTAINER_MAGIC
from gops_solver.engine.storage import (FileKind, atomic_write, check_out_path, crc32, has_magic, header_bytes,
                                        map_tables, open_table_file, read_header, table_parts, writer_lock)
from gops_solver.game.constants import VALUE_TOL
from gops_solver.engine.base import GameSolution, QueryResult, fold_row
from gops_solver.variants._kernel import _slot, entry, level_kernel, verify_kernel
from gops_solver.variants._space import HandLevel, VariantSpace, bid_size, cards_of, hand_size, mask, top_sum

#: variant files are the solution container (:mod:`gops_solver.engine.storage`) of kind ``variant``
MAGIC = CONTAINER_MAGIC
FORMAT_VERSION = CONTAINER_FORMAT
VARIANT_FILE = FileKind(("variant",), "gops variant solution file", "gops solve --out", (b"GOPSVAR\x02", 2),
                        (b"GOPSVAR\x01", f"has variant format 1 (no header checksum); this gops reads "
                                          f"format {FORMAT_VERSION}"))


def pair_text(bid) -> str:
    """A bid as text: ``3+5`` for a pair, ``4`` for a single card."""
    return "+".join(str(c) for c in bid)


@dataclass
class VariantQueryResult(QueryResult):
    """The :class:`~gops_solver.engine.base.QueryResult` of a variant: bids are tuples of cards.

    ``strategy_a``, ``strategy_b``: bid -> probability, a bid the ascending
    tuple of its cards, ``(3, 5)`` or ``(c,)``; ``cards_a``/``cards_b`` give
    them card by card. ``choices``: ``(bid_a, bid_b) -> prize`` the winner
    takes from the row (open prizes, decisive bids only; among equally good
    prizes the largest); empty with one open prize. ``matrix``: rows A's bids
    and columns B's in the order of the strategies' keys.
    """

    def to_dict(self) -> dict:
        """JSON-ready form: bids as ``"3+5"``, choices keyed ``"3+5|4+6"``."""
        return {"value": float(self.value),
                "strategy_a": {pair_text(b): float(p) for b, p in self.strategy_a.items()},
                "strategy_b": {pair_text(b): float(p) for b, p in self.strategy_b.items()},
                "choices": {f"{pair_text(a)}|{pair_text(b)}": int(r) for (a, b), r in self.choices.items()}}


@dataclass
class VariantVerifyResult:
    """Outcome of :meth:`VariantSolution.verify`."""

    ok: bool
    checked: int
    max_residual: float
    max_exploitability: float
    worst: dict
    stage_games: int = 0


class VariantSolution(GameSolution):
    """The solved tables of a variant game (the calls of :class:`~gops_solver.engine.base.GameSolution`).

    Attributes
    ----------
    rules : Rules
    space : VariantSpace
    tables : list of ndarray
        ``tables[t]`` has shape ``space.shape(t)``; the last is the end payoff.
    value : float
        Value of the game at its start.
    states : int
        Table entries (positions before a fill, by hand class).
    stage_games, seconds
        Work and wall time of the solve (stage games set up: see
        :meth:`~.space.VariantSpace.stage_games`).
    solves : int or None
        Stage games the kernel solved (set-up games less repeats); None for
        a loaded file.
    """

    kind = "variant"

    def __init__(self, rules, space, tables, stage_games=0, seconds=0.0, stage_solver="numba"):
        self.rules, self.space, self.tables = rules, space, tables
        self.stage_games, self.seconds, self.stage_solver = int(stage_games), float(seconds), stage_solver
        self.states = int(sum(space.size(t) for t in range(space.R)))
        self.match = None
        self.solves = None

    @property
    def value(self) -> float:
        return self.start_value(0)

    def start_value(self, d: int) -> float:
        """Value at the start from score difference ``d`` (win; 0 under points)."""
        sp = self.space
        lim = sp.lim[0]
        i = min(max(d + lim, 0), 2 * lim) if sp.win else 0
        return float(self.tables[0][0, 0, i])

    def __repr__(self):
        return (f"VariantSolution({self.rules.describe()}, value={self.value:.12g}, states={self.states}, "
                f"stage_games={self.stage_games})")

    # -- queries ----------------------------------------------------------------
    def query(self, hand_a, hand_b, pot, prizes=(), diff=0, row=None, stage_solver=None,
              game=None, match_score=None) -> VariantQueryResult:
        """Value, optimal bids and prize choices at a decision state.

        Parameters
        ----------
        hand_a, hand_b : iterable of int or str
            Remaining cards (same size; a size the rules reach).
        pot : int
            One open prize: the revealed prize plus the carried pot (as in the
            classic game), or the carried pot alone when ``row`` names the
            revealed prize. Open prizes: the carried pot only (0 if none).
        prizes : iterable
            The face-down pile: every prize not yet turned.
        diff : int
            Score A - score B so far.
        row : iterable, optional
            Open prizes: the face-up row after this round's fill; one open
            prize: the revealed prize, optional.
        stage_solver : {"numba", "highs"}, optional

        Raises
        ------
        ValueError
            One line naming what cannot occur and how to fix it.
        """
        if game not in (None, 1) or match_score not in (None, 0):
            raise ValueError("a single game has no match position: drop game and match_score")
        rules, sp = self.rules, self.space
        if rules.open_prizes == 1:
            pot, row = fold_row(rules, pot, prizes, row), None
        t, a, b, q, d = locate(rules, sp, hand_a, hand_b, pot, prizes, diff, row)
        res = query_at(self, t, a, b, q, d, stage_solver or self.stage_solver)
        res.state = DecisionState(a, b, int(pot), tuple(sorted(parse_cards(prizes, rules.n, what="prizes"))), d)
        return res

    def to_frame(self, rounds=None, level=None, max_rows=None):
        """The equilibrium at every reachable decision state of the first ``rounds`` rounds.

        One row per state: ``round``, ``k``, ``hand_a``, ``hand_b``, ``pot``
        (the carried pot with open prizes, else the revealed prize plus the
        carry), ``row`` (open prizes: the face-up row as text ``"2,4"``),
        ``prizes`` (face down), ``diff``, ``value``, each card's share of the
        bids ``a_1..a_n``, ``b_1..b_n`` (:attr:`~.QueryResult.cards_a`) and
        the bid distributions as text ``bids_a``, ``bids_b`` (``"1+2:0.5 3+4:0.5"``).

        Parameters
        ----------
        rounds : int, optional
            Rounds 1..``rounds`` (default: every round).
        level : int, optional
            Only the states with ``level`` cards in each hand.
        max_rows : int, optional
            Refuse (ValueError) more rows than this (default 2,000,000).

        Returns
        -------
        pandas.DataFrame
        """
        from gops_solver.variants._walk import variant_frame
        return variant_frame(self, rounds, level, max_rows)

    def verify(self, sample=None, seed=0, tol=VALUE_TOL, backend="numba") -> VariantVerifyResult:
        """Recompute stored values from the level below and certify the stage strategies.

        Every table slot (or a seeded sample of ``sample`` slots per level) is
        recomputed from the next level: each stage game is built afresh and
        solved (no mirror, no reuse of an equal game: a path independent of
        the solve's shortcuts), the average over the fill compared with the
        stored value, and the solver's strategies checked against every pure
        reply. Unreachable slots must be empty (NaN) and reachable ones not.

        Parameters
        ----------
        backend : {"numba", "highs"}
            ``numba``: the jitted solver, in parallel (default). ``highs``:
            scipy's HiGHS gives the values (slow; an independent check), and
            the jitted solver's strategies are certified against them.
        """
        sp = self.space
        rng = np.random.default_rng(seed)
        worst = {"residual": 0.0, "exploitability": 0.0, "slot": None}
        checked = games = 0
        for t in range(sp.R):
            shape = sp.shape(t)
            total = shape[0] * shape[1] * shape[2]
            if sample is None or sample >= total:
                slots = np.arange(total, dtype=np.int64)
            else:
                slots = np.sort(rng.choice(total, sample, replace=False)).astype(np.int64)
            if backend == "highs":
                resid, expl, g = self._verify_highs(t, slots)
            else:
                resid, expl = np.empty(len(slots)), np.empty(len(slots))
                g = np.empty(len(slots), np.int64)
                verify_kernel(sp.hand_levels[t], sp.prizes.levels[t], sp.diff_levels[t], sp.const(t),
                              self.tables[t + 1], self.tables[t], slots, resid, expl, g)
            games += int(g.sum())
            checked += len(slots)
            if len(slots):
                i = int(np.argmax(resid))
                if resid[i] > worst["residual"]:
                    c, rest = divmod(int(slots[i]), shape[1] * shape[2])
                    p, di = divmod(rest, shape[2])
                    worst.update(residual=float(resid[i]),
                                 slot={"level": t, "class": c, "prizes": sp.prizes.pre[t][p], "diff": di - sp.lim[t]})
                worst["exploitability"] = max(worst["exploitability"], float(expl.max()))
        ok = worst["residual"] <= tol and worst["exploitability"] <= tol
        return VariantVerifyResult(ok, checked, worst["residual"], worst["exploitability"], worst, games)

    def _verify_highs(self, t, slots):
        sp = self.space
        shape = sp.shape(t)
        H, P = sp.hand_levels[t], sp.prizes.levels[t]
        resid, expl = np.zeros(len(slots)), np.zeros(len(slots))
        games = np.zeros(len(slots), np.int64)
        for k, f in enumerate(slots):
            c, rest = divmod(int(f), shape[1] * shape[2])
            p, di = divmod(rest, shape[2])
            d = di - sp.lim[t]

            def game_value(q, c=c, d=d, k=k):
                M = _matrix(H, P, self.tables[t + 1], sp.lim[t + 1], sp.win, c, q, d)
                ref = solve_matrix_game(M, backend="highs")
                fast = solve_matrix_game(M, backend="numba")
                e = max(ref.value - float((fast.row @ M).min()), float((M @ fast.col).max()) - ref.value)
                expl[k] = max(expl[k], e)
                games[k] += 1
                return ref.value
            v = slot_value(sp, t, p, d, self.tables[t + 1], game_value)
            got = float(self.tables[t][c, p, di])
            if np.isnan(v) or np.isnan(got):
                resid[k] = 0.0 if np.isnan(v) and np.isnan(got) else np.inf
            else:
                resid[k] = abs(v - got)
        return resid, expl, games

    def save(self, path) -> None:
        """Write the tables to ``path`` atomically, with a CRC-32 per table."""
        write_variant(path, self)


def _matrix(H, P, vnext, lim_next, win, c, q, d):
    na, nb = H.sign.shape[1], H.sign.shape[2]
    M = np.empty((na, nb))
    for i in range(na):
        for j in range(nb):
            M[i, j] = entry(H, P, vnext, lim_next, win, c, q, i, j, d)
    return M


def locate(rules, sp, hand_a, hand_b, pot, prizes, diff, row):
    """Validate a decision state; return its level, sorted hands, decision prize state and diff."""
    n, m = rules.n, rules.open_prizes
    a = parse_cards(hand_a, n, what="hand A")
    b = parse_cards(hand_b, n, what="hand B")
    pile = parse_cards(prizes, n, what="prizes")
    if not a or not b:
        raise ValueError("a hand is empty: give each player at least one card")
    if len(a) != len(b):
        raise ValueError(f"hands differ in size ({len(a)} and {len(b)} cards): both players hold the same number of cards")
    k = len(a)
    sizes = [hand_size(rules, t) for t in range(sp.R)]
    if k not in sizes:
        raise ValueError(f"hands of {k} cards never occur with {rules.bid_cards}-card bids and n={n}: "
                         f"use {', '.join(map(str, sizes))} cards")
    t = sizes.index(k)
    pot, diff = _whole(pot, "pot"), _whole(diff, "diff")
    if m == 1:
        if row not in (None, (), []) and row != "":
            raise ValueError("row is for open prizes: with one open prize give the revealed prize in pot (plus any carry)")
        key = (mask(pile), 0, pot)
        what = f"pot {pot} with prizes {','.join(map(str, sorted(pile))) or 'none'} face down"
    else:
        if row is None:
            raise ValueError(f"open prizes need the row: give the {min(m, n - t)} face-up prizes after the fill")
        rw = parse_cards(row, n, what="row")
        if set(rw) & set(pile):
            raise ValueError("a prize is both in the row and in the pile: list each prize once")
        want = min(m, n - t)
        if len(rw) != want:
            raise ValueError(f"the row holds {len(rw)} prizes; in round {t + 1} it holds {want} after the fill: "
                             f"list {want} face-up prizes")
        key = (mask(pile), mask(rw), pot)
        what = (f"row {','.join(map(str, sorted(rw)))}, pile {','.join(map(str, sorted(pile))) or 'empty'} "
                f"and carried pot {pot}")
    q = sp.prizes.post_index[t].get(key)
    if q is None:
        hint = ("the pile is every prize never turned, " if m > 1 else "the prizes are the ones still face down, ")
        order = "" if rules.random_order else f" in order {rules.order_name}"
        raise ValueError(f"{what} cannot occur in round {t + 1}{order} ({rules.describe()}): {hint}"
                         f"{len(cards_of(_pile_size_hint(sp, t)))} of them, and the pot only what ties carried")
    reach = top_sum(range(1, n + 1), t)
    if abs(diff) > reach:
        raise ValueError(f"diff {diff} is unreachable: {t} rounds hand out at most {reach} points, so |diff| <= {reach}")
    if not sp.needed(t, q, diff):
        pile_q, row_q, c_q = sp.prizes.post[t][q]
        taken = rules.total - sum(cards_of(pile_q)) - sum(cards_of(row_q)) - c_q
        why = (f"|diff| <= {taken}" if abs(diff) > taken else
               f"diff has the parity of {taken} (under carry every prize handed out was taken)")
        raise ValueError(f"diff {diff} is unreachable: the prizes handed out so far total {taken}, so {why}")
    return t, tuple(sorted(a)), tuple(sorted(b)), q, diff


def _pile_size_hint(sp, t):
    return sp.prizes.post[t][0][0]


def query_at(sol, t, a, b, q, d, backend) -> VariantQueryResult:
    """Solve the stage game of the actual hands ``a, b`` at prize state ``q`` of level ``t``."""
    rules, sp = sol.rules, sol.space
    size = bid_size(rules, t)
    bids_a = list(itertools.combinations(a, size))
    bids_b = list(itertools.combinations(b, size))
    sign = np.sign(np.array([sum(x) for x in bids_a])[:, None] - np.array([sum(y) for y in bids_b])[None, :])
    nxt = np.zeros(sign.shape, np.int32)
    if t + 1 < sp.R:
        hs = sp.hands[t + 1]
        for i, x in enumerate(bids_a):
            for j, y in enumerate(bids_b):
                nxt[i, j] = hs.class_of(set(a) - set(x), set(b) - set(y))
    H = HandLevel(sign[None].astype(np.int8), nxt[None])
    P = sp.prizes.levels[t]
    dd = d if sp.win else 0
    M = _matrix(H, P, sol.tables[t + 1], sp.lim[t + 1], sp.win, 0, q, dd)
    if np.isnan(M).any():
        raise StageSolveError("a successor value is missing from the tables; this is a bug, please report it")
    res = solve_matrix_game(M, backend=backend)
    offset = 0.0 if sp.win else float(d)
    choices = {}
    if rules.open_prizes > 1:
        carry = sp.prizes.post[t][q][2]
        for i, x in enumerate(bids_a):
            for j, y in enumerate(bids_b):
                if sign[i, j]:
                    choices[(x, y)] = _choice(P, sol.tables[t + 1], sp, t, nxt[i, j], q, int(sign[i, j]), dd, carry)
    return VariantQueryResult(float(res.value) + offset, {x: float(p) for x, p in zip(bids_a, res.row)},
                              {y: float(p) for y, p in zip(bids_b, res.col)}, M, offset=offset, choices=choices)


def _choice(P, vnext, sp, t, nc, q, s, d, carry):
    """The prize the winner takes (largest among the equally good)."""
    lim = sp.lim[t + 1]
    best, prize = None, None
    for o in range(P.opt_ptr[q], P.opt_ptr[q + 1]):
        g = int(P.opt_gain[o]) * s
        if sp.win:
            i = min(max(d + g + lim, 0), 2 * lim)
            v = s * float(vnext[nc, P.opt_idx[o], i])
        else:
            v = s * (g + float(vnext[nc, P.opt_idx[o], 0]))
        r = abs(g) - carry
        if best is None or v > best + VALUE_TOL or (v >= best - VALUE_TOL and r > prize):
            best = v if best is None or v > best else best
            prize = r
    return prize


# ---------------------------------------------------------------------------
# solving
# ---------------------------------------------------------------------------

def terminal(space) -> np.ndarray:
    """End-payoff table (level R) of a space."""
    return space.term.reshape(1, 1, -1).copy()


def solve_variant(rules: Rules, progress=None, stage_solver="numba", out=None, term=None,
                  diff_reach=0) -> VariantSolution:
    """Solve a two-card-bid or open-prize game exactly by backward induction.

    Parameters
    ----------
    rules : Rules
    progress : callable, optional
        ``progress(level, games)`` after each level.
    stage_solver : {"numba", "highs"}
        ``highs`` solves every stage game with scipy's HiGHS (slow; checking).
    out : path-like, optional
        Save the solution there. Its writer lock is held for the whole solve,
        so another writer of ``out`` refuses at once instead of racing it.
    term, diff_reach
        End payoff and start differences of a game within a match (see
        :class:`~.space.VariantSpace`).

    Returns
    -------
    VariantSolution

    Raises
    ------
    ValueError
        ``out`` cannot be written, or another writer holds it.
    """
    if out is None:
        return _induct(rules, progress, stage_solver, term, diff_reach)
    check_out_path(out, probe_lock=False)  # a bad path: refused before the work
    with writer_lock(out, "gops solve"):  # another writer under way: refused now, in one line
        sol = _induct(rules, progress, stage_solver, term, diff_reach)
        write_variant(out, sol, lock=False)  # this solve holds the lock
    return sol


def _induct(rules, progress, stage_solver, term, diff_reach) -> VariantSolution:
    """The backward induction of :func:`solve_variant`, in memory."""
    t0 = time.perf_counter()
    sp = VariantSpace(rules, term=term, diff_reach=diff_reach)
    tables = [None] * (sp.R + 1)
    tables[sp.R] = terminal(sp)
    games = solves = 0
    for t in range(sp.R - 1, -1, -1):
        out_t = np.empty(sp.shape(t))
        H, P, D, K = sp.hand_levels[t], sp.prizes.levels[t], sp.diff_levels[t], sp.const(t)
        if stage_solver == "highs":
            n_solved = _level_highs(sp, t, tables[t + 1], out_t)
        else:
            fails, n_solved = level_kernel(H, P, D, K, tables[t + 1], out_t)
            if fails:
                n_solved += _redo_failed(sp, t, tables[t + 1], out_t)
        tables[t] = out_t
        games += sp.stage_games(t)
        solves += int(n_solved)
        if progress is not None:
            progress(t, sp.stage_games(t))
    sol = VariantSolution(rules, sp, tables, games, time.perf_counter() - t0, stage_solver)
    sol.solves = solves
    return sol


def slot_value(sp, t, p, d, vnext, game_value):
    """Value of prize state ``p`` (before the fill) of level ``t`` at diff ``d``.

    NaN where ``d`` is unreachable, the end payoff where it is decided, else
    the average over the fill of ``game_value(M)`` of each stage game ``M``
    (a callable on the matrix, for a class fixed by the caller's ``vnext``
    reader). Plain Python: the slow reference for ``highs`` and ``verify``.
    """
    D = sp.diff_levels[t]
    if sp.win:
        if abs(d) > D.pre_reach[p] or (D.pre_par[p] >= 0 and (d - D.pre_par[p]) % 2):
            return np.nan
        if abs(d) >= D.pre_dec[p]:
            return float(sp.term[-1] if d > 0 else sp.term[0])
    P = sp.prizes.levels[t]
    acc = 0.0
    for r in range(P.rev_ptr[p], P.rev_ptr[p + 1]):
        q = int(P.rev_idx[r])
        if sp.win and abs(d) >= D.post_dec[q]:
            v = float(sp.term[-1] if d > 0 else sp.term[0])
        else:
            v = game_value(q)
        acc += P.rev_prob[r] * v
    return acc


def _redo_failed(sp, t, vnext, out):
    """Re-solve with HiGHS the slots of level ``t`` that the jitted kernel left NaN.

    The kernel leaves a slot NaN when one of its stage games could not be
    certified (a few nearly degenerate games in a hundred million); every
    reachable slot left NaN is recomputed. Returns the stage games solved.
    """
    C, npre, nd = out.shape
    H, P, D = sp.hand_levels[t], sp.prizes.levels[t], sp.diff_levels[t]
    d = np.arange(nd) - sp.lim[t]
    # the slots the kernel fills with a number (decided or solved), by the kernel's own rule
    need = np.array([[_slot(D.pre_reach[p], D.pre_dec[p], D.pre_par[p], int(x), sp.win) != 0 for x in d]
                     for p in range(npre)], dtype=bool).reshape(npre, nd)
    count = [0]
    for c, p, di in zip(*np.nonzero(np.isnan(out) & need[None])):
        dd = int(d[di])

        def game_value(q, c=c, dd=dd):
            count[0] += 1
            M = _matrix(H, P, vnext, sp.lim[t + 1], sp.win, c, q, dd)
            return solve_matrix_game(M, backend="highs").value
        out[c, p, di] = slot_value(sp, t, int(p), dd, vnext, game_value)
        if np.isnan(out[c, p, di]):
            raise StageSolveError(f"a stage game of level {t} failed under both solvers (class {c}, diff {dd})")
    return count[0]


def _level_highs(sp, t, vnext, out):
    """Fill level ``t`` solving every stage game with HiGHS (no mirror, no reuse)."""
    C, npre, nd = out.shape
    H, P = sp.hand_levels[t], sp.prizes.levels[t]
    lim = sp.lim[t]
    count = [0]
    for c in range(C):
        for p in range(npre):
            for di in range(nd):
                d = di - lim

                def game_value(q, c=c, d=d):
                    count[0] += 1
                    M = _matrix(H, P, vnext, sp.lim[t + 1], sp.win, c, q, d)
                    return solve_matrix_game(M, backend="highs").value
                out[c, p, di] = slot_value(sp, t, p, d, vnext, game_value)
    return count[0]


def projected_variant(rules: Rules) -> dict:
    """Stage games, table entries and bytes of a variant solve, without solving."""
    sp = VariantSpace(rules)
    games = [sp.stage_games(t) for t in range(sp.R)]
    sizes = [sp.size(t) for t in range(sp.R)]
    work = []
    for t in range(sp.R):
        na, nb = sp.hand_levels[t].sign.shape[1:]
        work.append(games[t] * na * nb)
    return {"stage_games": games, "total_games": sum(games), "table_entries": sizes,
            "total_bytes": 8 * sum(sizes), "peak_bytes": 8 * max(a + b for a, b in zip(sizes, sizes[1:] + [0])),
            "cells": work, "total_cells": sum(work),
            "classes": [sp.hands[t].classes for t in range(sp.R)],
            "hand_pairs": [len(sp.hands[t].hands) ** 2 for t in range(sp.R)], "space": sp}


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------

def write_variant(path, sol: VariantSolution, lock: bool = True) -> None:
    """Write a variant solution atomically, checked by reading it back before it replaces ``path``.

    The solution container (:mod:`gops_solver.engine.storage`) of kind
    ``variant``: header CRC-32, one CRC-32 per table, tables on page
    boundaries; :func:`~gops_solver.engine.storage.atomic_write` writes it (locked
    temporary file, fsync, rename, folder synced). ``lock``: take the target's
    writer lock (False: the caller, a solve, holds it).
    """
    path = os.fspath(path)
    tables = [np.asarray(t, dtype=np.float64) for t in sol.tables]
    crcs = [crc32(t.reshape(-1)) for t in tables]
    header = {"format": FORMAT_VERSION, "kind": "variant", "package_version": __version__,
              "rules": sol.rules.to_dict(),
              "stage_games": sol.stage_games, "seconds": sol.seconds, "stage_solver": sol.stage_solver,
              "tables": [{"shape": list(t.shape), "crc32": c} for t, c in zip(tables, crcs)]}

    def check(tmp):
        back = load_variant(tmp, check=True, name=path)
        if back.rules != sol.rules:
            raise ValueError(f"{path} was not written: the new file did not read back as written")

    atomic_write(path, table_parts(header_bytes(header, VARIANT_FILE), tables), check, lock=lock)


def is_variant_file(path) -> bool:
    """True when ``path`` is a regular file that starts like a variant solution file (any format)."""
    return has_magic(path, VARIANT_FILE)


def _variant_fields(header) -> None:
    Rules.from_dict(header["rules"])
    for t in header["tables"]:
        [int(x) for x in t["shape"]], int(t["crc32"])


def load_variant(path, rules=None, check=True, name=None) -> VariantSolution:
    """Open a file written by :meth:`VariantSolution.save` (header and table checksums checked).

    Raises
    ------
    ValueError
        One line: missing, not a regular file, truncated, corrupted, or for other rules.
    """
    path = os.fspath(path)
    name = name or path
    with open_table_file(path, name) as (fh, actual):
        header, start = read_header(fh, name, VARIANT_FILE, _variant_fields)
    saved = Rules.from_dict(header["rules"])
    shapes = [tuple(int(x) for x in t["shape"]) for t in header["tables"]]
    if rules is not None and saved != rules:
        raise ValueError(f"{name} holds a solution for {saved.describe()}, not {rules.describe()}: "
                         f"use a matching file or solve these rules")
    sp = VariantSpace(saved)
    if len(shapes) != sp.R + 1 or any(s != sp.shape(t) for t, s in enumerate(shapes)):
        raise ValueError(f"{name} is corrupted (its tables do not match its rules): solve again")
    specs = [(shape, "<f8", int(t["crc32"])) for shape, t in zip(shapes, header["tables"])]
    tables = map_tables(path, name, start, actual, specs, check, VARIANT_FILE)
    return VariantSolution(saved, sp, tables, header.get("stage_games", 0), header.get("seconds", 0.0),
                           header.get("stage_solver", "numba"))
