"""Solution files on disk: format, checksums, atomic writes, stale temporary files.

The integrity promise (README, "What is checked, and when"): a file this
module writes is either the old one or a new one whose every byte was read
back and checked before it took the old one's name.

Every saved solution -- classic game or match, variant, 3-4 players -- is one
container (format 3)::

    MAGIC (8 bytes) | header length L (8, little-endian) | header (L bytes of JSON)
    | CRC-32 of the 16 + L bytes before it (4, little-endian) | zero padding to 4096
    | table 0 | table 1 | ... (little-endian)

The header names the ``kind`` of solution (:data:`CONTAINER_KINDS`), its
``rules``, the ``format`` and every table's size or shape and CRC-32, so its
own checksum also vouches for the tables' checksums: changing a rule, a size
or a table checksum in the header breaks the header checksum; changing a
table breaks its own checksum. :func:`container_kind` tells the kind of a
file without reading its tables; :func:`gops_solver.load` opens any of them.
Files of the formats before the container (classic format 2, variant format
2, 3-4 player format 1: the same layout under a magic of their own, no
``kind``) are still read.

Temporary files are ``.gops-*.tmp`` beside the target, locked (``flock``)
by the process writing them: a file of that name nobody holds was left by a
killed writer and is removed by :func:`clean_stale_temps`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import json
import mmap
import os
import re
import stat
import warnings
import zlib
from typing import NamedTuple

import numpy as np

from gops_solver import __version__

#: the container's magic and format, shared by every kind of solution file
MAGIC = b"GOPSSOL\x03"
FORMAT_VERSION = 3
#: what a container's header ``kind`` may say
CONTAINER_KINDS = ("classic", "match", "variant", "multi", "store", "top")
#: the classic format before the container (read still); format 1 is refused
_V2_MAGIC = b"GOPSSOL\x02"
_OLD_MAGIC = b"GOPSSOL\x01"
_ALIGN = 4096  # tables start on page boundaries so they can be mapped
_STEP = 1 << 24  # table entries handled at a time (128 MiB), so huge tables never sit in memory twice
TEMP_PREFIX, TEMP_SUFFIX = ".gops-", ".tmp"
#: largest header accepted when reading (a real one is under 2 kB)
_MAX_HEADER = 1 << 20


class IntegrityWarning(UserWarning):
    """Something on disk was repaired or removed: a stale temporary file, a damaged checkpoint."""


def notify(message: str) -> None:
    """Tell the user, in one line, what was repaired or removed (the CLI prints it on stderr)."""
    warnings.warn(message, IntegrityWarning, stacklevel=2)


def release_mapped(piece) -> None:
    """Unmap the pages of ``piece`` from this process if it is a read-only mapped file; else nothing.

    A pass over a mapped table (a checksum, a copy into a new file) would
    otherwise leave every page it read resident in this process: writing
    the solution file of n = 13 carry/points from its checkpoints showed
    as 23.7 GB of peak resident memory. ``MADV_DONTNEED`` on a read-only
    shared mapping of a file only drops this process's page-table entries;
    the data stay in the file and the page cache, and a later read maps
    them again. Arrays in memory and mappings that can be written are left
    alone: on an array or a copy-on-write mapping it would discard data.
    """
    mm = getattr(piece, "_mmap", None)
    if mm is None or not isinstance(piece, np.memmap) or piece.mode != "r" or not hasattr(mmap, "MADV_DONTNEED"):
        return
    base = np.frombuffer(mm, dtype=np.uint8).ctypes.data
    lo = piece.ctypes.data - base
    hi = lo + piece.nbytes
    lo = max(0, lo - lo % mmap.PAGESIZE)
    hi = min(len(mm), hi + (-hi) % mmap.PAGESIZE)
    if hi > lo:
        mm.madvise(mmap.MADV_DONTNEED, lo, hi - lo)


def _pieces(flat, dtype=None):
    """``flat`` (one-dimensional) in contiguous slices of at most ``_STEP`` entries, each unmapped once used."""
    for i in range(0, len(flat), _STEP):
        piece = flat[i:i + _STEP]
        yield np.ascontiguousarray(piece, dtype=dtype)
        release_mapped(piece)


def crc32(table) -> int:
    """CRC-32 of a float64 table's bytes, read in chunks (tables may be mapped, larger than memory)."""
    crc = 0
    for piece in _pieces(table, np.float64):
        crc = zlib.crc32(memoryview(piece).cast("B"), crc)
    return crc


def _raw_crc32(flat) -> int:
    """CRC-32 of a flat array's bytes as stored, in chunks (equals :func:`crc32` for float64)."""
    crc = 0
    for piece in _pieces(flat):
        crc = zlib.crc32(memoryview(piece).cast("B"), crc)
    return crc


def file_mode() -> int:
    """Permission bits a new file gets under the process umask (0644 with the usual 022)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def check_out_path(path, checkpoints: bool = False, stdout: bool = False, probe_lock: bool = True) -> None:
    """Fail early, before a long solve, if ``path`` cannot be written.

    Parameters
    ----------
    path : path-like
    checkpoints : bool
        Also check that ``path + ".ckpt"`` can be a checkpoint folder. A solve
        with checkpoints writes a regular file only (no FIFO or device).
    stdout : bool
        ``-`` means standard output (exports).
    probe_lock : bool
        Refuse when another process holds the target's writer lock
        (:func:`acquire_lock`); False where the caller takes or holds it.

    An existing FIFO or character device is streamed into (see
    :func:`atomic_write`); anything else must be a regular file, or absent.

    Raises
    ------
    ValueError
        The path is empty, a URL, a folder or not a regular file, its folder is
        missing or not writable, another writer holds its lock, or
        (``checkpoints``) the checkpoint folder's name is taken by a file or too long.
    """
    path = os.fspath(path)
    if not path:
        raise ValueError("the output path is empty: give a file name, e.g. --out game.gops")
    if "\n" in path or "\r" in path:
        raise ValueError(f"cannot write {path!r}: the name holds a line break; choose another name")
    refuse_url(path, "write")
    if path == "-" and not stdout:
        raise ValueError("--out - (standard output) is for exports; give a file name")
    if stream_target(path) and not checkpoints:
        if path != "-" and not os.access(path, os.W_OK):
            raise ValueError(f"cannot write {path}: permission denied; choose another path")
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path}: it is a folder; give a file name (or add --memory SIZE to solve "
                         f"into a block-store folder)")
    if not os.path.isdir(folder):
        raise ValueError(f"cannot write {path}: folder {folder} does not exist; create it or choose another path")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write {path}: folder {folder} is not writable; choose another path")
    if os.path.lexists(path) and not os.path.isfile(path):
        raise ValueError(f"cannot write {path}: it exists and is not a regular file; choose another path")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"cannot write {path}: the file is read-only; choose another path")
    try:
        name_max = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    base = os.path.basename(path)
    longest = base + ".ckpt" if checkpoints else base
    if len(longest.encode()) > name_max:
        raise ValueError(f"cannot write {path}: the name{' with its .ckpt checkpoint folder' if checkpoints else ''} "
                         f"is longer than {name_max} bytes; choose a name of at most "
                         f"{name_max - (5 if checkpoints else 0)} bytes")
    if checkpoints and os.path.lexists(path + ".ckpt") and not os.path.isdir(path + ".ckpt"):
        raise ValueError(f"cannot write {path}: {path}.ckpt exists and is not a folder, but the solve keeps its "
                         f"checkpoints there; move that file or choose another --out")
    # a folder we may write that does not take files (e.g. /proc): find out now, not after the solve
    tmp = None
    try:
        fd, tmp = _new_temp(folder)
        os.close(fd)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {why(exc)}; choose another location") from None
    finally:
        if tmp is not None:
            _unlink(tmp)
    if probe_lock:
        release_lock(acquire_lock(path, "gops writer"))  # another writer holds it: refuse now, not after the work


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def url_scheme(path):
    """The scheme of a URL such as ``s3://bucket/x`` (``"s3"``), or None for a local path."""
    m = _SCHEME.match(os.fspath(path)) if isinstance(os.fspath(path), str) else None
    return m.group(0)[:-3].lower() if m else None


#: where solutions may live, said the same way by every command and engine
WHERE_SOLUTIONS_LIVE = ("solution files live on local paths; only a block store (gops solve --memory) may be "
                        "at an fsspec URL")


def refuse_url(path, verb: str = "read") -> None:
    """The one place that decides what a URL may name: a block store (through fsspec), never a file.

    Raises
    ------
    ValueError
        ``path`` is a URL (one line naming it and :data:`WHERE_SOLUTIONS_LIVE`).
    """
    if url_scheme(path) is not None:
        raise ValueError(f"cannot {verb} {path}: {WHERE_SOLUTIONS_LIVE}; copy the file to a local path")


def unreachable_url(path, exc=None) -> ValueError:
    """The one-line error for a URL that holds no block store gops can read: ``exc`` the failure, in words.

    ``exc`` is what reaching it raised (None: reached, and no store there). Its
    cause is given in words, never in Python's ``[Errno N]`` form.
    """
    if exc is None:
        reason = "no block store there"
    else:
        cause = exc.__context__ if exc.__suppress_context__ and exc.__context__ is not None else exc
        reason = f"it cannot be reached ({in_words(cause)})"
    return ValueError(f"cannot read {path}: {reason}; {WHERE_SOLUTIONS_LIVE}")


_ERRNO = re.compile(r"\[Errno -?\d+\]\s*")


def saved_rules(header, name, rules=None, again: str = "solve again", what: str = "file"):
    """The :class:`~gops_solver.game.rules.Rules` a solution file or store was written for.

    ``header`` is its header or manifest (its ``rules`` entry is read). ValueError in one
    line when this gops cannot read them (the fix: ``again``), or when
    ``rules`` is given and differs (``what`` names the kind of solution).
    """
    from gops_solver.game.rules import Rules
    try:
        saved = Rules.from_dict(header["rules"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{name} has rules this gops does not know ({exc}): {again}") from None
    if rules is not None and saved != rules:
        raise ValueError(f"{name} holds a solution for {saved.describe()}, not {rules.describe()}: "
                         f"use a matching {what} or solve these rules")
    return saved


def in_words(exc: BaseException) -> str:
    """An exception's cause as a short phrase: the OS's words for an ``OSError``, else its first line.

    Never Python's ``[Errno N]`` prefix; at most 120 characters.
    """
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror + (f": {exc.filename}" if exc.filename else "")
    else:
        text = (str(exc).strip().splitlines() or [""])[0]
        text = _ERRNO.sub("", text) or type(exc).__name__.lower()
    return text if len(text) <= 120 else text[:100] + "..."


def require_regular(path, what: str = "file") -> None:
    """Refuse, in one line, a ``path`` that is a folder, a FIFO, a device or a special file.

    Used before opening a file the solver wrote (a checkpoint, a block): opening a FIFO would wait
    for a writer forever, and reading a special file (``/proc/self/mem``) fails or never ends.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ValueError(f"cannot read {what} {path}: it is {kind}; move it away and solve again")


def read_regular(path, what: str = "file", limit: int = -1) -> bytes:
    """The bytes of a regular file (up to ``limit``); ValueError in one line for anything else.

    Opened with ``O_NONBLOCK`` so that a FIFO put in a file's place is refused, not waited on.
    ``FileNotFoundError`` passes through (callers say what a missing file means).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise ValueError(f"cannot read {what} {path}: it is {kind}; move it away and solve again")
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        try:
            return fh.read(limit)
        except OSError as exc:
            raise ValueError(f"cannot read {what} {path}: {exc.strerror}") from None


def lock_path(path) -> str:
    """The lock file every writer of ``path`` holds: ``.NAME.gops-lock`` beside it (a file or a block store)."""
    path = os.path.abspath(os.fspath(path)).rstrip("/") or "/"
    folder, base = os.path.split(path)
    return os.path.join(folder, f".{base}.gops-lock")


def acquire_lock(path, what: str = "gops writer", article: str = "another"):
    """Hold the one lock of ``path`` for this writer; returns a token for :func:`release_lock`.

    Every writer of a target takes it (a classic solve for its whole run, a block-store solve, a
    3-4 player or variant save, an export), so a second writer of the same target, of any kind,
    refuses in one line instead of replacing the first one's file or deleting its blocks. Stream
    targets (FIFOs, devices) and URLs take no lock: nothing is replaced there.

    Raises
    ------
    ValueError
        Another process holds the lock.
    """
    lp = lock_path(path)
    while True:
        try:
            fd = os.open(lp, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as exc:
            raise ValueError(f"cannot lock {os.fspath(path)} for writing ({lp}: {exc.strerror}); "
                             f"choose a writable location") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "gops writer"
            except OSError:
                holder = "gops writer"
            os.close(fd)
            raise ValueError(f"{article} {holder} is writing {os.fspath(path)} now: wait for it to finish "
                             f"or choose another --out") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lp))
        except OSError:
            same = False
        if same:  # not a lock file its last holder removed after we opened it
            try:  # who holds it, for the message a second writer gets
                os.ftruncate(fd, 0)
                os.pwrite(fd, what.encode("ascii", "replace")[:64], 0)
            except OSError:
                pass
            return fd, lp
        os.close(fd)


def release_lock(token) -> None:
    """Give up a lock taken by :func:`acquire_lock` and remove its file (while still holding it)."""
    if token is None:
        return
    fd, lp = token
    try:
        if os.path.samestat(os.fstat(fd), os.stat(lp)):
            os.unlink(lp)
    except OSError:
        pass
    os.close(fd)


@contextlib.contextmanager
def writer_lock(path, what: str = "gops writer"):
    """:func:`acquire_lock` for the length of a ``with`` block (nothing for streams and URLs)."""
    token = None if url_scheme(path) or stream_target(path) else acquire_lock(path, what)
    try:
        yield
    finally:
        release_lock(token)


def stream_target(path) -> bool:
    """Whether writing ``path`` means streaming into it: ``-`` (standard output), an existing FIFO or
    character device. Only regular files are replaced by rename."""
    path = os.fspath(path)
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _open_stream(path, name):
    """A binary file object writing into the stream target ``path``, opened without waiting forever."""
    import sys
    if path == "-":
        sys.stdout.flush()
        return os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    try:
        # O_NONBLOCK: a FIFO nobody reads fails now (ENXIO) instead of blocking the open forever
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        reason = "no process is reading it; start the reader first" if exc.errno == errno.ENXIO else exc.strerror
        raise ValueError(f"cannot write {name + ' ' if name else ''}{path}: {reason}") from None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


def _new_temp(folder):
    """Create and lock a fresh ``.gops-*.tmp`` in ``folder``: ``(fd, path)``."""
    import tempfile
    # the command line's signal handler does not raise inside this function (cli/signals.py
    # defers it a moment): an interrupt between the file's creation and the caller's cleanup
    # would leave an empty temporary file behind
    while True:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            # a cleaner may have taken it for stale between its creation and our lock: then make another
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(tmp))
            except OSError:
                same = False
            if same:
                os.fchmod(fd, file_mode())  # mkstemp makes 0600; a saved solution is meant to be shared
                return fd, tmp
        except BaseException:
            _unlink(tmp)
            os.close(fd)
            raise
        os.close(fd)


def clean_stale_temps(folder) -> list:
    """Remove ``.gops-*.tmp`` files in ``folder`` that no running writer holds.

    Returns
    -------
    list of str
        The paths removed (each also reported by :func:`notify`).
    """
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)):
            continue
        p = os.path.join(folder, name)
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it
            size = os.fstat(fd).st_size
            os.unlink(p)
            removed.append(p)
            notify(f"removed {p} ({size / 1e6:.1f} MB), a temporary file left by an interrupted write")
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def atomic_write(path, parts, check=None, prepare: bool = True, sync: bool = True,
                 fix: str = "free space or choose a writable location", name: str = "", lock=None,
                 stdout: bool = False) -> int:
    """Write ``path`` from ``parts`` so that it is always either the old file or the whole new one.

    The data go to a locked temporary file beside ``path``, are flushed to
    disk (``fsync``), checked by ``check(temporary path)`` when given, and
    only then renamed over ``path``; the folder is synced so the rename
    survives a crash. On any failure (a full disk, a signal) the temporary
    file is removed and ``path`` is untouched.

    Parameters
    ----------
    path : path-like
        A regular file (replaced by rename), or a stream target
        (:func:`stream_target`: an existing FIFO or character device, ``-``
        with ``stdout``), written in place without a read-back check.
    parts : iterable of bytes or ndarray, or callable
        The data, or ``parts(binary file object)`` writing it.
    check : callable, optional
        Raises ``ValueError`` if the written temporary file is not right.
    prepare : bool
        First check the path (:func:`check_out_path`) and remove stale
        temporary files beside it. Writers that share a folder (the blocks
        of a store, written by many workers) check and clean once, up front.
    sync : bool
        Flush the file and its folder to disk. Block stores skip it per block
        (each block carries its own checksum, so one lost in a power cut is
        found and recomputed) and sync once before marking a solve complete.
    fix : str
        What the error message tells the user to do when the write fails.
    name : str
        What the file is, for that message (``"checkpoint"``).
    lock : bool, optional
        Hold the target's writer lock (:func:`acquire_lock`) while writing;
        default ``prepare``. A caller that holds it already passes False.
    stdout : bool
        ``-`` means standard output.

    Returns
    -------
    int
        Bytes written.

    Raises
    ------
    ValueError
        The file cannot be written (the message names it and the cause).
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if prepare:
        check_out_path(path, stdout=stdout, probe_lock=False)  # the lock is taken (or held) just below
    if stream_target(path):
        return _stream_write(path, parts, fix, name)
    token = acquire_lock(path, "gops writer", "a") if (prepare if lock is None else lock) else None
    try:
        if prepare:
            clean_stale_temps(folder)
        return _replace_write(path, folder, parts, check, sync, fix, name)
    finally:
        release_lock(token)


def _write_parts(fh, parts) -> None:
    if callable(parts):
        parts(fh)
        return
    for part in parts:
        fh.write(part if isinstance(part, bytes) else memoryview(part).cast("B"))


def _stream_write(path, parts, fix, name) -> int:
    """Write into a FIFO, a character device or standard output: in place, no rename, no read-back."""
    fh = _open_stream(path, name)
    try:
        _write_parts(fh, parts)
        fh.flush()
        return fh.tell() if fh.seekable() else -1
    except OSError as exc:
        raise ValueError(f"cannot write {name + ' ' if name else ''}{path}: {why(exc)}; {fix}") from None
    finally:
        try:
            fh.close()
        except OSError:
            pass


def _replace_write(path, folder, parts, check, sync, fix, name) -> int:
    tmp = None
    try:
        fd, tmp = _new_temp(folder)
    except OSError as exc:
        raise ValueError(f"cannot write {name + ' ' if name else ''}{path}: {why(exc)}; {fix}") from None
    except BaseException:
        if tmp is not None:
            _unlink(tmp)
        raise
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            _write_parts(fh, parts)
            fh.flush()
            size = fh.tell()
            if sync:
                os.fsync(fh.fileno())
        if check is not None:
            check(tmp)
        os.replace(tmp, path)
        if sync:
            _sync_folder(folder)
        return size
    except OSError as exc:
        _unlink(tmp)
        raise ValueError(f"cannot write {name + ' ' if name else ''}{path}: {why(exc)}; {fix}") from None
    except BaseException:
        _unlink(tmp)
        raise
    finally:
        os.close(fd)


def _sync_folder(folder) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def why(exc: OSError) -> str:
    """The cause of a failed write in words (numpy's short writes carry no errno)."""
    return exc.strerror or f"the write was cut short ({exc}): the disk is full or a file size limit was reached"


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class FileKind(NamedTuple):
    """One kind of solution in the container; the layout and its checks are shared.

    Classic solutions and matches (this module), variants
    (:mod:`~gops_solver.variants.solution`) and 3-4 players
    (:mod:`~gops_solver.multi.storage`) are all written as the container
    (``MAGIC | header length | JSON header | header CRC-32 | zero padding to
    4096 | tables``) with their ``kind`` in the header.
    """

    #: the header kinds this reader takes (:data:`CONTAINER_KINDS`)
    kinds: tuple
    #: how messages call such a file ("gops solution file")
    what: str
    #: the command that writes one ("gops solve --out")
    writer: str
    #: ``(magic, format)`` of the layout before the container, still read
    legacy: tuple = ()
    #: ``(magic, message)`` of an older format this gops no longer reads
    old: tuple = ()
    #: what one table holds, for messages ("level": table k is level k)
    table: str = "level"

    @property
    def magic(self) -> bytes:
        return MAGIC

    @property
    def version(self) -> int:
        return FORMAT_VERSION


SOLUTION = FileKind(("classic", "match"), "gops solution file", "gops solve --out", (_V2_MAGIC, 2),
                    (_OLD_MAGIC, f"has format 1 (written by gops 0.1 without a header checksum); this gops reads "
                                 f"format {FORMAT_VERSION}"))


#: the manifest of a block store (a folder of blocks): the container with no tables
STORE = FileKind(("store",), "gops block store manifest", "gops solve --out FOLDER --memory 4GB", table="block")


def header_bytes(header: dict, kind: FileKind = SOLUTION, magic: bytes = MAGIC) -> bytes:
    """MAGIC, length, JSON header and its CRC-32, padded to the table alignment.

    ``kind`` is kept for the callers' symmetry with :func:`read_header`; the
    header itself names the kind (``header["kind"]``). ``magic``: another
    format's (tests write the older formats with it).
    """
    blob = json.dumps(header, allow_nan=False).encode()
    head = magic + len(blob).to_bytes(8, "little") + blob
    head += zlib.crc32(head).to_bytes(4, "little")
    return head + b"\0" * (-len(head) % _ALIGN)


def table_parts(head: bytes, tables):
    """The bytes of a table file: its header, then each table flattened, in slices of at most ``_STEP`` entries."""
    yield head
    for t in tables:
        # reshape keeps a np.memmap a memmap (np.asarray would not), so _pieces can unmap its slices
        flat = t.reshape(-1) if isinstance(t, np.ndarray) else np.asarray(t).reshape(-1)
        yield from _pieces(flat, flat.dtype.newbyteorder("<"))


def has_magic(path, kind: FileKind) -> bool:
    """True when ``path`` is a regular file that starts with ``kind``'s magic (this format or an older one).

    Anything else (a FIFO, a device, a folder) is left to the classic loader,
    which refuses it in one line: opening a FIFO here would wait for a writer.
    """
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as fh:
            magic = fh.read(len(MAGIC))
            if magic == MAGIC:
                return _peek_kind(fh) in kind.kinds
            return magic in (*kind.legacy[:1], *kind.old[:1])
    except OSError:
        return False


#: the magics before the container, by the kind of solution they hold
_LEGACY_KINDS = {_V2_MAGIC: "classic", _OLD_MAGIC: "classic", b"GOPSVAR\x02": "variant",
                 b"GOPSVAR\x01": "variant", b"GOPSMUL\x01": "multi"}


def _peek_kind(fh):
    """The ``kind`` a container's header names (the file positioned after the magic); None if unreadable.

    The header is not checked here: the loader of that kind reads it again
    and refuses damage in one line.
    """
    raw = fh.read(8)
    size = int.from_bytes(raw, "little")
    if len(raw) < 8 or size > _MAX_HEADER:
        return None
    try:
        header = json.loads(fh.read(size).decode())
        return header.get("kind") if isinstance(header, dict) else None
    except (ValueError, UnicodeDecodeError):
        return None


def container_kind(path):
    """The kind of solution a file holds: ``classic``, ``match``, ``variant``, ``multi``, ``store``, ``top``, or None.

    Reads only the magic and the header (files before the container: the
    magic alone, and ``classic`` for a classic file or match). None for
    anything that is not a regular file starting like a solution file.
    """
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as fh:
            magic = fh.read(len(MAGIC))
            if magic == MAGIC:
                kind = _peek_kind(fh)
                return kind if kind in CONTAINER_KINDS else None
            return _LEGACY_KINDS.get(magic)
    except OSError:
        return None


@contextlib.contextmanager
def open_table_file(path, name):
    """Open ``path`` for reading, refusing in one line what is missing or not a regular file.

    Yields ``(fh, size in bytes)``.
    """
    refuse_url(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; we refuse it just below
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ValueError(f"cannot read solution {name}: {exc.strerror}; give the file written by gops solve --out") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)  # a folder opens too, but os.fdopen refuses it with IsADirectoryError
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise ValueError(f"cannot read solution {name}: it is {kind}; give the file written by gops solve --out")
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        try:
            yield fh, os.fstat(fd).st_size
        except OSError as exc:  # a special file that claims to be regular (/proc/self/mem): EIO on read
            raise ValueError(f"cannot read solution {name}: {exc.strerror or exc}; give the file written by "
                             f"gops solve --out") from None


def _classic_tables(header) -> None:
    for t in header["tables"]:
        if not (isinstance(t["size"], int) and isinstance(t["crc32"], int) and t["size"] >= 0):
            raise TypeError


def store_manifest_bytes(manifest: dict) -> bytes:
    """The manifest file of a block store: the container's header (``kind`` ``store``) and no table.

    ``manifest`` holds ``rules`` (``Rules.to_dict``), ``nsets`` and
    ``block_len`` per level and the store's own ``store_format``; the header
    adds ``kind`` and the container ``format``.
    """
    return header_bytes({**manifest, "kind": "store", "format": FORMAT_VERSION}, STORE)


def _store_fields(header) -> None:
    if not (isinstance(header["rules"], dict) and isinstance(header["store_format"], int)):
        raise TypeError
    for key in ("nsets", "block_len"):
        if not (isinstance(header[key], list) and all(isinstance(x, int) and x >= 0 for x in header[key])):
            raise TypeError


def read_store_manifest(raw: bytes, name) -> dict:
    """The header of a block store's manifest file from its bytes; ValueError naming ``name`` if damaged."""
    fh = io.BytesIO(raw)
    header, start = read_header(fh, name, STORE, validate=_store_fields)
    if len(raw) != start:
        raise ValueError(f"{name} is corrupted (unexpected length): solve again with {STORE.writer} --restart")
    return header


def read_header(fh, name, kind: FileKind = SOLUTION, validate=_classic_tables) -> tuple:
    """``(header, start of the first table)`` of an open table file; ValueError naming ``name`` if damaged.

    ``validate(header)`` raises ``ValueError``, ``KeyError`` or ``TypeError``
    when fields the caller needs are missing or of the wrong type.
    """
    again = f"solve again with {kind.writer}"
    magic = fh.read(len(MAGIC))
    if kind.old and magic == kind.old[0]:
        raise ValueError(f"{name} {kind.old[1]}: {again}")
    legacy = bool(kind.legacy) and magic == kind.legacy[0]
    if magic != MAGIC and not legacy:
        raise ValueError(f"{name} is not a {kind.what}: write one with {kind.writer}")
    raw_size = fh.read(8)
    size = int.from_bytes(raw_size, "little")
    if len(raw_size) < 8 or size > _MAX_HEADER:
        raise ValueError(f"{name} is corrupted (header length {size} is impossible): {again}")
    blob = fh.read(size)
    stored = fh.read(4)
    if len(blob) < size or len(stored) < 4:
        raise ValueError(f"{name} is truncated (in its header): {again}")
    if zlib.crc32(magic + raw_size + blob) != int.from_bytes(stored, "little"):
        raise ValueError(f"{name} is corrupted (header checksum fails): {again}")
    try:
        header = json.loads(blob.decode())
        if not isinstance(header, dict):
            raise TypeError
        store = not legacy and header.get("kind") == "store" and "store" not in kind.kinds
        if not store:
            validate(header)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        # the checksum passed: a writer produced this, a bug rather than damage
        raise ValueError(f"{name} has an unreadable header ({type(exc).__name__}): solve again") from None
    if store:
        raise ValueError(f"{name} is the manifest of a block store: give the folder that holds it")
    want = kind.legacy[1] if legacy else FORMAT_VERSION
    if header.get("format") != want:
        raise ValueError(f"{name} has format {header.get('format')}, this gops reads format {want}: "
                         f"solve again")
    if not legacy and header.get("kind") not in kind.kinds:
        raise ValueError(f"{name} holds a {header.get('kind')} solution, not a {kind.what}: open it with "
                         f"gops_solver.load")
    start = len(magic) + 8 + size + 4
    pad = -start % _ALIGN
    padding = fh.read(pad)
    if len(padding) < pad:
        raise ValueError(f"{name} is truncated (before its first table): {again}")
    if padding.count(0) != pad:
        raise ValueError(f"{name} is corrupted (nonzero bytes between header and tables): solve again")
    return header, start + pad


def map_tables(path, name, start: int, actual: int, specs, check: bool, kind: FileKind = SOLUTION) -> list:
    """Map the tables of a table file read-only, after checking its length; each checksum when ``check``.

    ``specs`` lists ``(shape, dtype, crc32)`` of each table in file order.
    """
    total = start + sum(int(np.prod(shape)) * np.dtype(dt).itemsize for shape, dt, _ in specs)
    if actual < total:
        raise ValueError(f"{name} is truncated ({actual:,} of {total:,} bytes): solve again with {kind.writer}")
    if actual > total:
        raise ValueError(f"{name} is corrupted (unexpected length): solve again")
    tables, offset = [], start
    for k, (shape, dt, crc) in enumerate(specs):
        dt = np.dtype(dt).newbyteorder("<")
        count = int(np.prod(shape))
        a = np.memmap(path, dtype=dt, mode="r", offset=offset, shape=shape) if count else np.zeros(shape, dt)
        if check and _raw_crc32(a.reshape(-1)) != crc:
            raise ValueError(f"{name} is corrupted (checksum of {kind.table} {k} fails): solve again")
        tables.append(a)
        offset += count * dt.itemsize
    return tables


def write_solution(path, rules, tables, stage_games, seconds, stage_solver, states, expected_crcs=None,
                   seconds_this_run=None, extra=None, lock: bool = True) -> None:
    """Write a solution file atomically from level tables (arrays or mapped files).

    Parameters
    ----------
    expected_crcs : list of int or None, optional
        The checksum each table had when it was computed (a checkpoint's):
        a table that reads differently now is refused, not written.
    seconds_this_run : float, optional
        Time of the run that writes the file, when it resumed an earlier one
        (``seconds`` is the total of all runs).
    extra : dict, optional
        More header fields (a match's games: ``match_games``).
    lock : bool
        Take the target's writer lock (False: the caller, a solve, holds it).

    Raises
    ------
    ValueError
        The path cannot be written, a table changed since it was computed, or
        the written file does not read back identically.
    """
    path = os.fspath(path)
    crcs = []
    for k, t in enumerate(tables):
        c = crc32(t)
        if expected_crcs is not None and expected_crcs[k] is not None and c != expected_crcs[k]:
            raise ValueError(f"checkpoint of level {k} changed after it was written (checksum fails); {path} "
                             f"was not touched: rerun with --resume to recompute it")
        crcs.append(c)
    header = {"format": FORMAT_VERSION, "kind": "match" if extra and "match_games" in extra else "classic",
              "package_version": __version__, "rules": rules.to_dict(), "stage_games": int(stage_games), "seconds": float(seconds), "stage_solver": stage_solver,
              "states": int(states), "tables": [{"size": int(len(t)), "crc32": c} for t, c in zip(tables, crcs)]}
    if seconds_this_run is not None:
        header["seconds_this_run"] = float(seconds_this_run)
    header.update(extra or {})
    head = header_bytes(header)

    def check(tmp):
        got, _ = read_solution(tmp, check=True, name=path)
        if [t["crc32"] for t in got["tables"]] != crcs:
            raise ValueError(f"{path} was not written: the new file did not read back as written")

    atomic_write(path, table_parts(head, tables), check, lock=lock)


def read_solution(path, check: bool = True, name=None) -> tuple:
    """The header and the tables (mapped, not read) of a solution file.

    Parameters
    ----------
    path : path-like
    check : bool
        Verify every table's checksum (reads the whole file once).
    name : str, optional
        How messages name the file (default: ``path``).

    Returns
    -------
    header : dict
    tables : list of ndarray
        Read-only, mapped from the file.

    Raises
    ------
    ValueError
        Missing, not a regular file, truncated or corrupted.
    """
    path = os.fspath(path)
    name = name or path
    with open_table_file(path, name) as (fh, actual):
        header, start = read_header(fh, name)
    specs = [((t["size"],), "<f8", t["crc32"]) for t in header["tables"]]
    return header, map_tables(path, name, start, actual, specs, check)
