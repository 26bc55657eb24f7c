"""gops_solver: exact equilibria of Goofspiel (GOPS).

>>> from gops_solver import Rules, solve
>>> sol = solve(Rules(n=4, tie="discard"))
>>> sol.query([1, 2], [1, 2], pot=3, prizes=[4]).value
0.0

The package, one way down: :mod:`.game` (rules, cards, encoding) ->
:mod:`.lp` (stage games) -> :mod:`.engine` (classic two-player induction),
:mod:`.variants` and :mod:`.multi` (the other engines) -> :mod:`.api` (solve
and load over every engine) -> :mod:`.analysis` -> :mod:`.cli` and :mod:`.explore`.
"""

__version__ = "0.1.0"

_LAZY = {"Rules": "game.rules", "DecisionState": "game.rules", "validate_state": "game.rules",
         "GameSolution": "engine.base", "Solution": "engine.solution", "QueryResult": "engine.query",
         "solve": "api", "load": "api", "projected_work": "engine.solution",
         "exploit": "opponent.response", "read_records": "opponent.records", "fit_model": "opponent.fit",
         "OpponentModel": "opponent.fit"}


def __getattr__(name):
    # imported when first used: the solver pulls in numba (seconds), and the command
    # line must install its signal handlers before anything slow (see gops_solver.cli.entry)
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'gops_solver' has no attribute {name!r}")


__all__ = ["Rules", "DecisionState", "validate_state", "GameSolution", "Solution", "QueryResult", "solve", "load",
           "projected_work", "exploit", "read_records", "fit_model", "OpponentModel", "__version__"]
