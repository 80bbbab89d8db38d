"""Write as the model uses it: whole files, atomically, never outside the workspace."""

from __future__ import annotations

import asyncio
import codecs
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from nehanda.errors import ToolError
from nehanda.tools import write as write_module
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Path(os.path.realpath(workspace))


@pytest.fixture
def context(ws: Path) -> ToolContext:
    return ToolContext(ws)


def call(context: ToolContext, name: str, **args: Any) -> ToolResult:
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", name, args), context))


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".nehanda-")]


def test_creates_the_file_and_its_parent_directories(context: ToolContext, ws: Path) -> None:
    result = call(context, "Write", file_path="src/pkg/new.py", content="print('hi')\n")
    assert not result.is_error, result.content
    assert result.content == "Created src/pkg/new.py (1 line, 12 bytes)."
    assert (ws / "src/pkg/new.py").read_text() == "print('hi')\n"
    assert stat.S_IMODE((ws / "src/pkg/new.py").stat().st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_replacing_keeps_the_mode_and_writes_exactly(context: ToolContext, ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    result = call(context, "Write", file_path="run.sh", content="#!/bin/sh\r\necho é\n")
    assert result.content.startswith("Replaced the contents of run.sh")
    assert script.read_bytes() == "#!/bin/sh\r\necho é\n".encode()
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert leftovers(ws) == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"caf\xe9\n", b"th\xe9 \xe0\r\n"),
        (
            codecs.BOM_UTF16_LE + "x\r\n".encode("utf-16-le"),
            codecs.BOM_UTF16_LE + "thé à\r\n".encode("utf-16-le"),
        ),
        (codecs.BOM_UTF8 + b"x\n", codecs.BOM_UTF8 + "thé à\r\n".encode()),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "thé à\r\n".encode()),
    ],
)
def test_replacing_keeps_the_encoding_of_a_text_file(
    context: ToolContext, ws: Path, before: bytes, after: bytes
) -> None:
    (ws / "legacy.txt").write_bytes(before)
    result = call(context, "Write", file_path="legacy.txt", content="thé à\r\n")
    assert result.content == f"Replaced the contents of legacy.txt (1 line, {len(after)} bytes)."
    assert (ws / "legacy.txt").read_bytes() == after


def test_a_new_file_is_utf8(context: ToolContext, ws: Path) -> None:
    assert not call(context, "Write", file_path="new.txt", content="thé 😀\n").is_error
    assert (ws / "new.txt").read_bytes() == "thé 😀\n".encode()


def test_content_the_encoding_cannot_hold_is_refused_and_nothing_changes(
    context: ToolContext, ws: Path
) -> None:
    (ws / "legacy.txt").write_bytes(b"caf\xe9\n")
    result = call(context, "Write", file_path="legacy.txt", content="café 😀\n")
    assert result.is_error
    assert result.content.startswith(
        "legacy.txt is Latin-1 text, which cannot hold '😀' (U+1F600) from content; "
        "nothing was changed."
    )
    assert (ws / "legacy.txt").read_bytes() == b"caf\xe9\n"
    assert leftovers(ws) == []


def test_the_approval_preview_decodes_the_file_the_same_way(ws: Path) -> None:
    (ws / "legacy.txt").write_bytes(b"caf\xe9\n")
    args = write_module.WriteArgs(file_path="legacy.txt", content="thé\n")
    assert write_module.preview(ws / "legacy.txt", args) == ("café\n", "thé\n")
    emoji = write_module.WriteArgs(file_path="legacy.txt", content="😀")
    with pytest.raises(ToolError, match="Latin-1 text, which cannot hold"):
        write_module.preview(ws / "legacy.txt", emoji)


def test_a_failed_rename_leaves_the_original_intact(
    context: ToolContext, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "keep.txt").write_text("original\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "rename", refuse)
    result = call(context, "Write", file_path="keep.txt", content="new\n")
    assert result.is_error
    assert "Input/output error. Nothing was changed." in result.content
    assert (ws / "keep.txt").read_text() == "original\n"
    assert leftovers(ws) == []


def test_a_disk_that_fills_up_halfway_leaves_the_original_intact(
    context: ToolContext, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "keep.txt").write_text("original\n")

    def full(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = call(context, "Write", file_path="keep.txt", content="x" * 100_000)
    assert result.is_error and "No space left on device" in result.content
    assert (ws / "keep.txt").read_text() == "original\n"
    assert leftovers(ws) == []


def test_a_parent_that_is_a_file_is_an_error_and_changes_nothing(
    context: ToolContext, ws: Path
) -> None:
    (ws / "notes.txt").write_text("keep\n")
    result = call(context, "Write", file_path="notes.txt/inner.txt", content="x")
    assert result.is_error
    assert "a parent of it is a file" in result.content
    assert (ws / "notes.txt").read_text() == "keep\n"


def test_a_directory_is_not_overwritten(context: ToolContext, ws: Path) -> None:
    (ws / "src").mkdir()
    result = call(context, "Write", file_path="src", content="x")
    assert (result.is_error, result.content) == (True, "src is a directory, not a file.")


def test_refuses_when_the_file_changed_since_it_was_read(context: ToolContext, ws: Path) -> None:
    target = ws / "app.py"
    target.write_text("v1\n")
    assert not call(context, "Read", file_path="app.py").is_error
    target.write_text("v2 by the user\n")
    os.utime(target, ns=(1, 1))  # a different modification time whatever the clock
    refused = call(context, "Write", file_path="app.py", content="model\n")
    assert refused.is_error and "changed since you last read it" in refused.content
    assert target.read_text() == "v2 by the user\n"
    assert not call(context, "Read", file_path="app.py").is_error
    assert not call(context, "Write", file_path="app.py", content="model\n").is_error
    assert not call(context, "Write", file_path="app.py", content="again\n").is_error


@pytest.mark.parametrize(
    "raw", ["../marker", "../../marker", "../ws-evil/marker", "link/marker", "/tmp/marker-x"]
)
def test_paths_that_escape_the_workspace_are_refused(
    context: ToolContext, ws: Path, raw: str
) -> None:
    (ws.parent / "ws-evil").mkdir()
    (ws.parent / "outside").mkdir()
    (ws / "link").symlink_to(ws.parent / "outside")
    result = call(context, "Write", file_path=raw, content="pwned")
    assert result.is_error and "outside the workspace" in result.content
    for marker in (
        ws.parent / "marker",
        ws.parent / "ws-evil/marker",
        ws.parent / "outside/marker",
        Path("/tmp/marker-x"),
    ):
        assert not marker.exists()


def test_a_symlink_inside_the_workspace_is_written_through(context: ToolContext, ws: Path) -> None:
    (ws / "real.txt").write_text("old\n")
    (ws / "alias.txt").symlink_to("real.txt")
    assert not call(context, "Write", file_path="alias.txt", content="new\n").is_error
    assert (ws / "alias.txt").is_symlink()
    assert (ws / "real.txt").read_text() == "new\n"


def test_a_granted_path_outside_the_workspace_may_be_written(ws: Path) -> None:
    outside = ws.parent / "elsewhere.txt"
    context = ToolContext(ws, granted=(outside,))
    assert not call(context, "Write", file_path=str(outside), content="ok\n").is_error
    assert outside.read_text() == "ok\n"
