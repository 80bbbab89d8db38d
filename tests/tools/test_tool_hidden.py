"""Grep, Glob and LS never walk into secret places or paths a Read deny rule covers.

A fake HOME holds an SSH key, cloud credentials and a shell history; the tools are
pointed at HOME itself (as under --yes, the user having granted it) and must return
nothing from below those places, while the ordinary files beside them still show.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from nehanda.fs import state_dir
from nehanda.permissions.hidden import HiddenPaths
from nehanda.permissions.rules import parse_rule
from nehanda.sandbox.programs import Programs
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse

KEY = "PRIVATE-KEY-MATERIAL"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = Path(os.path.realpath(tmp_path)) / "home"
    for relative in (".ssh/id_ed25519", ".aws/credentials", ".bash_history", ".netrc"):
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(f"{KEY}\n")
    (home / "notes").mkdir()
    (home / "notes" / "todo.txt").write_text(f"not a {KEY}, a note\n")
    (home / "notes" / "private.txt").write_text(f"{KEY}\n")
    sessions = state_dir() / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "log.jsonl").write_text(f"{KEY}\n")
    monkeypatch.setenv("HOME", str(home))
    return home


# The helpers the next call runs with: ripgrep where present, unless a test takes it away.
IN_USE = {"programs": Programs(ripgrep=shutil.which("rg"))}


@pytest.fixture(params=["python", "ripgrep"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Grep's engines: ripgrep walks on its own, so its matches are filtered instead."""
    if request.param == "ripgrep" and shutil.which("rg") is None:
        pytest.skip("rg is not installed")
    if request.param == "python":
        monkeypatch.setitem(IN_USE, "programs", Programs())
    return str(request.param)


def run(home: Path, tool: str, deny: tuple[str, ...] = (), **args: Any) -> ToolResult:
    workspace = home / "notes"
    hidden = HiddenPaths.build([parse_rule(rule) for rule in deny], workspace, home)
    context = ToolContext(
        workspace, granted=(home, state_dir()), hidden=hidden, programs=IN_USE["programs"]
    )
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", tool, args), context))


def test_grep_from_home_finds_nothing_in_secret_places(home: Path, backend: str) -> None:
    result = run(home, "Grep", pattern=KEY, path=str(home), output_mode="files_with_matches")
    assert result.content.splitlines() == ["../notes/private.txt", "../notes/todo.txt"]


def test_a_read_deny_rule_prunes_the_walk_too(home: Path, backend: str) -> None:
    result = run(home, "Grep", ("Read(~/notes/private.txt)",), pattern=KEY, path=str(home))
    assert "private.txt" not in result.content
    assert "../notes/todo.txt:1:" in result.content


def test_glob_from_home_lists_no_secret_file(home: Path) -> None:
    result = run(home, "Glob", pattern="**/*", path=str(home))
    shown = result.content.splitlines()
    assert sorted(shown) == ["../notes/private.txt", "../notes/todo.txt"], shown


def test_glob_with_a_pattern_into_a_secret_place_is_refused(home: Path) -> None:
    result = run(home, "Glob", pattern=".ssh/*", path=str(home))
    assert result.is_error and "kept from the model" in result.content
    assert "id_ed25519" not in result.content


def test_ls_of_home_leaves_the_secret_places_out(home: Path) -> None:
    result = run(home, "LS", path=str(home))
    assert result.content.splitlines() == ["notes/"]


@pytest.mark.parametrize("tool", ["Grep", "LS", "Glob"])
def test_a_walk_starting_inside_a_secret_place_is_refused(home: Path, tool: str) -> None:
    args: dict[str, Any] = {"pattern": "*"} if tool != "LS" else {}
    result = run(home, tool, (), path=str(home / ".ssh"), **args)
    assert result.is_error and "kept from the model" in result.content
    assert KEY not in result.content and "id_ed25519" not in result.content


def test_nehanda_state_is_hidden(home: Path) -> None:
    result = run(home, "Grep", pattern=KEY, path=str(state_dir()))
    assert result.is_error and KEY not in result.content
