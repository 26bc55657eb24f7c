"""What a solve (or an exact evaluation) will cost, and whether it fits, without running it.

:func:`project` turns :func:`~.solution.projected_work` (stage games and
table sizes, exact) into the figures ``gops info`` prints and the fit check
``gops solve`` makes: memory with and without ``--out``, projected time, and
verdicts. The front ends only print them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from gops_solver.game.constants import MAX_CARDS
from gops_solver.game.rules import Rules

#: solve throughput on the reference machine (2 cores), stage games solved per second
#: (:func:`~.induction.level_solves`), by objective and tie rule. Measured at the full deck, where
#: the games are largest and the tables no longer stay in cache, so small decks run faster:
#: n = 13 discard/points 1,338,879,360 games in 343.15 s, the slowest of seven runs of the code of
#: 4 December (276.35-343.15 s), and n = 13 carry/points 2,626,333,401 games solved in 1,180.09 s
#: (3 December, late evening, games solved eight at a time in SIMD lanes; one at a time: 604 s
#: and 1,946.7 s). Under ``win`` the figure
#: is the low end of README's table (2.3-3.4 million with other jobs running, 5.5 million for
#: n = 9 discard/win alone), per game built, from before the lanes (1.4 times faster kernels at
#: n = 9 since, not measured on the full deck); the ``carry`` one builds fewer since 3 December.
GAMES_PER_SECOND = {("points", "discard"): 3.9e6, ("points", "carry"): 2.2e6,
                    ("win", "discard"): 2.5e6, ("win", "carry"): 2.5e6}

#: interpreter and numba overhead of a solve, on top of its tables
OVERHEAD_BYTES = 300 * 2**20

#: a solve fits when what it holds stays under this share of the machine's memory
FIT_SHARE = 0.9
#: above this share every level held in memory at once is refused: levels go to disk (``out``)
IN_MEMORY_SHARE = 0.6

#: largest deck whose exact evaluations were measured (README): uniform at n = 10 took 4 min
#: and 5.7 GB peak on the reference machine, 6.6x its n = 9 peak, so n = 11 may exceed 24 GB
EVAL_MEASURED_MAX_CARDS = 10

#: in-memory solves timed on this machine (2 cores shared with other jobs): ``(n, tie, objective, wall
#: seconds, command)``, levels held in memory or streamed to ``--out F``. n = 8-10: the faster of two
#: runs of each command, ``-q`` and output to /dev/null, load average 2-10 (other agents' jobs); n = 10
#: discard/win at 32 s was timed by a user; n = 13 points: README, "n = 13 carry/points" and the fastest
#: discard/points run (4 min 42 s wall). n = 11 and 12 points, n = 11 win, n = 12 discard/win to a file:
#: one run each, one at a time on an otherwise idle machine (load 1-2), ``-q``; n = 12 discard/win again
#: by benchmarks/blocked_compare.py (``--out`` a file, in docs/performance.md). Blocked solves are
#: projected from per-level block rates instead (:func:`plan_blocks`).
CALIBRATION = (
    (8, "carry", "points", 3.15, "gops solve --cards 8 --tie carry --objective points -q"),
    (8, "carry", "win", 7.36, "gops solve --cards 8 --tie carry --objective win -q"),
    (8, "discard", "points", 4.18, "gops solve --cards 8 --tie discard --objective points -q"),
    (8, "discard", "win", 6.06, "gops solve --cards 8 --tie discard --objective win -q"),
    (9, "carry", "points", 2.87, "gops solve --cards 9 --tie carry --objective points -q"),
    (9, "carry", "win", 15.19, "gops solve --cards 9 --tie carry --objective win -q"),
    (9, "discard", "points", 4.62, "gops solve --cards 9 --tie discard --objective points -q"),
    (9, "discard", "win", 14.12, "gops solve --cards 9 --tie discard --objective win -q"),
    (10, "carry", "points", 2.40, "gops solve --cards 10 --tie carry --objective points -q"),
    (10, "carry", "win", 59.44, "gops solve --cards 10 --tie carry --objective win -q"),
    (10, "discard", "points", 1.64, "gops solve --cards 10 --tie discard --objective points -q"),
    (10, "discard", "win", 29.71, "gops solve --cards 10 --tie discard --objective win -q"),
    (10, "discard", "win", 32.0, "gops solve --cards 10 --tie discard --objective win"),
    (11, "discard", "points", 6.12, "gops solve --cards 11 --tie discard --objective points -q"),
    (11, "carry", "points", 11.28, "gops solve --cards 11 --tie carry --objective points -q"),
    (12, "discard", "points", 33.32, "gops solve --cards 12 --tie discard --objective points -q"),
    (12, "carry", "points", 67.96, "gops solve --cards 12 --tie carry --objective points -q"),
    (11, "discard", "win", 224.28, "gops solve --cards 11 --tie discard --objective win -q"),
    (12, "discard", "win", 2091.22, "gops solve --cards 12 --tie discard --objective win -q --out F"),
    (12, "discard", "win", 1673.0, "gops solve --cards 12 --tie discard --objective win -q --json --out F"),
    (MAX_CARDS, "discard", "points", 282.0, "gops solve --cards 13 --tie discard --objective points --out F"),
    (MAX_CARDS, "carry", "points", 1316.0, "gops solve --cards 13 --tie carry --objective points --out F"),
)

#: shorter solves are mostly start-up (imports, numba's cache) and vary twofold from run to run: no rate
#: is taken from them; the largest one below the longer solves anchors the low end (see calibrated_seconds)
ANCHOR_MIN_SECONDS = 10.0
#: start-up of ``gops solve`` before any stage game (``gops solve --cards 3``: 1.28-1.47 s)
STARTUP_SECONDS = 1.3


@lru_cache(maxsize=256)
def _work(rules: Rules) -> int:
    """What an in-memory solve's time scales with: the stage games the kernel builds.

    Cached: each projection reads the calibration anchors' work again, and counting a deck's
    stage games enumerates its patterns."""
    from gops_solver.engine.solution import projected_work
    return projected_work(rules)["total_solves"]


def calibrated_seconds(rules: Rules) -> tuple:
    """Wall time of an in-memory solve of ``rules`` on this machine, from :data:`CALIBRATION`.

    The anchors are the measured solves of the same tie and objective that
    last :data:`ANCHOR_MIN_SECONDS` or more (the faster run of each deck),
    and the largest shorter one below them, whose time is mostly start-up.
    Between two anchors the time is interpolated on a log-log scale of their
    work (:func:`_work`); beyond the largest it grows at that solve's rate
    ("extrapolated beyond n = ..."); below the smallest it is the start-up
    plus that solve's rate ("scaled down from n = ..." when that solve is of
    a larger deck).

    Parameters
    ----------
    rules : Rules

    Returns
    -------
    (float, str)
        The seconds, and which measurements they rest on (for ``gops info``).
    """
    import math
    fastest = {}
    for r in CALIBRATION:  # the faster run of each deck size
        if (r[1], r[2]) == (rules.tie, rules.objective):
            fastest[r[0]] = min(fastest.get(r[0], math.inf), r[3])
    long_n = [n for n, t in fastest.items() if t >= ANCHOR_MIN_SECONDS]
    # a short solve anchors the low end only (its time is start-up, which a rate would scale)
    short_n = [n for n, t in fastest.items() if t < ANCHOR_MIN_SECONDS and n < min(long_n, default=math.inf)]
    used = sorted(long_n + ([max(short_n)] if short_n else []))
    anchors = [(_work(Rules(n, rules.tie, rules.objective)), fastest[n], n) for n in used]
    anchors.sort()
    w = _work(rules)
    basis = f"measured {rules.tie}/{rules.objective} memory solves, " + ", ".join(f"n = {n}" for n in used)
    if not long_n:
        basis += " (short solves only)"
    (w0, s0, n0), (w1, s1, n1) = anchors[0], anchors[-1]
    if w <= w0:
        if w < w0 * 0.999999 and n0 > rules.n:
            basis += f", scaled down from n = {n0}"
        return STARTUP_SECONDS + (s0 - STARTUP_SECONDS) * w / w0, basis
    if w >= w1:
        if w > w1 * 1.000001:
            basis += f", extrapolated beyond n = {n1}"
        return s1 * w / w1, basis
    for (wa, sa, _), (wb, sb, _) in zip(anchors, anchors[1:]):
        if wa <= w <= wb:
            t = math.log(w / wa) / math.log(wb / wa)
            return math.exp(math.log(sa) + t * math.log(sb / sa)), basis
    raise AssertionError("unreachable: w lies between the anchors")


#: verdicts of :meth:`Projection.solve_fit`
FITS, NEEDS_OUT, TOO_LARGE = "fits", "needs-out", "too-large"


def machine_memory() -> int:
    """Physical memory of this machine in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


@dataclass
class Projection:
    """Projected cost of solving ``rules`` on a machine with ``machine_bytes`` of memory.

    Attributes
    ----------
    rules : Rules
    stage_games : int
        Stage games of the solve, one per state, reveal and difference (exact).
    table_bytes : int
        All level tables (the size of the solution file's tables).
    peak_bytes : int
        The two largest adjacent levels: what a solve with ``out`` holds.
    memory_bytes : int
        ``peak_bytes`` plus overhead: the memory of a solve with ``out``.
    in_memory_bytes : int
        ``table_bytes`` plus overhead: the memory of a solve without ``out``.
    seconds : float
        Projected wall time in memory on this machine (:func:`calibrated_seconds`), worked out when
        first read.
    machine_bytes : int
    levels : list of dict
        ``{"k", "stage_games", "stage_solves", "table_bytes"}`` per level.
    stage_solves : int
        Stage games the kernel builds: a game equal to one already built for
        the same pattern, set left hidden and pot is not built again
        (:func:`~.induction.level_solves`; fewer under the carry rule).
    basis : str
        The measurements ``seconds`` rests on.
    """

    rules: Rules
    stage_games: int
    table_bytes: int
    peak_bytes: int
    memory_bytes: int
    in_memory_bytes: int
    machine_bytes: int
    levels: list = field(default_factory=list, repr=False)
    stage_solves: int = 0

    #: what ``blocked_seconds`` rests on
    blocked_basis = "per-level rates of n = 13 blocks (the discard/win run and benchmarks/n13_blocks.py)"

    @cached_property
    def _calibrated(self) -> tuple:
        # on demand: the calibration counts the work of every measured deck (about 0.6 s), which a solve
        # that checks only its fit does not need
        return calibrated_seconds(self.rules)

    @property
    def seconds(self) -> float:
        """Projected wall time in memory on this machine (:func:`calibrated_seconds`)."""
        return self._calibrated[0]

    @property
    def basis(self) -> str:
        """The measurements :attr:`seconds` rests on."""
        return self._calibrated[1]

    @cached_property
    def block_plan(self):
        """The blocked-solve plan (:func:`plan_blocks`) of a classic two-player single game; None otherwise."""
        r = self.rules
        return plan_blocks(r) if r.players == 2 and r.classic and r.match == "single" else None

    @property
    def blocked_seconds(self):
        """Projected wall time of a blocked solve (``--memory``) on this machine; None where none is made."""
        plan = self.block_plan
        return None if plan is None else plan.seconds

    @property
    def table_entries(self) -> int:
        """Float64 entries of all level tables."""
        return self.table_bytes // 8

    @property
    def fits(self) -> bool:
        """Whether a solve with ``out`` (two levels held) fits this machine."""
        return self.memory_bytes <= FIT_SHARE * self.machine_bytes

    @property
    def fits_in_memory(self) -> bool:
        """Whether a solve holding every level (no ``out``) fits this machine comfortably."""
        return self.in_memory_bytes <= IN_MEMORY_SHARE * self.machine_bytes

    def solve_fit(self, with_out: bool) -> str:
        """The solve's fit check: :data:`FITS`, :data:`NEEDS_OUT` or :data:`TOO_LARGE`.

        Counts the tables alone (a solve refuses only what cannot fit):
        every level must stay under :data:`IN_MEMORY_SHARE` of memory unless
        ``with_out``, and two levels under :data:`FIT_SHARE` in any case.
        """
        if not with_out and self.table_bytes > IN_MEMORY_SHARE * self.machine_bytes:
            return NEEDS_OUT
        if self.peak_bytes > FIT_SHARE * self.machine_bytes:
            return TOO_LARGE
        return FITS

    def to_dict(self) -> dict:
        """JSON-ready figures (the form ``gops info --json`` prints)."""
        return {"rules": self.rules.to_dict(), "table_entries": self.table_entries,
                "stage_games": self.stage_games, "stage_solves": self.stage_solves, "memory_bytes": self.memory_bytes,
                "file_bytes": self.table_bytes, "projected_seconds": self.seconds,
                "projected_seconds_blocked": self.blocked_seconds,
                "projection_basis": {"memory": self.basis, "blocked": self.blocked_basis},
                "machine_memory_bytes": self.machine_bytes, "fits": self.fits, "levels": self.levels}


def project(rules: Rules, machine_bytes: int | None = None) -> Projection:
    """Project the cost of solving ``rules`` (see :class:`Projection`).

    Parameters
    ----------
    rules : Rules
    machine_bytes : int, optional
        Memory of the machine to judge the fit on (default: this one).
    """
    from gops_solver.engine.solution import projected_work
    w = projected_work(rules)
    ram = machine_memory() if machine_bytes is None else int(machine_bytes)
    levels = [{"k": k, "stage_games": g, "stage_solves": v, "table_bytes": b}
              for k, (g, v, b) in enumerate(zip(w["stage_games"], w["stage_solves"], w["table_bytes"]))]
    return Projection(rules, w["total_games"], w["total_bytes"], w["peak_bytes"], w["peak_bytes"] + OVERHEAD_BYTES,
                      w["total_bytes"] + OVERHEAD_BYTES, ram, levels, w["total_solves"])


def evaluation_measured(rules: Rules) -> bool:
    """Whether an exact evaluation of ``rules`` is within the measured sizes (:data:`EVAL_MEASURED_MAX_CARDS`)."""
    return rules.n <= EVAL_MEASURED_MAX_CARDS


def duration(seconds: float) -> str:
    """A projected time as a person reads it: ``"40 s"``, ``"12 min"``, ``"2.5 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class MatchProjection:
    """Projected cost of solving a match (session or best-of): every game held in memory.

    Attributes
    ----------
    rules : Rules
    games_solved : int
        Whole games the match solve runs (one per distinct match position).
    stage_games : int
    memory_bytes : int
    seconds : float
    lower_bound : bool
        True when replayed draws make the figures a lower bound.
    machine_bytes : int
    """

    rules: Rules
    games_solved: int
    stage_games: int
    memory_bytes: int
    seconds: float
    lower_bound: bool
    machine_bytes: int

    @property
    def fits(self) -> bool:
        """Whether every game of the match fits in this machine's memory."""
        return self.memory_bytes <= FIT_SHARE * self.machine_bytes

    def fields(self) -> dict:
        """The figures, in the order ``gops info --match`` prints them."""
        return {"games_solved": self.games_solved, "stage_games": self.stage_games,
                "memory_bytes": self.memory_bytes, "projected_seconds": self.seconds,
                "lower_bound": self.lower_bound, "machine_memory_bytes": self.machine_bytes, "fits": self.fits}

    def to_dict(self) -> dict:
        """JSON-ready figures (the form ``gops info --match ... --json`` prints)."""
        return {"rules": self.rules.to_dict(), **self.fields()}


def project_match(rules: Rules, machine_bytes: int | None = None) -> MatchProjection:
    """Project the cost of solving the match ``rules`` (see :class:`MatchProjection`)."""
    w = match_work(rules)
    ram = machine_memory() if machine_bytes is None else int(machine_bytes)
    return MatchProjection(rules, w["games_solved"], w["total_games"], w["total_bytes"] + OVERHEAD_BYTES,
                           w["total_games"] / GAMES_PER_SECOND[rules.objective, rules.tie], bool(w["lower_bound"]), ram)


# ---------------------------------------------------------------------------
# blocked solves (gops solve --memory / --workers): blocks, disk, workers, cluster plans
# ---------------------------------------------------------------------------

#: positions settled per CPU-second of ONE core on real blocks of the 13-card game, by objective, tie and
#: level k: a position is one (state, reveal, difference) of :func:`~.induction.set_work`, solved by an LP
#: or settled without one (a sure win or loss under ``win``).
#:
#: - discard/win: the whole n = 13 run (docs/full-deck.md), every level of a minute or more, its block
#:   store's own solve times over :data:`MACHINE_SPEEDUP` (``python benchmarks/block_rates.py STORE
#:   --trim 10``: blocks slower than ten times their level's median, a paused or starved process, left
#:   out; rows in benchmarks/results.json). Per-block costs (reading the level below, writing the block)
#:   are in the rate, which is why the small blocks of level 5 go slower per position than level 6's.
#: - the others: ``NUMBA_NUM_THREADS=1 python benchmarks/n13_blocks.py TIE OBJECTIVE OUT``, every block
#:   below one prize set, grouped as a blocked solve groups them, CPU time, levels of 5 CPU-seconds or
#:   more. On discard/win that sample agreed with the whole run at levels 6 and 7 (within 2 %) and was
#:   3.4 times too slow at level 8, so beyond its levels a rule follows the run's measured shape
#:   (:func:`block_rate`).
#:
#: Measured on a processor without AVX-512, where the stage games go one at a time
#: (:data:`~.induction.LANES_ON` off); with AVX-512 they go eight at a time, faster (not measured here).
BLOCK_RATES = {
    ("win", "discard"): {5: 0.564e6, 6: 3.027e6, 7: 2.774e6, 8: 3.146e6, 9: 1.687e6, 10: 1.116e6},
    ("win", "carry"): {5: 4.007e6, 6: 2.257e6},
    ("points", "discard"): {7: 0.899e6, 8: 0.726e6, 9: 0.481e6},
    ("points", "carry"): {6: 1.626e6, 7: 1.095e6},
}
#: the rule whose rates span the most levels (a whole run): the others' shape beyond their own levels
REFERENCE_RATES = ("win", "discard")

#: a blocked solve in one process on this machine's 2 cores over one core: the n = 13 discard/win run's
#: level-6 and level-7 blocks that finished while it had the machine to itself (benchmarks/block_rates.py,
#: 4.25 and 2.91 M positions a second) over the one-core rates of benchmarks/n13_blocks.py at those
#: levels (2.50 and 1.67 M), the mean of the two levels
MACHINE_SPEEDUP = 1.72
#: the cores :data:`MACHINE_SPEEDUP` was measured with
MEASURED_CORES = 2


def block_rate(k: int, objective: str, tie: str) -> float:
    """Projected positions per core-second on the blocks of level ``k`` (:data:`BLOCK_RATES`).

    Below the lowest level measured the rate is that level's. Beyond the
    highest, it changes from there as :data:`REFERENCE_RATES` changes over
    the same levels, and where those are not measured either it falls on at
    the ratio of the last two.
    """
    rates = BLOCK_RATES[objective, tie]
    lo, hi = min(rates), max(rates)
    if k <= lo:
        return rates[lo]
    if k <= hi:
        return rates[k]
    if (objective, tie) != REFERENCE_RATES:
        return rates[hi] * block_rate(k, *REFERENCE_RATES) / block_rate(hi, *REFERENCE_RATES)
    step = rates[hi] / rates[hi - 1] if hi - 1 in rates else 1.0
    return rates[hi] * step ** (k - hi)


def machine_speedup(cores: int | None = None) -> float:
    """One process on ``cores`` cores (default: this machine's) over one core, from :data:`MACHINE_SPEEDUP`."""
    cores = (os.cpu_count() or 1) if cores is None else cores
    if cores <= 1:
        return 1.0
    # the measured parallel efficiency, carried to another core count
    return 1.0 + (cores - 1) * (MACHINE_SPEEDUP - 1.0) / (MEASURED_CORES - 1)


#: a block store's files over its raw float64 data (zstd level 1, per-block headers included), measured on
#: whole stores of this version: n = 13 discard/win 48.37 of 147.9 GB (the full-deck run; n = 10 gave 164.9 of
#: 606.7 MB, 0.27: the larger levels hold fewer sure wins and losses), n = 9 carry/win 85.5 of 729.0 MB,
#: n = 11 carry/points 228.5 of 395.2 MB, n = 11 discard/points 45.8 of 47.9 MB (a points block holds a
#: few values per pattern: little to compress). Keyed by the deck size measured; where two were measured
#: the share is interpolated in n between them and held beyond (:func:`compressed_share`).
COMPRESSED_SHARE = {("win", "discard"): {10: 0.272, MAX_CARDS: 0.327}, ("win", "carry"): {9: 0.12},
                    ("points", "carry"): {11: 0.58}, ("points", "discard"): {11: 0.96}}


def compressed_share(rules: Rules) -> float:
    """A block store's size over its raw data for ``rules`` (:data:`COMPRESSED_SHARE`)."""
    points = sorted(COMPRESSED_SHARE[rules.objective, rules.tie].items())
    (n0, s0), (n1, s1) = points[0], points[-1]
    t = min(max((rules.n - n0) / (n1 - n0), 0.0), 1.0) if n1 > n0 else 0.0
    return s0 + t * (s1 - s0)


#: worker counts a cluster plan is given for
CLUSTER_SIZES = (8, 32, 128)


@dataclass
class BlockPlan:
    """What a blocked solve of ``rules`` takes (``gops info``).

    Attributes
    ----------
    blocks : int
        Prize-set blocks over all levels.
    max_block_bytes, mean_block_bytes : int
        Raw (as held in memory).
    disk_bytes : int
        The block store (every level; the solution), compressed
        (:data:`COMPRESSED_SHARE` of ``raw_bytes``).
    raw_bytes : int
        Its blocks' raw data.
    worker_bytes : int
        Memory one worker needs: its largest block with the blocks it reads, plus overhead.
    cpu_hours : float
        Each level's positions over its one-core :func:`block_rate`, summed.
    clusters : list of dict
        ``{"workers", "seconds"}``: wall time with that many one-core
        workers at the same rates, each level waiting for the one below
        (its largest block bounds it from below).
    raw_bytes : int
        The blocks' raw data.
    seconds : float
        Wall time of ``gops solve --memory`` on this machine: the CPU time
        over :func:`machine_speedup`, plus start-up.
    """

    blocks: int
    max_block_bytes: int
    mean_block_bytes: int
    disk_bytes: int
    worker_bytes: int
    cpu_hours: float
    clusters: list
    raw_bytes: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"blocks": self.blocks, "max_block_bytes": self.max_block_bytes,
                "mean_block_bytes": self.mean_block_bytes, "disk_bytes": self.disk_bytes, "raw_bytes": self.raw_bytes,
                "worker_bytes": self.worker_bytes, "cpu_hours": self.cpu_hours, "seconds": self.seconds,
                "clusters": self.clusters}


def plan_blocks(rules: Rules, space=None) -> BlockPlan:
    """Project a blocked solve of ``rules`` (see :class:`BlockPlan`)."""
    from gops_solver.engine.blocked import plan_memory
    from gops_solver.engine._blockstore import block_overhead
    from gops_solver.engine.induction import set_work
    from gops_solver.game.encoding import full_space
    space = space if space is not None else full_space(rules)
    nsets = [len(space.sets[k]) for k in range(space.kmax + 1)]
    blen = [8 * space.size(k) // nsets[k] for k in range(space.kmax + 1)]
    blocks = sum(nsets)
    raw = sum(n * (b + block_overhead()) for n, b in zip(nsets, blen))
    disk = int(raw * compressed_share(rules))
    work = [set_work(space, k) for k in range(space.kmax + 1)]
    games = sum(int(w.sum()) for w in work)
    rates = [block_rate(k, rules.objective, rules.tie) for k in range(space.kmax + 1)]
    clusters = []
    for w in CLUSTER_SIZES:
        secs = sum(max(float(x.sum()) / w, float(x.max())) / r for x, r in zip(work, rates))
        clusters.append({"workers": w, "seconds": secs})
    core_s = sum(float(x.sum()) / r for x, r in zip(work, rates))
    return BlockPlan(blocks, max(blen), int(sum(n * b for n, b in zip(nsets, blen)) / blocks), disk,
                     plan_memory(space)["min_bytes"] + OVERHEAD_BYTES, core_s / 3600, clusters, raw,
                     STARTUP_SECONDS + core_s / machine_speedup())


# ---------------------------------------------------------------------------
# where a block store stands
# ---------------------------------------------------------------------------

def store_status(path) -> dict:
    """Levels, blocks done, time spent and an estimate of time left of the block store at ``path``.

    Reads every block's header only (quick, even for a large store), so a
    damaged block counts as done until a solve reads its data. Time left is
    the remaining work of each level (:func:`~.induction.set_work`) at the
    seconds per unit of work measured on that level's finished blocks. A
    level with none takes the nearest level below that has some, scaled as
    the projected block rates change from that level to this one
    (:func:`block_rate`: the positions of larger stage games
    take longer, the small blocks of low levels pay more per block).

    Returns
    -------
    dict
        ``rules`` (:class:`Rules`), ``complete``, ``levels`` (per level:
        ``k``, ``blocks``, ``done``, ``stage_games``, ``seconds``, ``work``,
        ``work_done``), ``blocks``, ``done``, ``seconds``, ``seconds_left``,
        ``bytes``.
    """
    from gops_solver.engine._blockstore import BlockStore, _parse_head
    from gops_solver.engine.blocked import store_manifest
    from gops_solver.engine.induction import set_work
    from gops_solver.engine.storage import saved_rules
    from gops_solver.game.encoding import full_space
    store = BlockStore.open(path)
    rules = saved_rules(store.manifest, path)
    space = full_space(rules)
    if store_manifest(rules, space)["block_len"] != store.block_len:
        raise ValueError(f"{path} is corrupted (its block lengths do not match its rules): solve again with --restart")
    levels, rate, rate_k = [], None, None  # seconds per unit of work, and the level it was measured on
    total_bytes = 0
    for k in range(space.kmax + 1):
        work = set_work(space, k)
        done = games = 0
        secs = 0.0
        wdone = 0
        for r in store.ranks(k):
            bpath = store.block_path(k, r)
            try:
                head = store._head(bpath)
                _, g, s, *_ = _parse_head(head, k, r, store.block_len[k], bpath)
            except (OSError, ValueError):
                continue  # damaged: --resume recomputes it
            done += 1
            games += int(g)
            secs += float(s)
            wdone += int(work[r]) if r < len(work) else 0
            total_bytes += store._size(bpath)
        if wdone and secs > 0:
            rate, rate_k = secs / wdone, k
        left_work = int(work.sum()) - wdone
        if rate is None:
            left = None
        else:
            scale = block_rate(rate_k, rules.objective, rules.tie) / block_rate(k, rules.objective, rules.tie)
            left = left_work * rate * scale
        levels.append({"k": k, "blocks": int(store.nsets[k]), "done": done, "stage_games": games,
                       "seconds": secs, "work": int(work.sum()), "work_done": wdone, "seconds_left": left})
    left = [lv["seconds_left"] for lv in levels if lv["done"] < lv["blocks"]]
    return {"rules": rules, "complete": store.is_complete(), "levels": levels,
            "blocks": sum(lv["blocks"] for lv in levels), "done": sum(lv["done"] for lv in levels),
            "seconds": sum(lv["seconds"] for lv in levels),
            "seconds_left": None if any(x is None for x in left) else float(sum(left)), "bytes": total_bytes}


# ---------------------------------------------------------------------------
# matches (gops info --match): a match is solved game by game and every game's tables stay in memory
# ---------------------------------------------------------------------------
def _space_work(space, n) -> tuple:
    from gops_solver.engine.induction import level_work
    games = sum(level_work(space, k) for k in range(n + 1))
    nbytes = sum(space.size(k) * 8 for k in range(n + 1))
    return games, nbytes


def match_work(rules: Rules) -> dict:
    """Stage games, memory and the number of games a match solve takes.

    Parameters
    ----------
    rules : Rules
        Any match format (``single`` gives one game).

    Returns
    -------
    dict
        ``games_solved`` (whole games solved), ``total_games`` (stage games),
        ``total_bytes`` (every game's tables, all held in memory at the end),
        ``lower_bound`` (True for best-of with replayed draws: each position
        with unequal match scores is solved once per step of its fixed-point
        search, which these figures count once).
    """
    import numpy as np

    from gops_solver.engine.match import game_space
    from gops_solver.game.rules import SESSION_GAMES
    from gops_solver.engine.solution import projected_work
    n = rules.n
    if rules.match == "single" or (rules.match == "session" and rules.objective == "points"):
        w = projected_work(rules)
        return {"games_solved": 1, "total_games": w["total_games"], "total_bytes": w["total_bytes"],
                "lower_bound": False}
    spaces = []
    if rules.match == "session":
        T = rules.total
        tlen = 3
        for g in range(SESSION_GAMES, 0, -1):
            # only the term's length and antisymmetry shape the space, not its values
            spaces.append(game_space(rules, np.zeros(tlen), (g - 1) * T))
            t = min((g - 1) * T, (SESSION_GAMES - g + 1) * T + 1)
            tlen = 2 * t + 1
    else:
        N, need = rules.best_of, rules.best_of // 2 + 1
        if rules.draw == "replay":
            keys = [(2 * a, 2 * b) for a in range(need) for b in range(a + 1)]
        else:
            keys = [(a2, 2 * g - a2) for g in range(N) for a2 in range(g, 2 * g + 1)
                    if abs(2 * a2 - 2 * g) <= 2 * (N - g)]
        # a level match score pays -W, 0, W (mirror-symmetric tables, half the size); others not
        level = game_space(rules, np.array([-1.0, 0.0, 1.0]), 0)
        uneven = game_space(rules, np.array([-1.0, 0.5, 1.0]), 0)
        spaces = [level if a2 == b2 else uneven for a2, b2 in keys]
    games = nbytes = 0
    for sp in spaces:
        g, b = _space_work(sp, n)
        games += g
        nbytes += b
    return {"games_solved": len(spaces), "total_games": games, "total_bytes": nbytes,
            "lower_bound": rules.best_of > 0 and rules.draw == "replay"}
