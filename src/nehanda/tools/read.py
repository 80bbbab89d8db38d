"""Read: a text file's lines, numbered like ``cat -n``, a window at a time."""

from __future__ import annotations

import codecs
import stat
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.output import MAX_OUTPUT_BYTES

NAME = "Read"
DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
SNIFF_BYTES = 8192
# Stop a little short of the general cap so the closing note always fits.
BYTE_BUDGET = MAX_OUTPUT_BYTES - 1000

DESCRIPTION = f"""\
Read a text file from the workspace. Lines come back numbered like `cat -n`: the line \
number, a tab, then the line exactly as in the file (the number and tab are not part \
of the file). By default up to {DEFAULT_LIMIT} lines from the start; for longer files \
use offset (1-based line number to start at) and limit (how many lines) to read a \
window, as the note at the end of a cut-short answer says. Lines longer than \
{MAX_LINE_CHARS} characters are cut. Binary files are refused. Use LS for \
directories, Glob to find files by name and Grep to find text in files."""


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(
        description="Path of the file, relative to the workspace root or absolute."
    )
    offset: int | None = Field(
        default=None, ge=0, description="Line number to start at (1-based; 0 means 1)."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"How many lines to read (default {DEFAULT_LIMIT})."
    )


async def read_file(args: ReadArgs, context: ToolContext) -> str:
    path = context.resolve(args.file_path, tool=NAME, action="read")
    size = _regular_file_size(path, args.file_path)
    try:
        with path.open("rb") as handle:
            _refuse_binary(handle, args.file_path, size)
            window = _numbered_window(handle, args, size)
    except OSError as error:
        raise ToolError(NAME, f"Cannot read {args.file_path}: {error.strerror}.") from error
    context.files.remember(path)
    return window


def _regular_file_size(path: Path, shown: str) -> int:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ToolError(
            NAME, f"File not found: {shown}. Use Glob or LS to see which files exist."
        ) from None
    except OSError as error:
        raise ToolError(NAME, f"Cannot read {shown}: {error.strerror}.") from error
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(NAME, f"{shown} is a directory, not a file; use LS to list it.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(NAME, f"{shown} is not a regular file (a device, FIFO or socket).")
    return info.st_size


def _refuse_binary(handle: BinaryIO, shown: str, size: int) -> None:
    head = handle.read(SNIFF_BYTES)
    handle.seek(0)
    try:
        # Not final: the sniffed block may end inside a multi-byte character.
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        raise _binary_error(shown, size) from None
    if b"\0" in head:
        raise _binary_error(shown, size)


def _binary_error(shown: str, size: int) -> ToolError:
    return ToolError(
        NAME, f"{shown} is a binary file ({size:,} bytes), not UTF-8 text; Read shows text only."
    )


def _numbered_window(handle: BinaryIO, args: ReadArgs, size: int) -> str:
    start = max(args.offset or 1, 1)
    limit = args.limit or DEFAULT_LIMIT
    lines: list[str] = []
    used = 0
    number = 0
    for number, raw in enumerate(handle, 1):
        if number < start:
            continue
        if len(lines) == limit or used >= BYTE_BUDGET:
            total = number - 1 + _count_lines(handle, raw)
            return _with_note(lines, start, total)
        line = _decode_line(raw, number, args.file_path, size)
        lines.append(f"{number:>6}\t{line}")
        used += len(lines[-1]) + 1
    if not lines:
        return _empty_window(args.file_path, start, number)
    return "\n".join(lines)


def _decode_line(raw: bytes, number: int, shown: str, size: int) -> str:
    try:
        line = raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise _binary_error(shown, size) from None
    if number == 1:
        line = line.removeprefix("\ufeff")
    if len(line) > MAX_LINE_CHARS:
        cut = len(line) - MAX_LINE_CHARS
        line = f"{line[:MAX_LINE_CHARS]}... [line cut: {cut} more characters]"
    return line


def _count_lines(handle: BinaryIO, current: bytes) -> int:
    """How many lines remain, ``current`` (already read, not yet shown) included."""
    count, last = current.count(b"\n"), current
    while chunk := handle.read(1 << 20):
        count += chunk.count(b"\n")
        last = chunk
    return count if last.endswith(b"\n") else count + 1


def _with_note(lines: list[str], start: int, total: int) -> str:
    end = start + len(lines) - 1
    return (
        "\n".join(lines)
        + f"\n\n(Showing lines {start}-{end} of {total}. Use offset={end + 1} to read more.)"
    )


def _empty_window(shown: str, start: int, total: int) -> str:
    if total == 0:
        return f"({shown} is empty.)"
    lines = "1 line" if total == 1 else f"{total} lines"
    raise ToolError(NAME, f"offset={start} is past the end of {shown}, which has {lines}.")


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=ReadArgs,
    read_only=True,
    handler=read_file,
)
