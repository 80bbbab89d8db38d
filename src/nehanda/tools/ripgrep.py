"""Grep's ripgrep backend: runs ``rg --json`` and reports its matches.

Its flags make rg search what the Python backend (``grep_search``) searches, so the
tool's answer does not depend on which one ran.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from contextlib import suppress
from typing import Any

from nehanda.errors import ToolError
from nehanda.tools.grep_search import NAME, AddMatch, GrepQuery
from nehanda.tools.paths import workspace_relative

RG_TIMEOUT_S = 60.0
# A matching line arrives as one JSON line from rg; minified files make long ones.
RG_LINE_LIMIT = 64 * 1024 * 1024


async def search_ripgrep(rg: str, query: GrepQuery, add: AddMatch) -> None:
    process = await asyncio.create_subprocess_exec(
        *ripgrep_command(rg, query),
        cwd=query.workspace,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=RG_LINE_LIMIT,
    )
    assert process.stdout is not None and process.stderr is not None
    errors = asyncio.ensure_future(process.stderr.read())  # read so rg never blocks on it
    printed = False
    try:
        async with asyncio.timeout(RG_TIMEOUT_S):
            printed, finished = await _read_matches(process.stdout, add)
            if finished:
                await process.wait()
    except TimeoutError:
        raise ToolError(
            NAME, f"The search took over {RG_TIMEOUT_S:.0f} s; narrow the path or glob."
        ) from None
    finally:
        if process.returncode is None:
            with suppress(ProcessLookupError):
                process.kill()
        await process.wait()
        message = (await errors).decode("utf-8", "replace").strip()
    if process.returncode == 2 and not printed:
        raise ToolError(NAME, f"ripgrep refused the search: {message}")


def ripgrep_command(rg: str, query: GrepQuery) -> list[str]:
    command = [rg, "--json", "--no-config", "--hidden", "--no-require-git", "--no-ignore-dot"]
    command += ["--crlf", "--sort", "path", "--glob", "!.git"]
    if query.ignore_case:
        command.append("--ignore-case")
    if query.glob is not None:
        command += ["--glob", query.glob]
    if query.one_per_file:
        command += ["--max-count", "1"]
    target = workspace_relative(query.target, query.workspace)
    return [*command, "--regexp", query.pattern, "--", target]


async def _read_matches(stdout: asyncio.StreamReader, add: AddMatch) -> tuple[bool, bool]:
    """Feed rg's JSON matches to ``add``: (anything printed, read to the end)."""
    printed = False
    while line := await stdout.readline():
        printed = True
        message = json.loads(line)
        if message.get("type") != "match":
            continue
        data = message["data"]
        rel = os.path.normpath(_text(data["path"]))  # "./src/a.py" -> "src/a.py"
        text = _text(data["lines"]).rstrip("\r\n")
        if not add(rel, data["line_number"], text):
            return printed, False
    return printed, True


def _text(field: dict[str, Any]) -> str:
    """rg sends UTF-8 as ``text`` and anything else base64-encoded as ``bytes``."""
    if "text" in field:
        return str(field["text"])
    return base64.b64decode(field["bytes"]).decode("utf-8", "replace")
