"""Tolerances of the 3- and 4-player solvers, named once."""

#: A stage equilibrium is accepted when no player gains more than this by a
#: pure deviation (the contract docs/rules.md states for 3-4 players).
DEVIATION_TOL = 1e-6

#: A pure profile counts as an equilibrium when no deviation gains more than this.
PURE_TOL = 1e-9

#: Security values recomputed by ``verify`` (HiGHS) must agree to this.
SECURITY_TOL = 1e-9

#: Two players are exchangeable in a stage game when swapping them (their
#: cards and payoffs) moves no payoff by more than this; the logit branch of
#: such a game is traced among profiles where they play alike.
SYMMETRY_TOL = 1e-12

#: A refined endpoint of the logit branch (Newton on its supports in the kernel,
#: the symmetric Nash program where the symmetric branch stalls) is taken only
#: if it moves no probability by more than this; beyond it lies another equilibrium.
POLISH_MOVE = 0.1

#: Support enumeration (for a symmetric equilibrium where the tracers give none,
#: and before simplicial subdivision) tries at most this many tuples of
#: supports, smallest first: all of a 4-card 3-player game (15^3 = 3,375; of 10
#: real games of 3 players n = 7 that reached this step, 3 needed more than the
#: first 1,000) and of a 5-card game with two classes (31^2 = 961).
SUPPORT_TUPLES = 4000
