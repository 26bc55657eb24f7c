"""One line on stderr when a command is about to compile its kernels (a first run).

numba compiles a kernel on its first call and keeps the machine code in its
cache (``__pycache__`` beside the source, or ``NUMBA_CACHE_DIR``); later runs
load it in a fraction of a second. A first run would otherwise sit silent
while it compiles, so a command asks :func:`compile_notice` before its work
whether the kernels it needs are cached for this processor, and says so on
stderr when they are not (stdout stays clean for ``--json`` and ``--csv``).
"""

from __future__ import annotations

import os
import sys

#: CPU seconds a cold run of each command took, rounded, for a small game (serial kernels) and a large one
#: (benchmarks/coldstart.py: n = 6 solve 18-22 s, evaluate 36 s; parallel kernels: solve 42 s, evaluate 86-89 s)
_ESTIMATE_S = {("solve", True): 20, ("evaluate", True): 35, ("solve", False): 40, ("evaluate", False): 80}


def _kernels(command, rules):
    """The largest compiled kernels ``command`` calls under ``rules`` (if these are cached, the rest are too), and whether the game is small."""
    from gops_solver.engine import induction
    from gops_solver.game.encoding import full_space
    win = rules.objective == "win"
    # a small game is solved by the serial twins (every game above 8 cards is large: no space built)
    small = rules.n <= 8 and induction.is_small(full_space(rules))
    if small:
        kernels = [induction._win_serial if win else induction._points_serial]
    else:
        kernels = [induction._win_kernel if win else induction._points_kernel]
    if command == "evaluate":
        from gops_solver.analysis import evaluate, strategies
        kernels += [evaluate._kernel(evaluate._expand_chunks, rules.n), evaluate._kernel(evaluate._values, rules.n),
                    strategies.rows_kernel(rules.n)]
    return kernels, small


def is_cached(dispatcher) -> bool:
    """Whether numba's cache holds ``dispatcher`` compiled for this processor (for some argument types).

    Reads the cache's index as numba does when it loads a kernel: an index
    written for another version of the source file counts as empty. True
    where nothing is compiled (``NUMBA_DISABLE_JIT``) or the cache cannot be
    read, so that no notice is printed that is not known to be true.
    Reads numba's private cache API (``_cache``, ``_index_key``); it is
    checked by tests/test_coldstart.py.
    """
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or not hasattr(cache, "_cache_file"):
        return True
    try:
        codegen = dispatcher.targetctx.codegen()
        # an entry counts when numba would load it: same processor, same bytecode
        return any(cache._index_key(key[0], codegen) == key for key in cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - a cache numba cannot read is numba's to report, not this notice's
        return True


def compile_notice(command, rules, stream=None):
    """Print one line on ``stream`` (stderr) when ``command``'s kernels are not yet compiled; return whether it did.

    Parameters
    ----------
    command : {"solve", "evaluate"}
    rules : Rules
        The two-player rules the command runs (they choose the objective's kernel).
    stream : file, optional
        Where the line goes; ``sys.stderr`` by default.

    Returns
    -------
    bool

    Notes
    -----
    ``GOPS_COMPILE_NOTICE=0`` in the environment turns the line off (the test
    suite does, so that a cold cache does not add a line to the outputs it
    compares; ``-q`` does too).
    """
    if os.environ.get("GOPS_COMPILE_NOTICE", "1") == "0":
        return False
    kernels, small = _kernels(command, rules)
    if all(is_cached(k) for k in kernels):
        return False
    print(f"compiling the solver's kernels once (about {_ESTIMATE_S[command, small]} s; later runs reuse them)...",
          file=stream or sys.stderr, flush=True)
    return True
