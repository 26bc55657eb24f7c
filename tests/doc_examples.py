"""Run the examples of README.md and docs/**/*.md and compare their output with what is shown.

What runs
---------
* A fenced block (``text``, ``console``, ``bash``, ``shell`` or no language)
  with lines that start with ``$ ``: each ``$ gops ...`` or
  ``$ python -m gops_solver ...`` line is a command (a trailing ``\\`` joins the
  next line), and the lines after it, up to the next ``$ `` line or the end of
  the block, are its expected standard output. ``gops`` runs as
  ``sys.executable -m gops_solver`` (the checkout under test).
* A ``python`` (or ``pycon``) block with ``>>>`` lines: run by :mod:`doctest`
  with the same comparison of outputs.
* All blocks of one page run in order in one temporary working directory
  (files a command writes are there for the next one). A page may name
  commands to run silently first, in an HTML comment anywhere on the page:
  ``<!-- setup: gops solve --cards 8 --tie discard --out d8.gops -->``.
  A page that reads files of the repository names them
  (``<!-- repo files: solutions -->``): each is linked into the directory.
* A block that shows output but must not run (an interactive ``gops play``, a
  server, a cluster run, a benchmark of minutes) has an HTML comment on the
  line before its fence: ``<!-- not run: interactive -->``; the tests list it
  as skipped with that reason. A block with a ``$ `` command that is not gops
  and no such comment is an error: everything that shows output runs.

How output is compared
----------------------
Lines are compared one by one after stripping, collapsing runs of blanks and
dropping empty lines. Each line is split into numbers and text:

* text must be equal;
* a number printed without a decimal point or exponent (a count, a card)
  must be equal;
* any other number may differ by ``max(ABS_TOL, one unit of its last printed
  digit)``, ``ABS_TOL = 5e-4`` (two roundings of one value differ by at most
  one unit of the last digit).

Variable parts (``VARIABLE``), replaced by a placeholder on both sides before
the comparison: a line whose first word is ``time`` (wall time, e.g.
``time  0.45 s`` or ``time  about 42 s on 2 cores``); durations
``<number> s``; absolute paths (``/tmp/...``); this machine's memory
(``this machine: 23.5 GiB``); dates ``YYYY-MM-DD``.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ABS_TOL = 5e-4
SHELL_LANGS = {"", "text", "console", "bash", "shell", "sh"}
PY_LANGS = {"python", "pycon", "py"}
TIMEOUT = 900  # seconds per command: a cold numba compile on a busy machine

#: (pattern, placeholder): the parts of a printed line that change from run to run
VARIABLE = [
    (re.compile(r"^time\b.*$"), "time <wall time>"),
    (re.compile(r"\(this machine: [^)]*\)"), "(this machine: <memory>)"),
    (re.compile(r"(?<![\w./-])/[^\s,;)]+"), "<path>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    (re.compile(r"(?<![\w.])\d+(\.\d+)?\s?s\b"), "<seconds>"),
]
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_FENCE = re.compile(r"^(\s*)```\s*([\w+-]*)\s*$")
_NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$")
_SETUP = re.compile(r"<!--\s*setup:\s*(.*?)\s*-->")
_REPO = re.compile(r"<!--\s*repo files:\s*(.*?)\s*-->")
_FILE = re.compile(r"^\s*<!--\s*file:\s*([\w.-]+)\s*-->\s*$")
_ENV = re.compile(r"^((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)(.*)$")


@dataclass
class Block:
    """One fenced block that shows output."""

    path: Path
    line: int  # 1-based line of the opening fence
    kind: str  # "shell", "doctest", or "file" (written into the page's folder)
    text: str
    not_run: str | None = None
    steps: list = field(default_factory=list)  # shell: (command, expected lines)

    @property
    def name(self) -> str:
        try:
            return f"{self.path.relative_to(ROOT)}:{self.line}"
        except ValueError:
            return f"{self.path}:{self.line}"


def pages():
    """README.md and every page under docs/, in a stable order."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def _steps(lines):
    steps, cmd, expected, cont = [], None, [], False
    for raw in lines:
        if cont:
            cmd += " " + raw.strip().rstrip("\\").strip()
            cont = raw.rstrip().endswith("\\")
            continue
        if raw.startswith("$ "):
            if cmd is not None:
                steps.append((cmd, expected))
            cmd, expected = raw[2:].strip().rstrip("\\").strip(), []
            cont = raw.rstrip().endswith("\\")
        elif cmd is not None:
            expected.append(raw)
    if cmd is not None:
        steps.append((cmd, expected))
    return steps


def find_blocks(path: Path) -> list:
    """Every block of one page that shows output (shell transcripts and doctests)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(2).lower(), i
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        body = lines[i + 1:j]
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = _NOT_RUN.match(lines[k]) if k >= 0 else None
        not_run = marker.group(1) if marker else None
        named = _FILE.match(lines[k]) if k >= 0 else None
        if named:  # the page shows a file that its commands use: it is written, then they run
            blocks.append(Block(path, start + 1, "file", "\n".join(body) + "\n", None, [named.group(1)]))
        elif lang in SHELL_LANGS and any(b.startswith("$ ") for b in body):
            blocks.append(Block(path, start + 1, "shell", "\n".join(body), not_run, _steps(body)))
        elif lang in PY_LANGS and any(b.lstrip().startswith(">>> ") for b in body):
            blocks.append(Block(path, start + 1, "doctest", "\n".join(body) + "\n", not_run))
        i = j + 1
    return blocks


def setup_commands(path: Path) -> list:
    """The ``<!-- setup: ... -->`` commands of a page."""
    return _SETUP.findall(path.read_text(encoding="utf-8"))


def link_repo_files(path: Path, cwd: Path) -> None:
    """Link the repository paths a page names (``<!-- repo files: a b -->``) into ``cwd``."""
    for names in _REPO.findall(path.read_text(encoding="utf-8")):
        for name in names.split():
            if not (ROOT / name).exists():
                raise FileNotFoundError(f"{path.name} names repo file {name}, which is not in the repository")
            (cwd / name).symlink_to(ROOT / name)


def split_env(cmd: str) -> tuple:
    """``(assignments, command)`` of a line such as ``PYTHONPATH=. gops evaluate ...``."""
    m = _ENV.match(cmd)
    return dict(a.split("=", 1) for a in m.group(1).split()), m.group(2)


def is_gops(cmd: str) -> bool:
    cmd = split_env(cmd)[1]
    return cmd.startswith("gops ") or cmd.startswith("python -m gops_solver")


def argv(cmd: str) -> list:
    """The command line run for a documented ``gops`` command."""
    words = shlex.split(split_env(cmd)[1])
    if words[0] == "gops":
        return [sys.executable, "-m", "gops_solver", *words[1:]]
    if words[:3] == ["python", "-m", "gops_solver"]:
        return [sys.executable, "-m", "gops_solver", *words[3:]]
    raise ValueError(f"not a gops command: {cmd}")


def run_command(cmd: str, cwd: Path) -> str:
    """Run one documented command in ``cwd``; return its standard output (raise when it fails)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name, value in split_env(cmd)[0].items():  # PYTHONPATH=. means the page's folder, before the checkout
        if name == "PYTHONPATH":
            value = os.pathsep.join([str((cwd / p).resolve()) for p in value.split(os.pathsep)] + [str(ROOT)])
        env[name] = value
    # no input: an interactive command (gops play) sees end of input at its first prompt
    proc = subprocess.run(argv(cmd), cwd=cwd, capture_output=True, text=True, env=env, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise AssertionError(f"`{cmd}` exited with {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return proc.stdout


def _normalise(line: str) -> str:
    line = " ".join(line.split())
    for pat, repl in VARIABLE:
        line = pat.sub(repl, line)
    return line


def _numbers_equal(shown: str, got: str) -> bool:
    a, b = float(shown.replace(",", "")), float(got.replace(",", ""))
    if not re.search(r"[.eE]", shown):
        return a == b
    decimals = len(shown.split(".")[1].split("e")[0].split("E")[0]) if "." in shown else 0
    tol = max(ABS_TOL, 10.0 ** -decimals) if not re.search(r"[eE]", shown) else ABS_TOL
    return abs(a - b) <= tol * (1 + 1e-9)


def line_matches(shown: str, got: str) -> bool:
    """Whether a printed line matches a documented one (see the module docstring)."""
    shown, got = _normalise(shown), _normalise(got)
    ns, ng = _NUMBER.findall(shown), _NUMBER.findall(got)
    if len(ns) != len(ng) or _NUMBER.split(shown) != _NUMBER.split(got):
        return False
    return all(_numbers_equal(s, g) for s, g in zip(ns, ng))


def mismatch(shown_lines, got_lines) -> str | None:
    """None when the outputs match, else a short report of the first difference."""
    shown = [s for s in (_normalise(x) for x in shown_lines) if s]
    got = [g for g in (_normalise(x) for x in got_lines) if g]
    for i, (s, g) in enumerate(zip(shown, got)):
        if not line_matches(s, g):
            return f"line {i + 1} differs:\n  shown: {s}\n  got:   {g}"
    if len(shown) != len(got):
        return f"{len(shown)} lines shown, {len(got)} printed:\n" + "\n".join(got)
    return None


class _Checker(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        return mismatch(want.splitlines(), got.splitlines()) is None


def run_doctest(block: Block, globs: dict) -> str | None:
    """Run a ``>>>`` block with the tolerant checker; None on success, else doctest's report."""
    test = doctest.DocTestParser().get_doctest(block.text, globs, block.name, str(block.path), block.line)
    report = []
    runner = doctest.DocTestRunner(checker=_Checker(), optionflags=doctest.ELLIPSIS)
    runner.run(test, out=report.append, clear_globs=False)
    return "".join(report) or None


class PageRun:
    """The blocks of one page, run in order in one directory; results kept for every block."""

    def __init__(self, path: Path, cwd: Path):
        self.path, self.cwd = path, cwd
        self.blocks = find_blocks(path)
        self.results = {}
        self.globs = {}
        self._next = 0
        self._setup_done = False

    def result(self, index: int) -> str | None:
        """Run blocks up to ``index``; return None when block ``index`` matched, else why not."""
        if not self._setup_done:
            self._setup_done = True
            link_repo_files(self.path, self.cwd)
            for cmd in setup_commands(self.path):
                run_command(cmd, self.cwd)
        old = os.getcwd()
        os.chdir(self.cwd)
        try:
            while self._next <= index:
                b = self.blocks[self._next]
                self.results[self._next] = self._run(b)
                self._next += 1
        finally:
            os.chdir(old)
        return self.results[index]

    def _run(self, b: Block) -> str | None:
        if b.not_run is not None:
            return None
        if b.kind == "doctest":
            return run_doctest(b, self.globs)
        if b.kind == "file":
            (self.cwd / b.steps[0]).write_text(b.text, encoding="utf-8")
            return None
        for cmd, expected in b.steps:
            if not is_gops(cmd):
                return f"`{cmd}` is not a gops command: mark the block <!-- not run: why -->"
            try:
                got = run_command(cmd, self.cwd)
            except (AssertionError, subprocess.TimeoutExpired) as exc:
                return str(exc)
            diff = mismatch(expected, got.splitlines())
            if diff:
                return f"`{cmd}`: {diff}"
        return None


def rewrite(path: Path) -> list:
    """Run every shell block of ``path`` and write the real output under each command that differs.

    ``python tests/doc_examples.py PAGE.md ...`` regenerates stale examples
    (never edit the numbers by hand); returns the commands whose output changed.
    """
    import tempfile
    lines = path.read_text(encoding="utf-8").splitlines()
    changed = []
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        run = PageRun(path, Path(tmp))
        link_repo_files(path, run.cwd)
        for cmd in setup_commands(path):
            run_command(cmd, run.cwd)
        run._setup_done = True
        os.chdir(tmp)
        edits = []
        for b in run.blocks:
            if b.kind == "file":
                (run.cwd / b.steps[0]).write_text(b.text, encoding="utf-8")
            if b.kind != "shell" or b.not_run is not None:
                continue
            body, dirty = [], False
            for cmd, expected in b.steps:
                got = run_command(cmd, run.cwd).splitlines()
                if mismatch(expected, got):
                    dirty = True
                    changed.append(cmd)
                body += [f"$ {cmd}"] + (got if mismatch(expected, got) else expected)
            if dirty:
                edits.append((b.line, len(b.text.splitlines()), body))
        os.chdir(old)
    for line, count, body in reversed(edits):
        lines[line:line + count] = body
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":
    for page in [Path(p).resolve() for p in sys.argv[1:]]:
        for cmd in rewrite(page):
            print(f"{page}: regenerated `{cmd}`")
