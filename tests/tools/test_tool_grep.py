"""Grep through both backends: the same answers from ripgrep and from pure Python.

The ripgrep cases run only where ``rg`` is on PATH.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.sandbox.programs import Programs
from nehanda.tools import grep_search
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse

RG = shutil.which("rg")
# The helpers the next Grep runs with: ripgrep where present, unless a test takes it away.
IN_USE = {"programs": Programs(ripgrep=RG)}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Path(os.path.realpath(workspace))


@pytest.fixture(params=["python", "ripgrep"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "ripgrep" and RG is None:
        pytest.skip("rg is not installed")
    if request.param == "python":
        monkeypatch.setitem(IN_USE, "programs", Programs())
    return str(request.param)


def grep(ws: Path, **args: Any) -> ToolResult:
    context = ToolContext(ws, programs=IN_USE["programs"])
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", "Grep", args), context))


def lines(ws: Path, **args: Any) -> list[str]:
    result = grep(ws, **args)
    assert not result.is_error, result.content
    return result.content.splitlines()


def put(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


@pytest.fixture
def tree(ws: Path) -> Path:
    put(ws / "src" / "app.py", "import os\n\ndef main():\n    return TODO\n")
    put(ws / "src" / "util.py", "def helper():\n    pass  # todo later\n")
    put(ws / "README.md", "# App\nTODO: write docs\n")
    put(ws / ".github" / "ci.yml", "run: TODO\n")
    put(ws / "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00TODO")
    put(ws / "build" / "gen.py", "TODO generated\n")
    put(ws / ".git" / "config", "TODO in git\n")
    put(ws / ".gitignore", "build/\n")
    return ws


CASES = [
    (
        {"pattern": "TODO"},
        [
            ".github/ci.yml:1:run: TODO",
            "README.md:2:TODO: write docs",
            "src/app.py:4:    return TODO",
        ],
    ),
    (
        {"pattern": "todo", "ignore_case": True, "output_mode": "files_with_matches"},
        [".github/ci.yml", "README.md", "src/app.py", "src/util.py"],
    ),
    ({"pattern": "def|import", "output_mode": "count"}, ["src/app.py:2", "src/util.py:1"]),
    (
        {"pattern": "^def \\w+", "path": "src"},
        ["src/app.py:3:def main():", "src/util.py:1:def helper():"],
    ),
    ({"pattern": "TODO", "glob": "*.py"}, ["src/app.py:4:    return TODO"]),
    ({"pattern": "TODO", "glob": "src/*.py"}, ["src/app.py:4:    return TODO"]),
    ({"pattern": "TODO", "glob": "!*.{py,yml}"}, ["README.md:2:TODO: write docs"]),
    ({"pattern": "TODO", "path": "README.md"}, ["README.md:2:TODO: write docs"]),
    ({"pattern": "TODO", "path": "build"}, ["build/gen.py:1:TODO generated"]),
    ({"pattern": "-dash"}, ["No matches for '-dash' in the workspace."]),
]


@pytest.mark.parametrize(("args", "expected"), CASES)
def test_search_results(
    backend: str, tree: Path, args: dict[str, Any], expected: list[str]
) -> None:
    assert lines(tree, **args) == expected


@pytest.mark.skipif(RG is None, reason="rg is not installed")
@pytest.mark.parametrize(("args", "expected"), CASES)
def test_both_backends_agree(
    tree: Path, monkeypatch: pytest.MonkeyPatch, args: dict[str, Any], expected: list[str]
) -> None:
    with_rg = grep(tree, **args)
    monkeypatch.setitem(IN_USE, "programs", Programs())
    assert grep(tree, **args) == with_rg


def test_an_explicit_binary_file_is_named_not_searched(backend: str, tree: Path) -> None:
    result = grep(tree, pattern="TODO", path="logo.png")
    assert (result.is_error, result.content) == (
        False,
        "logo.png is a binary file; Grep searches text files only.",
    )


def test_invalid_regex_is_an_error(backend: str, tree: Path) -> None:
    result = grep(tree, pattern="a(")
    assert result.is_error
    assert "a(" in result.content


def test_many_matches_stop_at_the_cap_saying_so(backend: str, ws: Path) -> None:
    put(ws / "many.txt", "hit\n" * 1200)
    found = lines(ws, pattern="hit")
    assert found[999] == "many.txt:1000:hit"
    assert found[-1] == "(Stopped after 1000 matching lines; narrow the pattern, path or glob.)"


def test_long_matching_lines_are_cut(backend: str, ws: Path) -> None:
    put(ws / "min.js", "x" * 800 + "needle\n")
    assert lines(ws, pattern="needle") == [f"min.js:1:{'x' * 500}... [306 more characters]"]


@pytest.mark.parametrize(("in_a_repo", "expected"), [(True, ["x.a", "x.c"]), (False, ["x.c"])])
def test_gitignores_above_the_workspace_apply_up_to_the_repository_root(
    backend: str, tmp_path: Path, in_a_repo: bool, expected: list[str]
) -> None:
    put(tmp_path / ".gitignore", "*.a\n")
    repo = tmp_path / "repo"
    (repo / ".git" if in_a_repo else repo).mkdir(parents=True)
    put(repo / ".gitignore", "*.b\n")
    ws = Path(os.path.realpath(repo / "ws"))
    for name in ("x.a", "x.b", "x.c"):
        put(ws / name, "hit\n")
    assert lines(ws, pattern="hit", output_mode="files_with_matches") == expected


@pytest.mark.timeout(10)
def test_symlinks_are_not_followed_so_loops_and_escapes_find_nothing(
    backend: str, ws: Path
) -> None:
    outside = ws.parent / "outside"
    put(outside / "secret.txt", "needle outside\n")
    put(ws / "src" / "real.txt", "needle inside\n")
    (ws / "src" / "loop").symlink_to(ws / "src")
    (ws / "a").symlink_to("b")
    (ws / "b").symlink_to("a")
    (ws / "out").symlink_to(outside)
    (ws / "out.txt").symlink_to(outside / "secret.txt")
    assert lines(ws, pattern="needle") == ["src/real.txt:1:needle inside"]


@pytest.mark.parametrize("path", ["../outside", "out", "/etc"])
def test_paths_outside_the_workspace_are_refused(backend: str, ws: Path, path: str) -> None:
    put(ws.parent / "outside" / "secret.txt", "needle\n")
    (ws / "out").symlink_to(ws.parent / "outside")
    result = grep(ws, pattern="needle", path=path)
    assert result.is_error
    assert "only files inside it can be searched" in result.content


def test_missing_path_is_an_error(backend: str, ws: Path) -> None:
    result = grep(ws, pattern="x", path="nowhere")
    assert result.is_error
    assert "nowhere" in result.content


NO_MATCH = "No matches for {pattern!r} in the workspace."
LINE_CASES = [
    ("one\r\ntwo end\r\n", "end$", ["f.txt:2:two end"]),
    ("foo\nbar\n", "foo\\s+bar", [NO_MATCH]),
    ("", "^$", [NO_MATCH]),
    ("a\n\nb\n", "^$", ["f.txt:2:"]),
    ("x\n", "^x$", ["f.txt:1:x"]),
    ("last line without newline", "newline$", ["f.txt:1:last line without newline"]),
    ("caf\xe9 cr\xe8me\n", "cr", ["f.txt:1:caf\ufffd cr\ufffdme"]),
]


def put_latin1_aware(path: Path, text: str) -> None:
    # Code points below 256 written as single bytes: "\xe9" makes a file that is not UTF-8.
    put(path, text.encode("latin-1"))


@pytest.mark.parametrize(("text", "pattern", "expected"), LINE_CASES)
def test_matching_is_line_by_line(
    backend: str, ws: Path, text: str, pattern: str, expected: list[str]
) -> None:
    put_latin1_aware(ws / "f.txt", text)
    assert lines(ws, pattern=pattern) == [line.format(pattern=pattern) for line in expected]


@pytest.mark.parametrize(("text", "pattern", "expected"), LINE_CASES)
def test_large_files_are_streamed_with_the_same_results(
    ws: Path, monkeypatch: pytest.MonkeyPatch, text: str, pattern: str, expected: list[str]
) -> None:
    monkeypatch.setitem(IN_USE, "programs", Programs())
    monkeypatch.setattr(grep_search, "MAX_WHOLE_FILE_BYTES", 4)
    put_latin1_aware(ws / "f.txt", text)
    assert lines(ws, pattern=pattern) == [line.format(pattern=pattern) for line in expected]


def test_text_anchors_apply_per_line_in_python(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(IN_USE, "programs", Programs())
    put(ws / "f.txt", "x\nx\n")
    assert lines(ws, pattern="\\Ax") == ["f.txt:1:x", "f.txt:2:x"]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(os.path.realpath(tmp_path_factory.mktemp("scratch")))


PATTERNS = [
    "a",
    "^a",
    "a$",
    "b\\s",
    "\\sa",
    "^$",
    "a\\b",
    "\\bb",
    "[^a]b",
    "a.b",
    "\\s+$",
    "^\\s*b",
]


@given(st.text(alphabet="ab \t\r\n", max_size=40), st.sampled_from(PATTERNS))
def test_python_search_equals_a_naive_line_by_line_search(
    scratch: Path, text: str, pattern: str
) -> None:
    # The whole-text prefilter may only skip files in which no line matches.
    path = scratch / "f.txt"
    path.write_bytes(text.encode())
    lines = text.split("\n")
    if text.endswith("\n") or not text:
        lines.pop()
    expected = [(n, line.rstrip("\r")) for n, line in enumerate(lines, 1)]
    expected = [(n, line) for n, line in expected if re.search(pattern, line)]
    found: list[tuple[int, str]] = []
    query = grep_search.GrepQuery(scratch, path, pattern)

    def add(rel: str, number: int, line: str) -> bool:
        found.append((number, line))
        return True

    grep_search.search_python(query, add)
    assert found == expected


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|a)*$", "(a|aa)+$", "(.*a){25}$"])
def test_a_pattern_that_backtracks_without_end_is_stopped_with_an_error(
    ws: Path, monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    """Without ripgrep, the search stops at the budget instead of hanging the run."""
    monkeypatch.setitem(IN_USE, "programs", Programs())
    monkeypatch.setattr(grep_search, "PYTHON_BUDGET_S", 0.2)
    (ws / "a.txt").write_text("a" * 5000 + "b\n")
    result = grep(ws, pattern=pattern)  # unbounded, it would run for hours
    assert result.is_error
    assert "backtrack" in result.content and "Simplify the pattern" in result.content


def test_control_the_budget_leaves_an_ordinary_search_alone(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(IN_USE, "programs", Programs())
    (ws / "a.txt").write_text("a" * 5000 + "b\n")
    assert grep(ws, pattern="a+b$", output_mode="count").content == "a.txt:1"
