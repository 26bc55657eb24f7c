"""Lossless codecs on real blocks: size ratio and speed, the measurement behind the block store's zstd level 1.

    gops solve --cards 10 --tie discard --objective win --out w10 --memory 2GB
    python benchmarks/block_codec.py w10 --levels 5,6,7 --sample 40

Reads ``--sample`` blocks of the listed levels of a store (decompressed, as
the solver holds them), compresses each with every candidate codec and
checks it decompresses to the same bytes, and prints the stored share
(compressed / raw), compression and decompression speed in MB/s (one
thread). Candidates: zlib level 1, zstd levels 1, 3 and 6 (``zstandard``),
zstd on byte-shuffled data, and Blosc2 with zstd, lz4 and its shuffle
filters (if ``blosc2`` is installed).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import zlib

import numpy as np
import zstandard

from gops_solver.engine._blockstore import BlockStore


def _shuffle(a: np.ndarray) -> bytes:
    return a.view(np.uint8).reshape(-1, 8).T.copy().tobytes()


def _unshuffle(b: bytes) -> bytes:
    return np.frombuffer(b, np.uint8).reshape(8, -1).T.copy().tobytes()


def codecs() -> dict:
    """``{name: (compress(array) -> bytes, decompress(bytes) -> bytes)}``."""
    out = {"zlib-1": (lambda a: zlib.compress(a.tobytes(), 1), zlib.decompress)}
    for lvl in (1, 3, 6):
        c, d = zstandard.ZstdCompressor(level=lvl), zstandard.ZstdDecompressor()
        out[f"zstd-{lvl}"] = (lambda a, c=c: c.compress(a.tobytes()), d.decompress)
    c, d = zstandard.ZstdCompressor(level=1), zstandard.ZstdDecompressor()
    out["shuffle+zstd-1"] = (lambda a, c=c: c.compress(_shuffle(a)), lambda b, d=d: _unshuffle(d.decompress(b)))
    try:
        import blosc2
    except ImportError:
        return out
    for name, codec, filters in (("blosc2-zstd1-shuffle", blosc2.Codec.ZSTD, [blosc2.Filter.SHUFFLE]),
                                 ("blosc2-zstd1-bytedelta", blosc2.Codec.ZSTD,
                                  [blosc2.Filter.SHUFFLE, blosc2.Filter.BYTEDELTA]),
                                 ("blosc2-lz4-1-shuffle", blosc2.Codec.LZ4, [blosc2.Filter.SHUFFLE])):
        kw = {"codec": codec, "clevel": 1, "typesize": 8, "filters": filters, "nthreads": 1}
        out[name] = (lambda a, kw=kw: blosc2.compress2(a.tobytes(), **kw), blosc2.decompress2)
    return out


def measure(store_path: str, levels, sample: int, seed: int = 0) -> list:
    """One row per codec: ``(name, stored share, compress MB/s, decompress MB/s)``."""
    store = BlockStore.open(store_path)
    keys = [(k, r) for k in levels for r in store.ranks(k)]
    random.Random(seed).shuffle(keys)
    raw = [store.read_block(k, r).copy() for k, r in keys[:sample]]
    total = sum(a.nbytes for a in raw)
    rows = []
    for name, (comp, dec) in codecs().items():
        t = time.process_time()
        packed = [comp(a) for a in raw]
        tc = time.process_time() - t
        t = time.process_time()
        back = [dec(p) for p in packed]
        td = time.process_time() - t
        if any(bytes(b) != a.tobytes() for b, a in zip(back, raw)):
            raise AssertionError(f"{name} is not lossless on these blocks")
        rows.append((name, sum(len(p) for p in packed) / total, total / tc / 1e6, total / td / 1e6))
    return rows, total, len(raw)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--levels", default="5,6,7")
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--record", default=None, metavar="MACHINE", help="add the rows to benchmarks/results.json")
    ap.add_argument("--case", default=None, help="the store's rules, for the recorded rows (e.g. 'n=10 discard/win')")
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",")]
    rows, total, count = measure(args.store, levels, args.sample)
    print(f"{count} blocks of levels {args.levels}, {total / 1e6:.1f} MB raw")
    print(f"{'codec':24s} {'share':>6s} {'comp MB/s':>10s} {'dec MB/s':>10s}")
    for name, share, c, d in rows:
        print(f"{name:24s} {share:6.3f} {c:10.0f} {d:10.0f}")
    if args.record:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from benchmarks._results import record
        cmd = f"python benchmarks/block_codec.py STORE --levels {args.levels} --sample {args.sample}"
        record([{"case": f"{args.case or 'blocks'}: {name}", "measure": "lossless codec on real blocks",
                 "value": round(share, 3), "unit": "of raw size",
                 "detail": f"compress {c:,.0f} MB/s, decompress {d:,.0f} MB/s (one thread, CPU time); "
                           f"{count} blocks of levels {args.levels}, {total / 1e6:.1f} MB",
                 "command": cmd} for name, share, c, d in rows], args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
