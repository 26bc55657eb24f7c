"""The documents' two-player variants (docs/rules.md "Variants of 002"): an engine behind the same calls.

- :mod:`.solution` -- :class:`VariantSolution` of two-card bids and open prizes: solve, query,
  verify, save and load; ``_space`` holds its state space (hand classes, prize states, diff
  axis) and ``_kernel`` the jitted level kernel.
- :mod:`.tiebreak` -- best-of matches settled by an extra game or the total score.

:func:`gops_solver.solve` routes these rules here.
"""
