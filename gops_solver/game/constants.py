"""Sizes and numerical tolerances, named once.

Every size bound and every float comparison in the package uses one of
these names; no module writes the numbers itself.
"""

# -- sizes ----------------------------------------------------------------------

#: Cards in the full game (docs/rules.md): the largest deck, hand, number of
#: classes of a stage game, and width of a hand or prize-set bitmask.
MAX_CARDS = 13

#: Length of scratch token arrays (a pattern has at most ``MAX_CARDS``
#: tokens; rounded up to a power of two).
TOKEN_SCRATCH = 16

# -- tolerances -----------------------------------------------------------------

#: Two game values closer than this are equal (the contract of docs/rules.md).
VALUE_TOL = 1e-9

#: Pivoting threshold of the stage-game simplex: entries smaller than this
#: are treated as zero when choosing pivots.
PIVOT_TOL = 1e-12

#: An optimal strategy must guarantee the value to within this against
#: every pure reply; a stage solve that misses it reports failure.
GUARANTEE_TOL = 1e-9

#: A user strategy's probabilities must sum to 1 within this.
PROB_TOL = 1e-9

#: adaptive play: a strategy whose exploitability is below this counts as safe (an equilibrium
#: strategy), so it spends none of the budget
SAFE_TOL = 1e-9

#: Best replies: a card must beat the best so far by more than this to
#: replace it, so rounding never picks a higher card among equals.
REPLY_TOL = 1e-12

#: HiGHS feasibility tolerances of the reference stage solver: tighter than
#: its 1e-7 default so that the oracle meets the ``VALUE_TOL`` contract.
HIGHS_FEAS_TOL = 1e-10

#: Matches: the fixed point of a replayed draw is accepted when the game's
#: value and the draw's payoff differ by no more than this (well inside
#: ``VALUE_TOL``; see :mod:`~.match`).
FIXED_POINT_TOL = 1e-13

#: Matches: the fixed point's uniqueness is probed this fraction of the
#: bracket to either side of it.
FIXED_POINT_PROBE = 1e-6


def tol_text(tol: float) -> str:
    """A tolerance as people write it, for messages: ``1e-09`` -> ``"1e-9"``."""
    mant, _, exp = f"{tol:g}".partition("e")
    return f"{mant}e{int(exp)}" if exp else mant

#: a value this close to 0 is a rounding residue of the solver (its results are exact to
#: about 1e-13 at n = 13), so text output prints 0 rather than, say, -3.33e-16
ZERO_PRINT_TOL = 1e-12

#: opponent models: how far a model file's mixture weights may sum from 1
MODEL_WEIGHT_TOL = 1e-6
#: EM of a mixture model stops when no weight moves more than this in an iteration
EM_TOL = 1e-9
#: mixture weights below this are set to 0 after a fit (those components are not evaluated in play)
EM_PRUNE = 1e-9

#: ``gops explore --model`` computes its response at start up to this deck (n = 8 discard/points
#: takes minutes); larger games are served from a file of ``gops exploit --out``
LIVE_RESPONSE_MAX_CARDS = 8

#: names of the built-in heuristic strategies, in the order of their kernel codes
#: (:mod:`gops_solver.analysis.strategies`); here so that modules below it can tell a name from a file
HEURISTICS = ("uniform", "match", "match+1", "highest", "lowest", "proportional")
