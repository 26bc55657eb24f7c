"""Stage games: exact solvers of small zero-sum matrix games.

- :mod:`.stage` -- the scalar simplex callable from other kernels (:func:`solve_stage`),
  :func:`solve_matrix_game` for Python callers, and HiGHS as the reference.
- :mod:`._lanes` -- the same simplex on eight games at once in SIMD lanes.
- :mod:`._simd` -- eight float64 lanes as one LLVM vector for numba kernels.
"""

_LAZY = {"solve_matrix_game": ".stage",
         "solve_stage": ".stage",
         "highs_stage": ".stage",
         "StageSolveError": ".stage"}


def __getattr__(name):
    # imported when first used: the kernels pull in numba, which a light import must not
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
