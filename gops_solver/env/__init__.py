"""Agent environments and agent scoring, over :mod:`gops_solver.analysis`.

- :mod:`.game` -- the rounds of a game over actual cards (two players, two-card bids, 3-4 players).
- :mod:`.environments` -- ``parallel_env`` (PettingZoo), ``env`` (its AEC form), ``gym_env`` (Gymnasium).
- :mod:`.seats` -- the solver's strategies in a seat: the opponents of ``gym_env``.

Needs ``pip install "gops-solver[env]"`` (PettingZoo and Gymnasium).
"""

_LAZY = {"parallel_env": ".environments",
         "env": ".environments",
         "gym_env": ".environments",
         "Table": ".game"}


def __getattr__(name):
    # imported when first used: the environments pull in gymnasium and pettingzoo
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
