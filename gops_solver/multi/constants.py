"""Tolerances of the 3- and 4-player solvers, named once."""

#: A stage equilibrium is accepted when no player gains more than this by a
#: pure deviation (the contract of issue 15 and RULES.md).
DEVIATION_TOL = 1e-6

#: A pure profile counts as an equilibrium when no deviation gains more than this.
PURE_TOL = 1e-9

#: Security values recomputed by ``verify`` (HiGHS) must agree to this.
SECURITY_TOL = 1e-9
