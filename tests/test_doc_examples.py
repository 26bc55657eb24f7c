"""Every example in README.md and docs/ that shows output runs and prints what is shown.

The harness and its comparison rules (tolerance, variable parts such as wall
time and paths) are in ``doc_examples.py``. A failure names the page and the
line of the block's opening fence; regenerate the block by running the
command and pasting its output, never by editing numbers.
"""

import pytest

import doc_examples as dx

# a page's file blocks are written by the page's run, not compared: they are not tests of their own
BLOCKS = [(p, i, b) for p in dx.pages() for i, b in enumerate(dx.find_blocks(p)) if b.kind != "file"]
_RUNS = {}


@pytest.fixture(scope="module")
def page_dirs(tmp_path_factory):
    return tmp_path_factory


def _page(path, factory):
    if path not in _RUNS:
        _RUNS[path] = dx.PageRun(path, factory.mktemp(path.stem))
    return _RUNS[path]


def test_the_harness_finds_the_examples():
    assert len(BLOCKS) >= 5
    assert any(b.path.name == "README.md" for _, _, b in BLOCKS)
    assert any(b.kind == "doctest" for _, _, b in BLOCKS)


def test_the_readme_is_short_and_has_no_history():
    # a newcomer reads it top to bottom: at most 250 lines, no dates, commit hashes or issue numbers
    import re
    text = (dx.ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a date in the README"
    assert not re.search(r"\b[0-9a-f]{7,40}\b", text), "a commit hash in the README"
    assert not re.search(r"issue \d+|#\d{2,}", text, re.I), "an issue number in the README"


def test_env_prefixes_and_shown_files_are_read(tmp_path):
    assert dx.split_env("PYTHONPATH=. X=1 gops info --cards 3") == ({"PYTHONPATH": ".", "X": "1"}, "gops info --cards 3")
    assert dx.is_gops("PYTHONPATH=. gops info") and not dx.is_gops("PYTHONPATH=. ls")
    page = tmp_path / "p.md"
    page.write_text("<!-- file: m.py -->\n```python\nx = 1\n```\n")
    (block,) = dx.find_blocks(page)
    assert block.kind == "file" and block.steps == ["m.py"] and block.text == "x = 1\n"


@pytest.mark.parametrize("path, index, block", BLOCKS, ids=[b.name for _, _, b in BLOCKS])
def test_example_output(path, index, block, page_dirs):
    if block.not_run is not None:
        pytest.skip(f"not run: {block.not_run}")
    why = _page(path, page_dirs).result(index)
    assert why is None, f"{block.name}: {why}"


@pytest.mark.parametrize("shown, got", [
    ("value   -1.22222222222", "value -1.2222222"),
    ("time         2.18 s", "time 41.02 s"),
    ("saved        /tmp/d8.gops", "saved /home/u/x/d8.gops"),
    ("  A 0.309 0.250", "A 0.3085 0.251"),
    ("states       84,663", "states 84,663"),
    ("memory 0.95 GiB, all (this machine: 23.5 GiB)", "memory 0.95 GiB, all (this machine: 7.7 GiB)"),
])
def test_lines_that_match(shown, got):
    assert dx.line_matches(shown, got)


@pytest.mark.parametrize("shown, got", [
    ("margin -0.333675", "margin -0.336061"),   # a stale figure
    ("states       84,663", "states 84,664"),   # counts are exact
    ("A bids 2:0.5000", "B bids 2:0.5000"),     # text is exact
    ("value 1.0 2.0", "value 1.0"),             # so is the number of figures
])
def test_lines_that_differ(shown, got):
    assert not dx.line_matches(shown, got)


def test_a_doctest_block_is_compared_with_the_tolerance(tmp_path):
    block = dx.Block(tmp_path / "x.md", 1, "doctest", ">>> print(round(2 / 3, 4))\n0.6667\n>>> 1 + 1\n3\n")
    report = dx.run_doctest(block, {})
    assert report is not None and "Expected:\n    3" in report
    ok = dx.Block(tmp_path / "x.md", 1, "doctest", ">>> print(2 / 3)\n0.6667\n")
    assert dx.run_doctest(ok, {}) is None


def test_markers_and_steps_are_read(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- setup: gops info --cards 3 -->\n\n<!-- not run: interactive -->\n```text\n$ gops play\n"
                    "you hold 1,2,3\n```\n\n```bash\n$ gops solve \\\n    --cards 3\nvalue 0\n$ gops info\nx\n```\n")
    blocks = dx.find_blocks(page)
    assert [b.not_run for b in blocks] == ["interactive", None]
    assert blocks[1].steps == [("gops solve --cards 3", ["value 0"]), ("gops info", ["x"])]
    assert dx.setup_commands(page) == ["gops info --cards 3"]
