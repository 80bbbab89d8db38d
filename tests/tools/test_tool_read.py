"""Read as the model uses it: numbered windows of text files, refusals it can act on."""

from __future__ import annotations

import asyncio
import codecs
import io
import os
from pathlib import Path
from typing import Any

import pytest

from nehanda.tools.base import ToolContext
from nehanda.tools.output import MAX_OUTPUT_BYTES
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Path(os.path.realpath(workspace))


def read(ws: Path, **args: Any) -> ToolResult:
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", "Read", args), ToolContext(ws)))


def write_lines(path: Path, count: int) -> None:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))


def test_lines_are_numbered_like_cat_n(ws: Path) -> None:
    (ws / "notes.txt").write_text("alpha\n\tbeta\ngamma\n")
    result = read(ws, file_path="notes.txt")
    assert not result.is_error
    assert result.content == "     1\talpha\n     2\t\tbeta\n     3\tgamma"


@pytest.mark.parametrize(
    ("offset", "limit", "first", "last", "note"),
    [
        (None, None, 1, 10, None),
        (3, 2, 3, 4, "(Showing lines 3-4 of 10. Use offset=5 to read more.)"),
        (0, 1, 1, 1, "(Showing lines 1-1 of 10. Use offset=2 to read more.)"),
        (8, None, 8, 10, None),
        (10, 5, 10, 10, None),
    ],
)
def test_offset_and_limit_choose_the_window(
    ws: Path, offset: int | None, limit: int | None, first: int, last: int, note: str | None
) -> None:
    write_lines(ws / "ten.txt", 10)
    args = {k: v for k, v in {"offset": offset, "limit": limit}.items() if v is not None}
    content = read(ws, file_path="ten.txt", **args).content
    body, _, tail = content.partition("\n\n")
    numbers = [int(line.split("\t")[0]) for line in body.splitlines()]
    assert numbers == list(range(first, last + 1))
    assert (tail or None) == note


def test_default_window_is_2000_lines_with_a_pointer_to_the_rest(ws: Path) -> None:
    write_lines(ws / "long.txt", 2500)
    content = read(ws, file_path="long.txt").content
    assert "  2000\tline 2000\n" in content
    assert "line 2001" not in content
    assert content.endswith("(Showing lines 1-2000 of 2500. Use offset=2001 to read more.)")


def test_total_counts_a_last_line_without_newline(ws: Path) -> None:
    (ws / "f.txt").write_text("a\nb\nc")
    assert read(ws, file_path="f.txt", limit=1).content.endswith(
        "of 3. Use offset=2 to read more.)"
    )


def test_offset_past_the_end_is_an_error_with_the_length(ws: Path) -> None:
    write_lines(ws / "three.txt", 3)
    result = read(ws, file_path="three.txt", offset=7)
    assert result.is_error
    assert result.content == "offset=7 is past the end of three.txt, which has 3 lines."


def test_empty_file_says_so(ws: Path) -> None:
    (ws / "empty.txt").write_bytes(b"")
    result = read(ws, file_path="empty.txt")
    assert (result.is_error, result.content) == (False, "(empty.txt is empty.)")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"one\r\ntwo\r\n", "     1\tone\n     2\ttwo"),
        (b"\xef\xbb\xbfbom\n", "     1\tbom"),
        ("ünï\n".encode(), "     1\tünï"),
    ],
)
def test_line_endings_and_bom_are_not_shown(ws: Path, data: bytes, expected: str) -> None:
    (ws / "f.txt").write_bytes(data)
    assert read(ws, file_path="f.txt").content == expected


def test_long_lines_are_cut_saying_how_much(ws: Path) -> None:
    (ws / "wide.txt").write_text("x" * 2500 + "\nshort\n")
    content = read(ws, file_path="wide.txt").content
    assert f"     1\t{'x' * 2000}... [line cut: 500 more characters]\n     2\tshort" == content


def test_output_stays_under_the_cap_and_points_to_the_next_offset(ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"{n:05} {'y' * 200}\n" for n in range(1500)))
    content = read(ws, file_path="big.txt").content
    assert len(content.encode()) <= MAX_OUTPUT_BYTES
    shown = content.split("\n\n")[0].splitlines()
    assert 100 < len(shown) < 1500
    assert content.endswith(f"of 1500. Use offset={len(shown) + 1} to read more.)")


@pytest.mark.parametrize(
    ("data", "size"),
    [
        (b"PK\x03\x04\x00\x00" + b"z" * 1228, "1,234 bytes"),
        (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8, "16 bytes"),
        ("UTF-16, no mark\n".encode("utf-16-le"), "32 bytes"),
    ],
)
def test_binary_files_are_refused_with_their_size(ws: Path, data: bytes, size: str) -> None:
    (ws / "blob.bin").write_bytes(data)
    result = read(ws, file_path="blob.bin", offset=3990)
    assert result.is_error
    assert result.content == f"blob.bin is a binary file ({size}), not text; Read shows text only."


PNG = (Path(__file__).parents[1] / "fixtures" / "images" / "red_2x2.png").read_bytes()


def test_a_picture_comes_back_as_an_image_whatever_its_name(ws: Path) -> None:
    (ws / "blob.bin").write_bytes(PNG)
    result = read(ws, file_path="blob.bin")
    assert not result.is_error
    assert result.content == "blob.bin: PNG image, 73 bytes."
    assert [(i.media_type, i.data) for i in result.images] == [("image/png", PNG)]


def test_a_picture_over_the_limit_comes_back_downscaled_under_it(ws: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    big = io.BytesIO()
    image.frombytes("RGB", (200, 200), os.urandom(200 * 200 * 3)).save(big, format="PNG")
    (ws / "big.png").write_bytes(big.getvalue())
    use = ToolUse("call_1", "Read", {"file_path": "big.png"})
    result = asyncio.run(execute_builtin_tool(use, ToolContext(ws, image_bytes=30_000)))
    sent = result.images[0].data or b""
    assert len(sent) <= 30_000
    assert (
        result.content
        == f"big.png: PNG image, {len(big.getvalue()):,} bytes, downscaled to {len(sent):,} bytes."
    )


@pytest.mark.parametrize(
    ("data", "expected", "name"),
    [
        (b"caf\xe9\n\x93quoted\x94\n", "     1\tcafé\n     2\t\x93quoted\x94", "Latin-1"),
        (
            codecs.BOM_UTF16_LE + "é\r\nx\r\n".encode("utf-16-le"),
            "     1\té\n     2\tx",
            "UTF-16 LE",
        ),
        (codecs.BOM_UTF16_BE + "é\nx".encode("utf-16-be"), "     1\té\n     2\tx", "UTF-16 BE"),
        (codecs.BOM_UTF32_LE + "😀\n".encode("utf-32-le"), "     1\t😀", "UTF-32 LE"),
    ],
)
def test_other_encodings_are_shown_as_text_with_a_note(
    ws: Path, data: bytes, expected: str, name: str
) -> None:
    (ws / "legacy.txt").write_bytes(data)
    result = read(ws, file_path="legacy.txt")
    assert not result.is_error
    assert result.content == f"{expected}\n\n(Encoding: {name}, not UTF-8; Edit and Write keep it.)"


def test_a_byte_that_is_not_utf8_late_in_the_file_makes_it_latin1(ws: Path) -> None:
    (ws / "late.txt").write_bytes("ok é\n".encode() * 4000 + b"\xff\xfe late\n")
    content = read(ws, file_path="late.txt", offset=3999).content
    assert content == (
        "  3999\tok Ã©\n  4000\tok Ã©\n  4001\tÿþ late\n\n"
        "(Encoding: Latin-1, not UTF-8; Edit and Write keep it.)"
    )
    windowed = read(ws, file_path="late.txt", limit=1).content
    assert windowed == (
        "     1\tok Ã©\n\n(Showing lines 1-1 of 4001. Use offset=2 to read more.)\n"
        "(Encoding: Latin-1, not UTF-8; Edit and Write keep it.)"
    )


def test_utf16_lines_are_counted_in_characters_not_bytes(ws: Path) -> None:
    # "Ċ" is U+010A: its low byte is the byte of "\n".
    (ws / "wide.txt").write_bytes(codecs.BOM_UTF16_LE + "Ċ\nĊĊ\nlast".encode("utf-16-le"))
    content = read(ws, file_path="wide.txt", limit=1).content
    assert content.startswith("     1\tĊ\n\n(Showing lines 1-1 of 3. Use offset=2 to read more.)")
    assert read(ws, file_path="wide.txt", offset=3).content.startswith("     3\tlast\n\n")


def test_the_byte_budget_counts_bytes_of_non_ascii_text(ws: Path) -> None:
    (ws / "accents.txt").write_bytes(
        b"".join(b"%05d " % n + b"\xe9" * 200 + b"\n" for n in range(1500))
    )
    content = read(ws, file_path="accents.txt").content
    assert len(content.encode()) <= MAX_OUTPUT_BYTES
    shown = content.split("\n\n")[0].splitlines()
    assert 100 < len(shown) < 1500
    assert f"of 1500. Use offset={len(shown) + 1} to read more.)\n(Encoding: Latin-1" in content


def test_directory_points_to_ls(ws: Path) -> None:
    (ws / "src").mkdir()
    result = read(ws, file_path="src")
    assert result.is_error
    assert "is a directory" in result.content
    assert "LS" in result.content


def test_missing_file_is_a_clear_error(ws: Path) -> None:
    result = read(ws, file_path="nope.txt")
    assert result.is_error
    assert result.content.startswith("File not found: nope.txt.")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    result = read(ws, file_path="pipe")
    assert result.is_error
    assert "not a regular file" in result.content


@pytest.mark.parametrize("raw", ["../../etc/passwd", "{parent}/ws-evil/secret.txt", "escape"])
def test_files_outside_the_workspace_are_refused(ws: Path, raw: str) -> None:
    evil = ws.parent / "ws-evil"
    evil.mkdir()
    (evil / "secret.txt").write_text("secret\n")
    (ws / "escape").symlink_to(evil / "secret.txt")
    result = read(ws, file_path=raw.format(parent=ws.parent))
    assert result.is_error
    assert f"is outside the workspace {ws}; only files inside it can be read." in result.content
    assert "secret\n" not in result.content


def test_symlink_inside_the_workspace_is_followed(ws: Path) -> None:
    (ws / "real.txt").write_text("real\n")
    (ws / "alias.txt").symlink_to("real.txt")
    assert read(ws, file_path="alias.txt").content == "     1\treal"
