import os
import sys

# tests import the oracle as ``naive``
sys.path.insert(0, os.path.dirname(__file__))
