"""``nehanda sessions``: the saved sessions as an aligned table, newest first.

A session with no answer yet (started, then left before the model replied) is left out:
there is nothing in it to resume.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from nehanda.engine.transcript import Session, iter_sessions, read_session

DEFAULT_LIMIT = 50
PROMPT_WIDTH = 60
HEADINGS = ("ID", "STARTED", "TURNS", "FOLDER", "FIRST PROMPT")


def describe_sessions(
    workspace: Path | None, directory: Path | None = None, limit: int = DEFAULT_LIMIT
) -> str:
    """Sessions of ``workspace`` (or of every folder when ``None``), at most ``limit``."""
    rows: list[tuple[str, ...]] = []
    more = False
    for _, session in sessions_of(workspace, directory):
        folder = str(session.header.get("workspace", "?"))
        if len(rows) == limit:
            more = True
            break
        started = str(session.header.get("started", "?"))[:16].replace("T", " ")
        prompt = " ".join(session.first_prompt.split())
        if len(prompt) > PROMPT_WIDTH:
            prompt = prompt[: PROMPT_WIDTH - 1] + "…"
        rows.append((session.id, started, str(session.turns), folder, prompt))
    if not rows:
        where = f" in {workspace}" if workspace else ""
        return f"no sessions{where} yet"
    lines = _aligned([HEADINGS, *rows])
    if more:
        lines.append(f"(the newest {limit} shown; --limit N shows more)")
    return "\n".join(lines)


def sessions_of(
    workspace: Path | None, directory: Path | None = None
) -> Iterator[tuple[Path, Session]]:
    """The sessions with an answer in them, of ``workspace`` (every folder's when
    ``None``), the most recently written first, each with its file."""
    for path in iter_sessions(directory):
        session = read_session(path)
        folder = str(session.header.get("workspace", "?"))
        if (workspace is None or folder == str(workspace)) and session.turns:
            yield path, session


def age(seconds: float) -> str:
    """How long ago, as a person says it: "just now", "5 min ago", "3 days ago"."""
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            count = int(seconds // size)
            plural = "s" if unit == "day" and count != 1 else ""
            return f"{count} {unit}{plural} ago"
    return "just now"


def age_of(path: Path, now: float | None = None) -> str:
    """How long ago the session in ``path`` was last written to."""
    return age((now or time.time()) - path.stat().st_mtime)


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """Columns padded to their widest cell; the turn count right-aligned, the last left ragged."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS) - 1)]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if index == 2 else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines
