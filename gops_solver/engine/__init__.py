"""The classic two-player engine: backward induction into value tables, and their files.

Follow a state: :mod:`.solution` builds the :class:`~gops_solver.game.encoding.StateSpace`
of the rules, :mod:`.induction` fills one table per level with :mod:`.tables`'
stage matrices and :mod:`gops_solver.lp`'s solvers, :mod:`.storage` writes the
file, and :mod:`.query` answers a state from the level below it.

- :mod:`.blocked` -- the same induction one prize-set block at a time (memory budget, Dask);
  ``_blockstore`` its files, ``_checkpoint`` a long solve's finished levels.
- :mod:`.match` -- match formats, solved game by game.
- :mod:`.verify` -- recompute stored values from the level below.
- :mod:`.export` -- every decision state of the first rounds as a table.
- :mod:`.top` -- the value tables of the first rounds in one small file, read as a ``Solution``.
- :mod:`.projection` -- what a solve will cost, without running it.
"""

_LAZY = {"Solution": ".solution",
         "QueryResult": ".query",
         "solve_classic": ".solution",
         "load_classic": ".solution",
         "projected_work": ".solution",
         "query_state": ".query",
         "run_induction": ".induction",
         "project": ".projection"}


def __getattr__(name):
    # imported when first used: the kernels pull in numba, which a light import must not
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
