"""The documents' two-player variants (RULES.md "Variants of 002").

- :mod:`.space` -- the state space of a variant game: hand classes
  (two-card bids), prize states (open prizes), diff axis.
- :mod:`.kernel` -- the jitted backward-induction level kernel.
- :mod:`.solution` -- :class:`VariantSolution`: solve, query, verify,
  save and load.
- :mod:`.tiebreak` -- best-of matches settled by an extra game or the total score.
"""
