"""Grep: search file contents with a regular expression (ripgrep when present).

ripgrep runs outside the sandbox, so only the one found at start where no command can
write (``ToolContext.programs``) is ever run; without it the Python backend searches.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.grep_search import AddMatch, GrepQuery, looks_binary, search_python
from nehanda.tools.ripgrep import search_ripgrep

NAME = "Grep"
MAX_RESULTS = 1000
MAX_LINE_CHARS = 500

OutputMode = Literal["content", "files_with_matches", "count"]

DESCRIPTION = f"""\
Search the contents of files in the workspace for a regular expression. Output modes: \
"content" (default) gives `path:line:text` for each matching line; "files_with_matches" \
gives the paths of matching files; "count" gives `path:count`. Paths are relative to \
the workspace root, in path order. Files ignored by .gitignore, binary files and the \
.git directory are skipped. Use glob to limit the files searched: one without `/` \
matches file names at any depth (`*.py`), one with `/` matches paths from the \
workspace root (`src/**/*.{{ts,tsx}}`); start it with `!` to exclude. The syntax \
is the common regex subset: `.`, `\\w`, `\\d`, `\\s`, `[...]`, `(a|b)`, `*`, `+`, \
`?`, `{{n,m}}`, `^`, `$`; escape literal brackets and dots; avoid look-around and \
backreferences. At most {MAX_RESULTS} results; matched lines are cut at \
{MAX_LINE_CHARS} characters. Use Glob to find files by name."""


class GrepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, description="Regular expression to search for.")
    path: str = Field(
        default=".",
        description="File or directory to search, relative to the workspace root or absolute.",
    )
    glob: str | None = Field(
        default=None, description='Only search files matching this glob, e.g. "*.py".'
    )
    ignore_case: bool = Field(default=False, description="Match letters in either case.")
    output_mode: OutputMode = Field(default="content", description="What to show.")


@dataclass
class GrepResults:
    """Collects matches up to ``MAX_RESULTS`` lines (content) or files (other modes)."""

    mode: OutputMode
    lines: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    stopped: bool = False

    def add(self, rel: str, number: int, text: str) -> bool:
        if self.mode == "content":
            if len(self.lines) >= MAX_RESULTS:
                self.stopped = True
                return False
            if len(text) > MAX_LINE_CHARS:
                text = f"{text[:MAX_LINE_CHARS]}... [{len(text) - MAX_LINE_CHARS} more characters]"
            self.lines.append(f"{rel}:{number}:{text}")
            return True
        if rel not in self.counts and len(self.counts) >= MAX_RESULTS:
            self.stopped = True
            return False
        self.counts[rel] = self.counts.get(rel, 0) + 1
        return True

    def render(self) -> str:
        if self.mode == "content":
            shown, unit = self.lines, "matching lines"
        elif self.mode == "count":
            shown, unit = [f"{rel}:{count}" for rel, count in self.counts.items()], "files"
        else:
            shown, unit = list(self.counts), "files"
        text = "\n".join(shown)
        if self.stopped:
            text += f"\n\n(Stopped after {MAX_RESULTS} {unit}; narrow the pattern, path or glob.)"
        return text


async def grep(args: GrepArgs, context: ToolContext) -> str:
    target = context.resolve_walk(args.path, tool=NAME, action="searched")
    if not (target.is_file() or target.is_dir()):
        raise ToolError(NAME, f"Not found: {args.path} is neither a file nor a directory.")
    if target.is_file() and looks_binary(target):
        return f"{args.path} is a binary file; Grep searches text files only."
    query = GrepQuery(
        workspace=context.workspace,
        target=target,
        pattern=args.pattern,
        ignore_case=args.ignore_case,
        glob=args.glob,
        one_per_file=args.output_mode == "files_with_matches",
        hidden=context.hidden,
    )
    results = GrepResults(args.output_mode)
    rg = context.programs.ripgrep
    if rg is None:
        await asyncio.to_thread(search_python, query, results.add)
    else:
        await search_ripgrep(rg, query, _unhidden(query, results.add))
    if not (results.lines or results.counts):
        where = "the workspace" if args.path in (".", "") else args.path
        return f"No matches for {args.pattern!r} in {where}."
    return results.render()


def _unhidden(query: GrepQuery, add: AddMatch) -> AddMatch:
    """``add`` for the matches outside hidden places: ripgrep walks on its own."""

    def add_shown(rel: str, number: int, text: str) -> bool:
        path = Path(os.path.normpath(query.workspace / rel))
        if any(query.hidden(place) for place in (path, *path.parents)):
            return True
        return add(rel, number, text)

    return add_shown


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=GrepArgs,
    read_only=True,
    kind="search",
    handler=grep,
    path_argument="path",
    path_default=".",
    summary_keys=("path", "pattern"),
)
