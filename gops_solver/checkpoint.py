"""Checkpoints of a long solve: one file per finished level, written atomically.

They live in ``OUT.ckpt/`` beside the solution file ``OUT``; ``gops solve
--resume`` reloads the finished levels and continues with the next one.
Induction is deterministic, so a resumed solve gives identical tables.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

import numpy as np

from . import __version__
from .induction import level0_table


def check_out_path(path) -> None:
    """Fail early, before a long solve, if ``path`` cannot be written.

    Raises
    ------
    ValueError
        The path is a folder, its folder is missing, or not writable.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path}: it is a folder; give a file name")
    if not os.path.isdir(folder):
        raise ValueError(f"cannot write {path}: folder {folder} does not exist; create it or choose another path")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write {path}: folder {folder} is not writable; choose another path")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"cannot write {path}: the file is read-only; choose another path")


class Checkpointer:
    """Per-level checkpoints of one solve in ``OUT.ckpt/``.

    Parameters
    ----------
    out : path-like
        The solution file the solve will write.
    rules : Rules
    """

    def __init__(self, out, rules):
        self.dir = os.fspath(out) + ".ckpt"
        self.rules = rules
        self._lock = None

    def lock(self) -> None:
        """Claim the checkpoints for this process (released when it exits).

        Raises
        ------
        ValueError
            Another solve is writing the same output.
        """
        import fcntl
        os.makedirs(self.dir, exist_ok=True)
        fh = open(os.path.join(self.dir, "lock"), "w")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            raise ValueError(f"another gops solve is writing {self.dir[:-5]}: wait for it to finish "
                             f"or choose another --out") from None
        self._lock = fh

    def _meta(self) -> dict:
        return {"rules": self.rules.to_dict(), "package_version": __version__}

    def start(self) -> None:
        """Begin a fresh solve: drop any older checkpoints of this output."""
        for name in os.listdir(self.dir):
            if name != "lock":
                os.unlink(os.path.join(self.dir, name))
        self._write(os.path.join(self.dir, "meta.json"), json.dumps(self._meta()).encode())

    def save_level(self, k: int, table, stats: dict) -> None:
        """Write level ``k`` and its counts (games, states) atomically."""
        fd, tmp = tempfile.mkstemp(prefix=".level-", suffix=".npy", dir=self.dir)
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, table)
        os.replace(tmp, self._level(k))
        self._write(self._level(k)[:-4] + ".json", json.dumps(stats).encode())

    def _level(self, k: int) -> str:
        return os.path.join(self.dir, f"level_{k:02d}.npy")

    def load(self, space):
        """The finished levels, for a resumed solve.

        Returns
        -------
        start : list
            ``[level 0, None, ..., None, last finished level]`` (only the last
            is read by the induction), or ``[]`` when nothing is finished.
        stats : dict
            Level -> its recorded counts.

        Raises
        ------
        ValueError
            The checkpoints belong to other rules or another version.
        """
        meta_path = os.path.join(self.dir, "meta.json")
        if not os.path.exists(meta_path):
            return [], {}
        with open(meta_path) as fh:
            meta = json.load(fh)
        if meta != self._meta():
            raise ValueError(f"checkpoints in {self.dir} are for {meta.get('rules')}, not {self.rules.to_dict()}: "
                             f"drop --resume to start afresh")
        last, stats = 0, {}
        for k in range(1, space.kmax + 1):
            if not (os.path.exists(self._level(k)) and os.path.exists(self._level(k)[:-4] + ".json")):
                break
            with open(self._level(k)[:-4] + ".json") as fh:
                stats[k] = json.load(fh)
            last = k
        if last == 0:
            return [], {}
        table = np.load(self._level(last))
        if table.shape != (space.size(last),):
            raise ValueError(f"checkpoint {self._level(last)} has the wrong size: drop --resume to start afresh")
        return [level0_table(space)] + [None] * (last - 1) + [table], stats

    def tables(self, space) -> list:
        """Every level, mapped from the checkpoint files (level 0 in memory)."""
        return [level0_table(space)] + [np.load(self._level(k), mmap_mode="r") for k in range(1, space.kmax + 1)]

    def clear(self) -> None:
        """Remove the checkpoints (after the solution is safely saved)."""
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @staticmethod
    def _write(path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
