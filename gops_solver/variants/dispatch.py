"""Route the variants' rules to their solvers (called by :func:`gops_solver.solve`)."""

from __future__ import annotations


def solve(rules, progress=None, stage_solver="numba", out=None):
    """Solve a variant game or a best-of match with a tiebreak.

    Returns
    -------
    VariantSolution or Solution
        A :class:`~.solution.VariantSolution` for two-card bids and open
        prizes; a :class:`~gops_solver.solution.Solution` with
        :class:`~.tiebreak.TiebreakMatch` tables for a tiebreak.
    """
    if rules.tiebreak != "share":
        from .tiebreak import solve_tiebreak
        return solve_tiebreak(rules, progress=progress, stage_solver=stage_solver, out=out)
    from .solution import solve_variant
    return solve_variant(rules, progress=progress, stage_solver=stage_solver, out=out)
