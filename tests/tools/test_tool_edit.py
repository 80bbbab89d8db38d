"""Edit as the model uses it: exact replacements that keep the file's line endings."""

from __future__ import annotations

import asyncio
import codecs
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from nehanda.errors import ToolError
from nehanda.tools import edit as edit_module
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


@pytest.fixture
def context(ws: Path) -> ToolContext:
    return ToolContext(ws)


def edit(context: ToolContext, **args: Any) -> ToolResult:
    args.setdefault("file_path", "code.py")
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", "Edit", args), context))


def read(context: ToolContext) -> ToolResult:
    use = ToolUse("r", "Read", {"file_path": "code.py"})
    return asyncio.run(execute_builtin_tool(use, context))


def test_replaces_exactly_one_match(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_text("def f():\n    return 1\n\nx = f()\n")
    result = edit(context, old_string="    return 1\n", new_string="    return 2\n")
    assert result.content == "Edited code.py: replaced 1 occurrence (the first at line 2)."
    assert (ws / "code.py").read_text() == "def f():\n    return 2\n\nx = f()\n"


def test_zero_matches_change_nothing_and_say_how_to_fix_it(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_text("a = 1\n")
    result = edit(context, old_string="a = 2", new_string="a = 3")
    assert result.is_error
    assert "old_string was not found in code.py; nothing was changed" in result.content
    assert "line-number prefix" in result.content
    assert (ws / "code.py").read_text() == "a = 1\n"


def test_three_matches_change_nothing_and_give_the_count(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_text("x = 1\nx = 1\nx = 1\n")
    result = edit(context, old_string="x = 1", new_string="x = 2")
    assert result.is_error
    assert "old_string occurs 3 times in code.py; nothing was changed" in result.content
    assert "replace_all=true" in result.content
    assert (ws / "code.py").read_text() == "x = 1\nx = 1\nx = 1\n"


def test_replace_all_changes_every_match(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_text("x = 1\ny = x\nx = 1\nx = 1\n")
    result = edit(context, old_string="x = 1", new_string="x = 2", replace_all=True)
    assert result.content == "Edited code.py: replaced 3 occurrences (the first at line 1)."
    assert (ws / "code.py").read_text() == "x = 2\ny = x\nx = 2\nx = 2\n"


def test_a_crlf_file_keeps_crlf_line_endings(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = edit(context, old_string="one\ntwo\n", new_string="one\nTWO\nand a half\n")
    assert not result.is_error, result.content
    assert (ws / "code.py").read_bytes() == b"one\r\nTWO\r\nand a half\r\nthree\r\n"


def test_a_byte_order_mark_and_utf8_text_are_kept(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_bytes(b"\xef\xbb\xbfname = 'caf\xc3\xa9'\n")
    assert not edit(context, old_string="café", new_string="thé").is_error
    assert (ws / "code.py").read_bytes() == "\ufeffname = 'thé'\n".encode()


def test_a_latin1_file_stays_latin1_byte_for_byte(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_bytes(b"# \x93caf\xe9\x94\r\nname = 'caf\xe9'\n\xff\n")
    assert "\tname = 'café'" in read(context).content
    result = edit(context, old_string="name = 'café'", new_string="name = 'thé à'")
    assert not result.is_error, result.content
    assert (ws / "code.py").read_bytes() == b"# \x93caf\xe9\x94\r\nname = 'th\xe9 \xe0'\n\xff\n"


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF8, "utf-8"),
    ],
)
def test_a_marked_crlf_file_keeps_its_mark_encoding_and_crlf(
    context: ToolContext, ws: Path, bom: bytes, codec: str
) -> None:
    (ws / "code.py").write_bytes(bom + "é = 1\r\nx = 2\r\n".encode(codec))
    result = edit(context, old_string="é = 1\nx = 2\n", new_string="é = 1\nx = 3\ny = 4\n")
    assert not result.is_error, result.content
    assert (ws / "code.py").read_bytes() == bom + "é = 1\r\nx = 3\r\ny = 4\r\n".encode(codec)


def test_a_character_the_encoding_lacks_is_refused_and_nothing_changes(
    context: ToolContext, ws: Path
) -> None:
    original = b"msg = 'caf\xe9'\n"
    (ws / "code.py").write_bytes(original)
    os.utime(ws / "code.py", ns=(1, 1))
    result = edit(context, old_string="café", new_string="café 😀")
    assert result.is_error
    assert result.content == (
        "code.py is Latin-1 text, which cannot hold '😀' (U+1F600) from new_string; nothing "
        "was changed. Use only characters Latin-1 has (write others as escapes the file's "
        "language understands), or convert the file to UTF-8 first."
    )
    assert (ws / "code.py").read_bytes() == original
    assert (ws / "code.py").stat().st_mtime_ns == 1


def test_the_approval_diff_decodes_the_file_the_same_way(ws: Path) -> None:
    (ws / "code.py").write_bytes(codecs.BOM_UTF16_LE + "a = 'é'\r\n".encode("utf-16-le"))
    use = ToolUse("c", "Edit", {"file_path": "code.py", "old_string": "é", "new_string": "è"})
    assert edit_module.change_diff(use.input, ws)[-2:] == ["-a = 'é'", "+a = 'è'"]
    (ws / "code.py").write_bytes(b"a = '\xe9'\n")
    args = edit_module.EditArgs(file_path="code.py", old_string="é", new_string="😀")
    with pytest.raises(ToolError, match="Latin-1 text, which cannot hold"):
        edit_module.preview(ws / "code.py", args)


def test_mixed_line_endings_are_left_alone_and_explained(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_bytes(b"a\r\nb\nc\r\n")
    assert not edit(context, old_string="b", new_string="B").is_error
    assert (ws / "code.py").read_bytes() == b"a\r\nB\nc\r\n"
    missed = edit(context, old_string="a\nB", new_string="x")
    assert missed.is_error and "mixes CRLF and LF" in missed.content


def test_the_mode_is_kept(context: ToolContext, ws: Path) -> None:
    (ws / "code.py").write_text("echo a\n")
    (ws / "code.py").chmod(0o755)
    assert not edit(context, old_string="a", new_string="b").is_error
    assert stat.S_IMODE((ws / "code.py").stat().st_mode) == 0o755


@pytest.mark.parametrize(
    ("setup", "args", "says"),
    [
        (None, {"old_string": "a", "new_string": "b"}, "File not found: code.py. Use Write"),
        (b"a\n", {"old_string": "a", "new_string": "a"}, "the same; there is nothing to change"),
        (b"\x89PNG\r\n\x1a\n\x00\x00a", {"old_string": "a", "new_string": "b"}, "binary file"),
        (b"a\n", {"old_string": "", "new_string": "b"}, "old_string"),
    ],
)
def test_refusals(
    context: ToolContext, ws: Path, setup: bytes | None, args: dict[str, Any], says: str
) -> None:
    if setup is not None:
        (ws / "code.py").write_bytes(setup)
    result = edit(context, **args)
    assert result.is_error and says in result.content
    assert (ws / "code.py").exists() is (setup is not None)
    if setup is not None:
        assert (ws / "code.py").read_bytes() == setup


def test_refuses_when_the_file_changed_since_it_was_read(context: ToolContext, ws: Path) -> None:
    target = ws / "code.py"
    target.write_text("x = 1\n")
    read = asyncio.run(
        execute_builtin_tool(ToolUse("r", "Read", {"file_path": "code.py"}), context)
    )
    assert not read.is_error
    assert not edit(context, old_string="x = 1", new_string="x = 2").is_error
    assert not edit(context, old_string="x = 2", new_string="x = 3").is_error  # its own write
    target.write_text("x = 3\ny = 4\n")
    os.utime(target, ns=(1, 1))
    refused = edit(context, old_string="x = 3", new_string="x = 4")
    assert refused.is_error and "changed since you last read it" in refused.content
    assert target.read_text() == "x = 3\ny = 4\n"


def test_a_symlink_leading_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("token = 1\n")
    (ws / "code.py").symlink_to(tmp_path / "secret.txt")
    result = edit(ToolContext(Path(os.path.realpath(ws))), old_string="1", new_string="2")
    assert result.is_error and "outside the workspace" in result.content
    assert (tmp_path / "secret.txt").read_text() == "token = 1\n"
