"""gops_solver: exact equilibria of two-player Goofspiel (GOPS).

>>> from gops_solver import Rules, solve
>>> sol = solve(Rules(n=4, tie="discard"))
>>> sol.query([1, 2], [1, 2], pot=3, prizes=[4]).value
0.0
"""

__version__ = "0.1.0"

_LAZY = {"Rules": "rules", "DecisionState": "rules", "validate_state": "rules",
         "Solution": "solution", "QueryResult": "solution", "solve": "solution", "load": "solution",
         "projected_work": "solution"}


def __getattr__(name):
    # imported when first used: the solver pulls in numba (seconds), and the command
    # line must install its signal handlers before anything slow (see gops_solver.entry)
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'gops_solver' has no attribute {name!r}")


__all__ = ["Rules", "DecisionState", "validate_state", "Solution", "QueryResult", "solve", "load",
           "projected_work", "__version__"]
