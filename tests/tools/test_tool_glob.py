"""Glob: files by pattern, newest first, .gitignore honoured, never lost in symlinks."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Path(os.path.realpath(workspace))


def glob(ws: Path, **args: Any) -> ToolResult:
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", "Glob", args), ToolContext(ws)))


def touch(path: Path, mtime: float = 1_000_000.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    os.utime(path, (mtime, mtime))


def found(ws: Path, **args: Any) -> list[str]:
    result = glob(ws, **args)
    assert not result.is_error, result.content
    return result.content.splitlines()


def test_newest_first(ws: Path) -> None:
    touch(ws / "old.py", 1_000)
    touch(ws / "new.py", 3_000)
    touch(ws / "mid.py", 2_000)
    assert found(ws, pattern="*.py") == ["new.py", "mid.py", "old.py"]


@pytest.fixture
def tree(ws: Path) -> Path:
    for rel in ("top.py", "src/a.py", "src/pkg/b.py", "src/pkg/c.ts", "docs/x.md", ".github/ci.py"):
        touch(ws / rel)
    return ws


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"pattern": "*.py"}, ["top.py"]),
        ({"pattern": "**/*.py"}, [".github/ci.py", "src/a.py", "src/pkg/b.py", "top.py"]),
        ({"pattern": "src/**/*.py"}, ["src/a.py", "src/pkg/b.py"]),
        ({"pattern": "src/*/*.{py,ts}"}, ["src/pkg/b.py", "src/pkg/c.ts"]),
        ({"pattern": "*.py", "path": "src"}, ["src/a.py"]),
        ({"pattern": "**/b.py", "path": "src"}, ["src/pkg/b.py"]),
        ({"pattern": "docs/x.md"}, ["docs/x.md"]),
        ({"pattern": "{ws}/src/pkg/*"}, ["src/pkg/b.py", "src/pkg/c.ts"]),
    ],
)
def test_patterns_match_paths_below_path(
    tree: Path, args: dict[str, str], expected: list[str]
) -> None:
    args = {key: value.replace("{ws}", str(tree)) for key, value in args.items()}
    assert sorted(found(tree, **args)) == expected


def test_no_match_is_a_plain_answer(tree: Path) -> None:
    result = glob(tree, pattern="**/*.rs")
    assert (result.is_error, result.content) == (
        False,
        "No files match '**/*.rs' in the workspace.",
    )


def test_gitignored_files_and_dot_git_are_skipped(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n*.log\n!keep.log\n/top-only.txt\n")
    (ws / "sub").mkdir()
    (ws / "sub" / ".gitignore").write_text("secret.txt\n")
    for rel in ("build/out.py", "a.log", "keep.log", "top-only.txt", "sub/top-only.txt"):
        touch(ws / rel)
    for rel in ("sub/secret.txt", "secret.txt", ".git/config", "src/.git/HEAD"):
        touch(ws / rel)
    assert sorted(found(ws, pattern="**/*")) == [
        ".gitignore",
        "keep.log",
        "secret.txt",
        "sub/.gitignore",
        "sub/top-only.txt",
    ]


def test_a_gitignore_above_path_still_applies(ws: Path) -> None:
    (ws / ".gitignore").write_text("*.gen.py\n")
    touch(ws / "src" / "a.py")
    touch(ws / "src" / "b.gen.py")
    assert found(ws, pattern="*.py", path="src") == ["src/a.py"]


@pytest.mark.parametrize(("in_a_repo", "expected"), [(True, ["x.a", "x.c"]), (False, ["x.c"])])
def test_gitignores_above_the_workspace_apply_up_to_the_repository_root(
    tmp_path: Path, in_a_repo: bool, expected: list[str]
) -> None:
    (tmp_path / ".gitignore").write_text("*.a\n")
    repo = tmp_path / "repo"
    (repo / ".git" if in_a_repo else repo).mkdir(parents=True)
    (repo / ".gitignore").write_text("*.b\n")
    ws = Path(os.path.realpath(repo / "ws"))
    for name in ("x.a", "x.b", "x.c"):
        touch(ws / name)
    assert sorted(found(ws, pattern="*")) == expected


@pytest.mark.timeout(10)
def test_symlink_loops_and_links_outside_are_skipped(ws: Path) -> None:
    outside = ws.parent / "outside"
    touch(outside / "leak.py")
    touch(ws / "src" / "real.py")
    (ws / "src" / "loop").symlink_to(ws / "src")
    (ws / "self").symlink_to(ws)
    (ws / "a").symlink_to("b")
    (ws / "b").symlink_to("a")
    (ws / "dangling").symlink_to("missing.py")
    (ws / "out").symlink_to(outside)
    (ws / "out.py").symlink_to(outside / "leak.py")
    (ws / "alias.py").symlink_to("src/real.py")
    assert sorted(found(ws, pattern="**/*.py")) == ["alias.py", "src/real.py"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_non_regular_files_are_skipped(ws: Path) -> None:
    os.mkfifo(ws / "pipe.py")
    touch(ws / "real.py")
    assert found(ws, pattern="*.py") == ["real.py"]


def test_many_matches_are_capped_with_a_count(ws: Path) -> None:
    for n in range(510):
        touch(ws / f"f{n:03}.txt", 1_000 + n)
    lines = found(ws, pattern="*.txt")
    assert len(lines) == 501
    assert lines[0] == "f509.txt"
    assert lines[-1] == "... and 10 more"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"pattern": "../*"}, "is outside the workspace"),
        ({"pattern": "*", "path": "/"}, "is outside the workspace"),
        ({"pattern": "*", "path": "file.txt"}, "file.txt is not a directory"),
        ({"pattern": ""}, "parameter 'pattern'"),
        ({"pattern": "{a,b}" * 9}, "more than 256 globs"),
    ],
)
def test_refusals(ws: Path, args: dict[str, str], message: str) -> None:
    touch(ws / "file.txt")
    result = glob(ws, **args)
    assert result.is_error
    assert message in result.content
