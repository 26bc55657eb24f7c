"""Named numerical tolerances, in one place.

Every float comparison in the package uses one of these; never ``==``.
"""

#: Two game values closer than this are equal (the contract of RULES.md).
VALUE_TOL = 1e-9

#: Pivoting threshold of the stage-game simplex: entries smaller than this
#: are treated as zero when choosing pivots.
PIVOT_TOL = 1e-12

#: An optimal strategy must guarantee the value to within this against
#: every pure reply; a stage solve that misses it reports failure.
GUARANTEE_TOL = 1e-9
