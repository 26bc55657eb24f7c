"""Developer chores: ``python -m gops_solver.cli.devtools clean-cache``.

numba caches each compiled kernel on disk (``cache=True``) and checks only
that kernel's own source file when loading it. A kernel edited in one module
can therefore leave stale machine code inlined in its cached callers in other
modules. ``clean-cache`` deletes every cached kernel of this package so the
next run compiles afresh.
"""

from __future__ import annotations

import argparse
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # gops_solver/, above cli/
_SUFFIXES = (".nbi", ".nbc")


def cache_dirs() -> list[str]:
    """Folders where numba may keep this package's cached kernels.

    Beside the sources (the ``__pycache__`` of the package and of each
    subpackage), ``NUMBA_CACHE_DIR`` when set, and numba's per-user fallback
    for read-only installs.
    """
    dirs = sorted(os.path.join(folder, "__pycache__") for folder, subdirs, _ in os.walk(_PACKAGE_DIR)
                  if "__pycache__" in subdirs)
    from numba.core import config
    if config.CACHE_DIR:
        dirs.append(config.CACHE_DIR)
    try:
        from numba.misc.appdirs import AppDirs
        dirs.append(AppDirs(appname="numba", appauthor=False).user_cache_dir)
    except ImportError:  # numba moved its helper: the two places above remain
        pass
    return [d for d in dirs if os.path.isdir(d)]


def _ours(folder: str, root: str) -> bool:
    # beside the sources every file is ours; elsewhere numba names the folder after the source path
    inside = os.path.commonpath([os.path.abspath(root), _PACKAGE_DIR]) == _PACKAGE_DIR
    return inside or "gops_solver" in os.path.relpath(folder, root)


def clean_cache(dry_run: bool = False, dirs=None) -> list[str]:
    """Delete this package's cached numba kernels.

    Parameters
    ----------
    dry_run : bool
        List the files without deleting them.
    dirs : list of str, optional
        Cache folders to clean (default :func:`cache_dirs`).

    Returns
    -------
    list of str
        The cache files found (and, unless ``dry_run``, deleted).
    """
    found = []
    for root in cache_dirs() if dirs is None else dirs:
        for folder, _, files in os.walk(root):
            if not _ours(folder, root):
                continue
            for name in files:
                if name.endswith(_SUFFIXES):
                    path = os.path.join(folder, name)
                    found.append(path)
                    if not dry_run:
                        try:
                            os.unlink(path)
                        except FileNotFoundError:  # another process cleaned it first
                            pass
    return found


def main(argv=None) -> int:
    """Entry point of ``python -m gops_solver.cli.devtools``."""
    parser = argparse.ArgumentParser(prog="python -m gops_solver.cli.devtools", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    clean = sub.add_parser("clean-cache", help="delete this package's cached numba kernels")
    clean.add_argument("--dry-run", action="store_true", help="list the files, delete nothing")
    args = parser.parse_args(argv)
    if args.command == "clean-cache":
        files = clean_cache(dry_run=args.dry_run)
        verb = "would remove" if args.dry_run else "removed"
        print(f"{verb} {len(files)} numba cache files of gops_solver")
        for path in files if args.dry_run else ():
            print(f"  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
