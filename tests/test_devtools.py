"""devtools clean-cache: removes this package's numba cache files and nothing else."""

import pytest

from gops_solver.cli.devtools import clean_cache, main

pytestmark = pytest.mark.nojit


def test_clean_cache_removes_only_our_kernels(tmp_path, capsys):
    ours = tmp_path / "gops_solver_1a2b"  # numba names a cache folder after the source folder
    other = tmp_path / "otherpkg_3c4d"
    ours.mkdir()
    other.mkdir()
    for folder in (ours, other):
        (folder / "induction.level_kernel-41.py311.nbi").write_text("x")
        (folder / "induction.level_kernel-41.py311.1.nbc").write_text("x")
    (ours / "notes.txt").write_text("kept")
    listed = clean_cache(dry_run=True, dirs=[str(tmp_path)])
    assert len(listed) == 2 and all((ours.name in p) for p in listed)
    assert len(list(ours.iterdir())) == 3  # a dry run deletes nothing
    assert sorted(clean_cache(dirs=[str(tmp_path)])) == sorted(listed)
    assert [p.name for p in ours.iterdir()] == ["notes.txt"]
    assert len(list(other.iterdir())) == 2


def test_command_line(capsys):
    assert main(["clean-cache", "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("would remove ")


def test_cache_dirs_cover_the_subpackages():
    # a kernel cached in a subpackage (multi/, variants/) inlines kernels of other
    # modules too, so clean-cache must reach every __pycache__ under the package
    import os

    import gops_solver
    from gops_solver.cli.devtools import cache_dirs

    package = os.path.dirname(gops_solver.__file__)
    multi_cache = os.path.join(package, "multi", "__pycache__")
    os.makedirs(multi_cache, exist_ok=True)
    assert multi_cache in cache_dirs()
