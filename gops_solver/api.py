"""The public entry points over every engine: solve any game, open any solution file.

Each engine solves one family of games behind the same :class:`Solution`
calls; this module is the only place that knows which family goes where:

- classic two-player games -> :mod:`gops_solver.engine` (in memory, to a file, in blocks);
- two-card bids and open prizes -> :mod:`gops_solver.variants`, and best-of matches settled
  by a tiebreak -> :mod:`gops_solver.variants.tiebreak`;
- three and four players -> :mod:`gops_solver.multi`.
"""

from __future__ import annotations

import os

from gops_solver.game.rules import Rules


def solve(rules: Rules, progress=None, stage_solver: str = "numba", out=None, resume=False,
          restart=False, memory=None, client=None, block_done=None, selection: str = "logit"):
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
        with the work the checkpoints already hold. Damaged checkpoints are
        reported (an :class:`~.storage.IntegrityWarning`) and recomputed.
    restart : bool
        With ``out``: discard the checkpoints of an earlier interrupted
        solve. Without ``resume`` or ``restart`` such checkpoints are kept
        and the solve is refused.
    selection : {"logit", "pure"}
        3 and 4 players: the equilibrium selection rule (see
        :func:`gops_solver.multi.solve_multi`); two players need none.

    Returns
    -------
    GameSolution
        Every engine's solution answers the same calls
        (:class:`~gops_solver.engine.base.GameSolution`): a
        :class:`~gops_solver.engine.solution.Solution` (classic games and
        matches), a :class:`~gops_solver.variants.solution.VariantSolution`
        (two-card bids, open prizes) or a
        :class:`~gops_solver.multi.MultiSolution` (3 and 4 players).
    """
    if not isinstance(rules, Rules):
        raise TypeError("solve() takes a Rules object: solve(Rules(n=8))")
    from gops_solver.lp.stage import check_backend
    check_backend(stage_solver)
    if rules.players != 2:  # 3 and 4 players: security values and an equilibrium
        from gops_solver.multi import solve_multi
        return solve_multi(rules, stage_solver=stage_solver, selection=selection)
    if selection != "logit":
        raise ValueError(f"selection={selection!r} applies to 3 and 4 players: the two-player game's optimal "
                         f"strategies need no selection rule (drop selection)")
    if (resume or restart) and out is None:
        raise ValueError("resume and restart need out=PATH: checkpoints live beside the output file")
    if resume and restart:
        raise ValueError("choose one of resume (continue the checkpoints) and restart (discard them)")
    if not rules.classic and rules.tiebreak != "share":  # a best-of match settled by a tiebreak
        from gops_solver.variants.tiebreak import solve_tiebreak
        return solve_tiebreak(rules, progress=progress, stage_solver=stage_solver, out=out)
    if not rules.classic:  # two-card bids, open prizes
        from gops_solver.variants.solution import solve_variant
        return solve_variant(rules, progress=progress, stage_solver=stage_solver, out=out)
    from gops_solver.engine.solution import solve_classic
    return solve_classic(rules, progress, stage_solver, out, resume, restart, memory, client, block_done)


def load(path, rules: Rules | None = None, check: bool = True):
    """Open any solution written by ``gops solve --out``, a solution's ``save`` or ``gops export --format solution``.

    Every solution file is one container whose header names its kind
    (classic game or match, variant, 3-4 players, or ``top``: the first
    rounds of a classic game); block stores are folders. The result answers
    the calls of :class:`~gops_solver.engine.base.GameSolution` whatever its
    kind; the tables are mapped, not read (a top-levels file's blocks are
    decompressed as they are read, and a state below its rounds is answered
    by solving its sub-game).

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
        Missing, not a regular file, truncated or corrupted file, or a file for other rules.
    TypeError
        ``rules`` is not a :class:`Rules`.
    """
    if rules is not None and not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules object, e.g. load(path, rules=Rules(n=6)), not {type(rules).__name__}")
    path = os.fspath(path)
    from gops_solver.engine.storage import container_kind
    kind = container_kind(path)  # the header's kind (files before the container: their magic)
    if kind == "variant":
        from gops_solver.variants.solution import load_variant
        return load_variant(path, rules, check)
    if kind == "multi":
        from gops_solver.multi.solution import load_multi
        return load_multi(path, rules, check)
    # classic files and matches, block stores, and anything else, which the classic loader refuses in one line
    from gops_solver.variants.tiebreak import load_tiebreak
    return load_tiebreak(path, rules, check)
