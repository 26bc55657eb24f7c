"""The game: rules, cards, the canonical state encoding, sizes and tolerances.

- :mod:`.rules` -- :class:`Rules` (one validated game) and :class:`DecisionState`.
- :mod:`.cards` -- parsing and printing cards (A, J, Q, K).
- :mod:`.encoding` -- the canonical state space: hand patterns, prize sets, pot and diff axes.
- :mod:`.statekeys` -- a state of an actual deal packed in one int64.
- :mod:`.constants` -- sizes and numerical tolerances, named once.
- :mod:`.jsonout` -- strict JSON (no NaN) for every ``--json`` output and file header.
"""

_LAZY = {"Rules": ".rules",
         "DecisionState": ".rules",
         "validate_state": ".rules",
         "parse_cards": ".cards",
         "format_card": ".cards",
         "format_cards": ".cards",
         "StateSpace": ".encoding",
         "full_space": ".encoding",
         "MAX_CARDS": ".constants"}


def __getattr__(name):
    # imported when first used: the kernels pull in numba, which a light import must not
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
