"""What Grep searches, and its pure-Python backend (``ripgrep`` is the other one).

Both backends report each matching line through the same callback, so the tool
formats their results identically. They agree on what is searched: .gitignore
honoured (also outside a git repository), hidden files included, ``.git`` skipped,
binary files skipped, symlinks met while walking not followed, files in path order.

The Python backend matches with the ``regex`` package, whose searches take a timeout:
``re`` holds the GIL and cannot be stopped, so a pattern that backtracks without end
(``(a+)+$``) would hang the run. The whole search gets ``PYTHON_BUDGET_S`` of matching
time (reading files does not count); past it the model is told to simplify the pattern.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from nehanda.errors import ToolError
from nehanda.tools.paths import workspace_relative
from nehanda.tools.patterns import compile_glob
from nehanda.tools.walk import WalkedFile, walk_files

if TYPE_CHECKING:
    import regex

NAME = "Grep"
SNIFF_BYTES = 8192
# Larger files are read line by line instead of whole.
MAX_WHOLE_FILE_BYTES = 32 * 1024 * 1024
# Seconds the Python backend may spend matching, for the whole search.
PYTHON_BUDGET_S = 10.0

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


@dataclass
class _Matcher:
    """The pattern, for one line and for a whole text, searched within the budget."""

    line: regex.Pattern[str]
    text: regex.Pattern[str] | None  # None: the pattern could misjudge a whole text
    spent: float = 0.0

    def search(self, pattern: regex.Pattern[str], subject: str) -> bool:
        started, remaining = time.monotonic(), PYTHON_BUDGET_S - self.spent
        try:
            if remaining <= 0:
                raise TimeoutError
            return pattern.search(subject, timeout=remaining) is not None
        except TimeoutError:
            raise ToolError(
                NAME,
                f"The search took over {PYTHON_BUDGET_S:.0f} s and was stopped: the pattern "
                "may backtrack without end (nested repetition such as (a+)+ or (a|a)*). "
                "Simplify the pattern, or narrow the path or glob.",
            ) from None
        finally:
            self.spent += time.monotonic() - started


def search_python(query: GrepQuery, add: AddMatch) -> None:
    import regex  # loaded by the first search, not by every start

    flags = regex.IGNORECASE if query.ignore_case else 0
    try:
        line_regex = regex.compile(query.pattern, flags)
    except regex.error as error:
        raise ToolError(NAME, f"Invalid regular expression {query.pattern!r}: {error}.") from None
    # Most files do not match: one search over the whole text rules them out at C speed.
    # It may only err towards searching a file, so patterns it could misjudge opt out.
    sensitive = any(token in query.pattern for token in _LINE_END_SENSITIVE)
    text_regex = None if sensitive else regex.compile(query.pattern, flags | regex.MULTILINE)
    matcher = _Matcher(line_regex, text_regex)
    for file in _files(query):
        if not _search_file(file, matcher, query.one_per_file, add):
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


def _search_file(file: WalkedFile, matcher: _Matcher, one_per_file: bool, add: AddMatch) -> bool:
    """Report the file's matching lines; False once ``add`` wants no more."""
    try:
        with Path(file.path).open("rb") as handle:
            for number, line in enumerate(_candidate_lines(handle, matcher), 1):
                if matcher.search(matcher.line, line):
                    if not add(file.rel, number, line):
                        return False
                    if one_per_file:
                        break
    except OSError:
        pass  # unreadable or gone meanwhile: like rg, carry on with the other files
    return True


def _candidate_lines(handle: BinaryIO, matcher: _Matcher) -> Iterator[str]:
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
    if matcher.text is not None:
        plain = _CR_AT_LINE_END.sub("", text) if "\r" in text else text
        if not matcher.search(matcher.text, plain):
            return
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    for line in lines:
        yield line.rstrip("\r")
