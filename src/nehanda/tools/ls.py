"""LS: the entries of one directory, sorted, directories marked with a trailing ``/``."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.output import cap_lines

NAME = "LS"
MAX_ENTRIES = 1000

DESCRIPTION = f"""\
List the entries of one directory in the workspace (not recursive), sorted by name. \
Directories end with `/`; symbolic links show as `name -> target`. At most \
{MAX_ENTRIES} entries are shown. Use Glob to find files by name pattern across \
directories, and Read to see a file's contents."""


class LSArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        default=".",
        description="Directory to list, relative to the workspace root or absolute.",
    )


async def list_directory(args: LSArgs, context: ToolContext) -> str:
    path = context.resolve_walk(args.path, tool=NAME, action="listed")
    if path.is_file():
        raise ToolError(NAME, f"{args.path} is a file, not a directory; use Read to see it.")
    try:
        with os.scandir(path) as scan:
            entries = sorted(
                (entry for entry in scan if not context.hidden(Path(entry.path))),
                key=lambda entry: entry.name,
            )
    except FileNotFoundError:
        raise ToolError(NAME, f"Directory not found: {args.path}.") from None
    except OSError as error:
        raise ToolError(NAME, f"Cannot list {args.path}: {error.strerror}.") from error
    if not entries:
        return f"({args.path} is an empty directory.)"
    return cap_lines([_describe(entry) for entry in entries], MAX_ENTRIES)


def _describe(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        try:
            return f"{entry.name} -> {Path(entry.path).readlink()}"
        except OSError:
            return entry.name
    if entry.is_dir(follow_symlinks=False):
        return entry.name + "/"
    return entry.name


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=LSArgs,
    read_only=True,
    kind="search",
    handler=list_directory,
    path_argument="path",
    path_default=".",
    summary_keys=("path",),
)
