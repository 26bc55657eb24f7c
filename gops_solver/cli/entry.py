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
second; 2 more children died of a segfault). Worse, numba's unpickler, which
a kernel's wrapper calls while it boxes the kernel's result, does not pass an
exception on: the result came back with a hole and the caller segfaulted
(about 1 export in 100 signalled in its first seconds). So the handler does
not raise inside an import or such a callback but sends the signal again a
moment later (by the interval timer, no thread), and an interrupt dropped
anywhere else as "unraisable" is sent again too.
"""

import os
import signal
import sys
import time

from gops_solver.cli.signals import NO_RAISE, Terminated, interrupt_of  # imports nothing else

# Python functions that compiled code calls: llvmlite's object cache (LLVM calls it through ctypes),
# and numba's unpickler, which a kernel's wrapper calls while it boxes the kernel's result (for a
# dtype, say): an exception raised in it leaves a hole in the result (a tuple with a NULL item, and
# the caller's segfault when it unpacks it), with no exception to show
_C_CALLBACKS = frozenset({"_raw_object_cache_notify", "_raw_object_cache_getbuffer", "_numba_unpickle"})
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


#: the signal to send again when the timer rings (see :func:`_send_again`)
_pending = []


def _send_again(signum, after=_RESEND_S):
    """Raise ``signum`` again ``after`` seconds from now, by the process's interval timer (SIGALRM).

    No thread is started for it: a handler can run deep inside a library (a finalizer that a
    collection runs while numba boxes a kernel's result), and starting a thread there, which
    waits for the thread and lets it run, broke numba's result (a tuple with a missing item, then
    a segfault, about 1 in 10 signals during a kernel's first call).
    """
    if not _pending:
        _pending.append(signum)
    signal.setitimer(signal.ITIMER_REAL, max(after, 1e-3))


def _on_alarm(signum, frame):
    if _pending:
        _on_signal(_pending.pop(), frame)


#: set once the command has ended or an interrupt is being reported: a signal then is remembered, not
#: raised (see :func:`main`)
_finished = []
#: when the last interrupt was raised: the cleanup it runs on its way out (a temporary file removed, a
#: lock given back) is not cut short by a second signal within :data:`_GRACE_S`; that one waits
_raised = []
_GRACE_S = 2.0


def _on_signal(signum, frame):
    if _finished:
        _finished.append(signum)
        return
    since = time.monotonic() - _raised[-1] if _raised else _GRACE_S
    if since < _GRACE_S:
        _send_again(signum, _GRACE_S - since)
        return
    if not _unsafe_to_raise(frame):
        _raised.append(time.monotonic())
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    _send_again(signum)


def _on_unraisable(info):
    if isinstance(info.exc_value, KeyboardInterrupt):  # dropped where no one could catch it
        _raised.clear()  # no cleanup runs for it: the one sent again is raised at once
        _send_again(signal.SIGTERM if isinstance(info.exc_value, Terminated) else signal.SIGINT)
        return
    sys.__unraisablehook__(info)


def install_handlers():
    """Catch SIGTERM and SIGINT (unless started with SIGINT ignored) and dropped interrupts, as described above."""
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGTERM, _on_signal)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_signal)
    sys.unraisablehook = _on_unraisable


def main():
    """Run the command line; an interrupt at any moment gives one line and exit 130 (SIGTERM: 143).

    The process always ends by :func:`os._exit` once the command is over: the interpreter's own
    shutdown (module teardown with numba's and llvmlite's state, a signal after Python has put the
    default handlers back) could otherwise end it in a raw signal death or a crash. In each
    ``except`` clause the first call sets :data:`_finished`: CPython runs a signal handler only at a
    call or a backward jump, so from the first moment of the clause a signal is remembered.
    """
    install_handlers()
    try:
        try:
            from gops_solver.cli.commands import main as cli_main
            cli_main()
        except SystemExit as exc:
            _finished.append(None)
            _end(exc.code)
    except BaseException as exc:
        # an interrupt before the commands' own handling (nothing is written yet), or one raised in the
        # moment between the command's end and the clause above: leave at once. The interrupt may arrive
        # wrapped: one raised inside a class body's __set_name__ comes out as a RuntimeError caused by
        # the KeyboardInterrupt.
        _finished.append(None)
        interrupt = _interrupt_in(exc)
        if interrupt is None:
            raise
        _report_and_leave(isinstance(interrupt, Terminated))


def _end(code):
    """Leave with the command's exit status ``code``, or 130/143 for a signal that came after its output."""
    if code in (130, 143):
        _leave(code)  # the command has reported the interrupt and cleaned up on its way out
    if not (isinstance(code, int) or code is None):
        print(code, file=sys.stderr)  # sys.exit("message"), as Python reports it
        code = 1
    # the output is written: the exit handlers run, and a signal meanwhile ends the process with
    # 130/143 instead of a raw signal death in the shutdown
    import atexit
    atexit._run_exitfuncs()
    late = [s for s in _finished if s is not None]
    if late:
        _report_and_leave(late[0] == signal.SIGTERM)
    _leave(code or 0)


_interrupt_in = interrupt_of


def _report_and_leave(terminated):
    print("\nterminated" if terminated else "\ninterrupted", file=sys.stderr)
    _leave(143 if terminated else 130)


def _leave(code):
    """Flush the output and end the process now, skipping the interpreter's shutdown."""
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(code)
