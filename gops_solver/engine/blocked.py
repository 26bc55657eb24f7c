"""Solve level by level, one prize-set block at a time, into a block store.

The induction of :mod:`~.induction` fills a whole level at once; here each
level is cut into its prize-set blocks (:mod:`~.blocks`), and a block is
computed by the same kernel, :func:`~.induction.level_kernel`, from the
``k`` blocks of level ``k - 1`` it reads (the sets left hidden after each
possible reveal). Only those blocks are in memory, plus a cache of recently
read ones bounded by the memory budget, so a solve needs about the largest
block times ``k + 1``, not a level. Small blocks (``points`` games hold a few
values per hand pattern) are solved a group at a time in one kernel call
(:func:`block_groups`), which pays the per-pattern set-up once per group.

Blocks of one level are independent: :func:`solve_blocked` computes them in
this process, or hands them to Dask workers (:func:`compute_blocks` is the
task), each of which reads its inputs from the store and writes its block.
"""

from __future__ import annotations

import functools
import os
import time
from collections import OrderedDict

import numpy as np
from numba import get_num_threads, njit

from gops_solver.engine._blockstore import COMPLETE, BlockStats, BlockStore
from gops_solver.game.constants import MAX_CARDS
from gops_solver.engine.induction import deal, games_array, level0_table, level_kernel, set_work
from gops_solver.game.rules import Rules
from gops_solver.lp.stage import StageSolveError
from gops_solver.engine.storage import notify, saved_rules
from gops_solver.engine.tables import NO_SLOTS, LevelTable, game_axes, level_axes


# ---------------------------------------------------------------------------
# the block geometry of a state space
# ---------------------------------------------------------------------------

def store_manifest(rules: Rules, space) -> dict:
    """The manifest of ``rules``' block store: block counts and lengths per level."""
    nsets = [len(space.sets[k]) for k in range(space.kmax + 1)]
    return {"rules": rules.to_dict(), "nsets": nsets,
            "block_len": [space.size(k) // nsets[k] for k in range(space.kmax + 1)]}


def children(space, k: int, rank: int) -> list:
    """Ranks at level ``k - 1`` of the blocks that block ``(k, rank)`` reads, in reveal order."""
    if not space.random_order:
        return [0]
    mask = int(space.sets[k][rank])
    ps = space.prize_sets
    return [int(ps.set_rank[mask & ~(1 << q)]) for q in range(ps.m) if (mask >> q) & 1]


def block_table(space, k: int, blocks: dict) -> LevelTable:
    """A :class:`~.tables.LevelTable` of level ``k`` holding the blocks ``{rank: data}``."""
    lay = space.layouts[k]
    nsets = len(space.sets[k])
    blen = lay.size // nsets
    ranks = sorted(blocks)
    slot = np.full(nsets, -1, dtype=np.int64)
    slot[ranks] = np.arange(len(ranks))
    R = np.concatenate([np.asarray(blocks[r], dtype=np.float64) for r in ranks]) if ranks else np.zeros(0)
    return LevelTable(R, lay.canon, lay.offset // nsets, lay.ncarry, nsets, space.cvals[k], int(space.dmax[k]),
                      blen, slot)


def _children_table(space, k: int, ranks, read) -> LevelTable:
    """Level ``k``'s blocks ``ranks`` as one pattern-major table over those sets alone (set ``ranks[i]`` is set ``i``).

    The layout of a whole level (:func:`pattern_major`): the kernel reads a
    successor pattern's rows of every loaded set side by side, as it does in
    memory (in the blocks' own set-major layout the same reads took about 4 %
    longer at n = 10). The caller renumbers the sets the kernel reads.
    """
    lay = space.layouts[k]
    osm = lay.offset // len(space.sets[k])
    m = len(ranks)
    R = np.empty(int(osm[-1]) * m)
    for i, r in enumerate(ranks):  # one child read at a time
        _place_block(R, np.asarray(read(k, r), dtype=np.float64), osm, m, i)
    return LevelTable(R, lay.canon, osm * m, lay.ncarry, m, space.cvals[k], int(space.dmax[k]), 0, NO_SLOTS)


def block_axes(space, level, k: int, rank: int):
    """:class:`~.tables.LevelAxes` of block ``(k, rank)``: one prize set, offsets within the block."""
    return group_axes(space, level, k, [rank])


def group_axes(space, level, k: int, ranks):
    """:class:`~.tables.LevelAxes` of the blocks ``ranks`` solved in one kernel call.

    Their sets form a small level of their own, pattern-major like a whole
    level (:func:`split_group` cuts it into blocks).
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    nsets = len(space.sets[k])
    return level._replace(sets=level.sets[ranks], min_ties=level.min_ties[ranks],
                          offset=space.layouts[k].offset // nsets * len(ranks), rev_prize=level.rev_prize[ranks],
                          rev_set=level.rev_set[ranks], rev_sum=level.rev_sum[ranks])


def split_group(space, k: int, out, count: int) -> np.ndarray:
    """The blocks ``(count, block_len)`` of a group's pattern-major table ``out`` (:func:`group_axes`)."""
    lay = space.layouts[k]
    osm = lay.offset // len(space.sets[k])
    blocks = np.empty((count, int(osm[-1])))
    for p in range(len(lay.canonical)):
        blocks[:, osm[p]:osm[p + 1]] = out[osm[p] * count:osm[p + 1] * count].reshape(count, -1)
    return blocks


def set_major(space, k: int, R) -> np.ndarray:
    """Level ``k``'s pattern-major flat table ``R`` as blocks: shape ``(nsets, block_len)``."""
    # a whole level is the group of all its sets
    return split_group(space, k, np.asarray(R), len(space.sets[k]))


def pattern_major(space, k: int, blocks) -> np.ndarray:
    """Inverse of :func:`set_major`: the flat level table from its blocks (``nsets`` arrays of ``block_len``).

    Any ``m`` blocks of the level give the pattern-major table of those sets alone, in their order.
    """
    osm = space.layouts[k].offset // len(space.sets[k])
    m = len(blocks)
    out = np.empty(int(osm[-1]) * m)
    for i, b in enumerate(blocks):
        _place_block(out, np.asarray(b, dtype=np.float64), osm, m, i)
    return out


@njit(cache=True)
def _place_block(R, data, osm, m, i):
    """Copy one block ``data`` into slot ``i`` of the pattern-major table ``R`` of ``m`` sets."""
    for p in range(len(osm) - 1):
        w = osm[p + 1] - osm[p]
        R[osm[p] * m + i * w:osm[p] * m + (i + 1) * w] = data[osm[p]:osm[p + 1]]


# ---------------------------------------------------------------------------
# computing one block
# ---------------------------------------------------------------------------

class BlockCache:
    """Blocks read from the store, least recently used dropped beyond ``capacity`` bytes."""

    def __init__(self, store: BlockStore, capacity: int, read=None):
        self.store, self.capacity = store, int(capacity)
        self._read = read or store.read_block
        self._data = OrderedDict()
        self._bytes = 0
        self.reads = 0

    def get(self, k: int, rank: int) -> np.ndarray:
        key = (k, rank)
        if key in self._data:
            self._data.move_to_end(key)
            return self._data[key]
        data = self._read(k, rank)
        self.reads += 1
        self._data[key] = data
        self._bytes += data.nbytes
        while self._bytes > self.capacity and len(self._data) > 1:
            _, old = self._data.popitem(last=False)
            self._bytes -= old.nbytes
        return data

    def drop_level(self, k: int) -> None:
        """Forget the blocks of level ``k`` (no block above the next level reads them)."""
        for key in [key for key in self._data if key[0] == k]:
            self._bytes -= self._data.pop(key).nbytes


#: a group of blocks solved in one kernel call holds at most this much (its blocks and their inputs);
#: blocks of few stage games each (``points``) pay the kernel's per-pattern set-up once per group
GROUP_BYTES = 32 * 10**6


def block_groups(space, k: int, ranks) -> list:
    """``ranks`` (in solving order) cut into groups solved one kernel call each.

    A block of a ``win`` game is large and holds many stage games per hand
    pattern, so it goes alone; small blocks go together, as many as fit
    :data:`GROUP_BYTES` with their inputs, so the per-pattern work of the
    kernel (decoding the hands, allocating the stage game) is shared.
    """
    ranks = list(ranks)
    size = group_size(space, k)
    return [ranks[i:i + size] for i in range(0, len(ranks), size)]


def group_size(space, k: int) -> int:
    """Blocks of level ``k`` per group (:func:`block_groups`): 1 when one block and its inputs fill :data:`GROUP_BYTES`.

    """
    blen = space.size(k) // len(space.sets[k])
    bprev = space.size(k - 1) // len(space.sets[k - 1]) if k else 0
    nchild = k if space.random_order else 1
    return int(min(len(space.sets[k]), max(1, GROUP_BYTES // (8 * (blen + nchild * bprev) + 1))))


def solve_block(space, k: int, rank: int, read) -> tuple:
    """Values of block ``(k, rank)``, from the level ``k - 1`` blocks ``read(k - 1, r)`` returns.

    Returns
    -------
    data : ndarray
        The block (NaN where the induction leaves a slot empty).
    games : int
        Stage games solved.

    Raises
    ------
    StageSolveError
        A stage game was not solved to optimality (a solver bug).
    """
    blocks, games = solve_blocks(space, k, [rank], read)
    return blocks[0], int(games[0])


def solve_blocks(space, k: int, ranks, read) -> tuple:
    """Values of the blocks ``ranks`` of level ``k``, solved in one kernel call (:func:`block_groups`).

    Returns
    -------
    blocks : ndarray
        ``(len(ranks), block_len)``, NaN where the induction leaves a slot empty.
    games : ndarray of int
        Stage games of each block.

    Raises
    ------
    StageSolveError
        A stage game was not solved to optimality (a solver bug).
    """
    ranks = [int(r) for r in ranks]
    if k == 0:
        return level0_table(space)[None, :], np.zeros(1, np.int64)
    game = game_axes(space)
    level = group_axes(space, level_axes(space, k), k, ranks)
    inputs = sorted({c for r in ranks for c in children(space, k, r)})
    prev = _children_table(space, k - 1, inputs, read)
    local = np.full(len(space.sets[k - 1]), -1, np.int64)  # a set's place in prev
    local[inputs] = np.arange(len(inputs))
    level = level._replace(rev_set=local[level.rev_set])
    out = np.full(space.size(k) // len(space.sets[k]) * len(ranks), np.nan)
    ps = _spread_order(len(level.canonical), get_num_threads())
    games = games_array(game, level, len(ps))
    fails = np.zeros(len(ps), np.int64)
    failed = np.zeros(2 + MAX_CARDS * MAX_CARDS)
    level_kernel(game, level, prev, ps, out, games, fails, failed, False)
    if fails.any():
        na, nb = int(failed[0]), int(failed[1])
        which = f"block ({k}, {ranks[0]})" if len(ranks) == 1 else f"blocks {ranks} of level {k}"
        raise StageSolveError(f"{int(fails.sum())} stage games of {which} were not solved to "
                              f"optimality (one of them: {failed[2:2 + na * nb].reshape(na, nb).tolist()!r}); "
                              f"this is a solver bug, please report it")
    # under points the kernel counts per pattern and each block's share is the exact per-set count (their
    # sum is checked); under win games won for sure are not counted ahead, and the kernel counts per set
    per_block = set_work(space, k)[ranks]
    if space.win:
        solved = games.sum(axis=0)
        if (solved > per_block).any():
            raise StageSolveError(f"blocks {ranks} of level {k} solved {solved.tolist()} stage games, more "
                                  f"than the {per_block.tolist()} counted ahead; this is a solver bug, please "
                                  f"report it")
        per_block = solved
    elif int(per_block.sum()) != int(games.sum()):
        raise StageSolveError(f"blocks {ranks} of level {k} solved {int(games.sum())} stage games, not the "
                              f"{int(per_block.sum())} counted ahead; this is a solver bug, please report it")
    return split_group(space, k, out, len(ranks)), per_block


@functools.lru_cache(maxsize=64)
def _spread_order(npat: int, threads: int) -> np.ndarray:
    return deal(np.arange(npat, dtype=np.int64), threads)


def count_states(space, k: int, data) -> int:
    """Positions valued in one block, mirror images included (as :attr:`Solution.states`)."""
    n = int(np.count_nonzero(~np.isnan(data)))
    if not space.mirror or k == 0:
        return n if k else 0
    lay = space.layouts[k]
    nsets = len(space.sets[k])
    p = lay.canon[space.patterns.index([2] * k)]
    osm = lay.offset // nsets
    return 2 * n - int(np.count_nonzero(~np.isnan(data[osm[p]:osm[p + 1]])))


@functools.lru_cache(maxsize=4)
def _worker_space(rules_json: str):
    # a Dask worker builds each rule set's axes once, then serves many blocks
    import json
    from gops_solver.game.encoding import full_space
    return full_space(Rules.from_dict(json.loads(rules_json)))


def compute_blocks(root: str, rules_json: str, k: int, ranks) -> list:
    """The Dask task: solve the blocks ``ranks`` of level ``k`` (one group) of the store at ``root``.

    Reads their inputs from the store and writes each block atomically, so
    a worker killed mid-task leaves no trace but a temporary file the next
    run removes. Returns a :class:`BlockStats` per block.
    """
    space = _worker_space(rules_json)
    store = BlockStore.open(root)
    return _solve_and_write(space, store, k, ranks, store.read_block)


def _solve_and_write(space, store, k: int, ranks, read) -> list:
    t0 = time.perf_counter()
    blocks, games = solve_blocks(space, k, ranks, read)
    secs = time.perf_counter() - t0
    total = int(games.sum())
    stats = []
    for r, data, g in zip(ranks, blocks, games):
        share = secs * (int(g) / total if total else 1 / len(ranks))  # a group's time, split by its work
        store.write_block(k, int(r), data, int(g), share)
        stats.append(BlockStats(k, int(r), int(g), share, count_states(space, k, data)))
    return stats


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------

def parse_memory(text) -> int:
    """Bytes of a memory budget such as ``"1GB"``, ``"512MB"``, ``"2.5GiB"`` or a plain number."""
    s = str(text).strip().upper().replace(" ", "")
    units = {"TIB": 1 << 40, "GIB": 1 << 30, "MIB": 1 << 20, "KIB": 1 << 10,
             "TB": 10**12, "GB": 10**9, "MB": 10**6, "KB": 10**3, "T": 10**12, "G": 10**9, "M": 10**6,
             "K": 10**3, "B": 1}
    for u, mult in units.items():
        if s.endswith(u):
            num, scale = s[:-len(u)], mult
            break
    else:
        num, scale = s, 1
    try:
        val = float(num)
    except ValueError:
        val = -1.0
    if not np.isfinite(val) or val <= 0:
        raise ValueError(f"--memory {text!r} is not a size: write e.g. 1GB, 512MB or 2.5GiB")
    return int(val * scale)


def _rss_bytes() -> int:
    """Resident memory of this process now (Linux; 0 where unknown)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def block_order(space, k: int) -> list:
    """The order blocks of level ``k`` are solved in: sets sharing children close together.

    Masks in increasing numeric order: consecutive sets differ in few low
    prizes, so the cache of level ``k - 1`` blocks is mostly hit.
    """
    if not space.random_order:
        return [0]
    masks = np.asarray(space.sets[k])
    return [int(r) for r in np.argsort(masks, kind="stable")]


def plan_memory(space) -> dict:
    """The memory a blocked solve needs at least: per level, the block and the ``k`` blocks it reads."""
    need = []
    for k in range(1, space.kmax + 1):
        blen = space.size(k) // len(space.sets[k])
        bprev = space.size(k - 1) // len(space.sets[k - 1])
        nchild = k if space.random_order else 1
        # a group of blocks, their inputs, one input being read
        need.append(8 * (group_size(space, k) * (blen + nchild * bprev) + bprev))
    return {"per_level": need, "min_bytes": max(need) if need else 0}


def solve_blocked(rules: Rules, out, space=None, memory=None, client=None, progress=None, resume=False,
                  restart=False, block_done=None) -> dict:
    """Solve ``rules`` into the block store ``out``; see module docstring.

    Parameters
    ----------
    rules : Rules
    out : str or path-like
        Folder (or fsspec URL) of the store.
    space : StateSpace, optional
        ``full_space(rules)`` when not given.
    memory : int, optional
        Bytes this process may hold for blocks (the cache of read blocks is
        sized from it); default 2 GB.
    client : distributed.Client, optional
        Solve each level's blocks on this Dask cluster (its workers must
        reach ``out``).
    progress : callable, optional
        ``progress(level, work)`` after every block, with its stage games as
        :func:`~.induction.set_work` counts them (under ``win`` more than it
        solves); first called as ``progress(level, work, done=True)`` with the
        work of blocks found finished (``resume``).
    block_done : callable, optional
        ``block_done(count, total)``: first with the blocks found finished
        and the store's total, then ``(1, 0)`` after each block.
    resume, restart : bool
        Continue from the finished blocks, or discard them; without either,
        a store holding blocks of an unfinished solve is refused.

    Returns
    -------
    dict
        ``stage_games``, ``states``, ``seconds``, ``seconds_this_run``,
        ``blocks``, ``reads`` and ``bytes`` of the store.
    """
    import json
    from gops_solver.game.encoding import full_space
    if resume and restart:
        raise ValueError("choose one of --resume (continue the finished blocks) and --restart (discard them)")
    space = space if space is not None else full_space(rules)
    budget = int(memory) if memory is not None else 2 * 10**9
    need = plan_memory(space)["min_bytes"]
    if budget < need:
        raise ValueError(f"--memory {budget / 1e9:.2f} GB is below what one block and its inputs need "
                         f"({need / 1e9:.2f} GB for {rules.describe()}): give at least --memory "
                         f"{int(np.ceil(need / 1e8)) / 10:.1f}GB")
    man = store_manifest(rules, space)
    root = os.fspath(out)
    from gops_solver.engine._blockstore import is_url
    from gops_solver.engine.storage import acquire_lock, release_lock
    # one writer per store: a second solve (--restart included) refuses instead of deleting this one's blocks
    token = None if is_url(root) else acquire_lock(root, "gops solve")
    try:
        return _solve_locked(rules, root, space, man, budget, need, client, progress, resume, restart, block_done)
    finally:
        release_lock(token)


def _solve_locked(rules, root, space, man, budget, need, client, progress, resume, restart, block_done) -> dict:
    """:func:`solve_blocked` once this process holds the store's writer lock."""
    import json
    from gops_solver.engine._blockstore import is_store
    if is_store(root):
        store = BlockStore.open(root)
        if store.manifest.get("rules") != man["rules"] or store.nsets != man["nsets"] \
                or store.block_len != man["block_len"]:
            old = Rules.from_dict(store.manifest["rules"]).describe() if "rules" in store.manifest else "other rules"
            raise ValueError(f"{root} holds blocks of {old}, not {rules.describe()}: choose another --out")
        store.clean_temps()
        present = any(store.ranks(k) for k in range(len(store.nsets)))
        if present and not (resume or restart) and not store.is_complete():
            raise ValueError(f"{root} holds the blocks of an unfinished solve: add --resume to continue it or "
                             f"--restart to discard them")
        if present and not (resume or restart) and store.is_complete():
            raise ValueError(f"{root} already holds a finished solve of {rules.describe()}: query it, or add "
                             f"--restart to solve again")
        if restart and present:
            notify(f"discarding the blocks in {root} (--restart)")
            store.clear()
        if store.manifest.get("kind") != "store":  # the plain JSON manifest of the format before
            store = BlockStore.create(root, man)
    else:
        if os.path.exists(root) and not os.path.isdir(root):
            raise ValueError(f"cannot write the block store {root}: it exists and is not a folder; choose another --out")
        if os.path.isdir(root) and os.listdir(root):
            raise ValueError(f"cannot write the block store {root}: the folder is not empty and holds no store; "
                             f"choose a new or empty folder")
        store = BlockStore.create(root, man)
    t0 = time.perf_counter()
    rules_json = json.dumps(rules.to_dict(), sort_keys=True)
    store.unmark_complete()  # until every block is back (a resumed store may have lost one)
    done = {k: store.finished(k, functools.partial(count_states, space, k)) for k in range(space.kmax + 1)}
    games_total = sum(g for d in done.values() for g, _, _ in d.values())
    secs_before = sum(s for d in done.values() for _, s, _ in d.values())
    states = sum(n for d in done.values() for _, _, n in d.values())
    work = {k: set_work(space, k) for k in range(space.kmax + 1)}
    if progress is not None and any(done[k] for k in done if k):
        progress(max(k for k in done if done[k]), sum(int(work[k][r]) for k in done for r in done[k]), done=True)
    if block_done is not None:
        block_done(sum(len(d) for d in done.values()), sum(store.nsets))
    if 0 not in done[0]:
        store.write_block(0, 0, level0_table(space))
        if block_done is not None:
            block_done(1, 0)
    # what the process already holds (interpreter, compiled kernels, the axes) counts against the budget
    cache = BlockCache(store, max(budget - need - _rss_bytes(), 0))
    for k in range(1, space.kmax + 1):
        todo = [r for r in block_order(space, k) if r not in done[k]]
        groups = block_groups(space, k, todo)
        if client is not None:
            futures = client.map(compute_blocks, [root] * len(groups), [rules_json] * len(groups),
                                 [k] * len(groups), groups, pure=False)
            from distributed import as_completed
            finished = (st for fut in as_completed(futures) for st in fut.result())
        else:
            finished = (st for g in groups for st in _solve_and_write(space, store, k, g, cache.get))
        for st in finished:
            games_total += st.games
            states += st.states
            if progress is not None:
                progress(k, int(work[k][st.rank]))
            if block_done is not None:
                block_done(1, 0)
        cache.drop_level(k - 1)
    reads = cache.reads
    this_run = time.perf_counter() - t0
    info = {"stage_games": int(games_total), "states": int(states), "seconds": secs_before + this_run,
            "seconds_this_run": this_run, "blocks": int(sum(store.nsets)), "bytes": store.disk_bytes()}
    store.mark_complete(info)
    info["reads"] = reads
    return info


# ---------------------------------------------------------------------------
# reading a finished store
# ---------------------------------------------------------------------------

class BlockedTables:
    """The level tables of a block store, read block by block.

    ``view(k, ranks)`` is what the readers use (:func:`~.tables.level_view`):
    a :class:`~.tables.LevelTable` holding only the blocks asked for.
    Indexing, ``tables[k]``, assembles a whole level in memory (the
    pattern-major layout of an in-memory solve), for the few commands that
    read every state (``evaluate``, ``simulate``, ``export`` of whole
    levels); it is refused when the level is larger than ``max_bytes``.
    """

    def __init__(self, store: BlockStore, space, max_bytes: int | None = None):
        self.store, self.space = store, space
        self.max_bytes = max_bytes if max_bytes is not None else _available_bytes() // 2
        self._cache = BlockCache(store, 256 * 10**6)  # a query reads one block and the k below it

    def map_blocks(self) -> None:
        """Map blocks instead of reading them whole (:meth:`~.blocks.BlockStore.map_block`).

        For readers that checked every block's data checksum first and then
        touch a few entries of many blocks (``verify --sample``). Neighbours in
        :func:`block_order` share most of their inputs, so the cache keeps up
        to a quarter of the free memory (at most 2 GB) of them.
        """
        capacity = max(self._cache.capacity, min(2 * 10**9, _available_bytes() // 4))
        self._cache = BlockCache(self.store, capacity, read=self.store.map_block)

    def __len__(self) -> int:
        return self.space.kmax + 1

    def view(self, k: int, ranks=None) -> LevelTable:
        """Level ``k`` with the blocks ``ranks`` (all when None) loaded."""
        if ranks is None:
            ranks = range(len(self.space.sets[k]))
        return block_table(self.space, k, {int(r): self._cache.get(k, int(r)) for r in ranks})

    def __getitem__(self, k: int) -> np.ndarray:
        if not 0 <= k <= self.space.kmax:
            raise IndexError(k)
        size = 8 * self.space.size(k)
        if size > self.max_bytes:
            raise ValueError(f"level {k} of {self.store.root} takes {size / 1e9:.1f} GB, more than the "
                             f"{self.max_bytes / 1e9:.1f} GB this command may hold: query states one at a time "
                             f"(gops query) or run it on a machine with more memory")
        nsets = len(self.space.sets[k])
        return pattern_major(self.space, k, [self.store.read_block(k, r) for r in range(nsets)])


def _available_bytes() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 4 * 10**9


def solve_command(rules: Rules, path) -> str:
    """The ``gops solve`` command line that writes ``rules`` to the block store ``path``."""
    return (f"gops solve --cards {rules.n} --tie {rules.tie} --objective {rules.objective} "
            f"--order {rules.order_name} --out {path} --memory 4GB")


def open_store(path, rules=None, check=True):
    """``(rules, space, tables, info)`` of a finished block store; ValueError with the fix otherwise.

    ``check``: every block must be present with a sound header
    (:meth:`~.blocks.BlockStore.check`); a block's data checksum is checked
    whenever it is read.
    """
    from gops_solver.game.encoding import full_space
    store = BlockStore.open(path)
    saved = saved_rules(store.manifest, path, rules, what="store")
    if not store.is_complete():
        raise ValueError(f"{path} holds an unfinished solve: continue it with {solve_command(saved, path)} --resume")
    space = full_space(saved)
    if store_manifest(saved, space)["block_len"] != store.block_len:
        raise ValueError(f"{path} is corrupted (its block lengths do not match its rules): solve again")
    if check:
        store.check()
    try:
        info = store.complete_info()
    except (OSError, ValueError) as exc:  # a folder, unreadable, or not JSON
        info = exc
    if not isinstance(info, dict):
        # the blocks hold the solution; complete.json only marks it finished, and --resume rewrites it
        raise ValueError(f"{path}: its {COMPLETE} (the mark of a finished solve) is damaged: remove it, then "
                         f"rewrite it from the finished blocks with {solve_command(saved, path)} --resume")
    return saved, space, BlockedTables(store, space), info
