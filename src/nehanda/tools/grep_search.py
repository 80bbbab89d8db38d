"""What Grep searches, and its pure-Python backend (``ripgrep`` is the other one).

Both backends report each matching line through the same callback, so the tool
formats their results identically. They agree on what is searched: .gitignore
honoured (also outside a git repository), hidden files included, ``.git`` skipped,
binary files skipped, symlinks met while walking not followed, files in path order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from nehanda.errors import ToolError
from nehanda.tools.paths import workspace_relative
from nehanda.tools.patterns import compile_glob
from nehanda.tools.walk import WalkedFile, walk_files

NAME = "Grep"
SNIFF_BYTES = 8192
# Larger files are read line by line instead of whole.
MAX_WHOLE_FILE_BYTES = 32 * 1024 * 1024

# What behaves differently at a line's ends once the line sits inside a whole text.
_LINE_END_SENSITIVE = ("\\A", "\\Z", "(?=", "(?!", "(?<=", "(?<!")
_CR_AT_LINE_END = re.compile(r"\r+(?=\n|\Z)")

# Called with (workspace-relative path, line number, line text); False stops the search.
AddMatch = Callable[[str, int, str], bool]


@dataclass(frozen=True)
class GrepQuery:
    workspace: Path
    target: Path  # resolved, inside the workspace: a regular file or a directory
    pattern: str
    ignore_case: bool = False
    glob: str | None = None
    one_per_file: bool = False  # only whether a file matches is wanted
    hidden: Callable[[Path], bool] = lambda path: False  # ToolContext.hidden


def looks_binary(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return b"\0" in handle.read(SNIFF_BYTES)
    except OSError:
        return False


def search_python(query: GrepQuery, add: AddMatch) -> None:
    flags = re.IGNORECASE if query.ignore_case else 0
    try:
        line_regex = re.compile(query.pattern, flags)
    except re.error as error:
        raise ToolError(NAME, f"Invalid regular expression {query.pattern!r}: {error}.") from None
    # Most files do not match: one search over the whole text rules them out at C speed.
    # It may only err towards searching a file, so patterns it could misjudge opt out.
    sensitive = any(token in query.pattern for token in _LINE_END_SENSITIVE)
    text_regex = None if sensitive else re.compile(query.pattern, flags | re.MULTILINE)
    for file in _files(query):
        if not _search_file(file, line_regex, text_regex, query.one_per_file, add):
            return


def _files(query: GrepQuery) -> Iterable[WalkedFile]:
    if query.target.is_file():
        return [WalkedFile(str(query.target), workspace_relative(query.target, query.workspace))]
    walked = walk_files(query.workspace, query.target, follow_symlinks=False, hidden=query.hidden)
    if query.glob is None:
        return walked
    return _filtered(walked, query.glob)


def _filtered(walked: Iterator[WalkedFile], glob: str) -> Iterator[WalkedFile]:
    """Files passing ``glob``, as rg reads one run from the workspace root: a glob
    without ``/`` matches names at any depth, one with ``/`` the workspace-relative path.
    """
    negate = glob.startswith("!")
    pattern = glob.removeprefix("!")
    regex = _compile_file_glob(pattern)
    for file in walked:
        subject = file.rel if "/" in pattern else file.rel.rsplit("/", 1)[-1]
        if bool(regex.fullmatch(subject)) != negate:
            yield file


def _compile_file_glob(pattern: str) -> re.Pattern[str]:
    try:
        return compile_glob(pattern)
    except ValueError as error:
        raise ToolError(NAME, f"Invalid glob {pattern!r}: {error}.") from None


def _search_file(
    file: WalkedFile,
    line_regex: re.Pattern[str],
    text_regex: re.Pattern[str] | None,
    one_per_file: bool,
    add: AddMatch,
) -> bool:
    """Report the file's matching lines; False once ``add`` wants no more."""
    try:
        with Path(file.path).open("rb") as handle:
            for number, line in enumerate(_candidate_lines(handle, text_regex), 1):
                if line_regex.search(line):
                    if not add(file.rel, number, line):
                        return False
                    if one_per_file:
                        break
    except OSError:
        pass  # unreadable or gone meanwhile: like rg, carry on with the other files
    return True


def _candidate_lines(handle: BinaryIO, text_regex: re.Pattern[str] | None) -> Iterator[str]:
    """The lines of a text file (``\\n``-separated, as rg), none if it cannot match."""
    head = handle.read(SNIFF_BYTES)
    if b"\0" in head:
        return
    if os.fstat(handle.fileno()).st_size > MAX_WHOLE_FILE_BYTES:
        handle.seek(0)
        for raw in handle:
            yield raw.decode("utf-8", "replace").rstrip("\r\n")
        return
    text = (head + handle.read()).decode("utf-8", "replace")
    if not text:
        return
    if text_regex is not None:
        plain = _CR_AT_LINE_END.sub("", text) if "\r" in text else text
        if not text_regex.search(plain):
            return
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    for line in lines:
        yield line.rstrip("\r")
