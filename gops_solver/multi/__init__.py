"""Three- and four-player Goofspiel (docs/rules.md "Three and four players").

Two solution concepts from every decision state: each player's exact
security value (player vs the coalition of all others, zero-sum) and a
subgame-perfect equilibrium chosen by the deterministic selection rule of
:mod:`.equilibrium`.
"""

from .equilibrium import EquilibriumError, deviation_gain, select_equilibrium
from .solution import MultiQuery, MultiSolution, solve_multi
from .state import MultiState, validate_multi_state

__all__ = ["EquilibriumError", "MultiQuery", "MultiSolution", "MultiState", "deviation_gain",
           "select_equilibrium", "solve_multi", "validate_multi_state"]
