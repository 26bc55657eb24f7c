"""The ``gops`` script's entry point: signals are handled before anything heavy is imported.

Importing the solver (numba, numpy) takes seconds; a Ctrl-C or SIGTERM then
must end the program with one line, not a traceback, so this module imports
nothing of the package until the handlers are in place.

Python raises the interrupt wherever the main thread happens to be, and a
few places drop exceptions: a bare ``except`` in a compiled module's
initialisation (Cython's, while numpy imports), callbacks that C code runs
(llvmlite's object cache while numba compiles or loads a kernel), weakref
callbacks and ``__del__``. An interrupt raised there was lost: the solve ran
on and exited 0 (4 times in about 400 signals sent in a child's first
second; 2 more children died of a segfault). So the handler does not raise
inside an import or such a callback but sends the signal again a moment
later, and an interrupt dropped anywhere else as "unraisable" is sent again
too.
"""

import os
import signal
import sys
import threading

from gops_solver.cli.signals import NO_RAISE, Terminated, interrupt_of  # imports nothing else

# Python functions that llvmlite hands to LLVM through ctypes
_C_CALLBACKS = frozenset({"_raw_object_cache_notify", "_raw_object_cache_getbuffer"})
_RESEND_S = 0.02


def _unsafe_to_raise(frame) -> bool:
    """Whether an exception raised at ``frame`` could be dropped: inside an import or a C callback."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in _C_CALLBACKS or code.co_filename.startswith("<frozen importlib") \
                or getattr(code, "co_qualname", code.co_name) in NO_RAISE:
            return True
        frame = frame.f_back
    return False


def _send_again(signum):
    timer = threading.Timer(_RESEND_S, os.kill, (os.getpid(), signum))
    timer.daemon = True  # never holds up an exit
    timer.start()


#: set once the command has ended: a signal then is remembered, not raised (see :func:`main`)
_finished = []


def _on_signal(signum, frame):
    if _finished:
        _finished.append(signum)
        return
    if not _unsafe_to_raise(frame):
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    _send_again(signum)


def _on_unraisable(info):
    if isinstance(info.exc_value, KeyboardInterrupt):  # dropped where no one could catch it
        _send_again(signal.SIGTERM if isinstance(info.exc_value, Terminated) else signal.SIGINT)
        return
    sys.__unraisablehook__(info)


def install_handlers():
    """Catch SIGTERM and SIGINT (unless started with SIGINT ignored) and dropped interrupts, as described above."""
    signal.signal(signal.SIGTERM, _on_signal)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_signal)
    sys.unraisablehook = _on_unraisable


def main():
    """Run the command line; an interrupt at any moment gives one line and exit 130 (SIGTERM: 143)."""
    install_handlers()
    try:
        from gops_solver.cli.commands import main as cli_main
        cli_main()
    except SystemExit as exc:
        if exc.code in (130, 143):
            # the command has reported the interrupt and cleaned up on its way out; the
            # interpreter's own shutdown could still end in a raw signal death (seen about once in
            # seven runs of tests/test_signals.py, a signal 1.5 s into a solve), so leave at once
            _leave(exc.code)
        if isinstance(exc.code, int) or exc.code is None:
            # the output is written: a signal from now on is remembered, the exit handlers run, and
            # the process ends with 130/143 for it instead of dying of the raw signal in the shutdown
            _finished.append(None)
            import atexit
            atexit._run_exitfuncs()
            late = [s for s in _finished if s is not None]
            if late:
                _report_and_leave(late[0] == signal.SIGTERM)
            _leave(exc.code or 0)
        raise
    except BaseException as exc:
        # reached only when the interrupt came before the commands' own handling: nothing is
        # written yet, and a half-imported module's shutdown hooks could turn the exit back into a
        # raw SIGINT death, so leave at once. The interrupt may arrive wrapped: one raised inside a
        # class body's __set_name__ comes out as a RuntimeError caused by the KeyboardInterrupt.
        interrupt = _interrupt_in(exc)
        if interrupt is None:
            raise
        _report_and_leave(isinstance(interrupt, Terminated))


_interrupt_in = interrupt_of


def _report_and_leave(terminated):
    print("\nterminated" if terminated else "\ninterrupted", file=sys.stderr)
    _leave(143 if terminated else 130)


def _leave(code):
    """Flush the output and end the process now, skipping the interpreter's shutdown."""
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(code)
