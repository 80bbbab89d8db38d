"""Read: a text file's lines, numbered like ``cat -n``, a window at a time; an image.

A file whose bytes begin as a PNG, JPEG, GIF or WebP does is an image: it comes back as
one (``Shown``), under the provider's limit (``nehanda.images``), with a line saying its
format and size, which is all a model that cannot see images gets.

The file is decoded as it streams by, never held whole. Its encoding is found as
Edit and Write find it (``text_encoding``): each candidate decodes the whole file,
the lines after the window included, and one that fails gives way to the next.
It is opened below its root's descriptor following no symlink (``beneath``), so a
folder swapped for a symlink after the path was checked is refused, not read; its
type and size come from the descriptor, and opening never waits on a FIFO.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from typing import TextIO

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ImageRefused, ToolError
from nehanda.images import SNIFF_BYTES as IMAGE_SNIFF_BYTES
from nehanda.images import fitted_image
from nehanda.tools.base import EditorFiles, Shown, Tool, ToolContext
from nehanda.tools.beneath import SymlinkMet, open_beneath, race_refusal
from nehanda.tools.filestate import FileRecord
from nehanda.tools.output import MAX_OUTPUT_BYTES
from nehanda.tools.paths import Placed
from nehanda.tools.text_encoding import SNIFF_BYTES, TextEncoding, candidates
from nehanda.types import JsonObject, image_type

NAME = "Read"
DEFAULT_LIMIT = 2000
_LINE_NUMBERS = re.compile(r"(?m)^ *\d+\t")  # the gutter a multi-line object is split by
MAX_LINE_CHARS = 2000
# Stop a little short of the general cap so the closing note always fits.
BYTE_BUDGET = MAX_OUTPUT_BYTES - 1000
MAX_IMAGE_BYTES = 64 * 1024 * 1024  # an image larger than this is not read at all

DESCRIPTION = f"""\
Read a text file from the workspace. Lines come back numbered like `cat -n`: the line \
number, a tab, then the line exactly as in the file (the number and tab are not part \
of the file). PNG, JPEG, GIF and WebP images come back as images. By default up to \
{DEFAULT_LIMIT} lines from the start; for longer files \
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


async def read_file(args: ReadArgs, context: ToolContext) -> str | Shown:
    placed = context.place(args.file_path, tool=NAME, action="read")
    try:
        handle, info = _open_regular(placed, args.file_path)
    except FileNotFoundError:
        if context.editor is None:
            raise _not_found(args.file_path) from None
        # Not on disk, but perhaps open, unsaved, in the editor.
        return await _editor_window(context.editor, context.files, placed, args, None)
    try:
        with os.fdopen(handle, "rb") as stream:
            if image_type(stream.peek(IMAGE_SNIFF_BYTES)[:IMAGE_SNIFF_BYTES]):
                shown = _image(stream, args.file_path, info.st_size, context.image_bytes)
                context.files.remember(placed.path, info)
                return shown
            if context.editor is not None:
                return await _editor_window(context.editor, context.files, placed, args, info)
            body, notes, encoding = _decoded_window(stream, args, info.st_size)
    except OSError as error:
        raise ToolError(NAME, f"Cannot read {args.file_path}: {error.strerror}.") from error
    context.files.remember(placed.path, info)
    if not encoding.is_utf8:
        notes.append(f"(Encoding: {encoding.name}, not UTF-8; Edit and Write keep it.)")
    return "\n\n".join([body, "\n".join(notes)]) if notes else body


async def _editor_window(
    editor: EditorFiles,
    files: FileRecord,
    placed: Placed,
    args: ReadArgs,
    info: os.stat_result | None,
) -> str:
    """The window of the editor's text of the file (its buffer, saved or not), whose
    status on disk is ``info`` (``None``: not on disk)."""
    try:
        text = await editor.read_text(placed.path)
    except OSError as error:
        if info is None:
            raise _not_found(args.file_path) from None
        raise ToolError(NAME, f"Cannot read {args.file_path}: {error.strerror or error}.") from None
    body, notes = _numbered_window(io.StringIO(text), args)
    files.remember(placed.path, info)
    return "\n\n".join([body, "\n".join(notes)]) if notes else body


def _not_found(shown: str) -> ToolError:
    return ToolError(NAME, f"File not found: {shown}. Use Glob or LS to see which files exist.")


def _image(stream: io.BufferedReader, shown: str, size: int, limit: int) -> Shown:
    if size > MAX_IMAGE_BYTES:
        raise ToolError(NAME, f"{shown} is an image of {size:,} bytes, too large to read.")
    try:
        image = fitted_image(stream.read(MAX_IMAGE_BYTES), limit, shown)
    except ImageRefused as refused:
        raise ToolError(NAME, f"{refused}.") from None
    kind = image.media_type.removeprefix("image/").upper()
    scaled = (
        f", downscaled to {len(image.data or b''):,} bytes"
        if image.data and len(image.data) != size
        else ""
    )
    return Shown(f"{shown}: {kind} image, {size:,} bytes{scaled}.", (image,))


def _open_regular(placed: Placed, shown: str) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at ``placed``, opened without waiting, and its
    status; ``FileNotFoundError`` when there is none."""
    try:
        handle = open_beneath(placed, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except SymlinkMet:
        raise race_refusal(NAME, shown) from None
    except FileNotFoundError:
        raise
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket
            raise _not_regular(shown) from None
        raise ToolError(NAME, f"Cannot read {shown}: {error.strerror}.") from error
    info = os.fstat(handle)
    kind = stat.S_IFMT(info.st_mode)
    if kind != stat.S_IFREG:
        os.close(handle)
        if kind == stat.S_IFDIR:
            raise ToolError(NAME, f"{shown} is a directory, not a file; use LS to list it.")
        raise _not_regular(shown)
    os.set_blocking(handle, True)
    return handle, info


def _not_regular(shown: str) -> ToolError:
    return ToolError(NAME, f"{shown} is not a regular file (a device, FIFO or socket).")


def _decoded_window(
    handle: io.BufferedReader, args: ReadArgs, size: int
) -> tuple[str, list[str], TextEncoding]:
    """The window, its notes and the first encoding that decodes the whole file."""
    for encoding in candidates(handle.read(SNIFF_BYTES)):
        handle.seek(len(encoding.bom))
        # Lines end at "\n" alone, as Edit counts them, and keep their "\r".
        text = io.TextIOWrapper(handle, encoding=encoding.codec, newline="\n")
        try:
            body, notes = _numbered_window(text, args)
        except UnicodeDecodeError:
            continue
        finally:
            text.detach()
        return body, notes, encoding
    raise ToolError(
        NAME, f"{args.file_path} is a binary file ({size:,} bytes), not text; Read shows text only."
    )


def _numbered_window(text: TextIO, args: ReadArgs) -> tuple[str, list[str]]:
    start = max(args.offset or 1, 1)
    limit = args.limit or DEFAULT_LIMIT
    lines: list[str] = []
    used = 0
    number = 0
    for number, line in enumerate(text, 1):
        if number < start:
            continue
        if len(lines) == limit or used >= BYTE_BUDGET:
            total = number - 1 + _count_lines(text, line)
            return _with_note(lines, start, total)
        lines.append(f"{number:>6}\t{_shown_line(line)}")
        used += len(lines[-1].encode()) + 1
    if not lines:
        return _empty_window(args.file_path, start, number), []
    return "\n".join(lines), []


def _shown_line(line: str) -> str:
    line = line.rstrip("\r\n")
    if len(line) > MAX_LINE_CHARS:
        cut = len(line) - MAX_LINE_CHARS
        line = f"{line[:MAX_LINE_CHARS]}... [line cut: {cut} more characters]"
    return line


def _count_lines(text: TextIO, current: str) -> int:
    """How many lines remain, ``current`` (already read, not yet shown) included."""
    count, last = current.count("\n"), current
    while chunk := text.read(1 << 20):
        count += chunk.count("\n")
        last = chunk
    return count if last.endswith("\n") else count + 1


def _with_note(lines: list[str], start: int, total: int) -> tuple[str, list[str]]:
    end = start + len(lines) - 1
    return "\n".join(lines), [
        f"(Showing lines {start}-{end} of {total}. Use offset={end + 1} to read more.)"
    ]


def _empty_window(shown: str, start: int, total: int) -> str:
    if total == 0:
        return f"({shown} is empty.)"
    lines = "1 line" if total == 1 else f"{total} lines"
    raise ToolError(NAME, f"offset={start} is past the end of {shown}, which has {lines}.")


def without_line_numbers(output: str) -> str:
    """The text as it stands in the file, each line's number and tab taken away."""
    return _LINE_NUMBERS.sub("", output)


def outcome(arguments: JsonObject, output: str) -> str:
    """``3 lines``: the lines of the file shown, its closing notes left out."""
    lines = len(_LINE_NUMBERS.findall(output))
    return "1 line" if lines == 1 else f"{lines} lines"


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=ReadArgs,
    read_only=True,
    kind="read",
    handler=read_file,
    path_argument="file_path",
    summary_keys=("file_path",),
    plain_output=without_line_numbers,
    outcome=outcome,
)
