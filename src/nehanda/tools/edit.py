"""Edit: replace an exact piece of text in a file, keeping its line endings and encoding.

The model writes ``old_string`` with the ``\\n`` line endings Read showed it; in a file
whose lines all end in CRLF both strings are matched and written with CRLF. The file
is decoded and written back in its own encoding, byte order mark included
(``text_encoding``), so no byte outside the replaced text changes. Anything but
exactly one match (or ``replace_all``) changes nothing and tells the model how many
matches there were. The file is read and replaced through its folder's descriptor
(``workfile``), so the text edited is the text replaced, inside the workspace.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import EditorFiles, Tool, ToolContext
from nehanda.tools.diff import file_diff
from nehanda.tools.text_encoding import (
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
from nehanda.tools.write import unencodable
from nehanda.types import JsonObject, count_lines

NAME = "Edit"
_REPLACED = re.compile(r"^Edited .*: replaced (\d+ occurrences?) \(the first at line \d+\)\.$")

DESCRIPTION = """\
Change a file in the workspace by replacing old_string with new_string. old_string \
must match the file exactly, including indentation and blank lines, and without the \
line-number prefix Read shows; include enough surrounding lines to make it unique. \
If it occurs more than once, the edit fails and says how many times: add context, or \
set replace_all=true to change every occurrence (e.g. to rename something). Line \
endings and the encoding (UTF-8, UTF-16, Latin-1) are kept as the file has them. Read \
the file first; if it changed since you read it, Edit refuses and you must read it again. \
To create a file use Write."""


class EditArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(
        description="Path of the file, relative to the workspace root or absolute."
    )
    old_string: str = Field(min_length=1, description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


async def edit_file(args: EditArgs, context: ToolContext) -> str:
    shown = args.file_path
    placed = context.place(shown, tool=NAME, action="edited")
    with current_file(placed, tool=NAME, shown=shown, checkpoint=context.checkpoint) as current:
        mode = regular_mode(current.info, shown, NAME)
        context.files.check_unchanged(placed.path, current.info, tool=NAME, shown=shown)
        text, encoding = _decode(current.data, shown) if mode is not None else ("", UTF8)
        if context.editor is not None:
            text = await _editor_text(context.editor, placed.path, shown)
        elif mode is None:
            raise _missing(shown)
        after, count, line = apply_edit(text, args)
        data = _encode(after, encoding, shown)
        if context.editor is not None:
            written = await write_through(
                context.editor, placed.path, after, tool=NAME, shown=shown
            )
        else:
            assert mode is not None  # a file not there was refused above
            written = _replaced(current, data, mode)
    context.files.remember(placed.path, written)
    return f"Edited {shown}: replaced {_occurrences(count)} (the first at line {line})."


async def _editor_text(editor: EditorFiles, path: Path, shown: str) -> str:
    """The editor's text of the file (its buffer, saved or not)."""
    try:
        return await editor.read_text(path)
    except OSError:
        raise _missing(shown) from None


def _missing(shown: str) -> ToolError:
    return ToolError(NAME, f"File not found: {shown}. Use Write to create a new file.")


def _replaced(current: Current, data: bytes, mode: int) -> os.stat_result:
    try:
        return current.replace(data, mode)
    except OSError as error:
        raise ToolError(
            NAME,
            f"Cannot write {current.shown}: {error.strerror or error}. Nothing was changed.",
        ) from error


def _occurrences(count: int) -> str:
    return "1 occurrence" if count == 1 else f"{count} occurrences"


def outcome(arguments: JsonObject, output: str) -> str:
    """``replaced 2 occurrences``, as the report the call made says."""
    found = _REPLACED.search(output)
    return f"replaced {found.group(1)}" if found else count_lines(output)


def apply_edit(text: str, args: EditArgs) -> tuple[str, int, int]:
    """The edited text, how many occurrences were replaced, and the first one's line."""
    eol = _line_ending(text)
    old, new = _with_eol(args.old_string, eol), _with_eol(args.new_string, eol)
    if old == new:
        raise ToolError(NAME, "old_string and new_string are the same; there is nothing to change.")
    count = text.count(old)
    if count == 0:
        raise ToolError(NAME, _not_found(args.file_path, text, eol))
    if count > 1 and not args.replace_all:
        raise ToolError(
            NAME,
            f"old_string occurs {count} times in {args.file_path}; nothing was changed. "
            "Include more surrounding lines so that it matches exactly one place, or set "
            "replace_all=true to replace every occurrence.",
        )
    line = text.count("\n", 0, text.find(old)) + 1
    replaced = text.replace(old, new) if args.replace_all else text.replace(old, new, 1)
    return replaced, count if args.replace_all else 1, line


def preview(path: Path, args: EditArgs) -> tuple[str, str]:
    """The file's text before and after the call, for the approval prompt's diff."""
    text, encoding = _decode(_read(path, args.file_path), args.file_path)
    after = apply_edit(text, args)[0]
    _encode(after, encoding, args.file_path)
    return text, after


def change_diff(arguments: JsonObject, workspace: Path) -> list[str]:
    """The diff an Edit call would make, for the approval prompt and the REPL."""
    return file_diff(
        arguments, workspace, lambda path: preview(path, EditArgs.model_validate(arguments))
    )


def _read(path: Path, shown: str) -> bytes:
    try:
        return read_regular(path)
    except OSError as error:
        raise ToolError(NAME, f"Cannot read {shown}: {error.strerror}.") from error


def _decode(raw: bytes, shown: str) -> tuple[str, TextEncoding]:
    try:
        return decode_text(raw)
    except NotText:
        raise ToolError(
            NAME, f"{shown} is a binary file, not text; Edit changes text files only."
        ) from None


def _encode(text: str, encoding: TextEncoding, shown: str) -> bytes:
    try:
        return encode_text(text, encoding)
    except UnencodableText as error:
        raise ToolError(NAME, unencodable(shown, "new_string", error)) from None


def _line_ending(text: str) -> str:
    """CRLF when every line of ``text`` ends so; otherwise the model's strings stay as given."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"


def _with_eol(text: str, eol: str) -> str:
    return text if eol == "\n" else text.replace("\r\n", "\n").replace("\n", eol)


def _not_found(shown: str, text: str, eol: str) -> str:
    message = (
        f"old_string was not found in {shown}; nothing was changed. It must match the file "
        "exactly, including indentation and whitespace, without Read's line-number prefix. "
        "Read the file again and copy the text exactly."
    )
    if eol == "\n" and "\r\n" in text:
        message += " The file mixes CRLF and LF line endings: match within one line."
    return message


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=EditArgs,
    read_only=False,
    kind="edit",
    handler=edit_file,
    path_argument="file_path",
    summary_keys=("file_path",),
    diff=change_diff,
    outcome=outcome,
)
