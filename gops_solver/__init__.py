"""gops_solver: exact equilibria of two-player Goofspiel (GOPS).

>>> from gops_solver import Rules, solve
>>> sol = solve(Rules(n=4, tie="discard"))
>>> sol.query([1, 2], [1, 2], pot=3, prizes=[4]).value
0.0
"""

__version__ = "0.1.0"

from .rules import Rules, DecisionState, validate_state  # noqa: E402

_LAZY = {"Solution", "QueryResult", "solve", "load", "projected_work"}


def __getattr__(name):
    # the solver pulls in numba (seconds to import): only when it is used, so the
    # command line can install its signal handlers first (see gops_solver.entry)
    if name in _LAZY:
        from . import solution
        return getattr(solution, name)
    raise AttributeError(f"module 'gops_solver' has no attribute {name!r}")

__all__ = ["Rules", "DecisionState", "validate_state", "Solution", "QueryResult", "solve", "load",
           "projected_work", "__version__"]
