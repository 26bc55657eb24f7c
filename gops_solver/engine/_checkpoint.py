"""Checkpoints of a long solve: one checksummed file pair per finished level.

They live in ``OUT.ckpt/`` beside the solution file ``OUT``; ``gops solve
--resume`` reloads the finished levels and continues with the next one.
Induction is deterministic, so a resumed solve gives identical tables.

Files the solver writes there, and the only ones it ever removes:
``lock`` (held with ``flock`` by the solving process), ``meta.json`` (the
rules), ``level_KK.npy`` (a level's table) with ``level_KK.json`` (its size,
CRC-32, stage games, states and seconds), and ``.gops-*.tmp`` while writing.
Every JSON file carries a CRC-32 of its own content; every table's CRC-32
is computed from memory when the level is finished, checked when a resumed
solve reads it, and checked again while the solution file is written.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import re
import zlib

import numpy as np

from gops_solver import __version__
from gops_solver.engine.induction import level0_table
from gops_solver.engine.storage import (TEMP_PREFIX, TEMP_SUFFIX, _unlink, acquire_lock, atomic_write, crc32, notify,
                                       read_regular, release_lock, require_regular)

_OURS = re.compile(r"^(lock|meta\.json|level_\d\d\.(npy|json)|" + re.escape(TEMP_PREFIX) + r".*"
                   + re.escape(TEMP_SUFFIX) + r")$")


def dumps_checked(data: dict) -> bytes:
    """JSON of ``data`` with a CRC-32 of its canonical form, as ``{"data": ..., "crc32": ...}``."""
    body = json.dumps(data, sort_keys=True, allow_nan=False)
    return json.dumps({"data": data, "crc32": zlib.crc32(body.encode())}, sort_keys=True).encode()


def loads_checked(raw: bytes) -> dict:
    """Inverse of :func:`dumps_checked`; ValueError when the checksum or the JSON fails."""
    try:
        obj = json.loads(raw.decode())
        data, crc = obj["data"], obj["crc32"]
        body = json.dumps(data, sort_keys=True, allow_nan=False)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValueError("unreadable") from None
    if zlib.crc32(body.encode()) != crc:
        raise ValueError("checksum fails")
    return data


class Checkpointer:
    """Per-level checkpoints of one solve in ``OUT.ckpt/``.

    Parameters
    ----------
    out : path-like
        The solution file the solve will write.
    rules : Rules
    """

    def __init__(self, out, rules):
        self.out = os.fspath(out)
        self.dir = self.out + ".ckpt"
        self.rules = rules
        self._lock = None
        self._out_lock = None
        self._made_dir = False

    # -- the lock ---------------------------------------------------------------
    def lock(self) -> None:
        """Claim the checkpoints for this process (released by :meth:`release` or when it exits).

        Raises
        ------
        ValueError
            Another solve is writing the same output, or the folder cannot be made.
        """
        # the output's own writer lock first (:func:`~.storage.acquire_lock`): any other writer of
        # ``out`` (a save, an export, a 3-4 player solve) refuses while this solve runs
        self._out_lock = acquire_lock(self.out, "gops solve")
        try:
            self._lock_folder()
        except BaseException:
            release_lock(self._out_lock)
            self._out_lock = None
            raise

    def _lock_folder(self) -> None:
        try:
            if not os.path.isdir(self.dir):
                os.mkdir(self.dir)
                self._made_dir = True
            self._made_lock = not os.path.lexists(os.path.join(self.dir, "lock"))
            fd = os.open(os.path.join(self.dir, "lock"), os.O_WRONLY | os.O_CREAT, 0o666)
        except OSError as exc:
            raise ValueError(f"cannot make the checkpoint folder {self.dir}: {exc.strerror}; "
                             f"choose another --out") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # the solve before us may have removed the lock file after we opened it: lock the current one
            if not os.path.samestat(os.fstat(fd), os.stat(os.path.join(self.dir, "lock"))):
                raise OSError
        except OSError:
            os.close(fd)
            raise ValueError(f"another gops solve is writing {self.out}: wait for it to finish "
                             f"or choose another --out") from None
        self._lock = fd

    def release(self) -> None:
        """Give up the lock; remove the folder if this solve made it and left nothing in it."""
        if self._lock is not None:
            if self._made_dir and set(os.listdir(self.dir)) <= {"lock"}:
                _unlink(os.path.join(self.dir, "lock"))
                _rmdir(self.dir)
            elif getattr(self, "_made_lock", False) and not self.levels_present():
                _unlink(os.path.join(self.dir, "lock"))  # a refused start leaves the folder as it found it
            os.close(self._lock)
            self._lock = None
        release_lock(self._out_lock)
        self._out_lock = None

    @staticmethod
    @contextlib.contextmanager
    def guard(out):
        """Hold ``out``'s solve lock, when it has a checkpoint folder, for a write from elsewhere.

        Raises
        ------
        ValueError
            A solve is writing ``out`` now.
        """
        lock = os.path.join(os.fspath(out) + ".ckpt", "lock")
        try:
            fd = os.open(lock, os.O_RDONLY)
        except OSError:
            yield  # no solve has checkpoints here
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise ValueError(f"a gops solve is writing {os.fspath(out)} now: wait for it to finish "
                                 f"or save elsewhere") from None
            yield
        finally:
            os.close(fd)

    # -- writing ------------------------------------------------------------------
    def _meta(self) -> dict:
        return {"rules": self.rules.to_dict(), "package_version": __version__}

    def levels_present(self) -> list:
        """Levels with a checkpoint file (checked or not), ascending."""
        if not os.path.isdir(self.dir):
            return []
        return sorted({int(m.group(1)) for m in (re.match(r"^level_(\d\d)\.(npy|json)$", f)
                                                  for f in os.listdir(self.dir)) if m})

    def start(self) -> None:
        """Begin a fresh solve: remove this solver's older files (only those) and write the rules.

        Raises
        ------
        ValueError
            The folder holds a file of a checkpoint's name that the solver did not write: it is
            neither removed nor overwritten.
        """
        others = self.foreign()
        if others:
            raise ValueError(f"{self.dir} holds {', '.join(others[:3])}, which gops did not write: move "
                             f"{'it' if len(others) == 1 else 'them'} out of the checkpoint folder or choose "
                             f"another --out")
        self._remove_ours(keep_lock=True)
        self._write(os.path.join(self.dir, "meta.json"), [dumps_checked(self._meta())])

    def clean_temps(self) -> None:
        """Remove temporary files of killed writes (this process holds the lock: none is live)."""
        for name in os.listdir(self.dir):
            if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                _unlink(os.path.join(self.dir, name))
                notify(f"removed {os.path.join(self.dir, name)}, a temporary file left by an interrupted write")

    def save_level(self, k: int, table, stats: dict) -> int:
        """Write level ``k`` and its counts atomically, each with a checksum; returns the table's CRC-32."""
        table = np.ascontiguousarray(table, dtype="<f8")
        crc = crc32(table)
        head = io.BytesIO()  # the .npy header, so np.load reads the level back
        np.lib.format.write_array_header_1_0(head, np.lib.format.header_data_from_array_1_0(table))
        self._write(self._level(k), [head.getvalue(), table])
        self._write(self._level(k)[:-4] + ".json",
                    [dumps_checked({"level": k, "size": int(len(table)), "crc32": crc, **stats})])
        return crc

    def _level(self, k: int) -> str:
        return os.path.join(self.dir, f"level_{k:02d}.npy")

    def _write(self, path, parts) -> None:
        # this process holds the lock, so the folder was checked and cleaned once (clean_temps)
        atomic_write(path, parts, prepare=False, fix="free space and rerun with --resume", name="checkpoint")

    # -- reading ------------------------------------------------------------------
    def load(self, space):
        """The finished levels that pass their checks, for a resumed solve.

        Levels are read in order and each is checked (JSON checksum, size,
        table checksum). The first that fails is reported in one line and
        removed with every level above it: the solve recomputes them.

        Returns
        -------
        start : list
            ``[level 0, None, ..., None, last good level]`` (only the last
            is read by the induction), or ``[]`` when nothing is finished.
        stats : dict
            Level -> its recorded counts (games, states, seconds, crc32).

        Raises
        ------
        ValueError
            The checkpoints belong to other rules or another version, or
            ``meta.json`` is damaged.
        """
        meta_path = os.path.join(self.dir, "meta.json")
        if not os.path.lexists(meta_path):
            return [], {}
        try:
            meta = loads_checked(read_regular(meta_path, "checkpoint"))
            if not isinstance(meta, dict):
                raise ValueError(f"a JSON {type(meta).__name__}, not an object")
        except (ValueError, FileNotFoundError) as exc:
            raise ValueError(f"checkpoint {meta_path} is damaged ({exc}): rerun with --restart to start afresh") from None
        if meta != self._meta():
            raise ValueError(f"checkpoints in {self.dir} are for {meta.get('rules')} (gops "
                             f"{meta.get('package_version')}), not {self.rules.to_dict()} (gops {__version__}): "
                             f"rerun with --restart to start afresh, or choose another --out")
        last, stats, table = 0, {}, None
        for k in range(1, space.kmax + 1):
            npy, js = self._level(k), self._level(k)[:-4] + ".json"
            if not (os.path.exists(npy) or os.path.exists(js)):
                break
            why = None
            try:
                st = loads_checked(read_regular(js, "checkpoint"))
                if not isinstance(st, dict):
                    raise ValueError(f"a JSON {type(st).__name__}, not an object")
                require_regular(npy, "checkpoint")  # np.load of a FIFO would wait for a writer forever
                t = np.load(npy, mmap_mode="r", allow_pickle=False)
                if st.get("level") != k or st.get("size") != space.size(k):
                    why = "wrong level or size"
                elif t.shape != (space.size(k),) or t.dtype != np.float64:
                    why = f"table of shape {t.shape} and type {t.dtype}, not ({space.size(k)},) float64"
                elif crc32(t) != st["crc32"]:
                    why = "checksum fails"
            except FileNotFoundError:
                why = "a file is missing"
            except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
                why = str(exc) or type(exc).__name__
            if why is not None:
                self._drop_from(k)
                notify(f"checkpoint of level {k} in {self.dir} is damaged ({why}): recomputing levels {k} "
                       f"to {space.kmax}")
                break
            stats[k], table, last = st, t, k
        if last == 0:
            return [], stats
        return [level0_table(space)] + [None] * (last - 1) + [np.array(table)], stats

    def _drop_from(self, k: int) -> None:
        for j in self.levels_present():
            if j >= k:
                for ext in (".npy", ".json"):
                    _unlink(self._level(j)[:-4] + ext)

    def tables(self, space) -> list:
        """Every level, mapped from the checkpoint files (level 0 in memory)."""
        return [level0_table(space)] + [np.load(self._level(k), mmap_mode="r", allow_pickle=False)
                                        for k in range(1, space.kmax + 1)]

    # -- removal ------------------------------------------------------------------
    def _recognised(self, name) -> bool:
        """Whether ``name`` in the folder is a file this solver wrote: its name and its content say so.

        A user's ``meta.json`` (any file of a solver's name that does not read as one) is not.
        """
        path = os.path.join(self.dir, name)
        if not _OURS.match(name) or os.path.islink(path) or not os.path.isfile(path):
            return False
        if name == "lock":
            return os.path.getsize(path) == 0
        if name.startswith(TEMP_PREFIX):
            return True
        try:
            raw = read_regular(path, "checkpoint", -1 if name.endswith(".json") else 6)
        except (OSError, ValueError):
            return False
        if name.endswith(".npy"):
            return raw == b"\x93NUMPY"
        try:
            data = loads_checked(raw)
        except ValueError:
            return False
        return isinstance(data, dict) and ("level" in data if name.startswith("level_") else "rules" in data)

    def foreign(self) -> list:
        """Files of a solver's name in the folder that this solver did not write (see :meth:`_recognised`)."""
        if not os.path.isdir(self.dir):
            return []
        return sorted(n for n in os.listdir(self.dir) if _OURS.match(n) and n != "lock"
                      and not n.startswith(TEMP_PREFIX) and not self._recognised(n))

    def _remove_ours(self, keep_lock: bool) -> None:
        for name in os.listdir(self.dir):
            if not (keep_lock and name == "lock") and self._recognised(name):
                _unlink(os.path.join(self.dir, name))

    def clear(self) -> None:
        """Remove the solver's checkpoint files (after the solution is safely saved) and release the lock.

        Anything else in the folder is left where it is, and then so is the folder.
        """
        if os.path.isdir(self.dir):
            self._remove_ours(keep_lock=True)
            # the lock goes last (a solve that opened it before the unlink finds it gone and stops)
            _unlink(os.path.join(self.dir, "lock"))
            others = set(os.listdir(self.dir))
            if not others:
                _rmdir(self.dir)
            else:
                notify(f"left {self.dir}: it holds files gops did not write ({', '.join(sorted(others)[:3])})")
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        release_lock(self._out_lock)
        self._out_lock = None


def _rmdir(path):
    try:
        os.rmdir(path)
    except OSError:
        pass
