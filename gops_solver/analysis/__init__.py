"""Analyses that read a solution: strategies, exact evaluation, simulation, play, OpenSpiel.

- :mod:`.strategies` -- heuristics, user functions and the equilibrium as strategy objects.
- :mod:`.evaluate` -- exact evaluation of two strategies over actual hands.
- :mod:`.simulate` -- Monte Carlo play, reproducible by a seed.
- :mod:`.play` -- a game against the equilibrium at the terminal.
- :mod:`.answer` -- one query from raw parameters to what ``gops query --json`` prints.
- :mod:`.opening`, :mod:`.stagegame` -- the first decision, and a stage game card by card.
- :mod:`.openspiel` -- the equilibrium as an OpenSpiel policy.
- :mod:`.gambit` -- the game tree and a stage game as Gambit games (``.efg``, ``.nfg``).
"""

_LAZY = {"evaluate": ".evaluate",
         "simulate": ".simulate",
         "make_strategy": ".strategies",
         "Strategy": ".strategies",
         "answer_query": ".answer",
         "opening": ".opening",
         "stage_game": ".stagegame"}


def __getattr__(name):
    # imported when first used: the kernels pull in numba, which a light import must not
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
