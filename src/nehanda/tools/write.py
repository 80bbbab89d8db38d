"""Write: create a file or replace its contents, atomically, keeping its mode and encoding.

A new file (or one that was binary) is written as UTF-8; an existing text file is
written in the encoding it was in, byte order mark included (``text_encoding``). The
file is read and replaced through its folder's descriptor (``workfile``), never by
its name again, so a folder swapped for a symlink meanwhile is refused.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.fs import NEW_FILE_MODE
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.diff import file_diff
from nehanda.tools.text_encoding import (
    LATIN1,
    UTF8,
    NotText,
    TextEncoding,
    UnencodableText,
    decode_text,
    encode_text,
)
from nehanda.tools.workfile import (
    Current,
    current_file,
    read_regular,
    regular_mode,
    write_through,
)
from nehanda.types import JsonObject, count_lines

NAME = "Write"

DESCRIPTION = """\
Write a file in the workspace: create it (and any missing parent directories) or \
replace all of its contents with `content`. The file is written exactly as given: \
a new file as UTF-8, while an existing file keeps its encoding (e.g. Latin-1 or \
UTF-16) and its permissions. To change part of an existing file \
use Edit instead, which needs only the changed text. If you have read the file \
before, Write refuses when it has changed since; read it again first."""


class WriteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(
        description="Path of the file, relative to the workspace root or absolute."
    )
    content: str = Field(description="The complete new contents of the file.")


async def write_file(args: WriteArgs, context: ToolContext) -> str:
    placed = context.place(args.file_path, tool=NAME, action="written")
    with current_file(
        placed, tool=NAME, shown=args.file_path, checkpoint=context.checkpoint
    ) as current:
        mode = regular_mode(current.info, args.file_path, NAME)
        context.files.check_unchanged(placed.path, current.info, tool=NAME, shown=args.file_path)
        data = _encode(args, _decoded(current.data)[1])
        if context.editor is not None:
            written = await write_through(
                context.editor, placed.path, args.content, tool=NAME, shown=args.file_path
            )
        else:
            written = _replaced(current, data, mode, args.file_path)
    context.files.remember(placed.path, written)
    verb = "Created" if mode is None else "Replaced the contents of"
    return f"{verb} {args.file_path} ({_lines(args.content)}, {len(data):,} bytes)."


def _replaced(current: Current, data: bytes, mode: int | None, shown: str) -> os.stat_result:
    try:
        return current.replace(data, NEW_FILE_MODE if mode is None else mode)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(
            NAME, f"Cannot write {shown}: a parent of it is a file, not a directory."
        ) from None
    except OSError as error:
        raise ToolError(
            NAME, f"Cannot write {shown}: {error.strerror or error}. Nothing was changed."
        ) from error


def _lines(content: str) -> str:
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return "1 line" if lines == 1 else f"{lines} lines"


def outcome(arguments: JsonObject, output: str) -> str:
    """``wrote 2 lines``: the lines the call wrote, not the lines of its report."""
    content = arguments.get("content")
    return f"wrote {_lines(content)}" if isinstance(content, str) else count_lines(output)


def preview(path: Path, args: WriteArgs) -> tuple[str, str]:
    """The file's text before and after the call, for the approval prompt's diff."""
    before, encoding = _current(path)
    _encode(args, encoding)
    return before, args.content


def change_diff(arguments: JsonObject, workspace: Path) -> list[str]:
    """The diff a Write call would make, for the approval prompt and the REPL."""
    return file_diff(
        arguments, workspace, lambda path: preview(path, WriteArgs.model_validate(arguments))
    )


def unencodable(shown: str, source: str, error: UnencodableText) -> str:
    """What Write and Edit tell the model when ``source`` has a character the file cannot."""
    name = error.encoding.name
    convert = ", or convert the file to UTF-8 first" if error.encoding == LATIN1 else ""
    return (
        f"{shown} is {name} text, which cannot hold {error.character} from {source}; "
        f"nothing was changed. Use only characters {name} has (write others as escapes "
        f"the file's language understands){convert}."
    )


def _current(path: Path) -> tuple[str, TextEncoding]:
    """The file's text now, and the encoding new contents are written in."""
    try:
        return _decoded(read_regular(path))
    except OSError:
        return "", UTF8


def _decoded(raw: bytes) -> tuple[str, TextEncoding]:
    try:
        return decode_text(raw)
    except NotText:
        return raw.decode("utf-8", "replace"), UTF8


def _encode(args: WriteArgs, encoding: TextEncoding) -> bytes:
    try:
        return encode_text(args.content, encoding)
    except UnencodableText as error:
        raise ToolError(NAME, unencodable(args.file_path, "content", error)) from None


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=WriteArgs,
    read_only=False,
    kind="edit",
    handler=write_file,
    path_argument="file_path",
    summary_keys=("file_path",),
    diff=change_diff,
    outcome=outcome,
)
