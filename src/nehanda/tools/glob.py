"""Glob: find files by name pattern, newest first, honouring .gitignore."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.output import cap_lines
from nehanda.tools.paths import workspace_relative
from nehanda.tools.patterns import MAGIC_CHARS, compile_glob
from nehanda.tools.walk import walk_files
from nehanda.types import JsonObject

NAME = "Glob"
MAX_RESULTS = 500

DESCRIPTION = f"""\
Find files whose path matches a glob pattern, e.g. `**/*.py`, `src/**/*.{{ts,tsx}}` or \
`docs/*.md`. The pattern is matched against paths relative to `path` (default: the \
workspace root): `*` and `?` stay within one directory level, `**` spans any number \
of directories, `[abc]` and `{{a,b}}` work as in the shell. So `*.py` finds Python files \
directly in `path` only; use `**/*.py` to search below it too. Files ignored by \
.gitignore and the .git directory are skipped. Paths come back relative to the \
workspace root, most recently modified first, at most {MAX_RESULTS}. Use Grep to \
search file contents."""


class GlobArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, description="Glob pattern, e.g. **/*.py")
    path: str = Field(
        default=".",
        description="Directory to search in, relative to the workspace root or absolute.",
    )


async def find_files(args: GlobArgs, context: ToolContext) -> str:
    base, rest = split_literal_prefix(args.pattern)
    root = context.resolve_walk(args.path, tool=NAME, action="searched")
    if not root.is_dir():
        raise ToolError(NAME, f"{args.path} is not a directory; give Glob a directory as path.")
    if base:
        root = context.resolve_walk(str(root / base), tool=NAME, action="searched")
        if not root.is_dir():
            return f"No files match {args.pattern!r}: there is no directory {base}."
    try:
        regex = compile_glob(rest)
    except ValueError as error:
        raise ToolError(NAME, f"Invalid glob pattern {args.pattern!r}: {error}.") from None
    depth = None if "**" in rest or "{" in rest else rest.count("/") + 1
    found = await asyncio.to_thread(_newest_first, context, root, regex, depth)
    if not found:
        return f"No files match {args.pattern!r} in {_where(args.path)}."
    return cap_lines(found, MAX_RESULTS)


def split_literal_prefix(pattern: str) -> tuple[str, str]:
    """Split off the leading directories without wildcards: only those need walking.

    ``"src/**/*.py"`` -> ``("src", "**/*.py")``; the last segment always stays in the rest.
    """
    segments = pattern.split("/")
    count = 0
    while count < len(segments) - 1 and not MAGIC_CHARS.intersection(segments[count]):
        count += 1
    base = "/".join(segments[:count])
    if not base and pattern.startswith("/"):
        base = "/"
    return base, "/".join(segments[count:])


def pattern_directory(arguments: JsonObject, path: str) -> list[str]:
    """Where a call walks from besides ``path``: ``path`` joined with the pattern's
    literal leading directories."""
    pattern = arguments.get("pattern")
    base = split_literal_prefix(pattern)[0] if isinstance(pattern, str) else ""
    return [str(Path(path) / base)] if base else []


def _newest_first(
    context: ToolContext, root: Path, regex: re.Pattern[str], max_depth: int | None
) -> list[str]:
    workspace = context.workspace
    prefix = workspace_relative(root, workspace) + "/"
    start = 0 if prefix == "./" else len(prefix)
    stamped: list[tuple[float, str]] = []
    walked = walk_files(
        workspace, root, follow_symlinks=True, max_depth=max_depth, hidden=context.hidden
    )
    for file in walked:
        if regex.fullmatch(file.rel[start:]):
            try:
                stamped.append((-Path(file.path).stat().st_mtime, file.rel))
            except OSError:
                continue
    return [rel for _, rel in sorted(stamped)]


def _where(path: str) -> str:
    return "the workspace" if path in (".", "") else path


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=GlobArgs,
    read_only=True,
    kind="search",
    handler=find_files,
    path_argument="path",
    path_default=".",
    more_paths=pattern_directory,
    summary_keys=("path", "pattern"),
)
