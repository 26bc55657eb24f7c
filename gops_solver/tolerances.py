"""Named numerical tolerances (defined in :mod:`~.constants`; imported here for older imports).

Every float comparison in the package uses one of these; never ``==``.
"""

from .constants import GUARANTEE_TOL, PIVOT_TOL, VALUE_TOL  # noqa: F401
