import os
import sys

# the one-time compile notice would add a line to the stderr that tests compare when numba's cache is
# cold (as in CI); tests/test_coldstart.py turns it back on for its subprocesses
os.environ.setdefault("GOPS_COMPILE_NOTICE", "0")

# tests import the oracle as ``naive``
sys.path.insert(0, os.path.dirname(__file__))
