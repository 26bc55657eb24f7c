"""Playing a particular opponent: game records, fitted opponent models, exact responses, adaptive play.

- :mod:`.records` -- game records (JSON lines) written by play and simulate, read back as tables.
- :mod:`.fit` -- opponent models fitted to records (mixtures of strategies, tabular models).
- :mod:`.response` -- exact restricted responses R(P) to a model, their trade-off curve and risk bound.
- :mod:`.adapt` -- adaptive play that exploits only what the opponent's mistakes have given.

Sits above :mod:`gops_solver.analysis` (it evaluates with the exact evaluation) and below the
command line and the explorer.
"""

_LAZY: dict = {"exploit": ".response", "restricted_response": ".response", "safe_response": ".response",
               "ExploitResult": ".response",
               "read_records": ".records", "Records": ".records", "GameRecord": ".records", "RecordError": ".records",
               "convert_records": ".records", "fit_model": ".fit", "OpponentModel": ".fit", "read_model": ".fit",
               "adaptive_session": ".adapt", "AdaptivePlayer": ".adapt", "SessionSummary": ".adapt"}


def __getattr__(name):
    # imported when first used: the kernels pull in numba, which a light import must not
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
