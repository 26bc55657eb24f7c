"""A solution stored as prize-set blocks: one checksummed file per block.

Under a random order the value table of level ``k`` for the hidden prize
set ``s`` depends only on the level ``k - 1`` tables of the sets
``s - {p}``, ``p`` in ``s`` (:mod:`~.induction`). A *block* is that table:
every stored hand pattern of level ``k``, indexed ``(carry, diff)``, for one
prize set (under a fixed order each level has one set, so one block). Blocks
are solved independently (:mod:`~.blocked`), by one process or by Dask
workers, and read one at a time by queries and ``verify``.

Store layout (a folder, or an fsspec URL all workers reach)::

    manifest.gops          the container's header (kind "store"): rules, format, block counts and lengths
    L03/00017.blk          level 3, prize set of rank 17 (set_rank order)
    complete.json          written last: stage games, seconds, states

A block file is ``MAGIC``, a fixed header (level, set rank, length, stage
games, seconds, CRC-32 of the data, codec, stored length, CRC-32 of what is
stored) with its own CRC-32, then the little-endian float64 data, compressed
losslessly with zstd (level 1: ``benchmarks/block_codec.py`` measured it
against zlib and Blosc2 on real blocks). The stored bytes' checksum is
checked before they are decompressed and the data's after, so a damaged
block is never read as data. Files of the format before (``GOPSBLK1``: raw
data, no codec) are still read. It is written to a temporary file and renamed
(:func:`~.storage.atomic_write`), so a killed writer leaves no partial block.
Blocks are not synced one by one: one lost or torn in a power cut fails its
checksum and is recomputed on ``--resume``; the whole store is synced before
``complete.json`` is written.

The manifest is the solution files' container (:mod:`~.storage`) with no
table: its checksummed header names the kind ``store``, the rules and the
format. Stores whose manifest is the plain ``manifest.json`` of the format
before are still read, and ``gops solve --resume`` on one rewrites its
manifest as the container.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from dataclasses import dataclass

import numpy as np

from gops_solver.engine.storage import (TEMP_PREFIX, TEMP_SUFFIX, atomic_write, clean_stale_temps, notify, read_regular,
                                       read_store_manifest, store_manifest_bytes, url_scheme)

MAGIC = b"GOPSBLK2"
#: blocks of the format before: raw float64 data after the header (read still)
MAGIC_V1 = b"GOPSBLK1"
#: store format 2 writes compressed blocks; a store of format 1 (raw blocks) is read and resumed
STORE_FORMAT = 2
READ_FORMATS = (1, 2)
_HEAD_V1 = struct.Struct("<IIQQdI")  # level, rank, entries, stage games, seconds, data crc32
# ... then codec, stored bytes, stored crc32
_HEAD = struct.Struct("<IIQQdIIQI")
#: codecs of a block's data: stored as is, or zstd (level ZSTD_LEVEL)
RAW, ZSTD = 0, 1
ZSTD_LEVEL = 1
MANIFEST, COMPLETE = "manifest.gops", "complete.json"
#: the plain JSON manifest of the store format before the container (read still)
LEGACY_MANIFEST = "manifest.json"


def is_url(root) -> bool:
    """True for an fsspec URL (``s3://...``, ``file://...``), False for a local path."""
    return url_scheme(root) is not None


def is_store(path) -> bool:
    """True when ``path`` is a block store (a folder holding ``manifest.gops`` or ``manifest.json``)."""
    path = os.fspath(path)
    if is_url(path):
        fs, p = _fsspec(path)
        return _reach(path, lambda: any(fs.exists(p.rstrip("/") + "/" + m) for m in (MANIFEST, LEGACY_MANIFEST)))
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, m)) for m in (MANIFEST, LEGACY_MANIFEST))


def _reach(url, call):
    """``call()``, with whatever the file system behind ``url`` raises (a missing driver, a network
    error, a missing archive) turned into one line."""
    try:
        return call()
    except ValueError:
        raise
    except Exception as exc:  # fsspec's drivers raise ImportError, OSError, socket and client errors
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise ValueError(f"cannot reach {url}: {reason}; give a local path, or install the fsspec driver "
                         f"of {url_scheme(url)}://") from None


def _fsspec(url):
    try:
        import fsspec
    except ImportError:
        raise ValueError(f"{url} is a URL, which needs fsspec: pip install 'gops-solver[dask]'") from None
    return _reach(url, lambda: fsspec.core.url_to_fs(url))


def _zstd():
    import zstandard
    return zstandard


def block_bytes(data: np.ndarray, k: int, rank: int, games: int = 0, seconds: float = 0.0) -> bytes:
    """The file contents of one block, its data compressed (see module docstring)."""
    data = np.ascontiguousarray(data, dtype="<f8")
    raw = memoryview(data).cast("B")
    body = _zstd().ZstdCompressor(level=ZSTD_LEVEL).compress(raw)
    head = _HEAD.pack(k, rank, len(data), int(games), float(seconds), zlib.crc32(raw), ZSTD, len(body),
                      zlib.crc32(body))
    return MAGIC + head + zlib.crc32(MAGIC + head).to_bytes(4, "little") + body


def block_overhead(magic: bytes = MAGIC) -> int:
    """Bytes a block file holds besides its (stored) data: magic and header."""
    return len(magic) + (_HEAD if magic == MAGIC else _HEAD_V1).size + 4


def _parse_head(head: bytes, k: int, rank: int, length: int, name: str) -> tuple:
    """``(entries, stage games, seconds, data crc32, codec, stored bytes, stored crc32, header bytes)``
    of a block file's header, checked against ``(k, rank, length)``."""
    magic = head[:len(MAGIC)]
    if magic not in (MAGIC, MAGIC_V1):
        raise ValueError(f"{name} is not a gops block (bad magic or truncated header)")
    fmt = _HEAD if magic == MAGIC else _HEAD_V1
    hl = len(MAGIC) + fmt.size
    if len(head) < hl + 4:
        raise ValueError(f"{name} is not a gops block (bad magic or truncated header)")
    if zlib.crc32(head[:hl]) != int.from_bytes(head[hl:hl + 4], "little"):
        raise ValueError(f"{name} is corrupted (block header checksum fails)")
    fields = fmt.unpack(head[len(MAGIC):hl])
    kk, rr, n, games, secs, crc = fields[:6]
    codec, stored, scrc = fields[6:] if magic == MAGIC else (RAW, 8 * n, crc)
    if (kk, rr, n) != (k, rank, length):
        raise ValueError(f"{name} holds level {kk} set {rr} of {n} entries, not level {k} set {rank} of {length}")
    if codec not in (RAW, ZSTD):
        raise ValueError(f"{name} is corrupted (unknown codec {codec})")
    return n, games, secs, crc, codec, stored, scrc, hl + 4


def parse_block(raw: bytes, k: int, rank: int, length: int, name: str):
    """``(data, games, seconds)`` of a block file's bytes; ValueError naming ``name`` if damaged."""
    n, games, secs, crc, codec, stored, scrc, off = _parse_head(raw, k, rank, length, name)
    body = memoryview(raw)[off:]
    if len(body) != stored:
        raise ValueError(f"{name} is truncated or too long ({len(body)} of {stored} stored bytes)")
    if zlib.crc32(body) != scrc:
        raise ValueError(f"{name} is corrupted (block data checksum fails)")
    if codec == ZSTD:
        try:
            body = _zstd().ZstdDecompressor().decompress(body, max_output_size=8 * n)
        except Exception:  # zstandard.ZstdError: undecodable despite its checksum
            raise ValueError(f"{name} is corrupted (its data does not decompress)") from None
        if len(body) != 8 * n or zlib.crc32(body) != crc:
            raise ValueError(f"{name} is corrupted (block data checksum fails after decompression)")
    return np.frombuffer(body, dtype="<f8"), int(games), float(secs)


def _check_head(head: bytes, k: int, rank: int, length: int, name: str, size: int) -> int:
    """Check a block file's header and size without reading its data; return its codec."""
    parsed = _parse_head(head, k, rank, length, name)
    if size != parsed[7] + parsed[5]:
        raise ValueError(f"{name} is truncated or too long ({size} bytes, expected {parsed[7] + parsed[5]})")
    return parsed[4]


@dataclass
class BlockStats:
    """What solving one block took."""

    k: int
    rank: int
    games: int
    seconds: float
    states: int


class BlockStore:
    """Read and write the blocks of one solution (see module docstring).

    Parameters
    ----------
    root : str or path-like
        A local folder or an fsspec URL.
    manifest : dict
        ``rules`` (``Rules.to_dict``), ``nsets[k]`` and ``block_len[k]`` per
        level, ``format``.
    """

    def __init__(self, root, manifest: dict):
        self.root = os.fspath(root).rstrip("/") if is_url(root) else os.fspath(root)
        self.manifest = manifest
        self.nsets = [int(x) for x in manifest["nsets"]]
        self.block_len = [int(x) for x in manifest["block_len"]]
        self._fs = _fsspec(self.root) if is_url(self.root) else None

    # -- paths ---------------------------------------------------------------
    def _join(self, *parts) -> str:
        if self._fs is not None:
            return "/".join([self._fs[1].rstrip("/"), *parts])
        return os.path.join(self.root, *parts)

    def level_dir(self, k: int) -> str:
        """Folder of level ``k``'s blocks."""
        return self._join(f"L{k:02d}")

    def block_path(self, k: int, rank: int) -> str:
        """File of block ``(k, rank)``."""
        return self._join(f"L{k:02d}", f"{rank:05d}.blk")

    # -- creating and opening ---------------------------------------------------
    @classmethod
    def create(cls, root, manifest: dict) -> "BlockStore":
        """Make the store folder and its manifest (an existing matching store is kept).

        The manifest is written as the container; a plain ``manifest.json``
        of the format before is removed once the container is in place.
        """
        manifest = dict(manifest, store_format=STORE_FORMAT)
        manifest.pop("format", None)
        store = cls(root, manifest)
        store._makedirs(store.root)
        for k in range(len(store.nsets)):
            store._makedirs(store.level_dir(k))
        store._put(store._join(MANIFEST), store_manifest_bytes(manifest))
        store.manifest = store._read_manifest()  # as a reader sees it: the header's kind and format included
        if store._exists(store._join(LEGACY_MANIFEST)):
            store._remove(store._join(LEGACY_MANIFEST))
        return store

    @classmethod
    def open(cls, root) -> "BlockStore":
        """Open an existing store; ValueError with the fix when it is not one."""
        root = os.fspath(root)
        if not is_store(root):
            raise ValueError(f"{root} is not a gops block store (no {MANIFEST}): write one with "
                             f"gops solve --out {root} --memory 4GB")
        store = cls(root, {"nsets": [], "block_len": []})
        manifest = store._read_manifest()
        store = cls(root, manifest)
        if len(store.block_len) != len(store.nsets):
            raise ValueError(f"{root}/{MANIFEST} is corrupted (block counts and lengths disagree): solve again "
                             f"with --restart")
        return store

    def _read_manifest(self) -> dict:
        """The manifest: the container's header, or the plain JSON of the format before; one line if damaged."""
        path = self._join(MANIFEST)
        if self._exists(path):
            try:
                raw = self._get(path)
            except FileNotFoundError:
                raw = b""
            manifest = read_store_manifest(raw, path)
            if manifest["store_format"] not in READ_FORMATS:
                raise ValueError(f"{path} has store format {manifest['store_format']}, this gops reads "
                                 f"{' and '.join(map(str, READ_FORMATS))}: solve again with --restart")
            return manifest
        path = self._join(LEGACY_MANIFEST)
        try:
            manifest = json.loads(self._get(path).decode())
            if not isinstance(manifest, dict):
                raise TypeError(f"a JSON {type(manifest).__name__}, not an object")
            if manifest.get("format") != 1:
                raise ValueError(f"format {manifest.get('format')}")
            self.__class__(self.root, manifest)  # nsets and block_len present and whole numbers
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, FileNotFoundError) as exc:
            raise ValueError(f"{path} is unreadable ({exc}): solve again with --restart") from None
        return manifest

    # -- blocks --------------------------------------------------------------
    def write_block(self, k: int, rank: int, data: np.ndarray, games: int = 0, seconds: float = 0.0) -> None:
        """Write block ``(k, rank)`` atomically (absent or whole, never half-written)."""
        if len(data) != self.block_len[k]:
            raise ValueError(f"block ({k}, {rank}) has {len(data)} entries, the store expects {self.block_len[k]}")
        # not synced one by one: a block lost in a power cut fails its checksum and is recomputed;
        # mark_complete syncs everything first
        self._put(self.block_path(k, rank), block_bytes(data, k, rank, games, seconds), sync=False)

    def read_block(self, k: int, rank: int) -> np.ndarray:
        """The data of block ``(k, rank)``, checksums verified; ValueError if missing or damaged."""
        return self.read_block_meta(k, rank)[0]

    def map_block(self, k: int, rank: int) -> np.ndarray:
        """The data of block ``(k, rank)`` mapped read-only: its header checked, its data checksum not.

        For readers that checked every block's data first (``verify --sample``)
        and then touch a few entries of many blocks: only the pages read come
        from disk. Stores behind an fsspec URL are read whole.
        """
        if self._fs is not None:
            return self.read_block(k, rank)
        path = self.block_path(k, rank)
        try:
            head = read_regular(path, "block", block_overhead())
            size = os.path.getsize(path)
        except FileNotFoundError:
            raise ValueError(f"block {path} is missing: the solve did not finish; rerun gops solve with "
                             f"--resume") from None
        try:
            codec = _check_head(head, k, rank, self.block_len[k], path, size)
        except ValueError as exc:
            raise ValueError(f"{exc}: rerun gops solve with --resume to recompute it") from None
        if codec != RAW:  # compressed: read whole, both checksums checked
            return self.read_block(k, rank)
        return np.memmap(path, dtype="<f8", mode="r", offset=block_overhead(MAGIC_V1), shape=(self.block_len[k],))

    def read_block_meta(self, k: int, rank: int):
        """``(data, stage games, seconds)`` of block ``(k, rank)``."""
        path = self.block_path(k, rank)
        try:
            raw = self._get(path)
        except FileNotFoundError:
            raise ValueError(f"block {path} is missing: the solve did not finish; rerun gops solve with "
                             f"--resume") from None
        try:
            return parse_block(raw, k, rank, self.block_len[k], path)
        except ValueError as exc:
            raise ValueError(f"{exc}: rerun gops solve with --resume to recompute it") from None

    def finished(self, k: int, measure=None) -> dict:
        """``{rank: (games, seconds, measure(data))}`` of the blocks of level ``k`` present and whole.

        A damaged block is reported (:func:`~.storage.notify`), removed and
        left out, so that the solve recomputes it. ``measure`` (None when not
        given) sees each block's data while it is read for its checksum, so a
        resumed solve reads every finished block once.
        """
        out = {}
        for rank in self.ranks(k):
            try:
                data, games, secs = self.read_block_meta(k, rank)
            except ValueError as exc:
                notify(f"{exc}".split(": rerun")[0].split("; move it away")[0] + "; recomputing it")
                self._discard(self.block_path(k, rank))
                continue
            out[rank] = (games, secs, None if measure is None else measure(data))
        return out

    def _discard(self, path) -> None:
        """Remove a damaged block so that it is recomputed; ValueError in one line where it cannot be.

        Whatever stands in a block's place goes: a file of any kind, or an
        empty folder. A folder with files in it is not the solver's to
        delete, so the solve is refused, naming it.
        """
        if self._fs is not None:
            self._remove(path)
            return
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)
            else:
                os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            what = "a folder with files in it" if os.path.isdir(path) else "a damaged block"
            raise ValueError(f"{path} is {what} where a block belongs, and it cannot be removed "
                             f"({exc.strerror.lower()}): move it away, then rerun with --resume") from None

    def check(self, data: bool = False) -> None:
        """Check that every block is present and whole; ValueError naming the first that is not.

        ``data=False`` reads each block's header only (its own checksum,
        level, set and length): quick, for opening a store. ``data=True``
        also checks every block's data checksum (reads the whole store).
        """
        for k in range(len(self.nsets)):
            for rank in range(self.nsets[k]):
                if data:
                    self.read_block_meta(k, rank)
                    continue
                path = self.block_path(k, rank)
                try:
                    raw = self._head(path)
                except FileNotFoundError:
                    raise ValueError(f"block {path} is missing: rerun gops solve with --resume") from None
                try:
                    _check_head(raw, k, rank, self.block_len[k], path, self._size(path))
                except ValueError as exc:
                    raise ValueError(f"{exc}: rerun gops solve with --resume to recompute it") from None

    def is_complete(self) -> bool:
        """True once the solve wrote ``complete.json`` (every block present)."""
        return self._exists(self._join(COMPLETE))

    def complete_info(self) -> dict:
        """The summary written when the solve finished; ValueError in one line if it is damaged."""
        path = self._join(COMPLETE)
        try:
            info = json.loads(self._get(path).decode())
            if not isinstance(info, dict):
                raise TypeError(f"a JSON {type(info).__name__}, not an object")
        except (ValueError, TypeError, UnicodeDecodeError, FileNotFoundError) as exc:
            raise ValueError(f"{path} is unreadable ({str(exc)[:120]}): continue the solve with gops solve "
                             f"--out {self.root} --memory 4GB --resume") from None
        return info

    def mark_complete(self, info: dict) -> None:
        """Write ``complete.json`` (last, atomically), once every block is on disk."""
        if self._fs is None:
            os.sync()
        self._put(self._join(COMPLETE), json.dumps(info, indent=1, sort_keys=True).encode())

    def unmark_complete(self) -> None:
        """Remove ``complete.json`` (a solve is running on the store)."""
        self._remove(self._join(COMPLETE))

    def clear(self) -> None:
        """Remove every block and the completion mark (``--restart``); only files the solver wrote."""
        self._remove(self._join(COMPLETE))
        for k in range(len(self.nsets)):
            for rank in self.ranks(k):
                self._discard(self.block_path(k, rank))

    def clean_temps(self) -> None:
        """Remove temporary files of interrupted block writes (local stores)."""
        if self._fs is None:
            for k in range(len(self.nsets)):
                clean_stale_temps(self.level_dir(k))
            clean_stale_temps(self.root)

    def disk_bytes(self) -> int:
        """Bytes the block files present take."""
        return sum(self._size(self.block_path(k, r)) for k in range(len(self.nsets)) for r in self.ranks(k))

    # -- file system -----------------------------------------------------------
    def ranks(self, k: int) -> list:
        """Ranks of the block files of level ``k`` present (not yet checked)."""
        d = self.level_dir(k)
        try:
            names = self._fs[0].ls(d, detail=False) if self._fs is not None else os.listdir(d)
        except (FileNotFoundError, NotADirectoryError):
            return []
        out = []
        for name in names:
            base = name.rsplit("/", 1)[-1]
            if base.endswith(".blk") and base[:-4].isdigit():
                out.append(int(base[:-4]))
        return sorted(out)

    def _makedirs(self, path):
        if self._fs is not None:
            self._fs[0].makedirs(path, exist_ok=True)
            return
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot create {path}: {exc.strerror}; choose a writable --out") from None

    def _put(self, path, data: bytes, sync: bool = True):
        if self._fs is None:
            # no per-block path checks or temp cleaning: workers share the folders (clean_temps runs up front)
            atomic_write(path, [data], prepare=False, sync=sync)
            return
        # object stores make a whole object visible at once; elsewhere rename a temporary name into place
        fs = self._fs[0]
        folder, base = path.rsplit("/", 1)
        tmp = f"{folder}/{TEMP_PREFIX}{base}-{os.getpid()}{TEMP_SUFFIX}"
        fs.pipe_file(tmp, data)
        fs.mv(tmp, path)

    def _get(self, path) -> bytes:
        if self._fs is not None:
            return _reach(path, lambda: self._fs[0].cat_file(path))
        return read_regular(path, "block store file")  # a FIFO in a block's place is refused, not waited on

    def _head(self, path) -> bytes:
        n = block_overhead()
        if self._fs is not None:
            return _reach(path, lambda: self._fs[0].cat_file(path, start=0, end=n))
        return read_regular(path, "block", n)

    def _size(self, path) -> int:
        return int(self._fs[0].size(path)) if self._fs is not None else os.path.getsize(path)

    def _exists(self, path) -> bool:
        return self._fs[0].exists(path) if self._fs is not None else os.path.exists(path)

    def _remove(self, path):
        try:
            if self._fs is not None:
                self._fs[0].rm(path)
            else:
                os.unlink(path)
        except FileNotFoundError:
            pass
