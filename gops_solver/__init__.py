"""gops_solver: exact equilibria of two-player Goofspiel (GOPS).

>>> from gops_solver import Rules, solve
>>> sol = solve(Rules(n=4, tie="discard"))
>>> sol.query([1, 2], [1, 2], pot=3, prizes=[4]).value
0.0
"""

__version__ = "0.1.0"

from .rules import Rules, DecisionState, validate_state  # noqa: E402
from .solution import Solution, QueryResult, solve, load, projected_work  # noqa: E402

__all__ = ["Rules", "DecisionState", "validate_state", "Solution", "QueryResult", "solve", "load",
           "projected_work", "__version__"]
